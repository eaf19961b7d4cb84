/* UNIDIRECTIONAL_SEQUENCE_LSTM kernels. */
#include "usmp_kernels.h"

static int32_t sat16(int32_t x)
{
	return usmp_clamp(x, -32768, 32767);
}

/* One product into Q3.12: dot product (wrapping like TFLite's int32 sums), requantized, int16 range. */
static int32_t gate_product_s8(const int8_t *w, const int8_t *x, int32_t n, int32_t bias, int32_t multiplier,
			       int32_t shift)
{
	uint32_t acc = (uint32_t)bias;
	int32_t k;

	for (k = 0; k < n; k++) {
		acc += (uint32_t)((int32_t)w[k] * (int32_t)x[k]);
	}
	return sat16(usmp_mul_by_quantized_multiplier((int32_t)acc, multiplier, shift));
}

/* The int16-activation form: a 64-bit sum and TFLite's 64-bit requantization (a 16-bit multiplier). */
static int32_t gate_product_s16(const int8_t *w, const int16_t *x, int32_t n, int64_t bias, int32_t multiplier,
				int32_t shift)
{
	const int32_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
	const int32_t total_shift = 15 - shift;
	int64_t acc = bias;
	int32_t k;

	for (k = 0; k < n; k++) {
		acc += (int32_t)w[k] * (int32_t)x[k];
	}
	acc = acc * reduced + ((int64_t)1 << (total_shift - 1));
	return sat16((int32_t)(acc >> total_shift));
}

/* The magnitude of a table input: a value in the int32 range whose absolute value may be 2^31. */
static uint32_t magnitude(int32_t x)
{
	return x < 0 ? 0u - (uint32_t)x : (uint32_t)x;
}

/* sigmoid of a Q3.12 value into Q0.15, interpolating the table (TFLite's int16 logistic). */
static int16_t sigmoid_q15(int32_t x, const uint16_t *table)
{
	const int32_t v = x * 3; /* Q3.12 -> steps of 1/24 in 9 fraction bits */
	const uint32_t a = magnitude(v);
	const uint32_t index = a >> 9;
	uint32_t r;

	if (index >= 255u) {
		r = 0x7FFFu << 10;
	} else {
		const uint32_t lo = table[index];
		const uint32_t hi = table[index + 1u];

		r = (lo << 9) + (a & 0x1FFu) * (hi - lo);
	}
	r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
	return (int16_t)(r >> 10);
}

/* tanh(x) = 2 sigmoid(2x) - 1 from the same table, into Q0.15 (TFLite's int16 tanh). */
static int16_t tanh_q15(int32_t x, int32_t multiplier, int32_t shift, const uint16_t *table)
{
	const int32_t rounding = shift > 0 ? (int32_t)(1u << (shift - 1)) : 0;
	const int32_t v = (x * multiplier + rounding) >> shift;
	const uint32_t a = magnitude(v);
	const uint32_t index = a >> 8;
	uint32_t u;
	int32_t r;

	if (index >= 255u) {
		u = 0xFFFFu << 8;
	} else {
		const uint32_t lo = table[index];
		const uint32_t hi = table[index + 1u];

		u = (lo << 8) + (a & 0xFFu) * (hi - lo);
	}
	r = (int32_t)u;
	r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
	return (int16_t)(r >> 8);
}

/*
 * One body for both activation types: ACT_T is the type of the input, hidden state and output,
 * BIAS_T of the folded biases, PRODUCT the gate product of that type.
 */
#define USMP_LSTM_INTEGER(name, ACT_T, BIAS_T, PRODUCT, ACT_MIN, ACT_MAX)                                       \
void name(const struct usmp_lstm_s8_params *p, const ACT_T *input, const int8_t *input_weights,                 \
	  const BIAS_T *input_bias, const int8_t *recurrent_weights, const BIAS_T *recurrent_bias,              \
	  const int32_t *gate_scales, const uint16_t *sigmoid_table, ACT_T *hidden, int16_t *cell,              \
	  int16_t *scratch, ACT_T *output)                                                                      \
{                                                                                                               \
	const int32_t n_in = p->input_size;                                                                     \
	const int32_t n = p->state_size;                                                                        \
	int32_t b, t, g, k;                                                                                     \
                                                                                                                \
	for (b = 0; b < p->batches; b++) {                                                                      \
		ACT_T *h = hidden + b * n;                                                                      \
		int16_t *c = cell + b * n;                                                                      \
                                                                                                                \
		for (t = 0; t < p->time_steps; t++) {                                                           \
			const int32_t step = p->time_major ? t * p->batches + b : b * p->time_steps + t;        \
			const ACT_T *x = input + step * n_in;                                                   \
                                                                                                                \
			for (g = 0; g < 4; g++) {                                                               \
				const int32_t *s = gate_scales + 4 * g;                                         \
                                                                                                                \
				for (k = 0; k < n; k++) {                                                       \
					const int32_t row = g * n + k;                                          \
					const int32_t from_input = PRODUCT(input_weights + row * n_in, x, n_in, \
										input_bias[row], s[0], s[1]);   \
					const int32_t from_hidden = PRODUCT(recurrent_weights + row * n, h, n,  \
										 recurrent_bias[row], s[2], s[3]); \
					const int32_t pre = sat16(from_input + from_hidden);                    \
                                                                                                                \
					scratch[row] = g == 2 ? tanh_q15(pre, 3, 0, sigmoid_table)              \
							      : sigmoid_q15(pre, sigmoid_table);                \
				}                                                                               \
			}                                                                                       \
			for (k = 0; k < n; k++) {                                                               \
				const int32_t forget = scratch[k], in = scratch[n + k];                         \
				const int32_t candidate = scratch[2 * n + k], out = scratch[3 * n + k];         \
				int32_t next = sat16(usmp_mul_by_quantized_multiplier(forget * c[k], p->forget_multiplier, \
										      p->forget_shift));        \
				int32_t squashed;                                                               \
                                                                                                                \
				next = sat16(next + sat16(usmp_mul_by_quantized_multiplier(                     \
							    in * candidate, p->update_multiplier, p->update_shift))); \
				if (p->cell_clip > 0) {                                                         \
					next = usmp_clamp(next, -p->cell_clip, p->cell_clip);                   \
				}                                                                               \
				c[k] = (int16_t)next;                                                           \
				squashed = tanh_q15(next, p->tanh_multiplier, p->tanh_shift, sigmoid_table);    \
				h[k] = (ACT_T)usmp_clamp(usmp_mul_by_quantized_multiplier(squashed * out, p->hidden_multiplier, \
											   p->hidden_shift) +   \
								  p->hidden_offset,                             \
							  ACT_MIN, ACT_MAX);                                    \
			}                                                                                       \
			for (k = 0; k < n; k++) {                                                               \
				output[step * n + k] = h[k];                                                    \
			}                                                                                       \
		}                                                                                               \
	}                                                                                                       \
}

USMP_LSTM_INTEGER(usmp_lstm_s8, int8_t, int32_t, gate_product_s8, -128, 127)
USMP_LSTM_INTEGER(usmp_lstm_s16, int16_t, int64_t, gate_product_s16, -32768, 32767)

static float dot_f32(const float *w, const float *x, int32_t n)
{
	float acc = 0.0f;
	int32_t k;

	for (k = 0; k < n; k++) {
		acc += x[k] * w[k];
	}
	return acc;
}

void usmp_lstm_f32(const struct usmp_lstm_f32_params *p, const float *input, const float *input_weights,
		   const float *bias, const float *recurrent_weights, float *hidden, float *cell, float *scratch,
		   float *output)
{
	const int32_t n_in = p->input_size;
	const int32_t n = p->state_size;
	struct usmp_unary_f32_params gate_size;
	int32_t b, t, g, k;

	gate_size.size = n;
	for (b = 0; b < p->batches; b++) {
		float *h = hidden + b * n;
		float *c = cell + b * n;

		for (t = 0; t < p->time_steps; t++) {
			const int32_t step = p->time_major ? t * p->batches + b : b * p->time_steps + t;
			const float *x = input + step * n_in;
			float *squashed = scratch + 4 * n;

			for (g = 0; g < 4; g++) {
				float *gate = scratch + g * n;

				for (k = 0; k < n; k++) {
					const int32_t row = g * n + k;
					const float from_input = dot_f32(input_weights + row * n_in, x, n_in) + bias[row];

					gate[k] = from_input + dot_f32(recurrent_weights + row * n, h, n);
				}
				if (g == 2) {
					usmp_tanh_f32(&gate_size, gate, gate);
				} else {
					usmp_logistic_f32(&gate_size, gate, gate);
				}
			}
			for (k = 0; k < n; k++) {
				float next = scratch[k] * c[k] + scratch[n + k] * scratch[2 * n + k];

				if (p->cell_clip > 0.0f) {
					next = usmp_clamp_f32(next, -p->cell_clip, p->cell_clip);
				}
				c[k] = next;
			}
			usmp_tanh_f32(&gate_size, c, squashed);
			for (k = 0; k < n; k++) {
				h[k] = squashed[k] * scratch[3 * n + k];
				output[step * n + k] = h[k];
			}
		}
	}
}
