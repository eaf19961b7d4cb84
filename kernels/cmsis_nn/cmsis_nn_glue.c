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
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#define PER_CHANNEL(multiplier, shift) \
	{ (int32_t *)(uintptr_t)(multiplier), (int32_t *)(uintptr_t)(shift) }

/* The fully connected layers run with input and filter offsets 0 (the compiler folded the input zero
 * point into the bias), so the kernel sums Helium's CMSIS-NN starts from (bias + offset terms, see
 * arm_vector_sum_s8) are the bias itself; the other builds ignore the buffer. */
#define KERNEL_SUMS(bias, rows) \
	{ (void *)(uintptr_t)(bias), (int32_t)((rows) * (int32_t)sizeof(int32_t)) }

void usmp_cmsis_nn_convolve_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
			       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
			       const int32_t *shift, int16_t *buffer, int8_t *output)
{
	const cmsis_nn_context ctx = { buffer, p->buffer_size };
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_convolve_s8(&ctx, &p->conv, &quant, &p->input, input, &p->filter, filter, &p->bias, bias, NULL,
			      &p->output, output);
}

/* memcpy for the few bytes of one filter row, without a library call per row: on Helium one
 * tail-predicated vector per 16 bytes, elsewhere word copies the compiler inlines (unaligned loads
 * where the core has them) and the last bytes. */
static void copy_row(int8_t *dst, const int8_t *src, int32_t n)
{
#if defined(ARM_MATH_MVEI)
	for (; n > 0; n -= 16, dst += 16, src += 16) {
		const mve_pred16_t lanes = vctp8q((uint32_t)n);

		vstrbq_p_s8(dst, vldrbq_z_s8(src, lanes), lanes);
	}
#else
	for (; n >= 4; n -= 4, dst += 4, src += 4)
		memcpy(dst, src, 4);
	for (; n > 0; n--)
		*dst++ = *src++;
#endif
}

/* The taps [first, end) of a window starting at x0 (dilation 1) that fall inside [0, size). */
static inline void window_span(int32_t x0, int32_t size, int32_t filter, int32_t *first, int32_t *end)
{
	*first = x0 < 0 ? -x0 : 0;
	*end = x0 + filter > size ? size - x0 : filter;
}

/* One im2col column: the window of output pixel (out_y, out_x), padding as the input zero point. */
static void window_column(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input, int32_t out_y,
			  int32_t out_x, int8_t *column)
{
	const int32_t in_h = p->input.h, in_w = p->input.w, in_ch = p->input.c;
	const int32_t filter_w = p->filter.w, row_bytes = filter_w * in_ch;
	const int8_t pad = (int8_t)-p->conv.input_offset;
	const int32_t x0 = out_x * p->conv.stride.w - p->conv.padding.w;
	const int32_t y0 = out_y * p->conv.stride.h - p->conv.padding.h;
	int32_t first, end; /* the taps inside the input */
	int32_t ky;

	window_span(x0, in_w, filter_w, &first, &end);

#if defined(ARM_MATH_MVEI)
	if (row_bytes <= 16 && first == 0 && end == filter_w && y0 >= 0 && y0 + p->filter.h <= in_h) {
		const mve_pred16_t row = vctp8q((uint32_t)row_bytes); /* no padding: a vector a row */
		const int8_t *src = input + ((size_t)y0 * in_w + x0) * in_ch;

		for (ky = 0; ky < p->filter.h; ky++, column += row_bytes, src += in_w * in_ch)
			vstrbq_p_s8(column, vldrbq_z_s8(src, row), row);
		return;
	}
	if (row_bytes <= 16) { /* a row is one tail-predicated vector: padding first, then the input's part */
		const int32_t valid = end > first ? (end - first) * in_ch : 0;
		const mve_pred16_t row = vctp8q((uint32_t)row_bytes), part = vctp8q((uint32_t)valid);
		const int8x16_t padding = vdupq_n_s8(pad);
		const int8_t *src = input + ((size_t)y0 * in_w + x0 + first) * in_ch;
		const int padded = valid < row_bytes;

		for (ky = 0; ky < p->filter.h; ky++, column += row_bytes, src += in_w * in_ch) {
			const int32_t y = y0 + ky;

			if (padded || y < 0 || y >= in_h)
				vstrbq_p_s8(column, padding, row);
			if (y >= 0 && y < in_h && valid > 0)
				vstrbq_p_s8(column + first * in_ch, vldrbq_z_s8(src, part), part);
		}
		return;
	}
#endif
	if (first == 0 && end == filter_w && y0 >= 0 && y0 + p->filter.h <= in_h) { /* no padding: rows only */
		const int8_t *row = input + ((size_t)y0 * in_w + x0) * in_ch;

		for (ky = 0; ky < p->filter.h; ky++, column += row_bytes, row += in_w * in_ch)
			copy_row(column, row, row_bytes);
		return;
	}
	for (ky = 0; ky < p->filter.h; ky++, column += row_bytes) {
		const int32_t y = y0 + ky;

		if (y < 0 || y >= in_h || end <= first) {
			memset(column, pad, (size_t)row_bytes);
			continue;
		}
		if (first > 0)
			memset(column, pad, (size_t)(first * in_ch));
		copy_row(column + first * in_ch, input + ((size_t)y * in_w + x0 + first) * in_ch, (end - first) * in_ch);
		if (end < filter_w)
			memset(column + end * in_ch, pad, (size_t)((filter_w - end) * in_ch));
	}
}

/* The last pixel of an odd count: one column against every filter, as the matrix kernel computes it. */
static void single_column(const struct usmp_cmsis_nn_conv_params *p, const int8_t *column, const int8_t *filter,
			  const int32_t *bias, const int32_t *multiplier, const int32_t *shift, int8_t *output)
{
	const int32_t taps = p->filter.h * p->filter.w * p->filter.c;
	int32_t o, k;

	for (o = 0; o < p->output.c; o++, filter += taps) {
		int32_t sum = bias[o];

		for (k = 0; k < taps; k++)
			sum += (int32_t)filter[k] * ((int32_t)column[k] + p->conv.input_offset);
		sum = arm_nn_requantize(sum, multiplier[o], shift[o]) + p->conv.output_offset;
		sum = sum < p->conv.activation.min ? p->conv.activation.min : sum;
		sum = sum > p->conv.activation.max ? p->conv.activation.max : sum;
		output[o] = (int8_t)sum;
	}
}

void usmp_cmsis_nn_convolve_rows_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				    const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				    const int32_t *shift, int16_t *buffer, int8_t *output)
{
	const int32_t taps = p->filter.h * p->filter.w * p->filter.c;
	const int32_t pixels = p->output.h * p->output.w;
	int32_t batch, pixel;
	const int32_t aligned = (taps + 3) & ~3;
	int8_t *column = (int8_t *)(buffer + 2 * aligned);

	for (batch = 0; batch < p->input.n; batch++) {
		const int8_t *image = input + (size_t)batch * p->input.h * p->input.w * p->input.c;
		int8_t *out = output + (size_t)batch * pixels * p->output.c;

		for (pixel = 0; pixel + 1 < pixels; pixel += 2) {
			int32_t k;

			for (k = 0; k < 2; k++) {
				window_column(p, image, (pixel + k) / p->output.w, (pixel + k) % p->output.w, column);
#if defined(ARM_MATH_DSP)
				/* the element order CMSIS-NN's DSP matrix kernel reads its filter in */
				arm_s8_to_s16_unordered_with_offset(column, buffer + k * aligned, taps,
								    (int16_t)p->conv.input_offset);
#else
				arm_q7_to_q15_with_offset(column, buffer + k * aligned, taps, (int16_t)p->conv.input_offset);
#endif
			}
			out = arm_nn_mat_mult_kernel_s8_s16(filter, buffer, (uint16_t)p->output.c, shift, multiplier,
							    p->conv.output_offset, (int16_t)p->conv.activation.min,
							    (int16_t)p->conv.activation.max, taps, aligned, bias, out);
		}
		if (pixel < pixels) {
			window_column(p, image, pixel / p->output.w, pixel % p->output.w, column);
			single_column(p, column, filter, bias, multiplier, shift, out);
		}
	}
}

void usmp_cmsis_nn_convolve_rows_nt_s8(const struct usmp_cmsis_nn_conv_params *p, const int8_t *input,
				       const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
				       const int32_t *shift, int8_t *buffer, int8_t *output)
{
	const int32_t taps = p->filter.h * p->filter.w * p->filter.c;
	const int32_t pixels = p->output.h * p->output.w;
	int32_t batch, pixel;
	const int32_t stride = (taps + 15) & ~15;
	int8_t *columns = (int8_t *)buffer;

	for (batch = 0; batch < p->input.n; batch++) {
		const int8_t *image = input + (size_t)batch * p->input.h * p->input.w * p->input.c;
		int8_t *out = output + (size_t)batch * pixels * p->output.c;
		int32_t filled = 0;

		for (pixel = 0; pixel < pixels; pixel++) {
			window_column(p, image, pixel / p->output.w, pixel % p->output.w, columns + filled * stride);
			if (++filled == 4 || pixel + 1 == pixels) {
				(void)arm_nn_mat_mult_nt_t_s8(columns, filter, bias, out, multiplier, shift, filled,
							      p->output.c, taps, p->conv.input_offset,
							      p->conv.output_offset, p->conv.activation.min,
							      p->conv.activation.max, p->output.c, stride);
				out += filled * p->output.c;
				filled = 0;
			}
		}
	}
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
	const cmsis_nn_context ctx = KERNEL_SUMS(bias, p->output.c);
	const cmsis_nn_per_tensor_quant_params quant = { multiplier[0], shift[0] };

	(void)arm_fully_connected_s8(&ctx, &p->fc, &quant, &p->input, input, &p->filter, weights, &p->bias, bias,
				     &p->output, output);
}

void usmp_cmsis_nn_fully_connected_per_channel_s8(const struct usmp_cmsis_nn_fc_params *p,
						  const int8_t *input, const int8_t *weights,
						  const int32_t *bias, const int32_t *multiplier,
						  const int32_t *shift, int8_t *output)
{
	const cmsis_nn_context ctx = KERNEL_SUMS(bias, p->output.c);
	const cmsis_nn_per_channel_quant_params quant = PER_CHANNEL(multiplier, shift);

	(void)arm_fully_connected_per_channel_s8(&ctx, &p->fc, &quant, &p->input, input, &p->filter, weights,
						 &p->bias, bias, &p->output, output);
}

#if defined(__GNUC__) && !defined(__clang__)
/* -Os keeps two registers more than the call needs here: 8 bytes on every path through the glue */
#define GLUE_FRAME __attribute__((optimize("O2")))
#else
#define GLUE_FRAME
#endif

/* A context without scratch, in flash: the calls taking it keep no context in their frame. */
static const cmsis_nn_context NO_SCRATCH = { NULL, 0 };

/* The pooling's context follows its sums in the planned scratch (USMP_CMSIS_NN_POOL_CONTEXT_BYTES more than
 * buffer_size, select/cmsis_nn.py), not in the glue's frame: the path down to CMSIS-NN's frame is the shorter. */
GLUE_FRAME void usmp_cmsis_nn_avgpool_s8(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input,
					 int32_t *buffer, int8_t *output)
{
#if UINTPTR_MAX <= 0xFFFFFFFFu
	cmsis_nn_context *const ctx = (cmsis_nn_context *)(void *)((int8_t *)buffer + p->buffer_size);
#else
	cmsis_nn_context on_stack, *const ctx = &on_stack; /* a 64-bit build's context is larger than planned */
#endif

	ctx->buf = buffer;
	ctx->size = p->buffer_size;
	(void)arm_avgpool_s8(ctx, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_avgpool_s8_unbuffered(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input,
					 int8_t *output)
{
	(void)arm_avgpool_s8(&NO_SCRATCH, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

void usmp_cmsis_nn_max_pool_s8(const struct usmp_cmsis_nn_pool_params *p, const int8_t *input, int8_t *output)
{
	(void)arm_max_pool_s8(&NO_SCRATCH, &p->pool, &p->input, input, &p->filter, &p->output, output);
}

/* Outside Helium, arm_softmax_s8 is a call of CMSIS-NN's common softmax: the glue makes it (a frame less). */
void usmp_cmsis_nn_softmax_s8(const struct usmp_cmsis_nn_softmax_params *p, const int8_t *input, int8_t *output)
{
#if defined(ARM_MATH_MVEI)
	arm_softmax_s8(input, p->rows, p->depth, p->input_multiplier, p->input_left_shift, p->diff_min, output);
#else
	arm_nn_softmax_common_s8(input, p->rows, p->depth, p->input_multiplier, p->input_left_shift, p->diff_min,
				 false, output);
#endif
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
