/*
 * USMP kernels: glue to Arm CMSIS-NN's 16x8 functions (int16 activations, int8
 * weights), as usmp_kernels/cmsis_nn_glue.h's for int8: one constant struct
 * the compiler filled in, the planned buffers, one CMSIS-NN function chosen
 * at compile time (scripts/usmp/select/cmsis_nn_s16.py).
 *
 * The multipliers are CMSIS-NN's: for a 64-bit sum (an int64 bias) the 32-bit
 * multiplier CMSIS-NN reduces to TFLite's 16 bits, for a 32-bit sum (an int32
 * bias) the int8 one.
 */
#ifndef USMP_KERNELS_CMSIS_NN_GLUE_S16_H
#define USMP_KERNELS_CMSIS_NN_GLUE_S16_H

#include <stdint.h>

/* CONV_2D (no groups): arm_convolve_s16 with its int16 im2col scratch, an int64 or an int32 bias. */
void usmp_cmsis_nn_convolve_s16(const struct usmp_cmsis_nn_conv_params *p, const int16_t *input,
				const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
				const int32_t *shift, int16_t *buffer, int16_t *output);
void usmp_cmsis_nn_convolve_s16_int32_bias(const struct usmp_cmsis_nn_conv_params *p, const int16_t *input,
					   const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					   const int32_t *shift, int16_t *buffer, int16_t *output);

/* DEPTHWISE_CONV_2D: _fast_s16 (multiplier 1, no dilation; int16 scratch) or _s16 (any). */
void usmp_cmsis_nn_depthwise_conv_fast_s16(const struct usmp_cmsis_nn_dw_conv_params *p, const int16_t *input,
					   const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
					   const int32_t *shift, int16_t *buffer, int16_t *output);
void usmp_cmsis_nn_depthwise_conv_s16(const struct usmp_cmsis_nn_dw_conv_params *p, const int16_t *input,
				      const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
				      const int32_t *shift, int16_t *output);

/* FULLY_CONNECTED: one multiplier and shift (multiplier[0], shift[0]), an int64 bias. */
void usmp_cmsis_nn_fully_connected_s16(const struct usmp_cmsis_nn_fc_params *p, const int16_t *input,
				       const int8_t *weights, const int64_t *bias, const int32_t *multiplier,
				       const int32_t *shift, int16_t *output);

/* AVERAGE_POOL_2D (int32 per-channel scratch where CMSIS-NN needs one) and MAX_POOL_2D. */
void usmp_cmsis_nn_avgpool_s16(const struct usmp_cmsis_nn_pool_params *p, const int16_t *input, int32_t *buffer,
			       int16_t *output);
void usmp_cmsis_nn_avgpool_s16_unbuffered(const struct usmp_cmsis_nn_pool_params *p, const int16_t *input,
					  int16_t *output);
void usmp_cmsis_nn_max_pool_s16(const struct usmp_cmsis_nn_pool_params *p, const int16_t *input,
				int16_t *output);

struct usmp_cmsis_nn_softmax_s16_params {
	int32_t rows;
	int32_t depth;
	int32_t input_multiplier;
	int32_t input_shift;
};

/* SOFTMAX with TFLite's exp and 1/(1+x) tables (513 entries each). */
void usmp_cmsis_nn_softmax_s16(const struct usmp_cmsis_nn_softmax_s16_params *p, const int16_t *input,
			       const int16_t *exp_table, const int16_t *reciprocal_table, int16_t *output);

/* ADD (zero points 0) and MUL of two int16 tensors of one shape; the output may be an input. */
void usmp_cmsis_nn_elementwise_add_s16(const struct usmp_cmsis_nn_add_params *p, const int16_t *input1,
				       const int16_t *input2, int16_t *output);
void usmp_cmsis_nn_elementwise_mul_s16(const struct usmp_cmsis_nn_mul_params *p, const int16_t *input1,
				       const int16_t *input2, int16_t *output);

#endif /* USMP_KERNELS_CMSIS_NN_GLUE_S16_H */
