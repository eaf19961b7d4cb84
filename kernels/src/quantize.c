/* QUANTIZE and DEQUANTIZE kernels. */
#include "usmp_kernels.h"

/* Far outside int8 after any zero point, yet small enough to convert to int32 exactly. */
#define QUANTIZE_LIMIT 1048576.0f

/* round(q) with halves away from zero (C's roundf) without libm; q is clamped first. */
static int32_t round_to_int(float q)
{
	int32_t t;
	float fraction;

	if (!(q > -QUANTIZE_LIMIT)) { /* also catches NaN */
		return (int32_t)-QUANTIZE_LIMIT;
	}
	if (q > QUANTIZE_LIMIT) {
		return (int32_t)QUANTIZE_LIMIT;
	}
	t = (int32_t)q; /* truncates towards zero */
	fraction = q - (float)t; /* exact */
	if (fraction >= 0.5f) {
		t++;
	} else if (fraction <= -0.5f) {
		t--;
	}
	return t;
}

void usmp_quantize_f32_s8(const struct usmp_quantize_f32_s8_params *p, const float *input, int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const int32_t q = round_to_int(input[i] / p->scale) + p->zero_point;

		output[i] = (int8_t)usmp_clamp(q, INT8_MIN, INT8_MAX);
	}
}

/* One 8-bit requantize body for each pair of element types. */
#define USMP_REQUANTIZE_8BIT(name, in_t, out_t)                                                            \
	void name(const struct usmp_requantize_s8_params *p, const in_t *input, out_t *output)              \
	{                                                                                                   \
		int32_t i;                                                                                  \
                                                                                                            \
		for (i = 0; i < p->size; i++) {                                                             \
			const int32_t x = input[i] - p->input_zero_point;                                   \
			const int32_t q = usmp_mul_by_quantized_multiplier(x, p->multiplier, p->shift) +   \
					  p->output_zero_point;                                             \
                                                                                                            \
			output[i] = (out_t)usmp_clamp(q, p->act_min, p->act_max);                           \
		}                                                                                           \
	}

USMP_REQUANTIZE_8BIT(usmp_requantize_s8, int8_t, int8_t)
USMP_REQUANTIZE_8BIT(usmp_requantize_s8_u8, int8_t, uint8_t)
USMP_REQUANTIZE_8BIT(usmp_requantize_u8_s8, uint8_t, int8_t)

void usmp_dequantize_s8_f32(const struct usmp_dequantize_s8_f32_params *p, const int8_t *input, float *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = p->scale * (float)(input[i] - p->zero_point);
	}
}
