/*
 * USMP kernels: data movement (RESHAPE/SQUEEZE copies, CONCATENATION, PAD,
 * MIRROR_PAD, TRANSPOSE, STRIDED_SLICE, SPLIT, PACK, TILE, the space/batch/depth
 * rearrangements, ...) and GATHER / GATHER_ND.
 *
 * All but the gathers are one strided N-D copy (or a fill): the compiler works
 * out, per dimension, how many elements to visit and how far apart they are
 * in the input and in the output, and collapses dimensions that are
 * contiguous in both. The kernel only walks the counts; it never divides.
 *
 * Kernels go by element width, not type (x8: int8, uint8, bool; x16: int16;
 * x32: int32, float32): moving an element never looks at its value.
 */
#ifndef USMP_KERNELS_SHAPE_OPS_H
#define USMP_KERNELS_SHAPE_OPS_H

#include <stdint.h>

/* Dimensions of an N-D walk; shorter shapes are padded with leading 1s. */
#define USMP_ND_DIMS 6

struct usmp_copy_nd_params {
	int32_t count[USMP_ND_DIMS];    /* elements visited per dimension, outermost first */
	int32_t in_step[USMP_ND_DIMS];  /* input elements between neighbours (may be negative) */
	int32_t out_step[USMP_ND_DIMS]; /* output elements between neighbours */
	int32_t in_offset;              /* input element of the first visit */
	int32_t out_offset;             /* output element of the first visit */
};

/* output[out_offset + sum idx*out_step] = input[in_offset + sum idx*in_step] over all idx < count. */
void usmp_copy_nd_x8(const struct usmp_copy_nd_params *p, const void *input, void *output);
void usmp_copy_nd_x16(const struct usmp_copy_nd_params *p, const void *input, void *output);
void usmp_copy_nd_x32(const struct usmp_copy_nd_params *p, const void *input, void *output);

struct usmp_fill_params {
	int32_t count;
	int32_t pattern; /* the element's bits (a float's IEEE pattern), in the low bits */
};

/* output[0..count) = pattern (PAD's border before the input is copied in). */
void usmp_fill_x8(const struct usmp_fill_params *p, void *output);
void usmp_fill_x16(const struct usmp_fill_params *p, void *output);
void usmp_fill_x32(const struct usmp_fill_params *p, void *output);

/*
 * PAD of a batch-1 NHWC tensor over height, width and channels, a row at a time,
 * so that a depth-first band runs it too: output rows [0, out_h) are the pad
 * value except rows [pad_top, pad_top + in_h), which hold input rows [0, in_h)
 * at column pad_left and channel pad_front (the rest of those rows the pad value).
 */
struct usmp_pad_rows_params {
	int32_t in_h;
	int32_t out_h;
	int32_t pad_top;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_w;
	int32_t out_ch;
	int32_t pad_left;
	int32_t pad_front;
	int32_t pattern; /* the pad value's bits, as usmp_fill_params */
};

void usmp_pad_rows_x8(const struct usmp_pad_rows_params *p, const void *input, void *output);
void usmp_pad_rows_x32(const struct usmp_pad_rows_params *p, const void *input, void *output);

/*
 * One input of a CONCATENATION along channels: `pixels` pixels of `channels`
 * elements each go to channel `offset` of pixels `out_channels` wide.
 */
struct usmp_concat_rows_params {
	int32_t pixels;
	int32_t channels;
	int32_t offset;
	int32_t out_channels;
};

void usmp_concat_rows_x8(const struct usmp_concat_rows_params *p, const void *input, void *output);
void usmp_concat_rows_x32(const struct usmp_concat_rows_params *p, const void *input, void *output);

struct usmp_gather_params {
	int32_t batch;     /* product of the batch_dims leading dimensions */
	int32_t outer;     /* product of the dimensions between them and the axis */
	int32_t axis_size; /* input extent along the axis */
	int32_t count;     /* indices per batch */
	int32_t inner;     /* elements per gathered slice (dimensions after the axis) */
};

/*
 * GATHER with int32 indices: output[b][o][k][:] = input[b][o][indices[b][k]][:].
 * An index outside [0, axis_size) yields a zero slice.
 */
void usmp_gather_x8(const struct usmp_gather_params *p, const void *input, const int32_t *indices, void *output);
void usmp_gather_x16(const struct usmp_gather_params *p, const void *input, const int32_t *indices, void *output);
void usmp_gather_x32(const struct usmp_gather_params *p, const void *input, const int32_t *indices, void *output);

struct usmp_gather_nd_params {
	int32_t count;                /* index tuples */
	int32_t depth;                /* entries per tuple (leading input dimensions indexed) */
	int32_t slice;                /* elements per gathered slice */
	int32_t extent[USMP_ND_DIMS]; /* input extent of each indexed dimension */
	int32_t stride[USMP_ND_DIMS]; /* input elements between neighbours along it */
};

/* GATHER_ND with int32 indices: output[n][:] = input[indices[n][0], ..., indices[n][depth - 1]][:]. */
void usmp_gather_nd_x8(const struct usmp_gather_nd_params *p, const void *input, const int32_t *indices,
		       void *output);
void usmp_gather_nd_x16(const struct usmp_gather_nd_params *p, const void *input, const int32_t *indices,
			void *output);
void usmp_gather_nd_x32(const struct usmp_gather_nd_params *p, const void *input, const int32_t *indices,
			void *output);

/* 1 when no dimension of count is empty. */
static inline int32_t usmp_nd_nonempty(const int32_t *count)
{
	int32_t d;

	for (d = 0; d < USMP_ND_DIMS; d++) {
		if (count[d] <= 0) {
			return 0;
		}
	}
	return 1;
}

/*
 * Row-major increment of idx over the outer USMP_ND_DIMS - 1 dimensions (the
 * innermost one is the caller's loop). Returns 0 once every row was visited.
 */
static inline int32_t usmp_nd_next_row(const int32_t *count, int32_t *idx)
{
	int32_t d;

	for (d = USMP_ND_DIMS - 2; d >= 0; d--) {
		if (++idx[d] < count[d]) {
			return 1;
		}
		idx[d] = 0;
	}
	return 0;
}

/* Element offset of the row idx: sum of idx[d] * step[d] over the outer dimensions. */
static inline int32_t usmp_nd_row_offset(const int32_t *idx, const int32_t *step)
{
	int32_t offset = 0;
	int32_t d;

	for (d = 0; d < USMP_ND_DIMS - 1; d++) {
		offset += idx[d] * step[d];
	}
	return offset;
}

#endif /* USMP_KERNELS_SHAPE_OPS_H */
