/* USMP kernels: FULLY_CONNECTED. */
#ifndef USMP_KERNELS_FULLY_CONNECTED_H
#define USMP_KERNELS_FULLY_CONNECTED_H

#include <stdint.h>

struct usmp_fully_connected_s8_params {
	int32_t batches;
	int32_t in_features;
	int32_t out_features;
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel; /* 1: multiplier/shift per output feature, 0: one of each */
};

/* bias has the input zero point folded in (see the compiler's lowering). */
void usmp_fully_connected_s8(const struct usmp_fully_connected_s8_params *p, const int8_t *input,
			     const int8_t *weights, const int32_t *bias, const int32_t *multiplier,
			     const int32_t *shift, int8_t *output);

/*
 * 16x8: int16 input and output, int8 weights. bias has the input zero point
 * folded in; wide picks the sum and rescale (usmp_rescale_16x8 in sums16x8.h).
 */
struct usmp_fully_connected_s16_params {
	int32_t batches;
	int32_t in_features;
	int32_t out_features;
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel;
	int32_t wide;
};

void usmp_fully_connected_s16(const struct usmp_fully_connected_s16_params *p, const int16_t *input,
			      const int8_t *weights, const int64_t *bias, const int32_t *multiplier,
			      const int32_t *shift, int16_t *output);

struct usmp_fully_connected_f32_params {
	int32_t batches;
	int32_t in_features;
	int32_t out_features;
	float act_min;
	float act_max;
};

void usmp_fully_connected_f32(const struct usmp_fully_connected_f32_params *p, const float *input,
			      const float *weights, const float *bias, float *output);

#endif /* USMP_KERNELS_FULLY_CONNECTED_H */
