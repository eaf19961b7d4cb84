/*
 * USMP kernels: LOG_SOFTMAX over the innermost dimension.
 *
 * int8 follows TFLite Micro's fixed-point arithmetic: the exponentials of the
 * differences from the row maximum are summed in Q12 (their values, one per
 * possible difference, are a compile-time table), the sum's log is taken in
 * Q5 with gemmlowp's approximation, and each output is the Q5 difference
 * minus that log, in steps of 1/16 from 127 down. Outputs are scale 16/256,
 * zero point 127.
 */
#ifndef USMP_KERNELS_LOG_SOFTMAX_H
#define USMP_KERNELS_LOG_SOFTMAX_H

#include <stdint.h>

struct usmp_log_softmax_s8_params {
	int32_t rows;
	int32_t depth;
	int32_t input_multiplier; /* input scale into Q5 */
	int32_t input_left_shift;
	int32_t reverse_multiplier; /* Q5 back to input steps, to find the smallest difference that shows */
	int32_t reverse_shift;      /* <= 0 */
	int32_t diff_min;           /* differences below this add nothing to the sum */
};

/* exp_table[d]: the Q12 exponential of difference -d (d = 0..255), 0 below diff_min. */
void usmp_log_softmax_s8(const struct usmp_log_softmax_s8_params *p, const int8_t *input,
			 const int32_t *exp_table, int8_t *output);

struct usmp_log_softmax_f32_params {
	int32_t rows;
	int32_t depth;
};

void usmp_log_softmax_f32(const struct usmp_log_softmax_f32_params *p, const float *input, float *output);

#endif /* USMP_KERNELS_LOG_SOFTMAX_H */
