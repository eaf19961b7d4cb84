/*
 * USMP kernels: glue to Arm CMSIS-NN's int8 functions.
 *
 * Used only when the compiler selects CMSIS-NN (usmp compile --kernels); the
 * build then adds CMSIS-NN's Include directory and the sources the model
 * calls. Each glue function takes one constant struct the compiler filled in
 * (CMSIS-NN's own parameter and dimension structs, and the scratch size it
 * planned) plus the planned buffers, and calls one CMSIS-NN function: the
 * variant is chosen at compile time, so no wrapper dispatch runs.
 */
#ifndef USMP_KERNELS_CMSIS_NN_GLUE_H
#define USMP_KERNELS_CMSIS_NN_GLUE_H

#include <stdint.h>

#include "arm_nn_types.h"

struct usmp_cmsis_nn_conv_params {
	cmsis_nn_conv_params conv;
	cmsis_nn_dims input;
	cmsis_nn_dims filter;
	cmsis_nn_dims bias;
	cmsis_nn_dims output;
	int32_t buffer_size; /* bytes of the scratch argument, where there is one */
};

/* CONV_2D: arm_convolve_s8 (any shape: groups, dilation) with its int16 im2col scratch. */
void usmp_cmsis_nn_convolve_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
			       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
			       const int32_t *shift, int16_t *buffer, int8_t *output);
/*
 * CONV_2D without groups or dilation (also DEPTHWISE_CONV_2D of one input channel, whose
 * filters are then [out_ch, H, W, 1]): arm_convolve_s8's arithmetic, with an im2col that copies
 * each filter row's contiguous input bytes at once instead of one memcpy per tap, which dominates
 * for few input channels. buffer: two int16 columns and one int8 column, see the compiler's
 * cmsis_nn_sizes.convolve_rows_s8. For the DSP cores (CMSIS-NN's int16 matrix kernel).
 */
void usmp_cmsis_nn_convolve_rows_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				    const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				    const int32_t *shift, int16_t *buffer, int8_t *output);
/*
 * The same im2col for Helium: four int8 columns, each padded to whole 16-byte vectors, against every
 * filter in CMSIS-NN's int8 matrix kernel (the one arm_convolve_s8 calls there). buffer: see
 * cmsis_nn_sizes.convolve_rows_nt_s8.
 */
void usmp_cmsis_nn_convolve_rows_nt_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				       const int32_t *shift, int8_t *buffer, int8_t *output);
/* 1x1 filters without padding: unit stride (_fast) or any stride; no scratch. */
void usmp_cmsis_nn_convolve_1x1_s8_fast(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
					const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					const int32_t *shift, int8_t *output);
void usmp_cmsis_nn_convolve_1x1_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				   const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				   const int32_t *shift, int8_t *output);

struct usmp_cmsis_nn_dw_conv_params {
	cmsis_nn_dw_conv_params conv;
	cmsis_nn_dims input;
	cmsis_nn_dims filter;
	cmsis_nn_dims bias;
	cmsis_nn_dims output;
	int32_t buffer_size;
};

/* DEPTHWISE_CONV_2D: _s8_opt (multiplier 1, int16 scratch), _3x3_s8 and _s8 (any multiplier, dilation). */
void usmp_cmsis_nn_depthwise_conv_s8_opt(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
					 const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					 const int32_t *shift, int16_t *buffer, int8_t *output);
void usmp_cmsis_nn_depthwise_conv_3x3_s8(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
					 const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					 const int32_t *shift, int8_t *output);
void usmp_cmsis_nn_depthwise_conv_s8(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
				     const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				     const int32_t *shift, int8_t *output);

struct usmp_cmsis_nn_fc_params {
	cmsis_nn_fc_params fc;
	cmsis_nn_dims input;
	cmsis_nn_dims filter;
	cmsis_nn_dims bias;
	cmsis_nn_dims output;
};

/* FULLY_CONNECTED: one multiplier and shift, or one per output feature. */
void usmp_cmsis_nn_fully_connected_s8(const struct usmp_cmsis_nn_fc_params *p, const int8_t *input,
				      const int8_t *weights, const int32_t *bias, const int32_t *multiplier,
				      const int32_t *shift, int8_t *output);
void usmp_cmsis_nn_fully_connected_per_channel_s8(const struct usmp_cmsis_nn_fc_params *p,
						  const int8_t *input, const int8_t *weights,
						  const int32_t *bias, const int32_t *multiplier,
						  const int32_t *shift, int8_t *output);

struct usmp_cmsis_nn_pool_params {
	cmsis_nn_pool_params pool;
	cmsis_nn_dims input;
	cmsis_nn_dims filter;
	cmsis_nn_dims output;
	int32_t buffer_size;
};

/* AVERAGE_POOL_2D with its int32 per-channel scratch (buffer_size bytes, then the call's CMSIS-NN context:
 * USMP_CMSIS_NN_POOL_CONTEXT_BYTES), or without one where CMSIS-NN needs none. */
#define USMP_CMSIS_NN_POOL_CONTEXT_BYTES 8
void usmp_cmsis_nn_avgpool_s8(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input, int32_t *buffer,
			      int8_t *output);
void usmp_cmsis_nn_avgpool_s8_unbuffered(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input,
					 int8_t *output);
void usmp_cmsis_nn_max_pool_s8(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input, int8_t *output);

struct usmp_cmsis_nn_softmax_params {
	int32_t rows;
	int32_t depth;
	int32_t input_multiplier;
	int32_t input_left_shift;
	int32_t diff_min;
};

void usmp_cmsis_nn_softmax_s8(const struct usmp_cmsis_nn_softmax_params *p, const int8_t *input, int8_t *output);

struct usmp_cmsis_nn_add_params {
	int32_t input1_offset;
	int32_t input1_multiplier;
	int32_t input1_shift;
	int32_t input2_offset;
	int32_t input2_multiplier;
	int32_t input2_shift;
	int32_t left_shift;
	int32_t output_offset;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
	int32_t size;
};

/* ADD and MUL of two int8 tensors of one shape (no broadcasting); the output may be an input. */
void usmp_cmsis_nn_elementwise_add_s8(const struct usmp_cmsis_nn_add_params *p, const int8_t *input1,
				      const int8_t *input2, int8_t *output);

struct usmp_cmsis_nn_mul_params {
	int32_t input1_offset;
	int32_t input2_offset;
	int32_t output_offset;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
	int32_t size;
};

void usmp_cmsis_nn_elementwise_mul_s8(const struct usmp_cmsis_nn_mul_params *p, const int8_t *input1,
				      const int8_t *input2, int8_t *output);

#include "usmp_kernels/cmsis_nn_glue_s16.h"

#endif /* USMP_KERNELS_CMSIS_NN_GLUE_H */
