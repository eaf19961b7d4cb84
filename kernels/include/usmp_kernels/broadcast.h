/*
 * USMP kernels: the broadcast walk shared by the kernels of two and three inputs.
 *
 * The compiler reduces a broadcast to the fewest dimensions (outermost first)
 * and gives every input an element stride per dimension, 0 where it is
 * broadcast. Kernels loop over the innermost dimension themselves; this walk
 * moves the inputs' row offsets from one row to the next with adds only.
 */
#ifndef USMP_KERNELS_BROADCAST_H
#define USMP_KERNELS_BROADCAST_H

#include <stddef.h>
#include <stdint.h>

#define USMP_BROADCAST_MAX_RANK 6

/* The walk alone: the params of binary kernels that need nothing else. */
struct usmp_broadcast_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
};

struct usmp_row_walk {
	int32_t rank;
	const int32_t *shape;
	const int32_t *stride1;
	const int32_t *stride2;
	const int32_t *stride3; /* NULL for two inputs */
	int32_t index[USMP_BROADCAST_MAX_RANK];
	int32_t offset1;
	int32_t offset2;
	int32_t offset3;
};

/* Starts at the first row; returns the number of rows. */
static inline int32_t usmp_walk_start(struct usmp_row_walk *w, int32_t rank, const int32_t *shape,
				      const int32_t *stride1, const int32_t *stride2, const int32_t *stride3)
{
	int32_t d, rows = 1;

	w->rank = rank;
	w->shape = shape;
	w->stride1 = stride1;
	w->stride2 = stride2;
	w->stride3 = stride3;
	w->offset1 = 0;
	w->offset2 = 0;
	w->offset3 = 0;
	for (d = 0; d < rank; d++) {
		w->index[d] = 0;
		if (d < rank - 1) {
			rows *= shape[d];
		}
	}
	return rows;
}

static inline void usmp_walk_next_row(struct usmp_row_walk *w)
{
	int32_t d;

	for (d = w->rank - 2; d >= 0; d--) {
		w->offset1 += w->stride1[d];
		w->offset2 += w->stride2[d];
		if (w->stride3 != NULL) {
			w->offset3 += w->stride3[d];
		}
		if (++w->index[d] < w->shape[d]) {
			return;
		}
		w->offset1 -= w->stride1[d] * w->shape[d];
		w->offset2 -= w->stride2[d] * w->shape[d];
		if (w->stride3 != NULL) {
			w->offset3 -= w->stride3[d] * w->shape[d];
		}
		w->index[d] = 0;
	}
}

/*
 * Runs `out[k] = (expr)` for every output element k in order, with `x` and
 * `y` (of `type`) the two input elements broadcast to it. `p` has rank/shape/stride1/stride2.
 */
#define USMP_BROADCAST_BINARY(type, p, in1, in2, out, expr)                                                   \
	do {                                                                                              \
		struct usmp_row_walk w_;                                                                  \
		const int32_t rows_ = usmp_walk_start(&w_, (p)->rank, (p)->shape, (p)->stride1,           \
						      (p)->stride2, NULL);                                \
		const int32_t n_ = (p)->shape[(p)->rank - 1];                                             \
		const int32_t step1_ = (p)->stride1[(p)->rank - 1];                                       \
		const int32_t step2_ = (p)->stride2[(p)->rank - 1];                                       \
		int32_t r_, i_;                                                                           \
                                                                                                          \
		for (r_ = 0; r_ < rows_; r_++) {                                                          \
			for (i_ = 0; i_ < n_; i_++) {                                                     \
				const type x = (in1)[w_.offset1 + i_ * step1_];                           \
				const type y = (in2)[w_.offset2 + i_ * step2_];                           \
                                                                                                          \
				*(out)++ = (expr);                                                        \
			}                                                                                 \
			usmp_walk_next_row(&w_);                                                          \
		}                                                                                         \
	} while (0)

#endif /* USMP_KERNELS_BROADCAST_H */
