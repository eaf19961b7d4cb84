/*
 * Glue from the generated code to CMSIS-NN (see usmp_kernels/cmsis_nn_glue.h).
 *
 * Compiled only when the compiler selected CMSIS-NN, with CMSIS-NN's Include
 * directory. The CMSIS-NN structs take non-const pointers to the multipliers
 * and shifts but only read them; the constants stay in the constant pool.
 * The status CMSIS-NN returns is not checked: the compiler chose each variant
 * for shapes it accepts, and sized the scratch with its size function.
 */
#include "usmp_kernels/cmsis_nn_glue.h"

#include <stddef.h>

#include "arm_nnfunctions.h"

#define PER_CHANNEL(multiplier, shift) \
	{ (int32_t *)(uintptr_t)(multiplier), (int32_t *)(uintptr_t)(shift) }

void usmp_cmsis_nn_convolve_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
			       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
			       const int32_t *shift, int16_t *buffer, int8_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_convolve_s8(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias, NULL,
			      &p->output, output);
}

void usmp_cmsis_nn_convolve_1_x_n_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				     const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				     const int32_t *shift, int16_t *buffer, int8_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_convolve_1_x_n_s8(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias,
				    &p->output, output);
}

void usmp_cmsis_nn_convolve_1x1_s8_fast(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
					const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_convolve_1x1_s8_fast(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias,
				       &p->output, output);
}

void usmp_cmsis_nn_convolve_1x1_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				   const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				   const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_convolve_1x1_s8(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias,
				  &p->output, output);
}

void usmp_cmsis_nn_depthwise_conv_s8_opt(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
					 const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					 const int32_t *shift, int16_t *buffer, int8_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_depthwise_conv_s8_opt(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias,
					bias, &p->output, output);
}

void usmp_cmsis_nn_depthwise_conv_3x3_s8(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
					 const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					 const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_depthwise_conv_3x3_s8(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias,
					bias, &p->output, output);
}

void usmp_cmsis_nn_depthwise_conv_s8(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
				     const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				     const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_depthwise_conv_s8(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias,
				    &p->output, output);
}

void usmp_cmsis_nn_fully_connected_s8(const struct usmp_cmsis_nn_fc_params *p, const int8_t *input,
				      const int8_t *weights, const int32_t *bias, const int32_t *multiplier,
				      const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_tensor_quant_params quant = { multiplier[0], shift[0] };

	(void)arm_fully_connected_s8(&ctx, &p->fc, &quant, &p->input, input, &p->filter, weights, &p->bias, bias,
				     &p->output, output);
}

void usmp_cmsis_nn_fully_connected_per_channel_s8(const struct usmp_cmsis_nn_fc_params *p,
						  const int8_t *input, const int8_t *weights,
						  const int32_t *bias, const int32_t *multiplier,
						  const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_fully_connected_per_channel_s8(&ctx, &p->fc, &quant, &p->input, input, &p->filter, weights,
						 &p->bias, bias, &p->output, output);
}

void usmp_cmsis_nn_avgpool_s8(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input, int32_t *buffer,
			      int8_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };

	(void)arm_avgpool_s8(&ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_avgpool_s8_unbuffered(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input,
					 int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };

	(void)arm_avgpool_s8(&ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_max_pool_s8(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input, int8_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };

	(void)arm_max_pool_s8(&ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_softmax_s8(const struct usmp_cmsis_nn_softmax_params *p, const int8_t *input, int8_t *output)
{
	arm_softmax_s8(input, p->rows, p->depth, p->input_multiplier, p->input_left_shift, p->diff_min, output);
}

void usmp_cmsis_nn_elementwise_add_s8(const struct usmp_cmsis_nn_add_params *p, const int8_t *input1,
				      const int8_t *input2, int8_t *output)
{
	(void)arm_elementwise_add_s8(input1, input2, p->input1_offset, p->input1_multiplier, p->input1_shift,
				     p->input2_offset, p->input2_multiplier, p->input2_shift, p->left_shift, output,
				     p->output_offset, p->output_multiplier, p->output_shift, p->act_min, p->act_max,
				     p->size);
}

void usmp_cmsis_nn_elementwise_mul_s8(const struct usmp_cmsis_nn_mul_params *p, const int8_t *input1,
				      const int8_t *input2, int8_t *output)
{
	(void)arm_elementwise_mul_s8(input1, input2, p->input1_offset, p->input2_offset, output, p->output_offset,
				     p->output_multiplier, p->output_shift, p->act_min, p->act_max, p->size);
}
