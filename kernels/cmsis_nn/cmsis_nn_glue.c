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

#if defined(ARM_MATH_MVEI)
/* TFLite's MultiplyByQuantizedMultiplier on four lanes: a left shift (max(shift, 0)), the saturating
 * rounding doubling high multiply (vqrdmulh), then a right shift (min(shift, 0), as a negative count)
 * rounding halves away from zero (vrshl rounds them up, so negative values are lowered by one first). */
static inline __attribute__((always_inline)) int32x4_t helium_requantize(int32x4_t sum, int32x4_t multiplier,
									int32x4_t left, int32x4_t right)
{
	sum = vqrdmulhq_s32(vshlq_s32(sum, left), multiplier);
	return vrshlq_s32(vqaddq_s32(sum, vshrq_n_s32(vandq_s32(sum, right), 31)), right);
}

/* helium_requantize's steps in assembly, on q registers: acc requantized by multiplier, left and right;
 * tmp is overwritten (it may be left's register, which is read first). */
#define HELIUM_REQUANTIZE_ASM(acc, multiplier, left, right, tmp)          \
	"	vshl.s32	" acc ", " acc ", " left "\n"                    \
	"	vqrdmulh.s32	" acc ", " acc ", " multiplier "\n"              \
	"	vand		" tmp ", " acc ", " right "\n"                   \
	"	vshr.s32	" tmp ", " tmp ", #31\n"                         \
	"	vqadd.s32	" acc ", " acc ", " tmp "\n"                     \
	"	vrshl.s32	" acc ", " acc ", " right "\n"

/* What a block of 4 output channels needs besides the filter, laid out for the loads of the assembly
 * below (offsets there). */
struct conv_1x1_block_constants {
	int32x4_t multiplier, left, right, lowest, highest, offset;
	int32_t bias[4];
	int32_t overshoot; /* bytes the last 16-byte input load steps past the pixel (0 if in_ch % 16 == 0) */
};

/* The last block when out_ch is not a multiple of 4: fewer lanes (predicated store), any depth. */
static void conv_1x1_partial_block(const struct conv_1x1_block_constants *k, const int8_t *in,
				   const int8_t *block, int32_t depth, int32_t pixels, int32_t stride,
				   int32_t lanes_left, int8_t *out)
{
	const mve_pred16_t lanes = vctp32q((uint32_t)lanes_left);

	for (int32_t px = pixels; px > 0; px--, out += stride, in -= k->overshoot) {
		const int8_t *w = block;
		int32_t a0 = k->bias[0], a1 = k->bias[1], a2 = k->bias[2], a3 = k->bias[3];

		for (int32_t left_bytes = depth; left_bytes > 0; left_bytes -= 16, in += 16, w += 64) {
			const int8x16_t x = vldrbq_z_s8(in, vctp8q((uint32_t)left_bytes));

			a0 = vmladavaq_s8(a0, x, vldrbq_s8(w));
			a1 = vmladavaq_s8(a1, x, vldrbq_s8(w + 16));
			a2 = vmladavaq_s8(a2, x, vldrbq_s8(w + 32));
			a3 = vmladavaq_s8(a3, x, vldrbq_s8(w + 48));
		}
		int32x4_t acc = vdupq_n_s32(a0);
		acc = vsetq_lane_s32(a1, acc, 1);
		acc = vsetq_lane_s32(a2, acc, 2);
		acc = vsetq_lane_s32(a3, acc, 3);
		acc = vaddq_s32(helium_requantize(acc, k->multiplier, k->left, k->right), k->offset);
		vstrbq_p_s32(out, vminq_s32(vmaxq_s32(acc, k->lowest), k->highest), lanes);
	}
}

/* One block of 4 output channels over every pixel, in assembly: GCC keeps neither the accumulators
 * (vmladava wants even registers) nor the requantization vectors in registers across this loop, and
 * spilling them doubled its cost. Per pixel: the four sums start from the folded bias, a tail-predicated
 * loop (dlstp/letp) takes 16 input bytes a step against the block's four 16-byte filter chunks, then the
 * sums are requantized as one vector, offset, clamped and stored. The sums enter the vector one lane at
 * a time, as GCC itself does: QEMU 7.2 fills the two-lane VMOV's lanes in the opposite order from LLVM's
 * reading of it, so that form is avoided. A narrowing store (VSTRB.32) takes a low register ("l"). */
static void conv_1x1_full_block(const struct conv_1x1_block_constants *k, const int8_t *in, const int8_t *block,
				int32_t depth, int32_t pixels, int32_t stride, int8_t *out)
{
	int32_t a0, a1, a2, a3;
	const int8_t *w;

	__asm volatile(
		"	vldrw.u32	q4, [%[k]]\n"
		"	vldrw.u32	q5, [%[k], #16]\n"
		"	vldrw.u32	q6, [%[k], #32]\n"
		"	vldrw.u32	q7, [%[k], #48]\n"
		"1:\n"
		"	ldrd		%[a0], %[a1], [%[k], #96]\n"
		"	ldrd		%[a2], %[a3], [%[k], #104]\n"
		"	mov		%[w], %[block]\n"
		"	dlstp.8		lr, %[depth]\n"
		"2:\n"
		"	vldrb.8		q0, [%[in]], #16\n"
		"	vldrb.8		q1, [%[w]], #16\n"
		"	vmladava.s8	%[a0], q0, q1\n"
		"	vldrb.8		q2, [%[w]], #16\n"
		"	vmladava.s8	%[a1], q0, q2\n"
		"	vldrb.8		q1, [%[w]], #16\n"
		"	vmladava.s8	%[a2], q0, q1\n"
		"	vldrb.8		q2, [%[w]], #16\n"
		"	vmladava.s8	%[a3], q0, q2\n"
		"	letp		lr, 2b\n"
		"	vmov.32		q3[0], %[a0]\n"
		"	vmov.32		q3[1], %[a1]\n"
		"	vmov.32		q3[2], %[a2]\n"
		"	vmov.32		q3[3], %[a3]\n"
		"	ldr		%[a0], [%[k], #112]\n"
		HELIUM_REQUANTIZE_ASM("q3", "q4", "q5", "q6", "q0")
		"	vldrw.u32	q0, [%[k], #80]\n"
		"	vadd.i32	q3, q3, q0\n"
		"	vldrw.u32	q1, [%[k], #64]\n"
		"	vmax.s32	q3, q3, q7\n"
		"	vmin.s32	q3, q3, q1\n"
		"	vstrb.32	q3, [%[out]]\n"
		"	subs		%[in], %[in], %[a0]\n"
		"	add		%[out], %[out], %[stride]\n"
		"	subs		%[pixels], %[pixels], #1\n"
		"	bne		1b\n"
		: [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [w] "=&r"(w), [in] "+r"(in),
		  [out] "+l"(out), [pixels] "+r"(pixels)
		: [k] "r"(k), [block] "r"(block), [depth] "r"(depth), [stride] "r"(stride)
		: "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "lr", "memory", "cc");
}

#if defined(__GNUC__) && !defined(__clang__)
/* the builds optimise for size (-Os); the partial block's loop and the constants per block are worth
 * their bytes */
__attribute__((optimize("O2")))
#endif
void usmp_helium_conv_1x1_s8(const struct usmp_helium_conv_1x1_params *p, const int8_t *input,
			     const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
			     const int32_t *shift, int8_t *output)
{
	const int32_t block_bytes = 4 * 16 * ((p->in_ch + 15) >> 4);
	const int32x4_t zero = vdupq_n_s32(0);
	struct conv_1x1_block_constants k;
	int32_t o;

	k.lowest = vdupq_n_s32(p->act_min);
	k.highest = vdupq_n_s32(p->act_max);
	k.offset = vdupq_n_s32(p->output_offset);
	k.overshoot = (16 - (p->in_ch & 15)) & 15;
	for (o = 0; o < p->out_ch; o += 4) { /* the per-channel constants are padded to 4 channels */
		const int32x4_t s = vldrwq_s32(shift + o);

		k.multiplier = vldrwq_s32(multiplier + o);
		k.left = vmaxq_s32(s, zero);
		k.right = vminq_s32(s, zero);
		memcpy(k.bias, bias + o, sizeof(k.bias));
		if (o + 4 > p->out_ch)
			break;
		conv_1x1_full_block(&k, input, filter + (o >> 2) * block_bytes, p->in_ch, p->pixels, p->out_ch,
				    output + o);
	}
	if (o < p->out_ch)
		conv_1x1_partial_block(&k, input, filter + (o >> 2) * block_bytes, p->in_ch, p->pixels, p->out_ch,
				       p->out_ch - o, output + o);
}
#else
/* The same sums one output at a time, reading the interleaved filter (host tests, builds without Helium). */
void usmp_helium_conv_1x1_s8(const struct usmp_helium_conv_1x1_params *p, const int8_t *input,
			     const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
			     const int32_t *shift, int8_t *output)
{
	const int32_t chunks = (p->in_ch + 15) >> 4;
	int32_t px, o, k;

	for (px = 0; px < p->pixels; px++, input += p->in_ch, output += p->out_ch) {
		for (o = 0; o < p->out_ch; o++) {
			const int8_t *block = filter + (size_t)(o >> 2) * 64 * chunks + (o & 3) * 16;
			int32_t sum = bias[o];

			for (k = 0; k < p->in_ch; k++)
				sum += (int32_t)input[k] * (int32_t)block[(k >> 4) * 64 + (k & 15)];
			sum = arm_nn_requantize(sum, multiplier[o], shift[o]) + p->output_offset;
			sum = sum < p->act_min ? p->act_min : sum;
			sum = sum > p->act_max ? p->act_max : sum;
			output[o] = (int8_t)sum;
		}
	}
}
#endif

/* Depthwise (multiplier 1) on Helium, USMP's own: no scratch, no im2col; each output pixel sums its valid
 * taps straight from the input, eight channels a vector (widened to int16: one multiply yields the even
 * channels' int32 products, another the odd ones'). requant holds one block per group of eight channels,
 * its fields eight lanes each, even channels first: the bias, the bias with the input offset's sums
 * folded in (windows inside the input multiply the raw input), the multiplier, and the shift split into
 * its left (>= 0) and right (<= 0) parts. See the compiler's cmsis_nn._helium_depthwise. */
enum { GROUP = 8, BIAS = 0, FOLDED = 8, MULTIPLIER = 16, LEFT = 24, RIGHT = 32, BLOCK = 40 };

#if defined(ARM_MATH_MVEI)
/* What the sums need, read once instead of through p (the stores may alias it). */
struct helium_shape {
	int32_t in_row, w_row, channels, input_offset, output_offset, act_min, act_max;
};

/* A group block's lanes (even or odd channels) requantized with their precomputed shift parts. */
static inline __attribute__((always_inline)) int32x4_t helium_requantize_lanes(int32x4_t sum,
									      const int32_t *lanes)
{
	return helium_requantize(sum, vldrwq_s32(lanes + MULTIPLIER), vldrwq_s32(lanes + LEFT),
				 vldrwq_s32(lanes + RIGHT));
}

static inline __attribute__((always_inline)) void helium_finish(const struct helium_shape *s, const int32_t *block,
							       int32x4_t even, int32x4_t odd, int full,
							       mve_pred16_t lanes, int8_t *out);

/* One pixel, one group of eight channels (full) or fewer (lanes predicate the loads and the store). */
static inline __attribute__((always_inline)) void helium_group(const struct helium_shape *s, const int8_t *in,
							      const int8_t *w, const int32_t *block,
							      int32_t ky_count, int32_t kx_count, int interior,
							      int full, mve_pred16_t lanes, int8_t *out)
{
	const int32_t channels = s->channels;
	const int32_t *start = block + (interior ? FOLDED : BIAS);
	int32x4_t even = vldrwq_s32(start), odd = vldrwq_s32(start + 4);
	int32_t ky, kx;

	for (ky = 0; ky < ky_count; ky++, in += s->in_row, w += s->w_row) {
		for (kx = 0; kx < kx_count; kx++) {
			int16x8_t x = full ? vldrbq_s16(in + kx * channels) : vldrbq_z_s16(in + kx * channels, lanes);
			const int16x8_t k = full ? vldrbq_s16(w + kx * channels) : vldrbq_z_s16(w + kx * channels, lanes);

			if (!interior)
				x = vaddq_n_s16(x, (int16_t)s->input_offset);
			even = vaddq_s32(even, vmullbq_int_s16(x, k));
			odd = vaddq_s32(odd, vmulltq_int_s16(x, k));
		}
	}
	helium_finish(s, block, even, odd, full, lanes, out);
}

/* Requantize, offset and clamp one group's sums; store its bytes in channel order. */
static inline __attribute__((always_inline)) void helium_finish(const struct helium_shape *s, const int32_t *block,
							       int32x4_t even, int32x4_t odd, int full,
							       mve_pred16_t lanes, int8_t *out)
{
	even = vaddq_n_s32(helium_requantize_lanes(even, block), s->output_offset);
	odd = vaddq_n_s32(helium_requantize_lanes(odd, block + 4), s->output_offset);
	even = vminq_s32(vmaxq_s32(even, vdupq_n_s32(s->act_min)), vdupq_n_s32(s->act_max));
	odd = vminq_s32(vmaxq_s32(odd, vdupq_n_s32(s->act_min)), vdupq_n_s32(s->act_max));
	const int16x8_t bytes = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), even), odd);

	if (full)
		vstrbq_s16(out, bytes);
	else
		vstrbq_p_s16(out, bytes, lanes);
}

/* One 3x3 tap of a group: x and k widened to int16, even channels' products into q0, odd ones' into q1. */
#define HELIUM_TAP                              \
	"	vldrb.s16	q2, [%[it]]\n"          \
	"	vldrb.s16	q3, [%[wt]]\n"          \
	"	add		%[it], %[it], %[c]\n"   \
	"	add		%[wt], %[wt], %[c]\n"   \
	"	vmullb.s16	q4, q2, q3\n"           \
	"	vadd.i32	q0, q0, q4\n"           \
	"	vmullt.s16	q4, q2, q3\n"           \
	"	vadd.i32	q1, q1, q4\n"
#define HELIUM_ROW HELIUM_TAP HELIUM_TAP HELIUM_TAP "	add		%[it], %[it], %[skip]\n"

/* Requantize, offset and clamp q0 (even channels, lanes at byte offset `lanes` of the group's block) or q1. */
#define HELIUM_FINISH(acc, lanes)                                           \
	"	vldrw.u32	q2, [%[rq], #" #lanes " + 64]\n"                   \
	"	vldrw.u32	q3, [%[rq], #" #lanes " + 96]\n"                   \
	"	vldrw.u32	q4, [%[rq], #" #lanes " + 128]\n"                  \
	HELIUM_REQUANTIZE_ASM(acc, "q2", "q3", "q4", "q3")                 \
	"	vadd.i32	" acc ", " acc ", %[offset]\n"                     \
	"	vmax.s32	" acc ", " acc ", q5\n"                            \
	"	vmin.s32	" acc ", " acc ", q6\n"

/* Every full group of eight channels of one output pixel whose 3x3 window lies inside the input, in
 * assembly: with the nine taps unrolled GCC spills the sums and the requantization vectors (tried), and
 * this loop is most of a depthwise layer. The sums start from the folded bias (the window reads the raw
 * input), then requantization as helium_requantize; the two halves are narrowed back into channel order
 * (VMOVNT puts the odd channels' bytes between the even ones') and stored together. Widening loads and
 * narrowing stores take low registers ("l"). */
static void helium_interior_3x3(const struct helium_shape *s, const int8_t *in, const int8_t *w,
				const int32_t *requant, int32_t groups, int8_t *out)
{
	const int32_t skip = s->in_row - 3 * s->channels;
	const int8_t *it, *wt;

	__asm volatile(
		"	vdup.32		q5, %[lowest]\n"
		"	vdup.32		q6, %[highest]\n"
		"1:\n"
		"	vldrw.u32	q0, [%[rq], #32]\n"
		"	vldrw.u32	q1, [%[rq], #48]\n"
		"	mov		%[it], %[in]\n"
		"	mov		%[wt], %[w]\n"
		HELIUM_ROW HELIUM_ROW HELIUM_ROW
		HELIUM_FINISH("q0", 0)
		HELIUM_FINISH("q1", 16)
		"	vmovnt.i32	q0, q1\n"
		"	vstrb.16	q0, [%[out]], #8\n"
		"	adds		%[in], %[in], #8\n"
		"	adds		%[w], %[w], #8\n"
		"	adds		%[rq], %[rq], #160\n"
		"	subs		%[groups], %[groups], #1\n"
		"	bne		1b\n"
		: [it] "=&l"(it), [wt] "=&l"(wt), [in] "+r"(in), [w] "+r"(w), [rq] "+r"(requant), [out] "+l"(out),
		  [groups] "+r"(groups)
		: [c] "r"(s->channels), [skip] "r"(skip), [offset] "r"(s->output_offset), [lowest] "r"(s->act_min),
		  [highest] "r"(s->act_max)
		: "q0", "q1", "q2", "q3", "q4", "q5", "q6", "memory", "cc");
}

/* One output pixel, every channel: full groups, then the last partial one. */
static inline __attribute__((always_inline)) void helium_pixel(const struct helium_shape *s, const int8_t *in,
							      const int8_t *w, const int32_t *requant,
							      int32_t ky_count, int32_t kx_count, int interior,
							      int8_t *out)
{
	int32_t c;

	for (c = 0; c + GROUP <= s->channels; c += GROUP, requant += BLOCK)
		helium_group(s, in + c, w + c, requant, ky_count, kx_count, interior, 1, 0, out + c);
	if (c < s->channels)
		helium_group(s, in + c, w + c, requant, ky_count, kx_count, 0, 0,
			     vctp16q((uint32_t)(s->channels - c)), out + c);
}
#else
/* The same sums one channel at a time (host tests and builds without Helium). */
static void helium_pixel_c(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *in, const int8_t *w,
			   const int32_t *requant, int32_t ky_count, int32_t kx_count, int8_t *out)
{
	const int32_t channels = p->input.c;
	int32_t c, ky, kx;

	for (c = 0; c < channels; c++) {
		const int32_t *lane = requant + (c / GROUP) * BLOCK + (c % GROUP % 2) * 4 + c % GROUP / 2;
		int32_t sum = lane[BIAS];

		for (ky = 0; ky < ky_count; ky++)
			for (kx = 0; kx < kx_count; kx++)
				sum += ((int32_t)in[(ky * p->input.w + kx) * channels + c] + p->conv.input_offset) *
				       (int32_t)w[(ky * p->filter.w + kx) * channels + c];
		sum = arm_nn_requantize(sum, lane[MULTIPLIER], lane[LEFT] + lane[RIGHT]) + p->conv.output_offset;
		sum = sum < p->conv.activation.min ? p->conv.activation.min : sum;
		sum = sum > p->conv.activation.max ? p->conv.activation.max : sum;
		out[c] = (int8_t)sum;
	}
}
#endif

#if defined(__GNUC__) && !defined(__clang__)
/* the builds optimise for size (-Os), which spills this loop's vectors; it is worth its bytes */
__attribute__((optimize("O2")))
#endif
void usmp_cmsis_nn_depthwise_conv_helium_s8(const struct usmp_cmsis_nn_dw_conv_params *p, const int8_t *input,
					    const int8_t *filter, const int32_t *requant, int8_t *output)
{
	const int32_t channels = p->input.c, fh = p->filter.h, fw = p->filter.w;
	int32_t batch, oy, ox;
#if defined(ARM_MATH_MVEI)
	const struct helium_shape shape = { p->input.w * channels, fw * channels, channels, p->conv.input_offset,
					    p->conv.output_offset, p->conv.activation.min, p->conv.activation.max };
#endif

	for (batch = 0; batch < p->input.n; batch++) {
		const int8_t *image = input + (size_t)batch * p->input.h * p->input.w * channels;

		for (oy = 0; oy < p->output.h; oy++) {
			const int32_t y0 = oy * p->conv.stride.h - p->conv.padding.h;
			int32_t ky0, ky1;

			window_span(y0, p->input.h, fh, &ky0, &ky1);
			for (ox = 0; ox < p->output.w; ox++, output += channels) {
				const int32_t x0 = ox * p->conv.stride.w - p->conv.padding.w;
				int32_t kx0, kx1;

				window_span(x0, p->input.w, fw, &kx0, &kx1);
				const int32_t ky_count = ky1 > ky0 ? ky1 - ky0 : 0, kx_count = kx1 > kx0 ? kx1 - kx0 : 0;
				const int8_t *in = image + ((size_t)(y0 + ky0) * p->input.w + x0 + kx0) * channels;
				const int8_t *w = filter + ((size_t)ky0 * fw + kx0) * channels;
#if defined(ARM_MATH_MVEI)
				if (ky_count == 3 && kx_count == 3 && fh == 3 && fw == 3 && channels >= GROUP) {
					const int32_t full = channels / GROUP * GROUP;

					helium_interior_3x3(&shape, in, w, requant, channels / GROUP, output);
					if (full < channels)
						helium_group(&shape, in + full, w + full, requant + channels / GROUP * BLOCK,
							     3, 3, 0, 0, vctp16q((uint32_t)(channels - full)), output + full);
				} else if (ky_count == fh && kx_count == fw)
					helium_pixel(&shape, in, w, requant, ky_count, kx_count, 1, output);
				else
					helium_pixel(&shape, in, w, requant, ky_count, kx_count, 0, output);
#else
				helium_pixel_c(p, in, w, requant, ky_count, kx_count, output);
#endif
			}
		}
	}
}
