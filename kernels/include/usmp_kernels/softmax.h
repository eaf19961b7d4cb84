/* USMP kernels: SOFTMAX over the innermost dimension. */
#ifndef USMP_KERNELS_SOFTMAX_H
#define USMP_KERNELS_SOFTMAX_H

#include <stdint.h>

/*
 * int8 in, int8 out (scale 1/256, zero point -128). Differences from the row
 * maximum are scaled by beta * input scale into Q5 (input_multiplier,
 * input_left_shift); those below diff_min contribute exp() = 0.
 */
struct usmp_softmax_s8_params {
	int32_t rows;
	int32_t depth;
	int32_t input_multiplier;
	int32_t input_left_shift;
	int32_t diff_min;
};

void usmp_softmax_s8(const struct usmp_softmax_s8_params *p, const int8_t *input, int8_t *output);
/* int8 in, int16 out (scale 1/65536, zero point -32768): the same arithmetic, 8 more output bits. */
void usmp_softmax_s8_s16(const struct usmp_softmax_s8_params *p, const int8_t *input, int16_t *output);

/*
 * int16 in, int16 out (zero points 0, output scale 2^-15), as TFLite Micro does it: differences
 * from the row maximum are scaled by beta * input scale onto [-10, 0] in 65535 steps
 * (input_multiplier, input_shift), exp comes from exp_table, and 1 / sum from reciprocal_table,
 * both 513-entry tables the compiler builds and the kernel interpolates. The output buffer holds
 * the row's exps between the passes (it may be the input's).
 */
struct usmp_softmax_s16_params {
	int32_t rows;
	int32_t depth; /* at most 65536: the sum of exps stays in int32 */
	int32_t input_multiplier;
	int32_t input_shift;
};

void usmp_softmax_s16(const struct usmp_softmax_s16_params *p, const int16_t *input, const int16_t *exp_table,
		      const int16_t *reciprocal_table, int16_t *output);

struct usmp_softmax_f32_params {
	int32_t rows;
	int32_t depth;
	float beta;
};

void usmp_softmax_f32(const struct usmp_softmax_f32_params *p, const float *input, float *output);

#endif /* USMP_KERNELS_SOFTMAX_H */
