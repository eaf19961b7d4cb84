/*
 * USMP kernels: L2_NORMALIZATION over the innermost dimension, and L2_POOL_2D.
 *
 * float32 L2_NORMALIZATION divides each row by max(sqrt(sum of squares),
 * 1e-6). int8 follows TFLite Micro: the row's int32 sum of squared
 * (input - zero point) gets a fixed-point inverse square root (Newton-Raphson
 * in Q3), and each output is (input - zero point) times it, in steps of 1/128
 * (TFLite Micro uses that output quantization whatever the model says).
 */
#ifndef USMP_KERNELS_L2_H
#define USMP_KERNELS_L2_H

#include <stdint.h>

#include "usmp_kernels/pooling.h"

struct usmp_l2_norm_f32_params {
	int32_t rows;
	int32_t depth;
};

void usmp_l2_norm_f32(const struct usmp_l2_norm_f32_params *p, const float *input, float *output);

struct usmp_l2_norm_s8_params {
	int32_t rows;
	int32_t depth;
	int32_t input_zero_point;
};

void usmp_l2_norm_s8(const struct usmp_l2_norm_s8_params *p, const int8_t *input, int8_t *output);

/* sqrt(mean of the squares of the taps inside the input), then the activation clamp. */
void usmp_l2_pool_f32(const struct usmp_pool_f32_params *p, const float *input, float *output);

#endif /* USMP_KERNELS_L2_H */
