/* CUMSUM kernels (see usmp_kernels/cumsum.h). */
#include "usmp_kernels.h"

void usmp_cumsum_f32(const struct usmp_cumsum_f32_params *p, const float *input, float *output)
{
	int32_t b, a, k;

	for (b = 0; b < p->before; b++) {
		for (a = 0; a < p->after; a++) {
			int32_t i = b * p->depth * p->after + a + p->first;
			float sum = 0.0f;

			for (k = 0; k < p->depth; k++) {
				const float x = input[i]; /* read first: output may be input */

				if (p->exclusive) {
					output[i] = sum;
					sum += x;
				} else {
					sum += x;
					output[i] = sum;
				}
				i += p->step;
			}
		}
	}
}

void usmp_cumsum_s8(const struct usmp_cumsum_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t b, a, k;

	for (b = 0; b < p->before; b++) {
		for (a = 0; a < p->after; a++) {
			int32_t i = b * p->depth * p->after + a + p->first;
			int32_t sum = p->start;

			for (k = 0; k < p->depth; k++) {
				const int32_t shifted = (int32_t)((uint32_t)(p->input_offset + input[i]) << p->left_shift);
				const int32_t scaled =
					usmp_mul_by_quantized_multiplier(shifted, p->input_multiplier, p->input_shift);
				const int32_t before_add = sum;
				int32_t value;

				sum = (int32_t)((uint32_t)sum + (uint32_t)scaled);
				value = usmp_mul_by_quantized_multiplier(p->exclusive ? before_add : sum,
									 p->output_multiplier, p->output_shift) +
					p->output_offset;
				output[i] = (int8_t)usmp_clamp(value, INT8_MIN, INT8_MAX);
				i += p->step;
			}
		}
	}
}
