/*
 * USMP kernels: SLICE and REVERSE_V2 (and the copies of DYNAMIC_UPDATE_SLICE
 * and BROADCAST_ARGS), as strided N-D copies chosen by element width.
 *
 * Moving elements does not depend on their type, so one kernel per width
 * (8, 16, 32 bits) serves int8, uint8, bool, int16, int32 and float32; the
 * compiler copies int64 as pairs of 32-bit words. With constant begin/size
 * or axes the whole walk is worked out at compile time. A begin read at run
 * time (usmp_slice_dynamic_*) only moves the first visited element; axes
 * read at run time (usmp_reverse_dynamic_*) turn steps around.
 */
#ifndef USMP_KERNELS_SLICE_H
#define USMP_KERNELS_SLICE_H

#include <stdint.h>

#include "usmp_kernels/shape_ops.h"

struct usmp_slice_params {
	int32_t count[USMP_ND_DIMS];    /* elements visited per dimension, outermost first */
	int32_t in_step[USMP_ND_DIMS];  /* input elements between neighbours (negative to reverse) */
	int32_t out_step[USMP_ND_DIMS]; /* output elements between neighbours */
	int32_t in_offset;              /* input element of the first visit */
	int32_t out_offset;             /* output element of the first visit */
};

/* output[out_offset + sum idx*out_step] = input[in_offset + sum idx*in_step] over all idx < count. */
void usmp_slice_x8(const struct usmp_slice_params *p, const void *input, void *output);
void usmp_slice_x16(const struct usmp_slice_params *p, const void *input, void *output);
void usmp_slice_x32(const struct usmp_slice_params *p, const void *input, void *output);

/*
 * The same copy, shifted by a start vector read at run time: in_offset (or
 * out_offset, with shift_output) grows by sum start[d]*stride[d] over the
 * rank entries of start (int32, or int64 with start_is_64). Each start is
 * first clamped to [0, limit[d]], so the copy never leaves its buffers.
 */
struct usmp_slice_dynamic_params {
	int32_t count[USMP_ND_DIMS];
	int32_t in_step[USMP_ND_DIMS];
	int32_t out_step[USMP_ND_DIMS];
	int32_t in_offset;
	int32_t out_offset;
	int32_t rank;                 /* entries of start */
	int32_t start_is_64;          /* 1: start is int64_t, else int32_t */
	int32_t shift_output;         /* 1: the start moves the output position (DYNAMIC_UPDATE_SLICE) */
	int32_t limit[USMP_ND_DIMS];  /* largest start per dimension */
	int32_t stride[USMP_ND_DIMS]; /* elements per unit of start per dimension */
};

void usmp_slice_dynamic_x8(const struct usmp_slice_dynamic_params *p, const void *input, const void *start,
			   void *output);
void usmp_slice_dynamic_x16(const struct usmp_slice_dynamic_params *p, const void *input, const void *start,
			    void *output);
void usmp_slice_dynamic_x32(const struct usmp_slice_dynamic_params *p, const void *input, const void *start,
			    void *output);

/*
 * REVERSE_V2 with axes read at run time: the input (shape padded to
 * USMP_ND_DIMS with leading 1s) is copied with each named dimension walked
 * backwards. An axis counts from the end when negative; axes outside the
 * rank are skipped (TFLite Micro stops with an error there, as it does for
 * axes that are not neighbours, which are reversed here).
 */
struct usmp_reverse_dynamic_params {
	int32_t count[USMP_ND_DIMS]; /* padded shape, in kernel words */
	int32_t step[USMP_ND_DIMS];  /* row-major steps of that shape */
	int32_t rank;                /* dimensions of the tensor; axis a is padded dimension first_axis + a */
	int32_t first_axis;
	int32_t axes;                /* entries of the axis tensor */
};

void usmp_reverse_dynamic_x8(const struct usmp_reverse_dynamic_params *p, const void *input, const int32_t *axis,
			     void *output);
void usmp_reverse_dynamic_x16(const struct usmp_reverse_dynamic_params *p, const void *input, const int32_t *axis,
			      void *output);
void usmp_reverse_dynamic_x32(const struct usmp_reverse_dynamic_params *p, const void *input, const int32_t *axis,
			      void *output);

#endif /* USMP_KERNELS_SLICE_H */
