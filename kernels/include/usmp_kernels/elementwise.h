/* USMP kernels: ADD, SUB and MUL of two tensors, with TFLite broadcasting. */
#ifndef USMP_KERNELS_ELEMENTWISE_H
#define USMP_KERNELS_ELEMENTWISE_H

#include <stdint.h>

#include "usmp_kernels/broadcast.h"

/*
 * Every binary kernel walks the output in order over `rank` dimensions
 * (outermost first). The compiler merges dimensions that need no separate
 * loop, so equal shapes arrive as one dimension of unit strides; stride1 and
 * stride2 are the inputs' element strides per dimension, 0 where an input is
 * broadcast along it (usmp_kernels/broadcast.h).
 */

/*
 * int8 and int16 ADD and SUB: both inputs rescaled to a common scale, then
 * the result (left_shift 20 for int8, 15 for int16).
 */
struct usmp_add_s8_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t input1_offset; /* minus the input zero points */
	int32_t input2_offset;
	int32_t output_offset;
	int32_t left_shift; /* headroom given to the inputs before rescaling */
	int32_t input1_multiplier;
	int32_t input1_shift;
	int32_t input2_multiplier;
	int32_t input2_shift;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_add_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output);
void usmp_sub_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output);
void usmp_add_s16(const struct usmp_add_s8_params *p, const int16_t *input1, const int16_t *input2,
		  int16_t *output);
void usmp_sub_s16(const struct usmp_add_s8_params *p, const int16_t *input1, const int16_t *input2,
		  int16_t *output);

/* int8 and int16 MUL (int16 with zero points 0): the product, rescaled. */
struct usmp_mul_s8_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t input1_offset; /* minus the input zero points */
	int32_t input2_offset;
	int32_t output_offset;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_mul_s8(const struct usmp_mul_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output);
void usmp_mul_s16(const struct usmp_mul_s8_params *p, const int16_t *input1, const int16_t *input2,
		  int16_t *output);

/* float ADD, SUB, MUL: the operation, then the fused activation's clamp. */
struct usmp_binary_f32_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	float act_min;
	float act_max;
};

void usmp_add_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output);
void usmp_sub_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output);
void usmp_mul_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output);

/*
 * int32 ADD, SUB, MUL (plain integers, as TFLite Micro's: counters in loops, the
 * audio front end's arithmetic): wrap-around on overflow, then the activation's clamp.
 */
struct usmp_binary_s32_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t act_min;
	int32_t act_max;
};

void usmp_add_s32(const struct usmp_binary_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output);
void usmp_sub_s32(const struct usmp_binary_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output);
void usmp_mul_s32(const struct usmp_binary_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output);

#endif /* USMP_KERNELS_ELEMENTWISE_H */
