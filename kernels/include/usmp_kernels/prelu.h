/*
 * USMP kernels: PRELU, x >= 0 ? x : alpha * x with alpha broadcast to the
 * input (usmp_kernels/broadcast.h).
 */
#ifndef USMP_KERNELS_PRELU_H
#define USMP_KERNELS_PRELU_H

#include <stdint.h>

#include "usmp_kernels/broadcast.h"

void usmp_prelu_f32(const struct usmp_broadcast_params *p, const float *input, const float *alpha, float *output);

/*
 * Quantized: a non-negative input is rescaled by input/output scale, a
 * negative one multiplied by alpha (less its zero point) and rescaled by
 * input * alpha / output scale; the result saturates to the output type.
 */
struct usmp_prelu_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t input_offset; /* minus the zero points */
	int32_t alpha_offset;
	int32_t output_offset;
	int32_t identity_multiplier;
	int32_t identity_shift;
	int32_t alpha_multiplier;
	int32_t alpha_shift;
};

void usmp_prelu_s8(const struct usmp_prelu_params *p, const int8_t *input, const int8_t *alpha, int8_t *output);
/* int16 input and output with int8 alpha, as TFLite Micro. */
void usmp_prelu_s16(const struct usmp_prelu_params *p, const int16_t *input, const int8_t *alpha,
		    int16_t *output);

#endif /* USMP_KERNELS_PRELU_H */
