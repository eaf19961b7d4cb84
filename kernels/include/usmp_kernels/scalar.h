/*
 * USMP's own int8 kernels for cores without SIMD: kernels/scalar/. Three
 * forms, one per kind of core, each named after it, each with its constants
 * laid out by the compiler (scripts/usmp/select/scalar.py) in the order its
 * loops read them:
 *
 * - rv32: RV32IM and up (no multiply-accumulate; 31 registers). Four output
 *   pixels by four output channels at a time: 16 sums in registers, each tap
 *   4 + 4 byte loads for 16 multiplies and adds.
 * - armv7m: Armv7-M without DSP (Cortex-M3: SMLAL, 13 registers). Two pixels'
 *   int8 taps packed in one word, x0 + x1 * 2^23: one SMLAL by a weight sums
 *   both pixels at once, in two lanes of a 64-bit sum that are split every
 *   `chunk` taps (the compiler picks a chunk after which the low lane cannot
 *   have left +-2^22, from the weights).
 * - armv6m: Armv6-M (Cortex-M0/M0+: MULS, 8 low registers, loads with an
 *   immediate offset only unsigned). One pixel by eight channels; the weights
 *   are stored as unsigned bytes w + 128, and the pixel's sum of taps times 128
 *   taken off again.
 *
 * Every form is plain C on other builds (the host runs them for the tests).
 *
 * Convolution (CONV_2D without groups, DEPTHWISE_CONV_2D with one input
 * channel, FULLY_CONNECTED) as a matrix product of the output pixels'
 * windows of `depth` taps, read where they lie; padding reads the input's zero
 * point, so that the bias with the zero point folded in is right for every
 * window. `weights` holds per block of output channels (4, armv6m 8): the
 * blocks' biases (int32), their taps [depth][channel of the block] (int8, or
 * armv6m uint8 w + 128; padded to whole words), then per channel the
 * multiplier, the rounding 2^(e-1) + output_offset * 2^e and the shift e
 * (int32 each). Requantization is TFLite's, bit for bit, without 64-bit
 * division (see usmp_kernels/dsp.h): the doubled sum's rounded high word
 * with the multiplier, then the rounding shift.
 *
 * Window kernels take in_h, out_h and pad_top with the portable kernels'
 * meaning (usmp_kernels/conv.h), rows outside [0, in_h) being padding, so a
 * depth-first band may run them on a few rows at a time. Scratch, planned by
 * the compiler (select/scalar.py: Form.scratch_bytes), holds armv7m's packed
 * taps (4 * depth bytes), then an output row's filter_h input rows padded
 * with the zero point to the width its windows span, where they reach into
 * the padding. Their windows are not dilated horizontally.
 */
#ifndef USMP_KERNELS_SCALAR_H
#define USMP_KERNELS_SCALAR_H

#include <stdint.h>

struct usmp_scalar_conv_params {
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
	int32_t zero_point;       /* the input's: what a padding tap reads */
	int32_t depth;            /* taps of a window: filter_h * filter_w * in_ch (depthwise: filter_h * filter_w) */
	int32_t chunk;            /* armv7m: taps summed in packed lanes before they are split */
	int32_t depth_multiplier; /* depthwise: output channels per input channel */
	int32_t act_min;
	int32_t act_max;
};

void usmp_scalar_conv_rv32_s8(const struct usmp_scalar_conv_params *p, const int8_t *input,
			      const uint32_t *weights, int8_t *scratch, int8_t *output);
void usmp_scalar_conv_armv7m_s8(const struct usmp_scalar_conv_params *p, const int8_t *input,
				const uint32_t *weights, int8_t *scratch, int8_t *output);
void usmp_scalar_conv_armv6m_s8(const struct usmp_scalar_conv_params *p, const int8_t *input,
				const uint32_t *weights, int8_t *scratch, int8_t *output);

/*
 * DEPTHWISE_CONV_2D (any multiplier, filter, stride, dilation), one form for every core: output channel
 * oc = c * depth_multiplier + m reads input channel c. `weights` holds per output channel its bias (the zero
 * point folded in), multiplier, rounding and shift (int32), then its filter_h * filter_w taps (int8, padded
 * to whole words). Along an output row each channel keeps its taps (3x3: in registers) and slides over the
 * input; padding reads the zero point as above.
 */
void usmp_scalar_depthwise_s8(const struct usmp_scalar_conv_params *p, const int8_t *input, const uint32_t *weights,
			      int8_t *scratch, int8_t *output);

#endif /* USMP_KERNELS_SCALAR_H */
