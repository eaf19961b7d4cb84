/*
 * USMP kernels: TRANSPOSE_CONV (NHWC input and output, OHWI filter).
 *
 * Input pixel (iy, ix) adds filter tap (fy, fx) to output pixel
 * (iy * stride_h - pad_top + fy, ix * stride_w - pad_left + fx). TFLite
 * scatters every input pixel into an accumulator buffer the size of the
 * output; these kernels gather instead, so each output element is summed in
 * a register and no accumulator buffer is needed. The sum runs over input
 * rows, then columns, then channels in increasing order, which is the order
 * TFLite's scatter adds them in, so float32 results round the same way.
 *
 * Which input rows feed output row oy, and from which filter row, is
 * computed by the compiler: `taps` holds per output row (offset of the first
 * input row in elements, offset of its filter row in elements, number of
 * rows), then the same per output column. Each further input row is one input
 * row on and stride_h filter rows back (w_row_step). Each further input column
 * is stride_w filter columns back; the compiler reorders the columns of every
 * filter row (by tap mod stride_w, descending) so that those taps are
 * contiguous, and one input row's contribution is a single dot product of
 * columns * in_ch elements.
 */
#ifndef USMP_KERNELS_TRANSPOSE_CONV_H
#define USMP_KERNELS_TRANSPOSE_CONV_H

#include <stdint.h>

struct usmp_transpose_conv_s8_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_size; /* filter_h * filter_w * in_ch: one output channel's filter */
	int32_t w_row_step;  /* -stride_h * filter_w * in_ch */
	int32_t input_offset; /* minus the input zero point */
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel; /* 1: multiplier/shift per output channel, 0: one of each */
};

/* int8 per channel: sum of (x + input_offset) * w, plus bias, requantized (TFLite's int32 arithmetic). */
void usmp_transpose_conv_s8(const struct usmp_transpose_conv_s8_params *p, const int8_t *input,
			    const int8_t *filter, const int32_t *taps, const int32_t *bias,
			    const int32_t *multiplier, const int32_t *shift, int8_t *output);

struct usmp_transpose_conv_s16_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_size;
	int32_t w_row_step;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel;
};

/*
 * int16 activations, int8 filter (zero points 0): the sum and the int64 bias
 * in int64, rescaled as TFLite rescales 64-bit sums (usmp_requantize_s64 in
 * usmp_kernels/batch_matmul.h): `multiplier` holds the 16-bit multipliers and
 * `shift` the right shifts the compiler derived.
 */
void usmp_transpose_conv_s16(const struct usmp_transpose_conv_s16_params *p, const int16_t *input,
			     const int8_t *filter, const int32_t *taps, const int64_t *bias,
			     const int32_t *multiplier, const int32_t *shift, int16_t *output);

struct usmp_transpose_conv_f32_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_size;
	int32_t w_row_step;
	float act_min;
	float act_max;
};

void usmp_transpose_conv_f32(const struct usmp_transpose_conv_f32_params *p, const float *input,
			     const float *filter, const int32_t *taps, const float *bias, float *output);

#endif /* USMP_KERNELS_TRANSPOSE_CONV_H */
