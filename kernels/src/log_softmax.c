/* LOG_SOFTMAX kernels (see usmp_kernels/log_softmax.h). */
#include <float.h>

#include "usmp_kernels.h"

#define INPUT_INTEGER_BITS 5         /* the differences, and the log: Q5 */
#define ACCUMULATION_INTEGER_BITS 12 /* the sum of exponentials: Q12 */
#define OUTPUT_INTEGER_BITS 4
#define LOG_ACCUM_INTEGER_BITS (INPUT_INTEGER_BITS + 1) /* headroom inside the log */

/* x * 2^exponent, exponent 0..31, saturating to the int32 range. */
static int32_t saturating_shl(int32_t x, int32_t exponent)
{
	const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);

	if (exponent == 0) {
		return x;
	}
	if (x > threshold) {
		return INT32_MAX;
	}
	if (x < -threshold) {
		return INT32_MIN;
	}
	return (int32_t)((uint32_t)x << exponent);
}

static int32_t saturate_int64(int64_t x)
{
	return x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : (int32_t)x);
}

/*
 * log(x) for x >= 1 in Q12, result in Q5: x = 2^k * r with r near 1 (two
 * candidate normalisations, by 1 and by sqrt(1/2), the closer one kept), then
 * k * log(2) plus a rational approximation of log(r), every step rounded as
 * gemmlowp rounds it.
 */
static int32_t log_q12_to_q5(int32_t x)
{
	const int32_t log_2 = 1488522236;          /* log(2), Q0 */
	const int32_t sqrt_sqrt_half = 1805811301; /* 0.5^(1/4) */
	const int32_t sqrt_half = 1518500250;      /* 0.5^(1/2) */
	const int32_t alpha_n = 117049297;
	const int32_t alpha_d = 127690142;
	const int32_t alpha_i = 1057819769;
	const int32_t alpha_f = 638450708;
	const int32_t shifted_quarter = 1 << (29 - LOG_ACCUM_INTEGER_BITS); /* 1/4 in the accumulator's format */
	const int32_t a_headroom_plus_one = usmp_fp_count_leading_zeros((uint32_t)x);
	const int32_t r_a = saturating_shl(usmp_fp_mul(saturating_shl(x, a_headroom_plus_one - 1), sqrt_half), 1);
	const int32_t a_pow_2_adj = saturate_int64(
		(int64_t)saturating_shl(ACCUMULATION_INTEGER_BITS - a_headroom_plus_one, 31 - LOG_ACCUM_INTEGER_BITS) +
		shifted_quarter);
	const int32_t b_headroom = usmp_fp_count_leading_zeros((uint32_t)usmp_fp_mul(x, sqrt_half)) - 1;
	const int32_t r_b = saturating_shl(x, b_headroom);
	const int32_t b_pow_2_adj = saturate_int64(
		(int64_t)saturating_shl(ACCUMULATION_INTEGER_BITS - b_headroom, 31 - LOG_ACCUM_INTEGER_BITS) -
		shifted_quarter);
	const int32_t r = USMP_MIN(r_a, r_b);
	const int32_t pow_2_adj = USMP_MAX(a_pow_2_adj, b_pow_2_adj);
	const int32_t p = usmp_fp_rounding_half_sum(r, sqrt_sqrt_half);
	const int32_t q_half = usmp_fp_sub(r, sqrt_sqrt_half);
	const int32_t q = usmp_fp_add(q_half, q_half);
	const int32_t q_squared = usmp_fp_mul(q, q);
	const int32_t num = usmp_fp_add(usmp_fp_mul(q, r), usmp_fp_mul(usmp_fp_mul(q, q_squared), alpha_n));
	const int32_t denominator_minus_one =
		usmp_fp_add(usmp_fp_mul(p, usmp_fp_add(usmp_fp_add(alpha_i, q), usmp_fp_mul(alpha_d, q_squared))),
			    usmp_fp_mul(alpha_f, q));
	const int32_t reciprocal = usmp_fp_one_over_one_plus_x(denominator_minus_one);
	const int32_t num_scaled = usmp_rounding_divide_by_pot(num, LOG_ACCUM_INTEGER_BITS);
	const int32_t log_accum = usmp_fp_add(usmp_fp_mul(pow_2_adj, log_2), usmp_fp_mul(num_scaled, reciprocal));

	return saturating_shl(log_accum, LOG_ACCUM_INTEGER_BITS - INPUT_INTEGER_BITS);
}

void usmp_log_softmax_s8(const struct usmp_log_softmax_s8_params *p, const int8_t *input,
			 const int32_t *exp_table, int8_t *output)
{
	const int32_t output_exponent = 31 - INPUT_INTEGER_BITS - OUTPUT_INTEGER_BITS;
	int32_t r, c;

	for (r = 0; r < p->rows; r++) {
		const int8_t *x = input + r * p->depth;
		int8_t *y = output + r * p->depth;
		int32_t max_value = INT8_MIN;
		int32_t sum = 0; /* Q12; wraps like the reference's only past 4095 ones */
		int32_t log_sum, smallest_shown;

		for (c = 0; c < p->depth; c++) {
			max_value = USMP_MAX(max_value, (int32_t)x[c]);
		}
		for (c = 0; c < p->depth; c++) {
			sum = usmp_fp_add(sum, exp_table[max_value - x[c]]);
		}
		log_sum = log_q12_to_q5(sum);
		/* Differences at or below this would underflow Q5 once the log is subtracted. */
		smallest_shown = USMP_MAX(p->diff_min - 1,
					  usmp_mul_by_quantized_multiplier(usmp_fp_add(log_sum, INT32_MIN),
									   p->reverse_multiplier, p->reverse_shift));
		for (c = 0; c < p->depth; c++) {
			const int32_t diff = x[c] - max_value;
			int32_t out = INT8_MIN;

			if (diff > smallest_shown) {
				const int32_t q5 = usmp_mul_by_quantized_multiplier(diff, p->input_multiplier,
										    p->input_left_shift);

				out = usmp_clamp(usmp_rounding_divide_by_pot(usmp_fp_sub(q5, log_sum), output_exponent) +
							 INT8_MAX,
						 INT8_MIN, INT8_MAX);
			}
			y[c] = (int8_t)out;
		}
	}
}

void usmp_log_softmax_f32(const struct usmp_log_softmax_f32_params *p, const float *input, float *output)
{
	int32_t r, c;

	for (r = 0; r < p->rows; r++) {
		const float *x = input + r * p->depth;
		float *y = output + r * p->depth;
		float max_value = -FLT_MAX;
		float sum = 0.0f;
		float log_sum;

		for (c = 0; c < p->depth; c++) {
			max_value = x[c] > max_value ? x[c] : max_value;
		}
		for (c = 0; c < p->depth; c++) {
			sum += usmp_expf(x[c] - max_value);
		}
		log_sum = usmp_logf(sum);
		for (c = 0; c < p->depth; c++) {
			y[c] = x[c] - max_value - log_sum;
		}
	}
}
