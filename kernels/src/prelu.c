/* PRELU kernels (see usmp_kernels/prelu.h). */
#include "usmp_kernels.h"

void usmp_prelu_f32(const struct usmp_broadcast_params *p, const float *input, const float *alpha, float *output)
{
	USMP_BROADCAST_BINARY(float, p, input, alpha, output, x >= 0.0f ? x : x * y);
}

static int32_t prelu_q(const struct usmp_prelu_params *p, int32_t x, int32_t alpha, int32_t lo, int32_t hi)
{
	const int32_t value = p->input_offset + x;
	int32_t out;

	if (value >= 0) {
		out = usmp_mul_by_quantized_multiplier(value, p->identity_multiplier, p->identity_shift);
	} else {
		out = usmp_mul_by_quantized_multiplier(value * (p->alpha_offset + alpha), p->alpha_multiplier,
						       p->alpha_shift);
	}
	return usmp_clamp(out + p->output_offset, lo, hi);
}

void usmp_prelu_s8(const struct usmp_prelu_params *p, const int8_t *input, const int8_t *alpha, int8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input, alpha, output, (int8_t)prelu_q(p, x, y, INT8_MIN, INT8_MAX));
}

void usmp_prelu_s16(const struct usmp_prelu_params *p, const int16_t *input, const int8_t *alpha,
		    int16_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input, alpha, output, (int16_t)prelu_q(p, x, y, INT16_MIN, INT16_MAX));
}
