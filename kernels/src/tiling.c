/* Forward copies inside band buffers (see usmp_kernels/tiling.h). */
#include "usmp_kernels.h"

void usmp_move_words(const struct usmp_move_params *p, const void *input, void *output)
{
	const uint32_t *in = (const uint32_t *)input;
	uint32_t *out = (uint32_t *)output;
	int32_t i;

	for (i = 0; i < p->count; i++) {
		out[i] = in[i];
	}
}

void usmp_move_bytes(const struct usmp_move_params *p, const void *input, void *output)
{
	const uint8_t *in = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	int32_t i;

	for (i = 0; i < p->count; i++) {
		out[i] = in[i];
	}
}

void usmp_band_sum_s8(const struct usmp_band_sum_params *p, const int8_t *input, int32_t *acc)
{
	int32_t i, c;

	for (i = 0; i < p->count; i++) {
		for (c = 0; c < p->channels; c++) {
			acc[c] = (int32_t)((uint32_t)acc[c] + (uint32_t)(int32_t)*input++);
		}
	}
}

void usmp_band_sum_f32(const struct usmp_band_sum_params *p, const float *input, float *acc)
{
	int32_t i, c;

	for (i = 0; i < p->count; i++) {
		for (c = 0; c < p->channels; c++) {
			acc[c] += *input++;
		}
	}
}

void usmp_band_avg_finish_s8(const struct usmp_band_avg_s8_params *p, const int32_t *acc, int8_t *output)
{
	const int32_t n = p->count;
	int32_t c;

	for (c = 0; c < p->channels; c++) {
		/* round half away from zero, as the whole-tensor average pool */
		const int32_t mean = acc[c] > 0 ? (acc[c] + n / 2) / n : (acc[c] - n / 2) / n;

		output[c] = (int8_t)usmp_clamp(mean, p->act_min, p->act_max);
	}
}

void usmp_band_avg_finish_f32(const struct usmp_band_avg_f32_params *p, const float *acc, float *output)
{
	int32_t c;

	for (c = 0; c < p->channels; c++) {
		output[c] = usmp_clamp_f32(acc[c] / p->count, p->act_min, p->act_max);
	}
}

void usmp_band_divide_f32(const struct usmp_band_divide_f32_params *p, const float *acc, float *output)
{
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = acc[k] / p->divisor;
	}
}
