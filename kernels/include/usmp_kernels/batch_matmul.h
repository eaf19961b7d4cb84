/*
 * USMP kernels: BATCH_MATMUL, out[b] = lhs[b] x rhs[b] for every batch b.
 *
 * The compiler lays the operands out so that both dot-product operands step
 * through memory evenly: lhs row i starts at i * lhs_row_step and its k-th
 * element is k * lhs_depth_step further; rhs column j starts at
 * j * rhs_col_step with its k-th element k * rhs_depth_step further (a
 * constant rhs is transposed at compile time so that the step is 1). The
 * batch dimensions, broadcast as TFLite broadcasts them, are an N-D walk with
 * a matrix stride per operand, 0 where the operand is repeated.
 */
#ifndef USMP_KERNELS_BATCH_MATMUL_H
#define USMP_KERNELS_BATCH_MATMUL_H

#include <stdint.h>

#define USMP_MATMUL_BATCH_DIMS 4

struct usmp_batch_matmul_params {
	int32_t batch_count[USMP_MATMUL_BATCH_DIMS]; /* outermost first, padded with leading 1s */
	int32_t lhs_batch_step[USMP_MATMUL_BATCH_DIMS];
	int32_t rhs_batch_step[USMP_MATMUL_BATCH_DIMS];
	int32_t rows;  /* M */
	int32_t cols;  /* N */
	int32_t depth; /* K */
	int32_t lhs_row_step;
	int32_t lhs_depth_step;
	int32_t rhs_col_step;
	int32_t rhs_depth_step;
	int32_t lhs_offset; /* minus the zero points (int8) */
	int32_t rhs_offset;
	int32_t output_offset;
	int32_t multiplier; /* int8: TFLite's 32-bit multiplier; int16: the 16-bit one, see below */
	int32_t shift;      /* int8: TFLite's shift; int16: the right shift below */
	int32_t act_min;
	int32_t act_max;
};

void usmp_batch_matmul_s8(const struct usmp_batch_matmul_params *p, const int8_t *lhs, const int8_t *rhs,
			  int8_t *output);
void usmp_batch_matmul_s16(const struct usmp_batch_matmul_params *p, const int16_t *lhs, const int16_t *rhs,
			   int16_t *output);
void usmp_batch_matmul_f32(const struct usmp_batch_matmul_params *p, const float *lhs, const float *rhs,
			   float *output);

/*
 * TFLite's rescale of a 64-bit sum: x * multiplier16 / 2^right_shift rounded
 * half up, where the compiler rounded the 32-bit multiplier to 16 bits
 * (multiplier16) and right_shift = 15 - shift (1..46). A 64-bit multiply and
 * shift; no division.
 */
static inline int32_t usmp_requantize_s64(int64_t x, int32_t multiplier16, int32_t right_shift)
{
	/* unsigned, so that a sum near the int64 limits (a huge bias) wraps around as TFLite's does */
	const uint64_t scaled = (uint64_t)x * (uint64_t)(int64_t)multiplier16 + ((uint64_t)1 << (right_shift - 1));

	return (int32_t)((int64_t)scaled >> right_shift);
}

#endif /* USMP_KERNELS_BATCH_MATMUL_H */
