/* ADD_N kernels (see usmp_kernels/add_n.h). */
#include "usmp_kernels.h"

void usmp_add_n_f32_first(const struct usmp_add_n_f32_params *p, const float *input, float *sum)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		sum[i] = 0.0f + input[i]; /* TFLite starts from +0: a -0 input sums to +0 */
	}
}

void usmp_add_n_f32_accumulate(const struct usmp_add_n_f32_params *p, const float *input, float *sum)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		sum[i] = sum[i] + input[i];
	}
}

static int32_t rescaled_input(const struct usmp_add_n_s8_params *p, int32_t value)
{
	return usmp_mul_by_quantized_multiplier((p->input_offset + value) * ((int32_t)1 << p->left_shift),
						p->input_multiplier, p->input_shift);
}

void usmp_add_n_s8_first(const struct usmp_add_n_s8_params *p, const int8_t *input, int32_t *sum)
{
	/* TFLite starts each sum from the rescaled zero point's offset, not from 0. */
	const int32_t start = rescaled_input(p, 0);
	int32_t i;

	for (i = 0; i < p->size; i++) {
		sum[i] = (int32_t)((uint32_t)start + (uint32_t)rescaled_input(p, input[i]));
	}
}

void usmp_add_n_s8_accumulate(const struct usmp_add_n_s8_params *p, const int8_t *input, int32_t *sum)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		sum[i] = (int32_t)((uint32_t)sum[i] + (uint32_t)rescaled_input(p, input[i]));
	}
}

void usmp_add_n_s8_finish(const struct usmp_add_n_s8_params *p, const int32_t *sum, int8_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const int32_t out = usmp_mul_by_quantized_multiplier(sum[i], p->output_multiplier, p->output_shift);

		output[i] = (int8_t)usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
	}
}
