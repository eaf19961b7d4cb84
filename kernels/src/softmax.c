/* SOFTMAX kernels: int8 in fixed point and int16 with tables as TFLite does it, float with usmp_expf. */

#include "usmp_kernels.h"

#define SCALED_DIFF_INTEGER_BITS 5  /* exp() argument: Q5 */
#define ACCUMULATION_INTEGER_BITS 12 /* sum of exps: Q12, room for 4096 ones */

/*
 * The int8 softmax is a loop over a row calling one of three leaves per value, the fixed-point helpers inlined
 * into each (flatten): a value's arithmetic takes one frame under the loop's, and the loop keeps the row's
 * numbers in a 16-byte struct. On a Cortex-M0 (four callee-saved low registers) a chain of helpers, loop ->
 * exp -> multiply, took 64 + 32 + 12 bytes of stack; this takes 40 + 40. noipa keeps GCC from passing the
 * struct's members by value (its scalar replacement), which would copy them into the loop's frame.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define LEAF __attribute__((noipa, flatten))
#elif defined(__GNUC__)
#define LEAF __attribute__((noinline, flatten))
#else
#define LEAF
#endif
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

struct softmax_row {
	int32_t reciprocal; /* sum of exps (Q12) = 2^bits_over_unit (1 + f): 1 / (1 + f) in Q0 */
	int16_t max;        /* the row's largest input */
	int16_t exponent;   /* the right shift of exp * reciprocal to the output's bits */
	int32_t rows_left;  /* the loop's count and output: kept with the row's numbers, 16 bytes in all */
	void *y;
};

/* exp(beta * scale * (x - max)) in Q0 (x - max <= 0); -1 below diff_min, where the output is its lowest value. */
LEAF static int32_t row_exp(const struct usmp_softmax_s8_params *p, const struct softmax_row *row, int32_t x)
{
	const int32_t diff = x - row->max;

	if (diff < p->diff_min) {
		return -1;
	}
	return usmp_fp_exp_on_negative_values(
		usmp_mul_by_quantized_multiplier(diff, p->input_multiplier, p->input_left_shift), SCALED_DIFF_INTEGER_BITS);
}

/* The row's scale from its sum of exps (Q12), for outputs of output_bits bits. */
LEAF static void row_scale(struct softmax_row *row, int32_t sum, int32_t output_bits)
{
	int32_t bits_over_unit;

	row->reciprocal = usmp_fp_reciprocal(sum, ACCUMULATION_INTEGER_BITS, &bits_over_unit);
	row->exponent = (int16_t)USMP_MIN(bits_over_unit + 31 - output_bits, 31); /* above 31 only after the sum wrapped */
}

/* The output of a value whose exp is e (row_exp), in output_bits bits whose zero point is the type's minimum. */
LEAF static int32_t row_output(const struct softmax_row *row, int32_t e, int32_t output_bits)
{
	const int32_t lowest = -((int32_t)1 << (output_bits - 1));

	if (e < 0) {
		return lowest;
	}
	return usmp_clamp(usmp_rounding_divide_by_pot(usmp_fp_mul(row->reciprocal, e), row->exponent) + lowest, lowest,
			  -lowest - 1);
}

/* Rows of int8 values into int8 or int16 outputs (y, output_bits bits). The output may be the input (each value
 * is read before written). */
INLINE void softmax_s8_rows(const struct usmp_softmax_s8_params *p, const int8_t *x, int32_t output_bits, void *y)
{
	struct softmax_row row;
	int32_t c;

	row.y = y;
	for (row.rows_left = p->rows; row.rows_left > 0; row.rows_left--, x += p->depth) {
		int32_t sum = 0; /* Q12 */

		row.max = INT8_MIN;
		for (c = 0; c < p->depth; c++) {
			row.max = (int16_t)USMP_MAX(row.max, x[c]);
		}
		for (c = 0; c < p->depth; c++) {
			const int32_t e = row_exp(p, &row, x[c]);

			if (e >= 0) { /* Q0 to Q12; wraps past 4095 ones exactly like the reference's int32 sum. */
				sum = usmp_fp_add(sum, usmp_rounding_divide_by_pot(e, ACCUMULATION_INTEGER_BITS));
			}
		}
		row_scale(&row, sum, output_bits);
		for (c = 0; c < p->depth; c++) {
			const int32_t out = row_output(&row, row_exp(p, &row, x[c]), output_bits);

			if (output_bits == 8) {
				*(int8_t *)row.y = (int8_t)out;
				row.y = (int8_t *)row.y + 1;
			} else {
				*(int16_t *)row.y = (int16_t)out;
				row.y = (int16_t *)row.y + 1;
			}
		}
	}
}

void usmp_softmax_s8(const struct usmp_softmax_s8_params *p, const int8_t *input, int8_t *output)
{
	softmax_s8_rows(p, input, 8, output);
}

void usmp_softmax_s8_s16(const struct usmp_softmax_s8_params *p, const int8_t *input, int16_t *output)
{
	softmax_s8_rows(p, input, 16, output);
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
