/* Activation kernels: RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH. */

#include "usmp_kernels.h"

void usmp_relu6_s8(const struct usmp_relu6_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (int8_t)usmp_clamp(input[i], p->lo, p->hi);
	}
}

void usmp_relu6_s16(const struct usmp_relu6_s8_params *p, const int16_t *input, int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (int16_t)usmp_clamp(input[i], p->lo, p->hi);
	}
}

void usmp_relu_s16(const struct usmp_relu_s16_params *p, const int16_t *input, int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (int16_t)usmp_clamp(usmp_mul_by_quantized_multiplier(input[i], p->multiplier, p->shift), 0,
						INT16_MAX);
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

/* The input rescaled to the table's steps (the rounding shift of TFLite's int16 LOGISTIC and TANH). */
static int32_t sigmoid_rescale(const struct usmp_sigmoid_s16_params *p, int16_t value)
{
	const int32_t round = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;

	return (value * p->multiplier + round) >> p->shift;
}

/* table[|x| >> bits] interpolated by the low bits of |x|, times 2^bits; saturated past the last entry. */
static uint32_t sigmoid_interpolate(const uint16_t *table, uint32_t magnitude, int32_t bits, uint32_t saturated)
{
	const uint32_t index = magnitude >> bits;
	uint32_t low, high;

	if (index >= 255u) {
		return saturated;
	}
	low = table[index];
	high = table[index + 1u];
	return (low << bits) + (magnitude & ((1u << bits) - 1u)) * (high - low);
}

void usmp_logistic_s16(const struct usmp_sigmoid_s16_params *p, const int16_t *input, const uint16_t *table,
		       int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const int32_t x = sigmoid_rescale(p, input[i]);
		const uint32_t magnitude = x < 0 ? (uint32_t)-x : (uint32_t)x;
		uint32_t result = sigmoid_interpolate(table, magnitude, 9, 0x7FFFu << 10);

		/* sigmoid(-x) = 1 - sigmoid(x) */
		result = x >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1u;
		output[i] = (int16_t)(result >> 10);
	}
}

void usmp_tanh_s16(const struct usmp_sigmoid_s16_params *p, const int16_t *input, const uint16_t *table,
		   int16_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const int32_t x = sigmoid_rescale(p, input[i]);
		const uint32_t magnitude = x < 0 ? (uint32_t)-x : (uint32_t)x;
		const int32_t sigmoid = (int32_t)sigmoid_interpolate(table, magnitude, 8, 0xFFFFu << 8);
		/* tanh(x) = 2 sigmoid(2x) - 1, and tanh(-x) = -tanh(x); an arithmetic shift rounds down */
		const int32_t result = x >= 0 ? sigmoid - (1 << 23) + (1 << 7) : -sigmoid + (1 << 23) + (1 << 7) - 1;

		output[i] = (int16_t)(result >> 8);
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
