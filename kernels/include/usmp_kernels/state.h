/*
 * USMP kernels: state buffers (resource variables, variable tensors).
 *
 * A variable's value is bytes whatever its element type, so reads and
 * assignments that cannot be views are byte copies, and init()/reset() fill
 * or copy each state buffer's initial image. Pointers are untyped on purpose:
 * one kernel serves every element type.
 */
#ifndef USMP_KERNELS_STATE_H
#define USMP_KERNELS_STATE_H

#include <stdint.h>

struct usmp_copy_bytes_params {
	int32_t count; /* bytes */
};

struct usmp_fill_bytes_params {
	int32_t count; /* bytes */
	int32_t value; /* 0..255 */
};

/* output[0..count) = input[0..count); the two are the same buffer or do not overlap. */
void usmp_copy_bytes(const struct usmp_copy_bytes_params *p, const void *input, void *output);

/* output[0..count) = value. */
void usmp_fill_bytes(const struct usmp_fill_bytes_params *p, void *output);

#endif /* USMP_KERNELS_STATE_H */
