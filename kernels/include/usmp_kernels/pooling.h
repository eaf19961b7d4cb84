/*
 * USMP kernels: AVERAGE_POOL_2D and MAX_POOL_2D (NHWC tensors).
 *
 * The window of output (y, x) starts at input row y * stride_h - pad_top and
 * column x * stride_w - pad_left; taps outside the input are left out, and an
 * average divides by the number of taps inside (as TFLite does).
 * int8 and int16 outputs share the input's scale and zero point; both take
 * struct usmp_pool_s8_params (act_min/act_max in the output's type).
 */
#ifndef USMP_KERNELS_POOLING_H
#define USMP_KERNELS_POOLING_H

#include <stdint.h>

struct usmp_pool_s8_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t channels;
	int32_t out_h;
	int32_t out_w;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t act_min;
	int32_t act_max;
};

void usmp_avg_pool_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output);
void usmp_max_pool_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output);
void usmp_avg_pool_s16(const struct usmp_pool_s8_params *p, const int16_t *input, int16_t *output);
void usmp_max_pool_s16(const struct usmp_pool_s8_params *p, const int16_t *input, int16_t *output);

struct usmp_pool_f32_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t channels;
	int32_t out_h;
	int32_t out_w;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t pad_top;
	int32_t pad_left;
	float act_min;
	float act_max;
};

void usmp_avg_pool_f32(const struct usmp_pool_f32_params *p, const float *input, float *output);
void usmp_max_pool_f32(const struct usmp_pool_f32_params *p, const float *input, float *output);

#endif /* USMP_KERNELS_POOLING_H */
