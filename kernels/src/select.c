/* SELECT_V2 kernels (see usmp_kernels/select.h). */
#include "usmp_kernels.h"

#define USMP_DEFINE_SELECT(suffix, type)                                                                   \
	void usmp_select_##suffix(const struct usmp_select_params *p, const uint8_t *condition,           \
				  const type *x, const type *y, type *output)                             \
	{                                                                                                 \
		struct usmp_row_walk w;                                                                   \
		const int32_t rows = usmp_walk_start(&w, p->rank, p->shape, p->stride_condition,          \
						     p->stride_x, p->stride_y);                           \
		const int32_t last = p->rank - 1;                                                         \
		const int32_t n = p->shape[last];                                                         \
		int32_t r, i;                                                                             \
                                                                                                          \
		for (r = 0; r < rows; r++) {                                                              \
			const uint8_t *c = condition + w.offset1;                                         \
			const type *a = x + w.offset2;                                                    \
			const type *b = y + w.offset3;                                                    \
                                                                                                          \
			for (i = 0; i < n; i++) {                                                         \
				*output++ = c[i * p->stride_condition[last]] ? a[i * p->stride_x[last]]   \
									     : b[i * p->stride_y[last]];  \
			}                                                                                 \
			usmp_walk_next_row(&w);                                                           \
		}                                                                                         \
	}

USMP_DEFINE_SELECT(s8, int8_t)
USMP_DEFINE_SELECT(s16, int16_t)
USMP_DEFINE_SELECT(f32, float)
