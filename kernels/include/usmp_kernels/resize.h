/*
 * USMP kernels: RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (NHWC tensors).
 *
 * Which input rows and columns an output row or column reads, and with which
 * weights, depends only on the shapes and the options, so the compiler
 * computes it once per output row and column (with TFLite's float or 10-bit
 * fixed-point arithmetic) into constant tables. The kernels only look up
 * offsets and blend; they never divide.
 */
#ifndef USMP_KERNELS_RESIZE_H
#define USMP_KERNELS_RESIZE_H

#include <stdint.h>

struct usmp_resize_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t depth;
	int32_t out_h;
	int32_t out_w;
};

/*
 * offsets: out_h input row offsets (in elements, row * in_w * depth), then
 * out_w input column offsets (column * depth). Each output pixel copies the
 * `depth` elements of the input pixel they select.
 */
void usmp_resize_nearest_s8(const struct usmp_resize_params *p, const int8_t *input, const int32_t *offsets,
			    int8_t *output);
void usmp_resize_nearest_s16(const struct usmp_resize_params *p, const int16_t *input,
			     const int32_t *offsets, int16_t *output);
void usmp_resize_nearest_f32(const struct usmp_resize_params *p, const float *input, const int32_t *offsets,
			     float *output);

/*
 * int8 bilinear, TFLite's integer arithmetic: `table` holds per output row
 * (top row offset, bottom row offset, dy) and then per output column (left
 * column offset, right column offset, dx), with dy and dx the distance past
 * the top/left sample in 1/1024 steps. The blend is an exact int32 sum scaled
 * by 2^20, rounded half away from zero.
 */
void usmp_resize_bilinear_s8(const struct usmp_resize_params *p, const int8_t *input, const int32_t *table,
			     int8_t *output);

/*
 * float32 bilinear: `offsets` as `table` above without the weights, which are
 * in `weights`: per output row (1 - dy, dy), then per output column (1 - dx,
 * dx). The four products are summed in TFLite's order.
 */
void usmp_resize_bilinear_f32(const struct usmp_resize_params *p, const float *input, const int32_t *offsets,
			      const float *weights, float *output);

#endif /* USMP_KERNELS_RESIZE_H */
