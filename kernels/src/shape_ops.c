/* Strided N-D copy, fill and gather kernels (see usmp_kernels/shape_ops.h). */
#include "usmp_kernels.h"

#define INNER (USMP_ND_DIMS - 1)

/*
 * Moving elements does not depend on what they mean, only on their size: one
 * loop, expanded per element width, serves int8, uint8, bool, int16, int32
 * and float32 (a float is moved as its 32-bit pattern, unchanged).
 */
#define USMP_DEFINE_COPY_ND(bits)                                                                  \
	void usmp_copy_nd_x##bits(const struct usmp_copy_nd_params *p, const void *input,          \
				  void *output)                                                     \
	{                                                                                          \
		const uint##bits##_t *in = (const uint##bits##_t *)input;                          \
		uint##bits##_t *out = (uint##bits##_t *)output;                                    \
		int32_t idx[USMP_ND_DIMS - 1] = {0};                                               \
		const int32_t n = p->count[INNER];                                                 \
		const int32_t in_step = p->in_step[INNER];                                         \
		const int32_t out_step = p->out_step[INNER];                                       \
                                                                                                   \
		if (!usmp_nd_nonempty(p->count)) {                                                 \
			return;                                                                    \
		}                                                                                  \
		do {                                                                               \
			int32_t i = p->in_offset + usmp_nd_row_offset(idx, p->in_step);            \
			int32_t o = p->out_offset + usmp_nd_row_offset(idx, p->out_step);          \
			int32_t k;                                                                 \
                                                                                                   \
			for (k = 0; k < n; k++) {                                                  \
				out[o] = in[i];                                                    \
				i += in_step;                                                      \
				o += out_step;                                                     \
			}                                                                          \
		} while (usmp_nd_next_row(p->count, idx));                                         \
	}

USMP_DEFINE_COPY_ND(8)
USMP_DEFINE_COPY_ND(16)
USMP_DEFINE_COPY_ND(32)

#define USMP_DEFINE_FILL(bits)                                                                     \
	void usmp_fill_x##bits(const struct usmp_fill_params *p, void *output)                     \
	{                                                                                          \
		const uint##bits##_t value = (uint##bits##_t)p->pattern;                           \
		uint##bits##_t *out = (uint##bits##_t *)output;                                    \
		int32_t k;                                                                         \
                                                                                                   \
		for (k = 0; k < p->count; k++) {                                                   \
			out[k] = value;                                                            \
		}                                                                                  \
	}

USMP_DEFINE_FILL(8)
USMP_DEFINE_FILL(16)
USMP_DEFINE_FILL(32)

#define USMP_DEFINE_PAD_ROWS(bits)                                                                 \
	void usmp_pad_rows_x##bits(const struct usmp_pad_rows_params *p, const void *input, void *output) \
	{                                                                                          \
		const uint##bits##_t value = (uint##bits##_t)p->pattern;                           \
		const uint##bits##_t *in = (const uint##bits##_t *)input;                          \
		uint##bits##_t *out = (uint##bits##_t *)output;                                    \
		const int32_t row = p->out_w * p->out_ch;                                          \
		int32_t y, x, c;                                                                   \
                                                                                                   \
		for (y = 0; y < p->out_h; y++) {                                                   \
			const int32_t iy = y - p->pad_top;                                         \
                                                                                                   \
			for (x = 0; x < row; x++) {                                                \
				out[x] = value;                                                    \
			}                                                                          \
			if (iy >= 0 && iy < p->in_h) {                                             \
				for (x = 0; x < p->in_w; x++) {                                    \
					uint##bits##_t *o = out + (x + p->pad_left) * p->out_ch + p->pad_front; \
                                                                                                   \
					for (c = 0; c < p->in_ch; c++) {                           \
						o[c] = *in++;                                      \
					}                                                          \
				}                                                                  \
			}                                                                          \
			out += row;                                                                \
		}                                                                                  \
	}

USMP_DEFINE_PAD_ROWS(8)
USMP_DEFINE_PAD_ROWS(32)

#define USMP_DEFINE_CONCAT_ROWS(bits)                                                              \
	void usmp_concat_rows_x##bits(const struct usmp_concat_rows_params *p, const void *input, void *output) \
	{                                                                                          \
		const uint##bits##_t *in = (const uint##bits##_t *)input;                          \
		uint##bits##_t *out = (uint##bits##_t *)output + p->offset;                        \
		int32_t i, c;                                                                      \
                                                                                                   \
		for (i = 0; i < p->pixels; i++) {                                                  \
			for (c = 0; c < p->channels; c++) {                                        \
				out[c] = *in++;                                                    \
			}                                                                          \
			out += p->out_channels;                                                    \
		}                                                                                  \
	}

USMP_DEFINE_CONCAT_ROWS(8)
USMP_DEFINE_CONCAT_ROWS(32)

/*
 * An index outside [0, axis_size) makes TFLite Micro fail the invoke; there is
 * no error path per operator here, so its slot is zero-filled instead of
 * reading outside the input.
 */
#define USMP_DEFINE_GATHER(bits)                                                                   \
	void usmp_gather_x##bits(const struct usmp_gather_params *p, const void *input,            \
				 const int32_t *indices, void *output)                              \
	{                                                                                          \
		const uint##bits##_t *in = (const uint##bits##_t *)input;                          \
		uint##bits##_t *out = (uint##bits##_t *)output;                                    \
		int32_t batch, outer, k, e;                                                        \
                                                                                                   \
		for (batch = 0; batch < p->batch; batch++) {                                       \
			const int32_t *coords = indices + batch * p->count;                        \
                                                                                                   \
			for (outer = 0; outer < p->outer; outer++) {                               \
				const uint##bits##_t *slab =                                       \
					in + (batch * p->outer + outer) * p->axis_size * p->inner; \
                                                                                                   \
				for (k = 0; k < p->count; k++) {                                   \
					const int32_t at = coords[k];                              \
					const int32_t valid = at >= 0 && at < p->axis_size;        \
                                                                                                   \
					for (e = 0; e < p->inner; e++) {                           \
						*out++ = valid ? slab[at * p->inner + e] : 0;      \
					}                                                          \
				}                                                                  \
			}                                                                          \
		}                                                                                  \
	}

USMP_DEFINE_GATHER(8)
USMP_DEFINE_GATHER(16)
USMP_DEFINE_GATHER(32)

/*
 * GATHER_ND: slice n starts at sum_j indices[n][j] * stride[j]; an index tuple
 * with any entry outside its extent yields a zero slice (as for GATHER).
 */
#define USMP_DEFINE_GATHER_ND(bits)                                                                \
	void usmp_gather_nd_x##bits(const struct usmp_gather_nd_params *p, const void *input,      \
				    const int32_t *indices, void *output)                           \
	{                                                                                          \
		const uint##bits##_t *in = (const uint##bits##_t *)input;                          \
		uint##bits##_t *out = (uint##bits##_t *)output;                                    \
		int32_t n, j, e;                                                                   \
                                                                                                   \
		for (n = 0; n < p->count; n++) {                                                   \
			const int32_t *tuple = indices + n * p->depth;                             \
			int32_t from = 0;                                                          \
			int32_t valid = 1;                                                         \
                                                                                                   \
			for (j = 0; j < p->depth; j++) {                                           \
				if (tuple[j] < 0 || tuple[j] >= p->extent[j]) {                    \
					valid = 0;                                                 \
				} else {                                                           \
					from += tuple[j] * p->stride[j];                           \
				}                                                                  \
			}                                                                          \
			for (e = 0; e < p->slice; e++) {                                           \
				*out++ = valid ? in[from + e] : 0;                                 \
			}                                                                          \
		}                                                                                  \
	}

USMP_DEFINE_GATHER_ND(8)
USMP_DEFINE_GATHER_ND(16)
USMP_DEFINE_GATHER_ND(32)
