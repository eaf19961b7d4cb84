/* ADD, SUB and MUL kernels with TFLite broadcasting. */
#include "usmp_kernels.h"

/* One int8 or int16 ADD/SUB element: both inputs rescaled to a common scale, summed, rescaled. */
static int32_t add_sub_q(const struct usmp_add_s8_params *p, int32_t x, int32_t y, int32_t subtract)
{
	const int32_t headroom = (int32_t)1 << p->left_shift;
	const int32_t sx = usmp_mul_by_quantized_multiplier((p->input1_offset + x) * headroom, p->input1_multiplier,
							    p->input1_shift);
	const int32_t sy = usmp_mul_by_quantized_multiplier((p->input2_offset + y) * headroom, p->input2_multiplier,
							    p->input2_shift);
	const int32_t out = usmp_mul_by_quantized_multiplier(subtract ? sx - sy : sx + sy, p->output_multiplier,
							     p->output_shift);

	return usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
}

void usmp_add_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int8_t)add_sub_q(p, x, y, 0));
}

void usmp_sub_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int8_t)add_sub_q(p, x, y, 1));
}

void usmp_add_s16(const struct usmp_add_s8_params *p, const int16_t *input1, const int16_t *input2,
		  int16_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int16_t)add_sub_q(p, x, y, 0));
}

void usmp_sub_s16(const struct usmp_add_s8_params *p, const int16_t *input1, const int16_t *input2,
		  int16_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int16_t)add_sub_q(p, x, y, 1));
}

/*
 * One int8 or int16 MUL element. The product of two int16 values (zero
 * points 0) is at most 2^30 and fits int32; a rescale above 1 shifts it left
 * with wrap-around, as TFLite's int32 arithmetic does.
 */
static int32_t mul_q(const struct usmp_mul_s8_params *p, int32_t x, int32_t y)
{
	const int32_t product = (p->input1_offset + x) * (p->input2_offset + y);
	const int32_t out = usmp_mul_by_quantized_multiplier(product, p->output_multiplier, p->output_shift);

	return usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
}

void usmp_mul_s8(const struct usmp_mul_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int8_t)mul_q(p, x, y));
}

void usmp_mul_s16(const struct usmp_mul_s8_params *p, const int16_t *input1, const int16_t *input2,
		  int16_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, (int16_t)mul_q(p, x, y));
}

enum binary_op { BINARY_ADD, BINARY_SUB, BINARY_MUL };

static void binary_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		       float *output, enum binary_op op)
{
	struct usmp_row_walk w;
	const int32_t rows = usmp_walk_start(&w, p->rank, p->shape, p->stride1, p->stride2, NULL);
	const int32_t n = p->shape[p->rank - 1];
	const int32_t step1 = p->stride1[p->rank - 1];
	const int32_t step2 = p->stride2[p->rank - 1];
	int32_t r, i;

	for (r = 0; r < rows; r++) {
		const float *a = input1 + w.offset1;
		const float *b = input2 + w.offset2;

		for (i = 0; i < n; i++) {
			const float x = a[i * step1];
			const float y = b[i * step2];
			const float v = op == BINARY_ADD ? x + y : (op == BINARY_SUB ? x - y : x * y);

			*output++ = usmp_clamp_f32(v, p->act_min, p->act_max);
		}
		usmp_walk_next_row(&w);
	}
}

void usmp_add_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output)
{
	binary_f32(p, input1, input2, output, BINARY_ADD);
}

void usmp_sub_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output)
{
	binary_f32(p, input1, input2, output, BINARY_SUB);
}

void usmp_mul_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output)
{
	binary_f32(p, input1, input2, output, BINARY_MUL);
}

void usmp_add_s32(const struct usmp_binary_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output,
			      usmp_clamp((int32_t)((uint32_t)x + (uint32_t)y), p->act_min, p->act_max));
}

void usmp_sub_s32(const struct usmp_binary_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output,
			      usmp_clamp((int32_t)((uint32_t)x - (uint32_t)y), p->act_min, p->act_max));
}

void usmp_mul_s32(const struct usmp_binary_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output,
			      usmp_clamp((int32_t)((uint32_t)x * (uint32_t)y), p->act_min, p->act_max));
}
