/* DIV, FLOOR_DIV, FLOOR_MOD, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE kernels (see usmp_kernels/arith_binary.h). */
#include "usmp_kernels.h"

#define USMP_DEFINE_MAX_MIN(suffix, type)                                                                  \
	void usmp_maximum_##suffix(const struct usmp_broadcast_params *p, const type *input1,             \
				   const type *input2, type *output)                                      \
	{                                                                                                 \
		USMP_BROADCAST_BINARY(type, p, input1, input2, output, x > y ? x : y);                    \
	}                                                                                                 \
	void usmp_minimum_##suffix(const struct usmp_broadcast_params *p, const type *input1,             \
				   const type *input2, type *output)                                      \
	{                                                                                                 \
		USMP_BROADCAST_BINARY(type, p, input1, input2, output, x < y ? x : y);                    \
	}

USMP_DEFINE_MAX_MIN(s8, int8_t)
USMP_DEFINE_MAX_MIN(s16, int16_t)
USMP_DEFINE_MAX_MIN(s32, int32_t)
USMP_DEFINE_MAX_MIN(s64, int64_t)
USMP_DEFINE_MAX_MIN(f32, float)

void usmp_div_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output)
{
	USMP_BROADCAST_BINARY(float, p, input1, input2, output, usmp_clamp_f32(x / y, p->act_min, p->act_max));
}

static int32_t div_s32(int32_t x, int32_t y)
{
	if (y == 0) {
		return 0;
	}
	if (y == -1) {
		return (int32_t)(0u - (uint32_t)x); /* INT32_MIN / -1 wraps */
	}
	return x / y;
}

void usmp_div_s32(const struct usmp_div_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, usmp_clamp(div_s32(x, y), p->act_min, p->act_max));
}

/* Redundant leading sign bits of x (31 for 0 and -1). */
static int32_t leading_sign_bits(int32_t x)
{
	return usmp_fp_count_leading_zeros((uint32_t)(x < 0 ? ~x : x)) - 1;
}

/*
 * x / 2^exponent rounded to nearest, for any exponent >= 0. Past 31 the
 * reference's rounding division is undefined in C; what the tflite-micro
 * interpreter computes there (its mask of low bits becomes all ones and its
 * shift counts modulo 32, as on the hosts it is built for) is reproduced, so
 * that small quotients match it too: e.g. 0 / 100 gives the output zero point
 * plus one, and 1 / 100 saturates (tests/test_ops_binary.py).
 */
static int32_t rounding_divide_by_pot_any(int32_t x, int32_t exponent)
{
	if (exponent <= 31) {
		return usmp_rounding_divide_by_pot(x, exponent);
	}
	return (x >> (exponent & 31)) + (x >= 0 ? 1 : 0);
}

static int32_t div_s8_value(const struct usmp_div_s8_params *p, int32_t x, int32_t y)
{
	int32_t numerator = p->input1_offset + x;
	int32_t denominator = p->input2_offset + y;
	int32_t reciprocal_shift, headroom, reciprocal, quotient, total_shift, out;

	if (denominator < 0) {
		numerator = -numerator;
		denominator = -denominator;
	}
	reciprocal = usmp_fp_reciprocal(denominator, 31, &reciprocal_shift);
	headroom = leading_sign_bits(numerator);
	quotient = usmp_sat_rounding_doubling_high_mul((int32_t)((uint32_t)numerator << headroom), reciprocal);
	total_shift = p->output_shift - reciprocal_shift - headroom; /* <= 0: the compiler checks */
	out = rounding_divide_by_pot_any(usmp_sat_rounding_doubling_high_mul(quotient, p->output_multiplier),
					 -total_shift);
	return usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
}

void usmp_div_s8(const struct usmp_div_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int8_t)div_s8_value(p, x, y));
}

void usmp_floor_div_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
			float *output)
{
	USMP_BROADCAST_BINARY(float, p, input1, input2, output, (float)usmp_floor((double)x / (double)y));
}

static float floor_mod_f32(float x, float y)
{
	const float r = usmp_fmodf(x, y);

	return (r != 0.0f && ((y < 0.0f) != (r < 0.0f))) ? r + y : r;
}

void usmp_floor_mod_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
			float *output)
{
	USMP_BROADCAST_BINARY(float, p, input1, input2, output, floor_mod_f32(x, y));
}

void usmp_squared_difference_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
				 float *output)
{
	USMP_BROADCAST_BINARY(float, p, input1, input2, output, (x - y) * (x - y));
}

static int32_t squared_difference_s32(int32_t x, int32_t y)
{
	const uint32_t d = (uint32_t)x - (uint32_t)y;

	return (int32_t)(d * d);
}

void usmp_squared_difference_s32(const struct usmp_broadcast_params *p, const int32_t *input1,
				 const int32_t *input2, int32_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, squared_difference_s32(x, y));
}

static int32_t squared_difference_q(const struct usmp_add_s8_params *p, int32_t x, int32_t y)
{
	const int32_t headroom = (int32_t)1 << p->left_shift;
	const int32_t a = usmp_mul_by_quantized_multiplier((p->input1_offset + x) * headroom, p->input1_multiplier,
							   p->input1_shift);
	const int32_t b = usmp_mul_by_quantized_multiplier((p->input2_offset + y) * headroom, p->input2_multiplier,
							   p->input2_shift);
	const int32_t out = usmp_mul_by_quantized_multiplier((a - b) * (a - b), p->output_multiplier, p->output_shift);

	return usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
}

void usmp_squared_difference_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
				int8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int8_t)squared_difference_q(p, x, y));
}

void usmp_squared_difference_s16(const struct usmp_add_s8_params *p, const int16_t *input1,
				 const int16_t *input2, int16_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int16_t)squared_difference_q(p, x, y));
}
