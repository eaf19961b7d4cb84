/* BATCH_MATMUL kernels (see usmp_kernels/batch_matmul.h for the operand layout). */
#include "usmp_kernels.h"

/*
 * The batch walk and the row/column loops are the same for every type: one
 * definition, expanded per type with its own dot product and output step.
 */
#define USMP_DEFINE_BATCH_MATMUL(suffix, type, ACC_INIT, DOT_STEP, STORE)                             \
	void usmp_batch_matmul_##suffix(const struct usmp_batch_matmul_params *p, const type *lhs,       \
					const type *rhs, type *output)                                \
	{                                                                                              \
		int32_t b0, b1, b2, b3, i, j, k;                                                       \
                                                                                                       \
		for (b0 = 0; b0 < p->batch_count[0]; b0++) {                                          \
			for (b1 = 0; b1 < p->batch_count[1]; b1++) {                                   \
				for (b2 = 0; b2 < p->batch_count[2]; b2++) {                           \
					for (b3 = 0; b3 < p->batch_count[3]; b3++) {                   \
						const type *l = lhs + b0 * p->lhs_batch_step[0] +     \
								b1 * p->lhs_batch_step[1] +           \
								b2 * p->lhs_batch_step[2] +           \
								b3 * p->lhs_batch_step[3];            \
						const type *r = rhs + b0 * p->rhs_batch_step[0] +     \
								b1 * p->rhs_batch_step[1] +           \
								b2 * p->rhs_batch_step[2] +           \
								b3 * p->rhs_batch_step[3];            \
                                                                                                       \
						for (i = 0; i < p->rows; i++) {                        \
							for (j = 0; j < p->cols; j++) {                \
								const type *a = l + i * p->lhs_row_step; \
								const type *c = r + j * p->rhs_col_step; \
								ACC_INIT;                              \
                                                                                                       \
								for (k = 0; k < p->depth; k++) {       \
									DOT_STEP;                      \
									a += p->lhs_depth_step;        \
									c += p->rhs_depth_step;        \
								}                                      \
								*output++ = STORE;                     \
							}                                              \
						}                                                      \
					}                                                              \
				}                                                                      \
			}                                                                              \
		}                                                                                      \
	}

static int8_t matmul_store_s8(const struct usmp_batch_matmul_params *p, int32_t acc)
{
	acc = usmp_mul_by_quantized_multiplier(acc, p->multiplier, p->shift) + p->output_offset;
	return (int8_t)usmp_clamp(acc, p->act_min, p->act_max);
}

static int16_t matmul_store_s16(const struct usmp_batch_matmul_params *p, int64_t acc)
{
	return (int16_t)usmp_clamp(usmp_requantize_s64(acc, p->multiplier, p->shift), p->act_min, p->act_max);
}

USMP_DEFINE_BATCH_MATMUL(s8, int8_t, int32_t acc = 0,
			 acc += ((int32_t)*a + p->lhs_offset) * ((int32_t)*c + p->rhs_offset),
			 matmul_store_s8(p, acc))
USMP_DEFINE_BATCH_MATMUL(s16, int16_t, int64_t acc = 0, acc += (int32_t)*a * (int32_t)*c,
			 matmul_store_s16(p, acc))
USMP_DEFINE_BATCH_MATMUL(f32, float, float acc = 0.0f, acc += *a * *c, acc)
