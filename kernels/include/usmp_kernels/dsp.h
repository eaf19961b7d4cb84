/*
 * USMP's own int8 kernels for cores with the DSP extension (Cortex-M4, M7, M33):
 * kernels/dsp/. They need no CMSIS-NN. On other builds (the host, for the
 * tests) the same sources compute the same sums in plain C.
 *
 * The compiler lays their constants out at compile time, in the order the
 * loops read them (scripts/usmp/select/dsp.py): filters grouped by output
 * channels (pairs, or one channel for the depthwise kernel) and by taps,
 * either as int8 or widened to int16 and doubled ("wide"), each group with
 * its biases and requantization constants. Activations are widened to int16
 * with the input offset added (so padding is 0 and one bias serves every
 * window).
 *
 * Requantization is TFLite's, bit for bit, in a form that needs no 64-bit
 * arithmetic: the doubled sum s = 2 * acc (the wide filter is doubled, else
 * the kernel doubles it) gives SaturatingRoundingDoublingHighMul(acc, m) as
 * t = (s * m + 2^31) >> 32, and the rounding right shift by e >= 1 with the
 * output offset is (t - (t < 0) + round) >> e, round = 2^(e-1) +
 * output_offset * 2^e: one SMMLAR (see kernels/dsp/dsp_ops.h) and a shift.
 * The compiler selects these kernels only where every channel's shift is
 * negative and the sums cannot overflow.
 *
 * Window kernels take in_h, out_h and pad_top with the portable kernels'
 * meaning (usmp_kernels/conv.h), and rows outside [0, in_h) are padding, so
 * a depth-first band may run them on a few rows at a time.
 */
#ifndef USMP_KERNELS_DSP_H
#define USMP_KERNELS_DSP_H

#include <stdint.h>

/*
 * CONV_2D (no groups) and FULLY_CONNECTED as a matrix product: each output
 * pixel's window is widened into an int16 column (two at a time), then every
 * output channel pair is summed against both columns. `weights` holds per
 * output channel pair, in this order: the two biases (the sums start there;
 * doubled for the wide kernel), the filter's quads of taps (depth is
 * filter_h * filter_w * in_ch taps, padded with zeros to quads * 4), each as
 * the two channels' 4 int8 taps or, wide, as their int16 pairs (taps 0 and
 * 2, then 1 and 3), then the two multipliers, the two roundings
 * 2^(e-1) + output_offset * 2^e and the two shifts e. `scratch` holds two
 * columns and one int8 window (with 12 bytes to spare for word copies):
 * USMP_DSP_CONV_SCRATCH_BYTES(quads) at most; where filter rows are whole
 * quads only a row the input's edge cuts is staged (one row's bytes), and a
 * 1x1 window over whole quads stages nothing (select/dsp.py sizes it).
 */
struct usmp_dsp_conv_params {
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
	int32_t input_offset; /* minus the input zero point */
	int32_t quads;        /* (filter_h * filter_w * in_ch + 3) / 4 */
	int32_t act_min;
	int32_t act_max;
};

void usmp_dsp_conv_s8(const struct usmp_dsp_conv_params *p, const int8_t *input, const uint32_t *weights,
		      int16_t *scratch, int8_t *output);
void usmp_dsp_conv_wide_s8(const struct usmp_dsp_conv_params *p, const int8_t *input, const uint32_t *weights,
			   int16_t *scratch, int8_t *output);

#define USMP_DSP_CONV_SCRATCH_BYTES(quads) (20 * (quads) + 12)

/*
 * 16x8 CONV_2D and FULLY_CONNECTED (int16 activations, the filter widened to
 * int16 by the compiler; input_offset is 0): a window is its int16 taps, read
 * straight from the input where it is one pixel of whole quads, else copied
 * into `scratch` (two columns of quads * 4 taps). `weights` per output channel
 * pair: the two biases, per quad the two channels' int16 tap pairs (t0, t1),
 * (t2, t3), then the two multipliers, roundings and shifts. usmp_dsp_conv_s16
 * rescales a 64-bit sum (an int64 bias) as TFLite does, with its multiplier
 * rounded to 16 bits m16 and its right shift 15 - shift = 16 + e: with the
 * multiplier word m16 << 16 and round = 2^(e-1) + output_offset * 2^e,
 * SMMLA gives round + floor(sum * m16 / 2^16) and the result is that >> e,
 * exactly where the sum fits 32 bits (the compiler checks). usmp_dsp_conv_s16_sum32
 * rescales a 32-bit sum (an int32 bias) as usmp_dsp_conv_wide_s8 does: doubled
 * filter and bias.
 */
void usmp_dsp_conv_s16(const struct usmp_dsp_conv_params *p, const int16_t *input, const uint32_t *weights,
		       int16_t *scratch, int16_t *output);
void usmp_dsp_conv_s16_sum32(const struct usmp_dsp_conv_params *p, const int16_t *input, const uint32_t *weights,
			     int16_t *scratch, int16_t *output);
/*
 * The same with the sums in 64 bits, where a layer's sums or bias do not fit 32 bits (a fully connected layer
 * of thousands of inputs): 32-bit partial sums of 127 quads at most, TFLite's 64-bit rescale; `weights` per
 * channel pair: the quads, then per channel the int64 bias (two words), the 16-bit multiplier, the right shift
 * and the output offset.
 */
void usmp_dsp_conv_s16_sum64(const struct usmp_dsp_conv_params *p, const int16_t *input, const uint32_t *weights,
			     int16_t *scratch, int16_t *output);

#define USMP_DSP_CONV_S16_SCRATCH_BYTES(quads) (16 * (quads))

/*
 * DEPTHWISE_CONV_2D, depth multiplier 1, filter width 3, no dilation. Four
 * channels at a time, each input row the windows need is widened once into
 * `rows` (filter_h rows kept as a ring), the offset added and the padding
 * columns 0, as int16 pairs of horizontally adjacent pixels of one channel,
 * laid out [pair][ring row][channel of the four]. An output then takes two
 * MAC instructions a filter row. The filter is, per channel and filter row,
 * the tap pairs (w0, w1) and (w1, w2): as int16 doubled (wide) or as the
 * bytes w0, w1, w1, w2. `rows` is scratch of USMP_DSP_DEPTHWISE_SCRATCH_BYTES.
 */
struct usmp_dsp_depthwise_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t channels;
	int32_t out_h;
	int32_t out_w;
	int32_t filter_h;
	int32_t stride_h;
	int32_t stride_w; /* 1 or 2 */
	int32_t pad_top;
	int32_t pad_left;
	int32_t input_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t row_pairs; /* pairs of padded columns a widened row holds: ((out_w - 1) * stride_w + 5) / 2 */
};

/* One output channel's constants, as usmp_dsp_requant's. */
struct usmp_dsp_channel_requant {
	int32_t bias;
	int32_t multiplier;
	int32_t round;
	int32_t shift;
};

void usmp_dsp_depthwise_s8(const struct usmp_dsp_depthwise_params *p, const int8_t *input, const int8_t *filter,
			   const struct usmp_dsp_channel_requant *requant, int16_t *rows, int8_t *output);
void usmp_dsp_depthwise_wide_s8(const struct usmp_dsp_depthwise_params *p, const int8_t *input,
				const int16_t *filter, const struct usmp_dsp_channel_requant *requant, int16_t *rows,
				int8_t *output);

/*
 * The same for a 3x3 filter, column stride 1 and channels a multiple of four, reading the input in place
 * (kernels/dsp/depthwise_3x3.c; no scratch): per group of four channels and tap (row-major) the int16 pairs
 * (2 w0, 2 w2), (2 w1, 2 w3) of its channels, doubled; `requant` as above. row_pairs is not read.
 */
void usmp_dsp_depthwise_3x3_s8(const struct usmp_dsp_depthwise_params *p, const int8_t *input,
			       const int16_t *filter, const struct usmp_dsp_channel_requant *requant, int8_t *output);

#define USMP_DSP_DEPTHWISE_SCRATCH_BYTES(filter_h, row_pairs) (16 * (filter_h) * (row_pairs))

/*
 * 16x8 DEPTHWISE_CONV_2D (input_offset 0): as above, each input row laid out as int16 pairs of adjacent
 * pixels as it is (no widening); the filter as int16 tap pairs (w0, w1), (w1, w2) per channel and row. The
 * requantization is usmp_dsp_conv_s16's of a 64-bit sum (TFLite's 16x8 depthwise takes an int64 bias only),
 * `requant` holding per channel the bias, the multiplier m16 << 16, the rounding and e.
 */
void usmp_dsp_depthwise_s16(const struct usmp_dsp_depthwise_params *p, const int16_t *input, const uint32_t *filter,
			    const struct usmp_dsp_channel_requant *requant, int16_t *rows, int16_t *output);

/*
 * ADD of two int8 tensors of one shape (no broadcasting), TFLite's arithmetic; the output may be an input.
 * Input i is rescaled from (x + its offset) << 20 as the matrix kernels requantize (multiplier, rounding
 * 2^(e-1), shift e >= 1; offset_i is the input's offset << 21), or, where that rescaling is an exact halving,
 * shifted (offset_i is the offset << 20): `halved` says which, bit 0 input1, bit 1 input2.
 * The sum is requantized with round = 2^(e-1) + output_offset * 2^e and clamped to [act_min, act_max].
 */
struct usmp_dsp_add_params {
	int32_t size; /* elements */
	int32_t halved;
	int32_t offset1;
	int32_t multiplier1;
	int32_t round1;
	int32_t shift1;
	int32_t offset2;
	int32_t multiplier2;
	int32_t round2;
	int32_t shift2;
	int32_t multiplier;
	int32_t round;
	int32_t shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_dsp_add_s8(const struct usmp_dsp_add_params *p, const int8_t *input1, const int8_t *input2,
		     int8_t *output);

#endif /* USMP_KERNELS_DSP_H */
