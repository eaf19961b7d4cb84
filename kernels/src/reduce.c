/* MEAN kernels (see usmp_kernels/reduce.h). */
#include "usmp_kernels.h"

#define INNER (USMP_ND_DIMS - 1)

void usmp_mean_s8(const struct usmp_mean_s8_params *p, const int8_t *input, int32_t *accumulators,
		  int8_t *output)
{
	int32_t idx[USMP_ND_DIMS - 1] = {0};
	const int32_t n = p->count[INNER];
	const int32_t out_step = p->out_step[INNER];
	int32_t k;

	for (k = 0; k < p->num_outputs; k++) {
		accumulators[k] = 0;
	}
	if (usmp_nd_nonempty(p->count)) {
		do {
			int32_t o = usmp_nd_row_offset(idx, p->out_step);

			for (k = 0; k < n; k++) {
				/* Unsigned: a wrapping sum is defined, as TFLite's is. */
				accumulators[o] = (int32_t)((uint32_t)accumulators[o] + (uint32_t)(int32_t)*input++);
				o += out_step;
			}
		} while (usmp_nd_next_row(p->count, idx));
	}
	for (k = 0; k < p->num_outputs; k++) {
		const int32_t sum = (int32_t)((uint32_t)accumulators[k] - (uint32_t)p->sum_offset);
		const int32_t value = usmp_mul_by_quantized_multiplier(sum, p->multiplier, p->shift) + p->output_offset;

		output[k] = (int8_t)usmp_clamp(value, INT8_MIN, INT8_MAX);
	}
}

void usmp_mean_f32(const struct usmp_mean_f32_params *p, const float *input, float *output)
{
	int32_t idx[USMP_ND_DIMS - 1] = {0};
	const int32_t n = p->count[INNER];
	const int32_t out_step = p->out_step[INNER];
	int32_t k;

	for (k = 0; k < p->num_outputs; k++) {
		output[k] = 0.0f;
	}
	if (usmp_nd_nonempty(p->count)) {
		do {
			int32_t o = usmp_nd_row_offset(idx, p->out_step);

			for (k = 0; k < n; k++) {
				output[o] += *input++;
				o += out_step;
			}
		} while (usmp_nd_next_row(p->count, idx));
	}
	for (k = 0; k < p->num_outputs; k++) {
		output[k] = output[k] / p->divisor;
	}
}
