/*
 * Fixed-point helpers with TFLite's integer rounding rules.
 *
 * Cortex-M0 has no 64-bit division and no hardware divide: the rounding
 * division by 2^31 below is done with an add and a shift, never '/'.
 */
#ifndef USMP_KERNELS_ARITH_H
#define USMP_KERNELS_ARITH_H

#include <stdint.h>

#include "usmp_kernels/armv6m.h"

#define USMP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define USMP_MAX(a, b) ((a) > (b) ? (a) : (b))

static inline int32_t usmp_clamp(int32_t x, int32_t lo, int32_t hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/*
 * round(a * b / 2^31), saturating the single overflow case. TFLite adds 2^30 to a product >= 0 and 1 - 2^30 to
 * a negative one, then divides truncating towards zero: for a negative product that is the floor of
 * (ab + 2^30) / 2^31 too, so one formula, floor((ab + 2^30) / 2^31), serves both signs.
 */
static inline int32_t usmp_sat_rounding_doubling_high_mul(int32_t a, int32_t b)
{
#if USMP_ARMV6M
	return usmp_armv6m_high_mul(a, b); /* no 32x32->64 multiply: usmp_kernels/armv6m.h */
#else
	if (a == INT32_MIN && b == INT32_MIN) {
		return INT32_MAX;
	}
	return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31); /* arithmetic shift: the floor */
#endif
}

/* x / 2^exponent, rounding half away from zero. */
static inline int32_t usmp_rounding_divide_by_pot(int32_t x, int32_t exponent)
{
	const int32_t mask = (int32_t)((1u << exponent) - 1u);
	const int32_t remainder = x & mask;
	const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);

	return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^(shift - 31), the requantization of TFLite. */
static inline int32_t usmp_mul_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift)
{
	const int32_t left = shift > 0 ? shift : 0;
	const int32_t right = shift > 0 ? 0 : -shift;

	return usmp_rounding_divide_by_pot(
		usmp_sat_rounding_doubling_high_mul((int32_t)((uint32_t)x << left), multiplier), right);
}

static inline float usmp_clamp_f32(float x, float lo, float hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

#endif /* USMP_KERNELS_ARITH_H */
