/* Strided copies by element width for SLICE, REVERSE_V2 and friends (see usmp_kernels/slice.h). */
#include "usmp_kernels.h"

#define INNER (USMP_ND_DIMS - 1)

/* The walk of one width; count/steps/offsets as in struct usmp_slice_params. */
#define USMP_DEFINE_SLICE_WALK(bits)                                                               \
	static void slice_walk_x##bits(const int32_t *count, const int32_t *in_step,               \
				       const int32_t *out_step, int32_t in_offset, int32_t out_offset, \
				       const void *input, void *output)                                \
	{                                                                                          \
		const uint##bits##_t *in = (const uint##bits##_t *)input;                          \
		uint##bits##_t *out = (uint##bits##_t *)output;                                    \
		int32_t idx[USMP_ND_DIMS - 1] = {0};                                               \
		const int32_t n = count[INNER];                                                    \
                                                                                                   \
		if (!usmp_nd_nonempty(count)) {                                                    \
			return;                                                                    \
		}                                                                                  \
		do {                                                                               \
			int32_t i = in_offset + usmp_nd_row_offset(idx, in_step);                  \
			int32_t o = out_offset + usmp_nd_row_offset(idx, out_step);                \
			int32_t k;                                                                 \
                                                                                                   \
			for (k = 0; k < n; k++) {                                                  \
				out[o] = in[i];                                                    \
				i += in_step[INNER];                                               \
				o += out_step[INNER];                                              \
			}                                                                          \
		} while (usmp_nd_next_row(count, idx));                                            \
	}                                                                                          \
                                                                                                   \
	void usmp_slice_x##bits(const struct usmp_slice_params *p, const void *input, void *output) \
	{                                                                                          \
		slice_walk_x##bits(p->count, p->in_step, p->out_step, p->in_offset, p->out_offset, \
				   input, output);                                                 \
	}                                                                                          \
                                                                                                   \
	void usmp_slice_dynamic_x##bits(const struct usmp_slice_dynamic_params *p, const void *input, \
					const void *start, void *output)                           \
	{                                                                                          \
		const int32_t shift = start_offset(p, start);                                      \
                                                                                                   \
		slice_walk_x##bits(p->count, p->in_step, p->out_step,                              \
				   p->in_offset + (p->shift_output ? 0 : shift),                   \
				   p->out_offset + (p->shift_output ? shift : 0), input, output);  \
	}                                                                                          \
                                                                                                   \
	void usmp_reverse_dynamic_x##bits(const struct usmp_reverse_dynamic_params *p, const void *input, \
					  const int32_t *axis, void *output)                       \
	{                                                                                          \
		int32_t in_step[USMP_ND_DIMS];                                                     \
		const int32_t in_offset = reversed_steps(p, axis, in_step);                        \
                                                                                                   \
		slice_walk_x##bits(p->count, in_step, p->step, in_offset, 0, input, output);       \
	}

/* sum over d of clamp(start[d], 0, limit[d]) * stride[d]. */
static int32_t start_offset(const struct usmp_slice_dynamic_params *p, const void *start)
{
	int32_t offset = 0;
	int32_t d;

	for (d = 0; d < p->rank; d++) {
		int32_t s;

		if (p->start_is_64) {
			const int64_t v = ((const int64_t *)start)[d];

			s = v < 0 ? 0 : (v > p->limit[d] ? p->limit[d] : (int32_t)v);
		} else {
			const int32_t v = ((const int32_t *)start)[d];

			s = v < 0 ? 0 : (v > p->limit[d] ? p->limit[d] : v);
		}
		offset += s * p->stride[d];
	}
	return offset;
}

/* The input steps with every named dimension negated; returns the input element of the first visit. */
static int32_t reversed_steps(const struct usmp_reverse_dynamic_params *p, const int32_t *axis, int32_t *in_step)
{
	int32_t reversed[USMP_ND_DIMS] = {0};
	int32_t offset = 0;
	int32_t d;

	for (d = 0; d < p->axes; d++) {
		const int32_t a = axis[d] < 0 ? axis[d] + p->rank : axis[d];

		if (a >= 0 && a < p->rank) {
			reversed[p->first_axis + a] = 1;
		}
	}
	for (d = 0; d < USMP_ND_DIMS; d++) {
		in_step[d] = reversed[d] ? -p->step[d] : p->step[d];
		offset += reversed[d] ? (p->count[d] - 1) * p->step[d] : 0;
	}
	return offset;
}

USMP_DEFINE_SLICE_WALK(8)
USMP_DEFINE_SLICE_WALK(16)
USMP_DEFINE_SLICE_WALK(32)
