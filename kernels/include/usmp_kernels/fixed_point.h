/*
 * Fixed-point math on int32 raw values, with gemmlowp's rounding rules.
 *
 * A value in format Qm (m integer bits) is raw / 2^(31 - m). TFLite's int8
 * SOFTMAX evaluates exp and 1/(1+x) this way; matching it bit for bit needs
 * the same polynomial, the same Newton-Raphson steps and the same rounding at
 * every multiply, so these functions follow that arithmetic step by step.
 * (int8 LOGISTIC and TANH use the same arithmetic, run by the compiler into a
 * lookup table: scripts/usmp/lower/ops/activations.py.) Everything is
 * integer: multiplies are 32x32->64 (no division), so it runs on a Cortex-M0.
 */
#ifndef USMP_KERNELS_FIXED_POINT_H
#define USMP_KERNELS_FIXED_POINT_H

#include <stdint.h>

#include "usmp_kernels/arith.h"

/* exp(-2^k) in Q0, for k = -2 .. 4: multiplied in bit by bit of |x|. */
#define USMP_FP_EXP_MINUS_QUARTER 1672461947
#define USMP_FP_EXP_MINUS_HALF 1302514674
#define USMP_FP_EXP_MINUS_1 790015084
#define USMP_FP_EXP_MINUS_2 290630308
#define USMP_FP_EXP_MINUS_4 39332535
#define USMP_FP_EXP_MINUS_8 720401
#define USMP_FP_EXP_MINUS_16 242
#define USMP_FP_EXP_MINUS_EIGHTH 1895147668 /* exp(-1/8), Q0 */
#define USMP_FP_ONE_THIRD 715827883         /* 1/3, Q0 */
#define USMP_FP_48_OVER_17 1515870810       /* Q2: Newton-Raphson start */
#define USMP_FP_MINUS_32_OVER_17 (-1010580540)
#define USMP_FP_ONE_Q0 INT32_MAX          /* 1.0 saturates to the largest Q0 */
#define USMP_FP_ONE_Q2 (1 << 29)

static inline int32_t usmp_fp_mul(int32_t a, int32_t b)
{
	return usmp_sat_rounding_doubling_high_mul(a, b);
}

/* Two's-complement wrap-around add/sub/neg, as the reference's int32 math does. */
static inline int32_t usmp_fp_add(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t usmp_fp_sub(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* x * 2^exponent (exponent 1..30), saturating to the int32 range. */
static inline int32_t usmp_fp_saturating_shl(int32_t x, int32_t exponent)
{
	const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);

	if (x > threshold) {
		return INT32_MAX;
	}
	if (x < -threshold) {
		return INT32_MIN;
	}
	return (int32_t)((uint32_t)x << exponent);
}

/* (a + b) / 2, rounded to nearest with halves away from zero. */
static inline int32_t usmp_fp_rounding_half_sum(int32_t a, int32_t b)
{
	const int64_t sum = (int64_t)a + (int64_t)b;
	const int64_t t = sum + (sum >= 0 ? 1 : -1);

	return (int32_t)(t >= 0 ? (t >> 1) : -((-t) >> 1));
}

/* exp(a) for a in [-1/4, 0), Q0 in and out: Taylor series around -1/8. */
static inline int32_t usmp_fp_exp_quarter_interval(int32_t a)
{
	const int32_t x = usmp_fp_add(a, 1 << 28);
	const int32_t x2 = usmp_fp_mul(x, x);
	const int32_t x3 = usmp_fp_mul(x2, x);
	const int32_t x4 = usmp_fp_mul(x2, x2);
	const int32_t x4_over_4 = usmp_rounding_divide_by_pot(x4, 2);
	const int32_t poly = usmp_rounding_divide_by_pot(
		usmp_fp_add(usmp_fp_mul(usmp_fp_add(x4_over_4, x3), USMP_FP_ONE_THIRD), x2), 1);

	return usmp_fp_add(USMP_FP_EXP_MINUS_EIGHTH,
			   usmp_fp_mul(USMP_FP_EXP_MINUS_EIGHTH, usmp_fp_add(x, poly)));
}

/* exp(a) for a <= 0 given in Q(integer_bits), integer_bits 0..6; result Q0. */
static inline int32_t usmp_fp_exp_on_negative_values(int32_t a, int32_t integer_bits)
{
	static const int32_t multipliers[7] = {
		USMP_FP_EXP_MINUS_QUARTER, USMP_FP_EXP_MINUS_HALF, USMP_FP_EXP_MINUS_1, USMP_FP_EXP_MINUS_2,
		USMP_FP_EXP_MINUS_4,       USMP_FP_EXP_MINUS_8,    USMP_FP_EXP_MINUS_16,
	};
	const int32_t fractional_bits = 31 - integer_bits;
	const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
	const int32_t mod_quarter = usmp_fp_sub(a & (one_quarter - 1), one_quarter);
	const int32_t remainder = usmp_fp_sub(mod_quarter, a);
	int32_t rescaled = integer_bits > 0 ? usmp_fp_saturating_shl(mod_quarter, integer_bits) : mod_quarter;
	int32_t result = usmp_fp_exp_quarter_interval(rescaled);
	int32_t k;

	/* k indexes exponents -2..4; bit (fractional_bits + exponent) of |a| selects exp(-2^exponent). */
	for (k = 0; k < 7 && integer_bits > k - 2; k++) {
		if (remainder & (int32_t)((uint32_t)1 << (fractional_bits + k - 2))) {
			result = usmp_fp_mul(result, multipliers[k]);
		}
	}
	if (integer_bits > 5 && a < -((int32_t)1 << (36 - integer_bits))) {
		result = 0; /* below -32: exp underflows */
	}
	return a == 0 ? USMP_FP_ONE_Q0 : result;
}

/* Newton-Raphson for 1 / (2 * half_denominator), Q0 in, Q2 out (three steps). */
static inline int32_t usmp_fp_newton_reciprocal_q2(int32_t half_denominator)
{
	int32_t x = usmp_fp_add(USMP_FP_48_OVER_17, usmp_fp_mul(half_denominator, USMP_FP_MINUS_32_OVER_17));
	int32_t i;

	for (i = 0; i < 3; i++) {
		const int32_t one_minus = usmp_fp_sub(USMP_FP_ONE_Q2, usmp_fp_mul(half_denominator, x));

		x = usmp_fp_add(x, usmp_fp_saturating_shl(usmp_fp_mul(x, one_minus), 2));
	}
	return x;
}

/* 1 / (1 + a) for a in [0, 1), Q0 in and out. */
static inline int32_t usmp_fp_one_over_one_plus_x(int32_t a)
{
	const int32_t x = usmp_fp_newton_reciprocal_q2(usmp_fp_rounding_half_sum(a, USMP_FP_ONE_Q0));

	return usmp_fp_saturating_shl(x, 1); /* Q2 / 2 read as Q1, then to Q0 */
}

/* Leading zero bits of x, 32 for 0 (Cortex-M0 has no CLZ instruction). */
static inline int32_t usmp_fp_count_leading_zeros(uint32_t x)
{
	int32_t n = 0;

	if (x == 0u) {
		return 32;
	}
	while (!(x & 0x80000000u)) {
		x <<= 1;
		n++;
	}
	return n;
}

/*
 * 1 / x for x > 0 in Q(integer_digits): returns the Q0 reciprocal of x
 * normalised into [1, 2), and the power of two that was divided out.
 * (x <= 0 gives a meaningless but defined result.)
 */
static inline int32_t usmp_fp_reciprocal(int32_t x, int32_t integer_digits, int32_t *num_bits_over_unit)
{
	const int32_t headroom_plus_one = usmp_fp_count_leading_zeros((uint32_t)x);
	const uint32_t shifted = headroom_plus_one < 32 ? (uint32_t)x << headroom_plus_one : 0u;
	const int32_t shifted_minus_one = (int32_t)(shifted - 0x80000000u);

	*num_bits_over_unit = integer_digits - headroom_plus_one;
	return usmp_fp_one_over_one_plus_x(shifted_minus_one);
}

#endif /* USMP_KERNELS_FIXED_POINT_H */
