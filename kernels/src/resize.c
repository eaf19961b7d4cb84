/* RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR kernels (see usmp_kernels/resize.h). */
#include "usmp_kernels.h"

/* The nearest-neighbour gather is the same loop for every element type. */
#define USMP_DEFINE_RESIZE_NEAREST(suffix, type)                                                   \
	void usmp_resize_nearest_##suffix(const struct usmp_resize_params *p, const type *input,  \
					  const int32_t *offsets, type *output)                      \
	{                                                                                          \
		const int32_t *cols = offsets + p->out_h;                                          \
		const int32_t image = p->in_h * p->in_w * p->depth;                                \
		int32_t b, y, x, c;                                                                \
                                                                                                   \
		for (b = 0; b < p->batches; b++) {                                                 \
			for (y = 0; y < p->out_h; y++) {                                           \
				const type *row = input + offsets[y];                              \
                                                                                                   \
				for (x = 0; x < p->out_w; x++) {                                   \
					const type *pixel = row + cols[x];                         \
                                                                                                   \
					for (c = 0; c < p->depth; c++) {                           \
						*output++ = pixel[c];                              \
					}                                                          \
				}                                                                  \
			}                                                                          \
			input += image;                                                            \
		}                                                                                  \
	}

USMP_DEFINE_RESIZE_NEAREST(s8, int8_t)
USMP_DEFINE_RESIZE_NEAREST(s16, int16_t)
USMP_DEFINE_RESIZE_NEAREST(f32, float)

#define BILINEAR_ONE 1024 /* 1.0 in the 10-bit weights */
#define BILINEAR_HALF (1 << 19)

void usmp_resize_bilinear_s8(const struct usmp_resize_params *p, const int8_t *input, const int32_t *table,
			     int8_t *output)
{
	const int32_t *cols = table + 3 * p->out_h;
	const int32_t image = p->in_h * p->in_w * p->depth;
	int32_t b, y, x, c;

	for (b = 0; b < p->batches; b++) {
		for (y = 0; y < p->out_h; y++) {
			const int8_t *top = input + table[3 * y];
			const int8_t *bottom = input + table[3 * y + 1];
			const int32_t dy = table[3 * y + 2];

			for (x = 0; x < p->out_w; x++) {
				const int32_t left = cols[3 * x];
				const int32_t right = cols[3 * x + 1];
				const int32_t dx = cols[3 * x + 2];

				for (c = 0; c < p->depth; c++) {
					/* The same exact sum as TFLite's four products: at most 2^29 in magnitude. */
					const int32_t upper = top[left + c] * (BILINEAR_ONE - dx) + top[right + c] * dx;
					const int32_t lower =
						bottom[left + c] * (BILINEAR_ONE - dx) + bottom[right + c] * dx;
					const int32_t sum = upper * (BILINEAR_ONE - dy) + lower * dy;

					*output++ = (int8_t)(sum >= 0 ? (sum + BILINEAR_HALF) >> 20
								      : -((BILINEAR_HALF - sum) >> 20));
				}
			}
		}
		input += image;
	}
}

void usmp_resize_bilinear_f32(const struct usmp_resize_params *p, const float *input, const int32_t *offsets,
			      const float *weights, float *output)
{
	const int32_t *cols = offsets + 2 * p->out_h;
	const float *col_weights = weights + 2 * p->out_h;
	const int32_t image = p->in_h * p->in_w * p->depth;
	int32_t b, y, x, c;

	for (b = 0; b < p->batches; b++) {
		for (y = 0; y < p->out_h; y++) {
			const float *top = input + offsets[2 * y];
			const float *bottom = input + offsets[2 * y + 1];
			const float wy0 = weights[2 * y];
			const float wy1 = weights[2 * y + 1];

			for (x = 0; x < p->out_w; x++) {
				const float *tl = top + cols[2 * x];
				const float *tr = top + cols[2 * x + 1];
				const float *bl = bottom + cols[2 * x];
				const float *br = bottom + cols[2 * x + 1];
				const float wx0 = col_weights[2 * x];
				const float wx1 = col_weights[2 * x + 1];

				for (c = 0; c < p->depth; c++) {
					*output++ = tl[c] * wy0 * wx0 + bl[c] * wy1 * wx0 + tr[c] * wy0 * wx1 +
						    br[c] * wy1 * wx1;
				}
			}
		}
		input += image;
	}
}
