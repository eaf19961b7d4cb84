/* L2_NORMALIZATION and L2_POOL_2D kernels (see usmp_kernels/l2.h). */
#include "usmp_kernels.h"

#define EPSILON 1e-6f
#define OUTPUT_SHIFT 7                  /* outputs in steps of 1/128 */
#define HALF_THREE_Q3 ((1 << 28) + (1 << 27)) /* 1.5 in Q3 */
#define ONE_Q3 (1 << 28)
#define HALF_SQRT_2_Q0 1518500250

void usmp_l2_norm_f32(const struct usmp_l2_norm_f32_params *p, const float *input, float *output)
{
	int32_t r, c;

	for (r = 0; r < p->rows; r++) {
		const float *x = input + r * p->depth;
		float *y = output + r * p->depth;
		float squares = 0.0f;
		float norm;

		for (c = 0; c < p->depth; c++) {
			squares += x[c] * x[c];
		}
		norm = usmp_sqrtf(squares);
		norm = norm > EPSILON ? norm : EPSILON;
		for (c = 0; c < p->depth; c++) {
			y[c] = x[c] / norm;
		}
	}
}

/* x * 2^exponent (exponent 1..30), saturating: gemmlowp's Rescale to fewer integer bits. */
static int32_t saturating_shl(int32_t x, int32_t exponent)
{
	return usmp_fp_saturating_shl(x, exponent);
}

/*
 * 1 / sqrt(x) for a sum of squares x, as multiplier * 2^shift (TFLite's
 * GetInvSqrtQuantizedMultiplierExp with its right shift turned into a left one).
 */
static void inv_sqrt(int32_t x, int32_t *multiplier, int32_t *shift)
{
	int32_t s = 11;
	int32_t pairs, half_x, guess, i;

	if (x <= 1) { /* 0 (no signal) is treated as 1 */
		*multiplier = INT32_MAX;
		*shift = 0;
		return;
	}
	while (x >= (1 << 29)) {
		x >>= 2; /* positive: the reference's x / 4 */
		s++;
	}
	pairs = (usmp_fp_count_leading_zeros((uint32_t)x) - 1) / 2 - 1;
	s -= pairs;
	x <<= 2 * pairs; /* now in [2^27, 2^29) */
	half_x = usmp_rounding_divide_by_pot(x >> 1, 1);
	guess = ONE_Q3;
	for (i = 0; i < 5; i++) {
		const int32_t cube = saturating_shl(usmp_fp_mul(usmp_fp_mul(guess, guess), guess), 6);

		guess = saturating_shl(usmp_fp_sub(usmp_fp_mul(HALF_THREE_Q3, guess), usmp_fp_mul(half_x, cube)), 3);
	}
	guess = usmp_fp_mul(guess, HALF_SQRT_2_Q0);
	if (s < 0) {
		guess = (int32_t)((uint32_t)guess << -s);
		s = 0;
	}
	*multiplier = guess;
	*shift = -s;
}

void usmp_l2_norm_s8(const struct usmp_l2_norm_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t r, c;

	for (r = 0; r < p->rows; r++) {
		const int8_t *x = input + r * p->depth;
		int8_t *y = output + r * p->depth;
		int32_t squares = 0; /* wraps like the reference's only past 2^15 elements */
		int32_t multiplier, shift;

		for (c = 0; c < p->depth; c++) {
			const int32_t d = x[c] - p->input_zero_point;

			squares = usmp_fp_add(squares, d * d);
		}
		inv_sqrt(squares, &multiplier, &shift);
		for (c = 0; c < p->depth; c++) {
			const int32_t d = x[c] - p->input_zero_point;
			const int32_t value = usmp_mul_by_quantized_multiplier(d, multiplier, shift + OUTPUT_SHIFT);

			y[c] = (int8_t)usmp_clamp(value, INT8_MIN, INT8_MAX);
		}
	}
}

void usmp_l2_pool_f32(const struct usmp_pool_f32_params *p, const float *input, float *output)
{
	int32_t b, oy, ox, c, fy, fx;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t y0 = oy * p->stride_h - p->pad_top;
			const int32_t fy_start = USMP_MAX(0, -y0);
			const int32_t fy_end = USMP_MIN(p->filter_h, p->in_h - y0);

			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t x0 = ox * p->stride_w - p->pad_left;
				const int32_t fx_start = USMP_MAX(0, -x0);
				const int32_t fx_end = USMP_MIN(p->filter_w, p->in_w - x0);

				for (c = 0; c < p->channels; c++) {
					float squares = 0.0f;
					int32_t taps = 0;

					for (fy = fy_start; fy < fy_end; fy++) {
						for (fx = fx_start; fx < fx_end; fx++) {
							const float v = input[((b * p->in_h + y0 + fy) * p->in_w + x0 + fx) *
										      p->channels + c];

							squares += v * v;
							taps++;
						}
					}
					*output++ = usmp_clamp_f32(usmp_sqrtf(squares / (float)taps), p->act_min,
								   p->act_max);
				}
			}
		}
	}
}
