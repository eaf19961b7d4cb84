/* One-input elementwise kernels: float32 math, int16 ABS and RSQRT, LOGICAL_NOT, ZEROS_LIKE. */

#include "usmp_kernels.h"

#define USMP_DEFINE_UNARY_F32(name, expression)                                                   \
	void usmp_##name##_f32(const struct usmp_unary_f32_params *p, const float *input, float *output) \
	{                                                                                         \
		int32_t i;                                                                        \
                                                                                                  \
		for (i = 0; i < p->size; i++) {                                                   \
			const float x = input[i];                                                 \
                                                                                                  \
			output[i] = (expression);                                                 \
		}                                                                                 \
	}

/* Beyond 2^23 every float is an integer already (and inf, NaN stay what they are). */
#define INTEGRAL_FLOAT 8388608.0f

static int is_integral(float x)
{
	return !(x < INTEGRAL_FLOAT && x > -INTEGRAL_FLOAT);
}

static float floor_f32(float x)
{
	float t;

	if (is_integral(x)) {
		return x;
	}
	t = (float)(int32_t)x; /* towards zero */
	return t > x ? t - 1.0f : (t == 0.0f ? x * 0.0f : t);
}

static float ceil_f32(float x)
{
	float t;

	if (is_integral(x)) {
		return x;
	}
	t = (float)(int32_t)x;
	return t < x ? t + 1.0f : (t == 0.0f ? x * 0.0f : t);
}

/* TFLite's ROUND: to the nearest integer, halves to the even one. */
static float round_f32(float x)
{
	float f;
	float diff;

	if (is_integral(x)) {
		return x;
	}
	f = floor_f32(x);
	diff = x - f;
	if (diff < 0.5f || (diff == 0.5f && ((int32_t)f & 1) == 0)) {
		return f;
	}
	return f + 1.0f;
}

static float elu_f32(float x)
{
	return x < 0.0f ? usmp_expm1f(x) : x;
}

/* x * relu6(x + 3) / 6, in TFLite's order of operations. */
static float hard_swish_f32(float x)
{
	return x * usmp_clamp_f32(x + 3.0f, 0.0f, 6.0f) / 6.0f;
}

USMP_DEFINE_UNARY_F32(abs, x < 0.0f ? -x : (x == 0.0f ? 0.0f : x))
USMP_DEFINE_UNARY_F32(neg, -x)
USMP_DEFINE_UNARY_F32(ceil, ceil_f32(x))
USMP_DEFINE_UNARY_F32(floor, floor_f32(x))
USMP_DEFINE_UNARY_F32(round, round_f32(x))
USMP_DEFINE_UNARY_F32(sqrt, usmp_sqrtf(x))
USMP_DEFINE_UNARY_F32(rsqrt, 1.0f / usmp_sqrtf(x))
USMP_DEFINE_UNARY_F32(square, x * x)
USMP_DEFINE_UNARY_F32(exp, usmp_expf(x))
USMP_DEFINE_UNARY_F32(log, usmp_logf(x))
USMP_DEFINE_UNARY_F32(sin, usmp_sinf(x))
USMP_DEFINE_UNARY_F32(cos, usmp_cosf(x))
USMP_DEFINE_UNARY_F32(elu, elu_f32(x))
USMP_DEFINE_UNARY_F32(hard_swish, hard_swish_f32(x))

void usmp_abs_s16(const struct usmp_abs_s16_params *p, const int16_t *input, int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		int32_t value = input[i] - p->input_zero_point;

		if (p->wrap_minimum && value == INT16_MIN) {
			output[i] = INT16_MIN;
			continue;
		}
		value = value < 0 ? -value : value;
		if (p->rescale) {
			value = usmp_mul_by_quantized_multiplier(value, p->multiplier, p->shift);
		}
		output[i] = (int16_t)usmp_clamp(value + p->output_zero_point, INT16_MIN, INT16_MAX);
	}
}

#define INV_SQRT_HALF_THREE_Q3 ((1 << 28) + (1 << 27)) /* 1.5 */
#define INV_SQRT_ONE_Q3 (1 << 28)
#define INV_SQRT_HALF_SQRT2_Q0 1518500250 /* sqrt(2) / 2 */

void usmp_inv_sqrt_multiplier(int32_t x, int32_t *multiplier, int32_t *shift)
{
	int32_t exponent = 11;
	int32_t pairs;
	int32_t half_x;
	int32_t y = INV_SQRT_ONE_Q3;
	int32_t step;

	if (x <= 1) {
		*multiplier = INT32_MAX;
		*shift = 0;
		return;
	}
	while (x >= (1 << 29)) {
		x >>= 2;
		exponent++;
	}
	/* normalize x into [2^27, 2^29) by whole bit pairs */
	pairs = (usmp_fp_count_leading_zeros((uint32_t)x) - 1) / 2 - 1;
	exponent -= pairs;
	x <<= 2 * pairs;
	half_x = usmp_rounding_divide_by_pot(x >> 1, 1); /* x / 2 in Q3 */
	for (step = 0; step < 5; step++) { /* Newton-Raphson: y = 1.5 y - (x / 2) y^3 */
		const int32_t y3 = usmp_fp_saturating_shl(usmp_fp_mul(usmp_fp_mul(y, y), y), 6);

		y = usmp_fp_saturating_shl(
			usmp_fp_sub(usmp_fp_mul(INV_SQRT_HALF_THREE_Q3, y), usmp_fp_mul(half_x, y3)), 3);
	}
	y = usmp_fp_mul(y, INV_SQRT_HALF_SQRT2_Q0);
	if (exponent < 0) {
		y = (int32_t)((uint32_t)y << -exponent);
		exponent = 0;
	}
	*multiplier = y;
	*shift = -exponent;
}

#define RSQRT_EXTRA_SHIFT 20 /* keeps 1/sqrt(x) an integer before the final rescale */

void usmp_rsqrt_s16(const struct usmp_rsqrt_s16_params *p, const int16_t *input, int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const int32_t value = input[i] - p->input_zero_point;
		int32_t multiplier;
		int32_t shift;
		int32_t scaled;

		if (value <= 0) {
			output[i] = INT16_MAX;
			continue;
		}
		usmp_inv_sqrt_multiplier(value, &multiplier, &shift);
		scaled = usmp_mul_by_quantized_multiplier(1, multiplier, shift + RSQRT_EXTRA_SHIFT);
		scaled = usmp_mul_by_quantized_multiplier(scaled, p->multiplier, p->shift - RSQRT_EXTRA_SHIFT);
		output[i] = (int16_t)usmp_clamp(usmp_fp_add(scaled, p->output_zero_point), INT16_MIN, INT16_MAX);
	}
}

void usmp_logical_not_b8(const struct usmp_bytes_params *p, const uint8_t *input, uint8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (uint8_t)(input[i] == 0);
	}
}

void usmp_zero_fill(const struct usmp_bytes_params *p, const void *input, void *output)
{
	uint8_t *bytes = (uint8_t *)output;
	int32_t i;

	(void)input;
	for (i = 0; i < p->size; i++) {
		bytes[i] = 0;
	}
}
