/* QUANTIZE and DEQUANTIZE kernels. */
#include "usmp_kernels.h"

/* Far outside int16 after any zero point, yet small enough to convert to int32 exactly. */
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

/* float to a signed integer type: one body for int8 and int16. */
#define USMP_QUANTIZE_FLOAT(name, out_t, low, high)                                                        \
	void name(const struct usmp_quantize_f32_s8_params *p, const float *input, out_t *output)           \
	{                                                                                                   \
		int32_t i;                                                                                  \
                                                                                                            \
		for (i = 0; i < p->size; i++) {                                                             \
			const int32_t q = round_to_int(input[i] / p->scale) + p->zero_point;                \
                                                                                                            \
			output[i] = (out_t)usmp_clamp(q, low, high);                                        \
		}                                                                                           \
	}

USMP_QUANTIZE_FLOAT(usmp_quantize_f32_s8, int8_t, INT8_MIN, INT8_MAX)
USMP_QUANTIZE_FLOAT(usmp_quantize_f32_s16, int16_t, INT16_MIN, INT16_MAX)

/*
 * One requantize body for each pair of element types (8, 16 or 32 bits). The
 * zero point is subtracted with wrap-around, not signed overflow: an int32
 * input far from its zero point must not be undefined behaviour.
 */
#define USMP_REQUANTIZE(name, in_t, out_t)                                                            \
	void name(const struct usmp_requantize_s8_params *p, const in_t *input, out_t *output)              \
	{                                                                                                   \
		int32_t i;                                                                                  \
                                                                                                            \
		for (i = 0; i < p->size; i++) {                                                             \
			const int32_t x = (int32_t)((uint32_t)(int32_t)input[i] - (uint32_t)p->input_zero_point); \
			const int32_t q = usmp_mul_by_quantized_multiplier(x, p->multiplier, p->shift) +   \
					  p->output_zero_point;                                             \
                                                                                                            \
			output[i] = (out_t)usmp_clamp(q, p->act_min, p->act_max);                           \
		}                                                                                           \
	}

USMP_REQUANTIZE(usmp_requantize_s8, int8_t, int8_t)
USMP_REQUANTIZE(usmp_requantize_s8_u8, int8_t, uint8_t)
USMP_REQUANTIZE(usmp_requantize_u8_s8, uint8_t, int8_t)
USMP_REQUANTIZE(usmp_requantize_s16, int16_t, int16_t)
USMP_REQUANTIZE(usmp_requantize_s16_s8, int16_t, int8_t)
USMP_REQUANTIZE(usmp_requantize_s8_s16, int8_t, int16_t)
USMP_REQUANTIZE(usmp_requantize_s8_s32, int8_t, int32_t)
USMP_REQUANTIZE(usmp_requantize_s16_s32, int16_t, int32_t)
USMP_REQUANTIZE(usmp_requantize_s32_s8, int32_t, int8_t)
USMP_REQUANTIZE(usmp_requantize_s32_s16, int32_t, int16_t)

/* 8- or 16-bit to float: the float product equals TFLite's double product rounded to float (both exact before rounding). */
#define USMP_DEQUANTIZE(name, in_t)                                                                        \
	void name(const struct usmp_dequantize_s8_f32_params *p, const in_t *input, float *output)          \
	{                                                                                                   \
		int32_t i;                                                                                  \
                                                                                                            \
		for (i = 0; i < p->size; i++) {                                                             \
			output[i] = p->scale * (float)(input[i] - p->zero_point);                           \
		}                                                                                           \
	}

USMP_DEQUANTIZE(usmp_dequantize_s8_f32, int8_t)
USMP_DEQUANTIZE(usmp_dequantize_s16_f32, int16_t)
USMP_DEQUANTIZE(usmp_dequantize_u8_f32, uint8_t)
