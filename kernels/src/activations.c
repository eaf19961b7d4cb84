/* Activation kernels: RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH. */
#include <math.h>

#include "usmp_kernels.h"

/* LOGISTIC and TANH evaluate their fixed-point function on Q4 inputs. */
#define SIGMOID_INPUT_INTEGER_BITS 4

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

void usmp_leaky_relu_s8(const struct usmp_leaky_relu_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const int32_t x = input[i] - p->input_zero_point;
		int32_t scaled;

		if (x >= 0) {
			scaled = usmp_mul_by_quantized_multiplier(x, p->identity_multiplier, p->identity_shift);
		} else {
			scaled = usmp_mul_by_quantized_multiplier(x, p->alpha_multiplier, p->alpha_shift);
			if (p->alpha_negative) {
				scaled = -scaled;
			}
		}
		output[i] = (int8_t)usmp_clamp(p->output_zero_point + scaled, INT8_MIN, INT8_MAX);
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

/* The input rescaled to Q4, or 0 with *saturated set to -1/+1 outside the radius. */
static int32_t sigmoid_input_q4(const struct usmp_sigmoid_s8_params *p, int8_t value, int32_t *saturated)
{
	const int32_t x = value - p->input_zero_point;

	*saturated = x <= -p->input_range_radius ? -1 : (x >= p->input_range_radius ? 1 : 0);
	if (*saturated) {
		return 0;
	}
	return usmp_mul_by_quantized_multiplier(x, p->input_multiplier, p->input_shift);
}

void usmp_logistic_s8(const struct usmp_sigmoid_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t i, saturated;

	for (i = 0; i < p->size; i++) {
		const int32_t q4 = sigmoid_input_q4(p, input[i], &saturated);

		if (saturated) {
			output[i] = saturated < 0 ? INT8_MIN : INT8_MAX;
		} else {
			/* Q0 in [0, 1) to 1/256 steps, zero point -128. */
			const int32_t q0 = usmp_fp_logistic(q4, SIGMOID_INPUT_INTEGER_BITS);
			const int32_t out = usmp_rounding_divide_by_pot(q0, 31 - 8) - 128;

			output[i] = (int8_t)usmp_clamp(out, INT8_MIN, INT8_MAX);
		}
	}
}

void usmp_tanh_s8(const struct usmp_sigmoid_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t i, saturated;

	for (i = 0; i < p->size; i++) {
		const int32_t q4 = sigmoid_input_q4(p, input[i], &saturated);

		if (saturated) {
			output[i] = saturated < 0 ? INT8_MIN : INT8_MAX;
		} else {
			/* Q0 in (-1, 1) to 1/128 steps, zero point 0. */
			const int32_t q0 = usmp_fp_tanh(q4, SIGMOID_INPUT_INTEGER_BITS);
			const int32_t out = usmp_rounding_divide_by_pot(q0, 31 - 7);

			output[i] = (int8_t)usmp_clamp(out, INT8_MIN, INT8_MAX);
		}
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
			output[i] = expf(x);
		} else {
			output[i] = 1.0f / (1.0f + expf(-x));
		}
	}
}

void usmp_tanh_f32(const struct usmp_unary_f32_params *p, const float *input, float *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = tanhf(input[i]);
	}
}
