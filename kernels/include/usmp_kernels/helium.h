/*
 * USMP's own int8 and 16x8 kernels for Helium (MVE: the Cortex-M55): kernels/helium/.
 * They need no CMSIS-NN. On other builds (the host, for the tests) the same
 * sources compute the same sums in plain C.
 *
 * The compiler lays their constants out at compile time, in the order the
 * vector loops read them (scripts/usmp/select/helium.py). Requantization is
 * TFLite's, bit for bit, four lanes at a time (VQRDMULH, then a rounding
 * shift that rounds halves away from zero as TFLite's RoundingDivideByPOT).
 *
 * Window kernels take in_h, out_h and pad_top with the portable kernels'
 * meaning (usmp_kernels/conv.h), and rows outside [0, in_h) are padding, so
 * a depth-first band may run them on a few rows at a time.
 */
#ifndef USMP_KERNELS_HELIUM_H
#define USMP_KERNELS_HELIUM_H

#include <stdint.h>

#include "usmp_kernels/pooling.h"

/*
 * CONV_2D (no groups; also DEPTHWISE_CONV_2D of one input channel, whose [out_ch, H, W, 1] filter is
 * a convolution's) and FULLY_CONNECTED (a 1 x batches image of in_features channels) as a matrix
 * product: out[px][o] = requantize(bias[o] + sum_k column[px][k] * filter[o][k]), the input zero point
 * folded into the bias by the compiler; windows reaching outside the input read the zero point there
 * (pad_value), so the folded bias is exact everywhere. Each pixel's column is depth =
 * filter_h * filter_w * in_ch bytes in the filter's (ky, kx, c) order, 16 * chunks bytes apart.
 * `blocks` holds, per block of 4 output channels (the last padded with zeros), the 4 biases, the
 * filter as chunks x 4 channels x 16 bytes (zero padded), the 4 multipliers and the 4 right shifts
 * (<= 0), and with requant_general the 4 left shifts (>= 0) too. Without requant_general every shift
 * is negative and the activation is the whole int8 range (a clamped layer is requant_general).
 *
 * usmp_helium_conv_s8 builds the columns of `run` output pixels at a time in `columns` (run * 16 *
 * chunks bytes of scratch, none when `direct`), followed with depth <= 16 by run * 16 + 16 bytes for
 * their sums; with `gathers`, the blocks are followed by 8 * gathers uint16 offsets of each column byte
 * from its window's first tap (windows inside the input are gathered with them). With `direct`
 * USMP_HELIUM_DIRECT (a 1x1 window over at most 16 channels) the input is the columns, in_ch apart; with
 * USMP_HELIUM_GATHERED (a window of one chunk within 8-bit offsets, the whole int8 range) there are no
 * columns: an output row at a time, its filter rows are copied padded into the scratch after the row's
 * sums (out_w * 16 + 16 bytes) and the narrow loop gathers each window from there (the blocks followed
 * by its 16 uint8 offsets). usmp_helium_conv_rows_s8 (direct USMP_HELIUM_ROWS) does the same for
 * windows of several chunks whose filter rows are 1, 2, 4 or 8 bytes (16 / row of them a chunk, the same
 * 16 offsets for every chunk): the pairs' loop gathers each chunk of both pixels' windows from the padded
 * rows (no sums in the scratch: the rows follow the state, as many as the chunks span).
 * usmp_helium_conv_1x1_s8 reads the input as the columns (a 1x1 window, stride 1, no padding, in_ch a
 * multiple of 16). The scratch of either starts with the kernel's state during a call
 * (USMP_HELIUM_MATRIX_STATE_BYTES: its loops' jobs and the vector registers they save), which the plan holds
 * rather than the stack; usmp_helium_conv_s8's columns follow.
 */
struct usmp_helium_conv_params {
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
	int32_t pad_value; /* the input zero point */
	int32_t depth;     /* filter_h * filter_w * in_ch */
	int32_t chunks;    /* (depth + 15) / 16 */
	int32_t run;       /* pixels a call of the matrix loop takes (the scratch's columns) */
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t requant_general; /* some shift >= 0 */
	int32_t gathers;         /* windows inside the input gathered 8 bytes at a time (rows under 16 bytes) */
	int32_t direct;          /* where the columns are: USMP_HELIUM_DIRECT, USMP_HELIUM_GATHERED, else built */
};

#define USMP_HELIUM_MATRIX_STATE_BYTES 160
#define USMP_HELIUM_DIRECT 1   /* usmp_helium_conv_params.direct: the input is the columns */
#define USMP_HELIUM_GATHERED 2 /* usmp_helium_conv_params.direct: windows gathered from padded rows */
#define USMP_HELIUM_ROWS 3     /* the same, several chunks: the matrix loop gathers each chunk (no columns) */

void usmp_helium_conv_s8(const struct usmp_helium_conv_params *p, const int8_t *input, const int8_t *blocks,
			 int8_t *columns, int8_t *output);
void usmp_helium_conv_1x1_s8(const struct usmp_helium_conv_params *p, const int8_t *input, const int8_t *blocks,
			     int8_t *columns, int8_t *output);
void usmp_helium_conv_rows_s8(const struct usmp_helium_conv_params *p, const int8_t *input, const int8_t *blocks,
			      int8_t *columns, int8_t *output);

/*
 * DEPTHWISE_CONV_2D with multiplier 1, filter_h <= USMP_HELIUM_DW_MAX_FILTER_H. The 16 lanes of a vector
 * are 16 channels of a pixel, or, with pixels_per_vector = 2 (8 channels, stride and dilation 1 along
 * the width), the channels of two consecutive pixels. `constants` holds
 * per group of 16 lanes (one group when pixels_per_vector > 1) the folded biases, the filter as
 * filter_h * filter_w taps of 16 bytes (the lanes' channels), the multipliers, the right shifts (<= 0)
 * and with requant_general the left shifts (>= 0); each int32 field is 16 values in the order of the
 * kernel's sums: lanes 0, 4, 8, 12, then 2, 6, 10, 14, then 1, 5, 9, 13, then 3, 7, 11, 15.
 * `strips` is scratch for filter_h x group_pass strips of USMP_HELIUM_DW_STRIP_BYTES(strip_width, lane
 * bytes) each (lane bytes: the channels where a vector spans several pixels, else 16): the input rows the
 * windows of `chunk` vectors of an output row read, for group_pass groups at a time, padded with the input
 * zero point (-input_offset), so the folded bias is exact everywhere; they follow the kernel's state during a
 * call (USMP_HELIUM_DW_STATE_BYTES: its loop's fields and the vector registers it saves), which the plan holds
 * rather than the stack.
 */
struct usmp_helium_depthwise_params {
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
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t input_offset; /* minus the input zero point */
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t pixels_per_vector;
	int32_t requant_general; /* some shift >= 0 */
	int32_t chunk;           /* vectors of an output row the strips span */
	int32_t strip_width;     /* pixels of a strip: the windows of `chunk` vectors */
	int32_t group_pass;      /* groups of 16 lanes a pass over the output rows takes */
};

#define USMP_HELIUM_DW_MAX_FILTER_H 5
#define USMP_HELIUM_DW_STRIP_BYTES(width, lane_bytes) ((((width) * (lane_bytes) + 15) & ~15) + 16)
#define USMP_HELIUM_DW_STATE_BYTES 256

void usmp_helium_depthwise_s8(const struct usmp_helium_depthwise_params *p, const int8_t *input,
			      const int8_t *constants, int8_t *strips, int8_t *output);

/*
 * The same layers where the window is 3x3, the strides 1 or 2, the dilations 1, the padding at most one column a
 * side, the channels whole groups of 16 (or 8 channels two pixels a vector over an even output width) and every
 * shift a right shift, with the input read in place (no strips; chunk, strip_width and group_pass unused).
 * `constants` as above, then a tail: the output zero point as 8 int16, act_min and act_max as 16 int8 each, and the
 * input zero point in 16 bytes or a pixel (the channels), whichever is more. `state` holds its loop's fields,
 * USMP_HELIUM_DW_ROWS_STATE_BYTES, then with two pixels a vector the input's edges as 6 vectors.
 */
#define USMP_HELIUM_DW_ROWS_STATE_BYTES 168
#define USMP_HELIUM_DW_ROWS_EDGES_BYTES 96

void usmp_helium_depthwise_rows_s8(const struct usmp_helium_depthwise_params *p, const int8_t *input,
				   const int8_t *constants, int8_t *state, int8_t *output);

/*
 * ADD of two int8 tensors of one shape (no broadcasting), TFLite's arithmetic; the output may be an
 * input.
 */
struct usmp_helium_add_params {
	int32_t size; /* elements */
	int32_t input1_offset;
	int32_t input2_offset;
	int32_t output_offset;
	int32_t left_shift;
	int32_t input1_multiplier;
	int32_t input1_shift;
	int32_t input2_multiplier;
	int32_t input2_shift;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_helium_add_s8(const struct usmp_helium_add_params *p, const int8_t *input1, const int8_t *input2,
			int8_t *output);

/* AVERAGE_POOL_2D of windows of at most 256 taps (the portable kernel's parameters and rounding). */
void usmp_helium_avg_pool_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output);

/*
 * MEAN over every axis but the innermost (channels): TFLite's sum of `pixels` (at most 256) values a
 * channel, less sum_offset (the zero point's share), rescaled (multiplier, shift) and offset.
 */
struct usmp_helium_mean_params {
	int32_t channels;
	int32_t pixels;
	int32_t sum_offset;
	int32_t multiplier;
	int32_t shift;
	int32_t output_offset;
};

void usmp_helium_mean_s8(const struct usmp_helium_mean_params *p, const int8_t *input, int8_t *output);

/*
 * 16x8 layers (int16 activations, int8 weights; conv_s16.c and depthwise_s16.c): TFLite's 64-bit sums
 * where 32 bits provably hold them (the compiler checks the bound with the weights known), rescaled exactly as TFLite's
 * 16-bit-multiplier rescale: ((sum * (m16 << 16)) >> 32 + round) >> e per lane, with round = 2^(e-1) + the
 * output offset * 2^e (VMULH, VADD, VSHL by -e). Zero points are 0, so padding is zeros (taps skipped or
 * zero-filled) and the bias needs no folding.
 *
 * usmp_helium_conv_s16: CONV_2D (also DEPTHWISE_CONV_2D of one input channel, FULLY_CONNECTED as a 1 x
 * batches image) as a matrix product, each output pixel's window (depth int16 taps in the filter's (ky, kx, c)
 * order) against blocks of 4 output channels. `blocks` holds per block the 4 biases, the filter as chunks x 4
 * channels x 8 bytes (zero padded), then the 4 multipliers (<< 16), the 4 roundings and the 4 negated shifts
 * (int32 each). `columns` is scratch: the kernel's state during a call (USMP_HELIUM_CONV_S16_STATE_BYTES: its
 * pair loop's job), which the plan holds rather than the stack, then two windows' columns (2 x chunks * 8 int16),
 * none where every window is one input pixel of 8k channels (a 1x1 window, no padding).
 */
struct usmp_helium_conv_s16_params {
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
	int32_t depth;  /* filter_h * filter_w * in_ch */
	int32_t chunks; /* (depth + 7) / 8 */
	int32_t act_min;
	int32_t act_max;
};

#define USMP_HELIUM_CONV_S16_STATE_BYTES 136

void usmp_helium_conv_s16(const struct usmp_helium_conv_s16_params *p, const int16_t *input, const int8_t *blocks,
			  int16_t *columns, int16_t *output);

/*
 * usmp_helium_conv_s16_sum64: the same layers where 32 bits do not provably hold the sums, summed in 64 bits
 * (VMLALDAVA) one output channel at a time. `blocks` holds per channel the int64 bias (low word first), the
 * 16-bit multiplier, the right shift and the output offset (int32 each), then the filter as chunks x 8 bytes.
 */
void usmp_helium_conv_s16_sum64(const struct usmp_helium_conv_s16_params *p, const int16_t *input,
				const int8_t *blocks, int16_t *columns, int16_t *output);

/*
 * usmp_helium_depthwise_s16: DEPTHWISE_CONV_2D with multiplier 1, 8 channels a vector (the last group
 * tail-predicated), taps outside the input skipped. `constants` holds per group of 8 channels the biases,
 * multipliers (<< 16), roundings and negated shifts, each as the even channels' 4 then the odd channels' 4
 * (int32), then the filter as filter_h * filter_w taps of 8 bytes (zero padded). `state` is scratch: the
 * driver's loops during a call (USMP_HELIUM_DW_S16_STATE_BYTES), which the plan holds rather than the stack.
 */
struct usmp_helium_depthwise_s16_params {
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
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t act_min;
	int32_t act_max;
};

#define USMP_HELIUM_DW_S16_STATE_BYTES 72

void usmp_helium_depthwise_s16(const struct usmp_helium_depthwise_s16_params *p, const int16_t *input,
			       const int8_t *constants, int32_t *state, int16_t *output);

/* AVERAGE_POOL_2D of int16 (pool_s16.c), windows of at most 256 taps (the portable kernel's parameters and rounding). */
void usmp_helium_avg_pool_s16(const struct usmp_pool_s8_params *p, const int16_t *input, int16_t *output);

#endif /* USMP_KERNELS_HELIUM_H */
