/* ADD, SUB and MUL kernels with TFLite broadcasting. */
#include "usmp_kernels.h"

/*
 * Walks the rows (innermost dimension) of a broadcast: offsets of the
 * current row in both inputs. The caller loops over the row itself.
 */
struct row_walk {
	int32_t rank;
	const int32_t *shape;
	const int32_t *stride1;
	const int32_t *stride2;
	int32_t index[USMP_BROADCAST_MAX_RANK];
	int32_t offset1;
	int32_t offset2;
};

static int32_t walk_start(struct row_walk *w, int32_t rank, const int32_t *shape, const int32_t *stride1,
			  const int32_t *stride2)
{
	int32_t d, rows = 1;

	w->rank = rank;
	w->shape = shape;
	w->stride1 = stride1;
	w->stride2 = stride2;
	w->offset1 = 0;
	w->offset2 = 0;
	for (d = 0; d < rank; d++) {
		w->index[d] = 0;
		if (d < rank - 1) {
			rows *= shape[d];
		}
	}
	return rows;
}

static void walk_next_row(struct row_walk *w)
{
	int32_t d;

	for (d = w->rank - 2; d >= 0; d--) {
		w->offset1 += w->stride1[d];
		w->offset2 += w->stride2[d];
		if (++w->index[d] < w->shape[d]) {
			return;
		}
		w->offset1 -= w->stride1[d] * w->shape[d];
		w->offset2 -= w->stride2[d] * w->shape[d];
		w->index[d] = 0;
	}
}

static void add_sub_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		       int8_t *output, int32_t subtract)
{
	struct row_walk w;
	const int32_t rows = walk_start(&w, p->rank, p->shape, p->stride1, p->stride2);
	const int32_t n = p->shape[p->rank - 1];
	const int32_t step1 = p->stride1[p->rank - 1];
	const int32_t step2 = p->stride2[p->rank - 1];
	const int32_t headroom = (int32_t)1 << p->left_shift;
	int32_t r, i;

	for (r = 0; r < rows; r++) {
		const int8_t *a = input1 + w.offset1;
		const int8_t *b = input2 + w.offset2;

		for (i = 0; i < n; i++) {
			const int32_t x = (p->input1_offset + a[i * step1]) * headroom;
			const int32_t y = (p->input2_offset + b[i * step2]) * headroom;
			const int32_t sx = usmp_mul_by_quantized_multiplier(x, p->input1_multiplier, p->input1_shift);
			int32_t sy = usmp_mul_by_quantized_multiplier(y, p->input2_multiplier, p->input2_shift);
			int32_t out;

			if (subtract) {
				sy = -sy;
			}
			out = usmp_mul_by_quantized_multiplier(sx + sy, p->output_multiplier, p->output_shift);
			*output++ = (int8_t)usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
		}
		walk_next_row(&w);
	}
}

void usmp_add_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	add_sub_s8(p, input1, input2, output, 0);
}

void usmp_sub_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	add_sub_s8(p, input1, input2, output, 1);
}

void usmp_mul_s8(const struct usmp_mul_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output)
{
	struct row_walk w;
	const int32_t rows = walk_start(&w, p->rank, p->shape, p->stride1, p->stride2);
	const int32_t n = p->shape[p->rank - 1];
	const int32_t step1 = p->stride1[p->rank - 1];
	const int32_t step2 = p->stride2[p->rank - 1];
	int32_t r, i;

	for (r = 0; r < rows; r++) {
		const int8_t *a = input1 + w.offset1;
		const int8_t *b = input2 + w.offset2;

		for (i = 0; i < n; i++) {
			const int32_t product = (p->input1_offset + a[i * step1]) * (p->input2_offset + b[i * step2]);
			const int32_t out = usmp_mul_by_quantized_multiplier(product, p->output_multiplier, p->output_shift);

			*output++ = (int8_t)usmp_clamp(out + p->output_offset, p->act_min, p->act_max);
		}
		walk_next_row(&w);
	}
}

enum binary_op { BINARY_ADD, BINARY_SUB, BINARY_MUL };

static void binary_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		       float *output, enum binary_op op)
{
	struct row_walk w;
	const int32_t rows = walk_start(&w, p->rank, p->shape, p->stride1, p->stride2);
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
		walk_next_row(&w);
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
