/*
 * Glue from the generated code to CMSIS-NN's 16x8 functions (see usmp_kernels/cmsis_nn_glue_s16.h),
 * compiled as cmsis_nn_glue.c is: only when the compiler selected CMSIS-NN, statuses unchecked (the
 * compiler chose each function for shapes it accepts and sized its scratch).
 */
#include "usmp_kernels/cmsis_nn_glue.h"

#include "arm_nnfunctions.h"

#define PER_CHANNEL(multiplier, shift) \
	{ (int32_t *)(uintptr_t)(multiplier), (int32_t *)(uintptr_t)(shift) }

void usmp_cmsis_nn_convolve_s16(const struct usmp_cmsis_nn_conv_params *p, const int16_t *input,
				const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
				const int32_t *shift, int16_t *buffer, int16_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);
	const cmsis_nn_bias_data bias_data = { bias, false };

	(void)arm_convolve_s16(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, &bias_data,
			       &p->output, output);
}

void usmp_cmsis_nn_convolve_s16_int32_bias(const struct usmp_cmsis_nn_conv_params *p, const int16_t *input,
					   const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
					   const int32_t *shift, int16_t *buffer, int16_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);
	const cmsis_nn_bias_data bias_data = { bias, true };

	(void)arm_convolve_s16(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, &bias_data,
			       &p->output, output);
}

void usmp_cmsis_nn_depthwise_conv_fast_s16(const struct usmp_cmsis_nn_dw_conv_params *p, const int16_t *input,
					   const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
					   const int32_t *shift, int16_t *buffer, int16_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_depthwise_conv_fast_s16(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias,
					  bias, &p->output, output);
}

void usmp_cmsis_nn_depthwise_conv_s16(const struct usmp_cmsis_nn_dw_conv_params *p, const int16_t *input,
				      const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
				      const int32_t *shift, int16_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_depthwise_conv_s16(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias,
				     &p->output, output);
}

void usmp_cmsis_nn_fully_connected_s16(const struct usmp_cmsis_nn_fc_params *p, const int16_t *input,
				       const int8_t *weights, const int64_t *bias, const int32_t *multiplier,
				       const int32_t *shift, int16_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };
	const cmsis_nn_per_tensor_quant_params quant = { multiplier[0], shift[0] };

	(void)arm_fully_connected_s16(&ctx, &p->fc, &quant, &p->input, input, &p->filter, weights, &p->bias, bias,
				      &p->output, output);
}

void usmp_cmsis_nn_avgpool_s16(const struct usmp_cmsis_nn_pool_params *p, const int16_t *input, int32_t *buffer,
			       int16_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };

	(void)arm_avgpool_s16(&ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_avgpool_s16_unbuffered(const struct usmp_cmsis_nn_pool_params *p, const int16_t *input,
					  int16_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };

	(void)arm_avgpool_s16(&ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_max_pool_s16(const struct usmp_cmsis_nn_pool_params *p, const int16_t *input, int16_t *output)
{
	const cmsis_nn_context ctx = { NULL, 0 };

	(void)arm_max_pool_s16(&ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_softmax_s16(const struct usmp_cmsis_nn_softmax_s16_params *p, const int16_t *input,
			       const int16_t *exp_table, const int16_t *reciprocal_table, int16_t *output)
{
	const cmsis_nn_softmax_lut_s16 tables = { exp_table, reciprocal_table };

	(void)arm_softmax_s16(input, p->rows, p->depth, p->input_multiplier, p->input_shift, &tables, output);
}

void usmp_cmsis_nn_elementwise_add_s16(const struct usmp_cmsis_nn_add_params *p, const int16_t *input1,
				       const int16_t *input2, int16_t *output)
{
	(void)arm_elementwise_add_s16(input1, input2, p->input1_offset, p->input1_multiplier, p->input1_shift,
				      p->input2_offset, p->input2_multiplier, p->input2_shift, p->left_shift, output,
				      p->output_offset, p->output_multiplier, p->output_shift, p->act_min, p->act_max,
				      p->size);
}

void usmp_cmsis_nn_elementwise_mul_s16(const struct usmp_cmsis_nn_mul_params *p, const int16_t *input1,
				       const int16_t *input2, int16_t *output)
{
	(void)arm_elementwise_mul_s16(input1, input2, p->input1_offset, p->input2_offset, output, p->output_offset,
				      p->output_multiplier, p->output_shift, p->act_min, p->act_max, p->size);
}
