/*
 * USMP's float32 kernels for cores with a single-precision FPU (Cortex-M4F,
 * M7, M33 with FPU: kernels/fpu/) and for Helium's float lanes (Cortex-M55:
 * kernels/helium/, files ending _f32.c). On other builds (the host, for the tests) the same
 * sources compute the same sums in plain C.
 *
 * Everything about a layer is known at compile time, so the compiler lays its
 * constants out once, in the order the loops read them
 * (scripts/usmp/select/float_layout.py), with the bias in front, and every
 * sum starts from its bias and adds the products with fused multiply-adds:
 * the same terms as TFLite's kernels, summed in another order and rounded
 * once per product-add instead of twice, hence "within float rounding" of
 * TFLite Micro rather than bit-exact (tests/reference.py: float_tolerance).
 *
 * Window kernels take in_h, out_h and pad_top with the portable kernels'
 * meaning (usmp_kernels/conv.h): rows outside [0, in_h) are padding, so a
 * depth-first band may run them on a few rows at a time.
 */
#ifndef USMP_KERNELS_FPU_H
#define USMP_KERNELS_FPU_H

#include <stdint.h>

/*
 * CONV_2D (no groups) and FULLY_CONNECTED as a matrix product of the
 * windows and the filter. `weights` holds per block of 4 output channels
 * (the last padded with zeros) their 4 biases, then `depth` rows of the 4
 * channels' taps side by side: depth is filter_h * filter_w * in_ch rounded
 * up to a multiple of 4, the extra taps 0. Each output pixel's window is
 * copied into a column of `depth` floats in `columns` (two columns: 2 * depth
 * floats), except with `direct` (a 1x1 window, stride 1, no padding and
 * in_ch == depth), where the input pixel is its own column and `columns` is
 * not used. A fully connected layer is a 1x1 convolution over a 1 x batches
 * image.
 */
struct usmp_fpu_conv_params {
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
	int32_t depth;
	int32_t direct;
	float act_min;
	float act_max;
};

void usmp_fpu_conv_f32(const struct usmp_fpu_conv_params *p, const float *input, const float *weights,
		       float *columns, float *output);
void usmp_helium_conv_f32(const struct usmp_fpu_conv_params *p, const float *input, const float *weights,
			  float *columns, float *output);

/*
 * DEPTHWISE_CONV_2D with depth multiplier 1 and channels a multiple of 4.
 * Channels go in groups of 8 (a last group of 4 when channels % 8 == 4);
 * `weights` holds per group its biases, then per filter tap (row-major) the
 * group's taps side by side.
 */
struct usmp_fpu_depthwise_params {
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
	float act_min;
	float act_max;
};

void usmp_fpu_depthwise_f32(const struct usmp_fpu_depthwise_params *p, const float *input, const float *weights,
			    float *output);
void usmp_helium_depthwise_f32(const struct usmp_fpu_depthwise_params *p, const float *input,
			       const float *weights, float *output);

#define USMP_FPU_CONV_BLOCK 4      /* output channels a block of the conv filter */
#define USMP_FPU_DEPTHWISE_GROUP 8 /* channels a group of the depthwise filter */

#endif /* USMP_KERNELS_FPU_H */
