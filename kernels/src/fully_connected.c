/* FULLY_CONNECTED kernels. */
#include "usmp_kernels.h"

void usmp_fully_connected_s8(const struct usmp_fully_connected_s8_params *p, const int8_t *input,
			     const int8_t *weights, const int32_t *bias, const int32_t *multiplier,
			     const int32_t *shift, int8_t *output)
{
	const int32_t n_in = p->in_features;
	const int32_t step = p->per_channel ? 1 : 0;
	int32_t b, o, k;

	for (b = 0; b < p->batches; b++) {
		const int8_t *x = input + b * n_in;
		const int8_t *w = weights;

		for (o = 0; o < p->out_features; o++) {
			int32_t acc = bias[o];

			for (k = 0; k < n_in; k++) {
				acc += (int32_t)x[k] * (int32_t)w[k];
			}
			w += n_in;
			acc = usmp_mul_by_quantized_multiplier(acc, multiplier[o * step], shift[o * step]);
			acc = usmp_clamp(acc + p->output_offset, p->act_min, p->act_max);
			*output++ = (int8_t)acc;
		}
	}
}

void usmp_fully_connected_s16(const struct usmp_fully_connected_s16_params *p, const int16_t *input,
			      const int8_t *weights, const int64_t *bias, const int32_t *multiplier,
			      const int32_t *shift, int16_t *output)
{
	const int32_t n_in = p->in_features;
	const int32_t step = p->per_channel ? 1 : 0;
	int32_t b, o, acc;

	for (b = 0; b < p->batches; b++) {
		const int16_t *x = input + b * n_in;
		const int8_t *w = weights;

		for (o = 0; o < p->out_features; o++) {
			acc = usmp_rescale_16x8(usmp_dot_s16(x, w, n_in), bias[o], p->wide, multiplier[o * step],
						shift[o * step]);
			w += n_in;
			acc = (int32_t)((uint32_t)acc + (uint32_t)p->output_offset); /* wraps as TFLite's int32 add */
			*output++ = (int16_t)usmp_clamp(acc, p->act_min, p->act_max);
		}
	}
}

void usmp_fully_connected_f32(const struct usmp_fully_connected_f32_params *p, const float *input,
			      const float *weights, const float *bias, float *output)
{
	const int32_t n_in = p->in_features;
	int32_t b, o, k;

	for (b = 0; b < p->batches; b++) {
		const float *x = input + b * n_in;
		const float *w = weights;

		for (o = 0; o < p->out_features; o++) {
			float acc = 0.0f;

			for (k = 0; k < n_in; k++) {
				acc += x[k] * w[k];
			}
			w += n_in;
			*output++ = usmp_clamp_f32(acc + bias[o], p->act_min, p->act_max);
		}
	}
}
