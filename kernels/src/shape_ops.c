/* Strided N-D copy and fill kernels (see usmp_kernels/shape_ops.h). */
#include "usmp_kernels.h"

#define INNER (USMP_ND_DIMS - 1)

/*
 * The copy is the same loop for every element type: one definition, expanded
 * per type, so the int8 and float32 kernels cannot drift apart.
 */
#define USMP_DEFINE_COPY_ND(suffix, type)                                                         \
	void usmp_copy_nd_##suffix(const struct usmp_copy_nd_params *p, const type *input,       \
				   type *output)                                                  \
	{                                                                                          \
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
				output[o] = input[i];                                              \
				i += in_step;                                                      \
				o += out_step;                                                     \
			}                                                                          \
		} while (usmp_nd_next_row(p->count, idx));                                         \
	}

USMP_DEFINE_COPY_ND(s8, int8_t)
USMP_DEFINE_COPY_ND(f32, float)

void usmp_fill_s8(const struct usmp_fill_s8_params *p, int8_t *output)
{
	const int8_t value = (int8_t)p->value;
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = value;
	}
}

void usmp_fill_f32(const struct usmp_fill_f32_params *p, float *output)
{
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = p->value;
	}
}
