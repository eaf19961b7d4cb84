/* SOFTMAX kernels: int8 in fixed point and int16 with tables as TFLite does it, float with usmp_expf. */

#include "usmp_kernels.h"

#define SCALED_DIFF_INTEGER_BITS 5  /* exp() argument: Q5 */
#define ACCUMULATION_INTEGER_BITS 12 /* sum of exps: Q12, room for 4096 ones */

/* exp(beta * scale * diff) in Q0 for a difference diff <= 0 from the row maximum. */
static inline __attribute__((always_inline)) int32_t scaled_exp(const struct usmp_softmax_s8_params *p,
							     int32_t diff)
{
	const int32_t scaled = usmp_mul_by_quantized_multiplier(diff, p->input_multiplier, p->input_left_shift);

	return usmp_fp_exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS);
}

/*
 * One row of int8 values into int8 (y8) or int16 (y16) outputs of output_bits bits, whose zero
 * point is the type's minimum. The output may be the input (each value is read before written).
 */
static inline __attribute__((always_inline)) void softmax_s8_row(const struct usmp_softmax_s8_params *p,
								   const int8_t *x, int32_t output_bits, int8_t *y8,
								   int16_t *y16)
{
	const int32_t lowest = -((int32_t)1 << (output_bits - 1));
	int32_t max_value = INT8_MIN;
	int32_t sum = 0; /* Q12 */
	int32_t bits_over_unit, reciprocal, exponent, c;

	for (c = 0; c < p->depth; c++) {
		max_value = USMP_MAX(max_value, (int32_t)x[c]);
	}
	for (c = 0; c < p->depth; c++) {
		const int32_t diff = x[c] - max_value;

		if (diff >= p->diff_min) {
			/* Q0 to Q12; wraps past 4095 ones exactly like the reference's int32 sum. */
			sum = usmp_fp_add(sum, usmp_rounding_divide_by_pot(scaled_exp(p, diff),
									   ACCUMULATION_INTEGER_BITS));
		}
	}
	/* sum = 2^bits_over_unit * (1 + f); reciprocal = 1 / (1 + f) in Q0. */
	reciprocal = usmp_fp_reciprocal(sum, ACCUMULATION_INTEGER_BITS, &bits_over_unit);
	exponent = USMP_MIN(bits_over_unit + 31 - output_bits, 31); /* above 31 only after the sum wrapped */
	for (c = 0; c < p->depth; c++) {
		const int32_t diff = x[c] - max_value;
		int32_t out = lowest;

		if (diff >= p->diff_min) {
			const int32_t q0 = usmp_fp_mul(reciprocal, scaled_exp(p, diff));

			out = usmp_clamp(usmp_rounding_divide_by_pot(q0, exponent) + lowest, lowest, -lowest - 1);
		}
		if (y8 != 0) {
			y8[c] = (int8_t)out;
		} else {
			y16[c] = (int16_t)out;
		}
	}
}

void usmp_softmax_s8(const struct usmp_softmax_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t r;

	for (r = 0; r < p->rows; r++) {
		softmax_s8_row(p, input + r * p->depth, 8, output + r * p->depth, 0);
	}
}

void usmp_softmax_s8_s16(const struct usmp_softmax_s8_params *p, const int8_t *input, int16_t *output)
{
	int32_t r;

	for (r = 0; r < p->rows; r++) {
		softmax_s8_row(p, input + r * p->depth, 16, 0, output + r * p->depth);
	}
}

/* TFLite's int16 table lookup: 512 intervals over the int16 range, linear in the low 7 bits. */
static int16_t lut_lookup_s16(int32_t value, const int16_t *table)
{
	const int32_t index = 256 + (value >> 7);
	const int32_t base = table[index];
	const int32_t slope = table[index + 1] - base;

	return (int16_t)(base + ((slope * (value & 0x7f) + 64) >> 7));
}

void usmp_softmax_s16(const struct usmp_softmax_s16_params *p, const int16_t *input, const int16_t *exp_table,
		      const int16_t *reciprocal_table, int16_t *output)
{
	int32_t r, c;

	for (r = 0; r < p->rows; r++) {
		const int16_t *x = input + r * p->depth;
		int16_t *y = output + r * p->depth;
		int32_t max_value = INT16_MIN;
		int32_t sum = 0; /* Q16.15 */
		int32_t headroom_plus_one, right_shift, round, sum_in_unit, reciprocal;

		for (c = 0; c < p->depth; c++) {
			max_value = USMP_MAX(max_value, (int32_t)x[c]);
		}
		for (c = 0; c < p->depth; c++) {
			/* [-65535, 0] onto [-10, 0], recentred to the table's [-32768, 32767] */
			const int32_t scaled = usmp_mul_by_quantized_multiplier(x[c] - max_value, p->input_multiplier,
										p->input_shift);

			y[c] = lut_lookup_s16(usmp_clamp(usmp_fp_add(scaled, 32767), INT16_MIN, INT16_MAX), exp_table);
			sum += y[c];
		}
		/* sum = 2^(31 - headroom_plus_one) * (1 + x), x in [0, 1), x in Q15 recentred for the table */
		headroom_plus_one = usmp_fp_count_leading_zeros((uint32_t)sum);
		sum_in_unit = (int32_t)((((uint32_t)sum << (headroom_plus_one - 1)) + (1u << 13)) >> 14);
		reciprocal = lut_lookup_s16(usmp_clamp(sum_in_unit - ((1 << 15) + (1 << 16)), INT16_MIN, INT16_MAX),
					    reciprocal_table);
		right_shift = 31 - headroom_plus_one;
		round = (int32_t)1 << (right_shift - 1);
		for (c = 0; c < p->depth; c++) {
			y[c] = (int16_t)usmp_clamp((y[c] * reciprocal + round) >> right_shift, 0, INT16_MAX);
		}
	}
}

void usmp_softmax_f32(const struct usmp_softmax_f32_params *p, const float *input, float *output)
{
	int32_t r, c;

	for (r = 0; r < p->rows; r++) {
		const float *x = input + r * p->depth;
		float *y = output + r * p->depth;
		float max_value = x[0];
		float sum = 0.0f;

		for (c = 1; c < p->depth; c++) {
			max_value = x[c] > max_value ? x[c] : max_value;
		}
		for (c = 0; c < p->depth; c++) {
			y[c] = usmp_expf((x[c] - max_value) * p->beta);
			sum += y[c];
		}
		for (c = 0; c < p->depth; c++) {
			y[c] = y[c] / sum;
		}
	}
}
