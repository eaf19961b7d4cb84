/*
 * USMP kernels: EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL,
 * LOGICAL_AND and LOGICAL_OR, with TFLite broadcasting (usmp_kernels/broadcast.h).
 * Outputs are bool tensors: one byte per element, 0 or 1.
 */
#ifndef USMP_KERNELS_COMPARE_H
#define USMP_KERNELS_COMPARE_H

#include <stdint.h>

#include "usmp_kernels/broadcast.h"

enum usmp_compare_op {
	USMP_EQUAL = 0,
	USMP_NOT_EQUAL = 1,
	USMP_GREATER = 2,
	USMP_GREATER_EQUAL = 3,
	USMP_LESS = 4,
	USMP_LESS_EQUAL = 5,
};

struct usmp_compare_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t op; /* enum usmp_compare_op */
};

/* The stored values compared as they are (bool inputs are bytes 0 or 1). */
void usmp_compare_b8(const struct usmp_compare_params *p, const uint8_t *input1, const uint8_t *input2,
		     uint8_t *output);
void usmp_compare_s32(const struct usmp_compare_params *p, const int32_t *input1, const int32_t *input2,
		      uint8_t *output);
void usmp_compare_s64(const struct usmp_compare_params *p, const int64_t *input1, const int64_t *input2,
		      uint8_t *output);
void usmp_compare_f32(const struct usmp_compare_params *p, const float *input1, const float *input2,
		      uint8_t *output);

/*
 * int8: each input, less its zero point, shifted left by left_shift and
 * multiplied by its own scale in fixed point, so that values of different
 * quantizations compare as TFLite compares them.
 */
struct usmp_compare_s8_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t op; /* enum usmp_compare_op */
	int32_t left_shift;
	int32_t input1_offset; /* minus the input zero points */
	int32_t input1_multiplier;
	int32_t input1_shift;
	int32_t input2_offset;
	int32_t input2_multiplier;
	int32_t input2_shift;
};

void usmp_compare_s8(const struct usmp_compare_s8_params *p, const int8_t *input1, const int8_t *input2,
		     uint8_t *output);

/* LOGICAL_AND, LOGICAL_OR of bool tensors. */
void usmp_logical_and_b8(const struct usmp_broadcast_params *p, const uint8_t *input1, const uint8_t *input2,
			 uint8_t *output);
void usmp_logical_or_b8(const struct usmp_broadcast_params *p, const uint8_t *input1, const uint8_t *input2,
			uint8_t *output);

#endif /* USMP_KERNELS_COMPARE_H */
