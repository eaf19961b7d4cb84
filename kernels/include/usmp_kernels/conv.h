/*
 * USMP kernels: CONV_2D and DEPTHWISE_CONV_2D (NHWC tensors).
 *
 * Padding follows TFLite: output (y, x) reads input rows
 * y * stride_h - pad_top + k * dilation_h; taps that fall outside the input
 * are skipped (they contribute nothing, not even the input zero point).
 *
 * int8: the compiler folds the input zero point into `folded_bias`, which is
 * exact where the whole filter lies inside the input. At the borders the
 * kernels use the plain `bias` and add the input offset tap by tap over the
 * taps that are inside, as TFLite does, so every output equals TFLite's.
 *
 * 16x8 (int16 activations, int8 filter): zero points are 0, so nothing is
 * folded; the sums and rescale are usmp_kernels/sums16x8.h's.
 */
#ifndef USMP_KERNELS_CONV_H
#define USMP_KERNELS_CONV_H

#include <stdint.h>

/*
 * The taps [*first, *last) of a `taps`-tap filter with the given dilation
 * whose input position origin + k * dilation lies inside [0, size).
 * Computed once per output row or column, so no inner loop checks bounds.
 */
static inline void usmp_window_taps(int32_t origin, int32_t dilation, int32_t taps, int32_t size,
				    int32_t *first, int32_t *last)
{
	int32_t k = 0;
	int32_t n = taps;

	while (k < n && origin + k * dilation < 0) {
		k++;
	}
	while (n > k && origin + (n - 1) * dilation >= size) {
		n--;
	}
	*first = k;
	*last = n;
}

/*
 * acc + sum of x[i] * w[i] for i < n: the inner loop of the int8 convolutions,
 * a leaf function so that it keeps all its values in the M0's low registers.
 */
int32_t usmp_dot_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t acc);

/* sum of (x[i] + offset) * w[i] for i < n: the same at the borders, where nothing is folded. */
int32_t usmp_dot_offset_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t offset);

/* Filter OHWI [out_ch][filter_h][filter_w][filter_in_ch]; groups = in_ch / filter_in_ch. */
struct usmp_conv_s8_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_h;
	int32_t filter_w;
	int32_t filter_in_ch;
	int32_t filters_per_group; /* out_ch / groups */
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t input_offset; /* minus the input zero point */
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel; /* 1: multiplier/shift per output channel, 0: one of each */
};

void usmp_conv_s8(const struct usmp_conv_s8_params *p, const int8_t *input, const int8_t *filter,
		  const int32_t *bias, const int32_t *folded_bias, const int32_t *multiplier,
		  const int32_t *shift, int8_t *output);

/* 16x8: int16 input and output, int8 filter; bias and wide as usmp_rescale_16x8 takes them. */
struct usmp_conv_s16_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_h;
	int32_t filter_w;
	int32_t filter_in_ch;
	int32_t filters_per_group;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel;
	int32_t wide;
};

void usmp_conv_s16(const struct usmp_conv_s16_params *p, const int16_t *input, const int8_t *filter,
		   const int64_t *bias, const int32_t *multiplier, const int32_t *shift, int16_t *output);

struct usmp_conv_f32_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_h;
	int32_t filter_w;
	int32_t filter_in_ch;
	int32_t filters_per_group;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	float act_min;
	float act_max;
};

void usmp_conv_f32(const struct usmp_conv_f32_params *p, const float *input, const float *filter,
		   const float *bias, float *output);

/*
 * Depthwise: output channel c * depth_multiplier + m reads input channel c.
 * The compiler repacks the filter channel-major, [out_ch][filter_h][filter_w],
 * so one output channel's taps are contiguous.
 */
struct usmp_depthwise_conv_s8_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t depth_multiplier;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t input_offset; /* minus the input zero point */
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel;
};

void usmp_depthwise_conv_s8(const struct usmp_depthwise_conv_s8_params *p, const int8_t *input,
			    const int8_t *filter, const int32_t *bias, const int32_t *folded_bias,
			    const int32_t *multiplier, const int32_t *shift, int8_t *output);

/* 16x8, as usmp_conv_s16. */
struct usmp_depthwise_conv_s16_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t depth_multiplier;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel;
	int32_t wide;
};

void usmp_depthwise_conv_s16(const struct usmp_depthwise_conv_s16_params *p, const int16_t *input,
			     const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
			     const int32_t *shift, int16_t *output);

struct usmp_depthwise_conv_f32_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t depth_multiplier;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	float act_min;
	float act_max;
};

void usmp_depthwise_conv_f32(const struct usmp_depthwise_conv_f32_params *p, const float *input,
			     const float *filter, const float *bias, float *output);

#endif /* USMP_KERNELS_CONV_H */
