/*
 * USMP kernels: uint8 (asymmetric) models, as LiteRT computes them.
 *
 * The compiler stores a uint8 tensor as int8 (q - 128, zero point - 128: see
 * scripts/usmp/uint8). Weights then keep a zero point, which the int8
 * convolutions do not take: these kernels add input_offset to every input
 * and filter_offset to every weight, sum in int32 over the taps inside the
 * input (padding contributes nothing), add the bias and requantize with one
 * multiplier, as LiteRT's uint8 kernels do. LiteRT's uint8 CONV_2D and
 * FULLY_CONNECTED go through its matrix library (ruy), whose x86 (AVX2 and
 * AVX-512) kernels round both steps half up: t = floor((acc * multiplier +
 * 2^30) / 2^31) in 64 bits, then (t + 2^(e-1)) >> e for a right shift e
 * (matrix_rounding = 1); its DEPTHWISE_CONV_2D rounds as TFLite's
 * usmp_mul_by_quantized_multiplier does, halves away from zero
 * (matrix_rounding = 0). The reference is LiteRT on an x86-64 host with AVX2;
 * ruy's portable path and its Arm kernels round otherwise.
 *
 * usmp_avg_pool_asym_s8 averages the uint8 values (stored + 128), rounding
 * halves up as LiteRT's uint8 pool does (its int8 pool rounds them away from
 * zero, which differs for negative stored sums).
 *
 * usmp_softmax_asym_s8 is LiteRT's uint8 softmax on a 64-bit x86 host: a
 * float table of exp(-input_scale * beta * d) for every difference d from the
 * row maximum, summed in float in element order, each entry times
 * 1 / (sum * output_scale) rounded by adding 0.5 and truncating, clamped to
 * [0, 255]. It computes in float (software float on cores without an FPU), as
 * LiteRT does; there is no integer route to its results.
 */
#ifndef USMP_KERNELS_ASYMMETRIC_H
#define USMP_KERNELS_ASYMMETRIC_H

#include <stdint.h>

#include "usmp_kernels/pooling.h"
#include "usmp_kernels/resize.h"

struct usmp_asym_conv_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t depth_multiplier; /* DEPTHWISE_CONV_2D; 1 for CONV_2D */
	int32_t input_offset;
	int32_t filter_offset;
	int32_t output_offset;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t matrix_rounding;
	int32_t act_min;
	int32_t act_max;
};

/* filter OHWI, bias one per output channel. */
void usmp_conv_asym_s8(const struct usmp_asym_conv_params *p, const int8_t *input, const int8_t *filter,
		       const int32_t *bias, int8_t *output);

/* filter channel-major [in_ch * depth_multiplier][filter_h][filter_w]. */
void usmp_depthwise_conv_asym_s8(const struct usmp_asym_conv_params *p, const int8_t *input, const int8_t *filter,
				 const int32_t *bias, int8_t *output);

struct usmp_fully_connected_asym_params {
	int32_t batches;
	int32_t in_features;
	int32_t out_features;
	int32_t input_offset;
	int32_t filter_offset;
	int32_t output_offset;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t matrix_rounding;
	int32_t act_min;
	int32_t act_max;
};

void usmp_fully_connected_asym_s8(const struct usmp_fully_connected_asym_params *p, const int8_t *input,
				  const int8_t *weights, const int32_t *bias, int8_t *output);

void usmp_avg_pool_asym_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output);

struct usmp_softmax_asym_params {
	int32_t rows;
	int32_t depth;
	float output_scale;
};

/* table[255 - d] = exp(-input_scale * beta * d) for d = 0..255, as float. */
void usmp_softmax_asym_s8(const struct usmp_softmax_asym_params *p, const int8_t *input, const float *table,
			  int8_t *output);

/*
 * RESIZE_BILINEAR as LiteRT's uint8 kernel: the four neighbours' uint8 values (stored + 128) times float
 * weights (1 - dy)(1 - dx), (1 - dy)dx, dy(1 - dx), dy dx, summed in that order, plus 0.5, truncated.
 * offsets and weights as usmp_resize_bilinear_f32's.
 */
void usmp_resize_bilinear_asym_s8(const struct usmp_resize_params *p, const int8_t *input, const int32_t *offsets,
				  const float *weights, int8_t *output);

#endif /* USMP_KERNELS_ASYMMETRIC_H */
