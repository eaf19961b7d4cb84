/* Activation kernels: RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH. */

#include "usmp_kernels.h"

void usmp_relu6_s8(const struct usmp_relu6_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (int8_t)usmp_clamp(input[i], p->lo, p->hi);
	}
}

void usmp_relu_f32(const struct usmp_relu_f32_params *p, const float *input, float *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = usmp_clamp_f32(input[i], p->lo, p->hi);
	}
}

/* LEAKY_RELU of one quantized value, before the clamp to the output type (int8 and int16 alike). */
static int32_t leaky_relu_value(const struct usmp_leaky_relu_s8_params *p, int32_t value)
{
	const int32_t x = value - p->input_zero_point;
	int32_t scaled;

	if (x >= 0) {
		scaled = usmp_mul_by_quantized_multiplier(x, p->identity_multiplier, p->identity_shift);
	} else {
		scaled = usmp_mul_by_quantized_multiplier(x, p->alpha_multiplier, p->alpha_shift);
		if (p->alpha_negative) {
			scaled = -scaled;
		}
	}
	return usmp_fp_add(p->output_zero_point, scaled); /* wraps like TFLite's int32 sum on extreme scales */
}

void usmp_leaky_relu_s8(const struct usmp_leaky_relu_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (int8_t)usmp_clamp(leaky_relu_value(p, input[i]), INT8_MIN, INT8_MAX);
	}
}

void usmp_leaky_relu_s16(const struct usmp_leaky_relu_s8_params *p, const int16_t *input, int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (int16_t)usmp_clamp(leaky_relu_value(p, input[i]), INT16_MIN, INT16_MAX);
	}
}

void usmp_leaky_relu_f32(const struct usmp_leaky_relu_f32_params *p, const float *input, float *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const float x = input[i];

		output[i] = x > 0.0f ? x : x * p->alpha;
	}
}

void usmp_lookup_s8(const struct usmp_lookup_s8_params *p, const int8_t *input, const int8_t *table,
		    int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = table[input[i] + 128];
	}
}

/* Beyond these, 1/(1+exp(-x)) is 1.0f, or exp(x) alone is as exact (TFLite's cut-offs). */
#define LOGISTIC_CUTOFF_UPPER 16.619047164916992188f
#define LOGISTIC_CUTOFF_LOWER (-9.0f)

void usmp_logistic_f32(const struct usmp_unary_f32_params *p, const float *input, float *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const float x = input[i];

		if (x > LOGISTIC_CUTOFF_UPPER) {
			output[i] = 1.0f;
		} else if (x < LOGISTIC_CUTOFF_LOWER) {
			output[i] = usmp_expf(x);
		} else {
			output[i] = 1.0f / (1.0f + usmp_expf(-x));
		}
	}
}

void usmp_tanh_f32(const struct usmp_unary_f32_params *p, const float *input, float *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = usmp_tanhf(input[i]);
	}
}
