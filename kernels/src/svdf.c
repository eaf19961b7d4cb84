/* SVDF kernels. */
#include <string.h>

#include "usmp_kernels.h"

/*
 * TFLite Micro clamps the projection to the state type's range and only then
 * adds the state's zero point, storing the sum in the state type: it wraps
 * around. Done here with unsigned arithmetic, so no conversion is
 * implementation-defined.
 */
static int32_t svdf_wrap(int32_t x, int32_t type_max)
{
	const uint32_t mask = 2u * (uint32_t)type_max + 1u; /* 2^bits - 1 */
	const uint32_t low = ((uint32_t)x + (uint32_t)type_max + 1u) & mask;

	return (int32_t)low - type_max - 1;
}

/*
 * One body for both integer state types: STATE_T is the element type of the
 * state and the time weights. Time sums wrap modulo 2^32 (unsigned) like
 * TFLite's int32 sums, whose products of int16 values can overflow.
 */
#define USMP_SVDF_INTEGER(name, STATE_T)                                                                   \
	void name(const struct usmp_svdf_s8_params *p, const int8_t *input, const int8_t *feature_weights,  \
		  const int32_t *feature_bias, const STATE_T *time_weights, const int32_t *bias,             \
		  STATE_T *state, int8_t *output)                                                            \
	{                                                                                                    \
		const int32_t n_in = p->input_size;                                                          \
		const int32_t mem = p->memory;                                                               \
		const int32_t units = p->filters / p->rank;                                                  \
		int32_t b, f, k, u, r;                                                                       \
                                                                                                             \
		for (b = 0; b < p->batches; b++) {                                                           \
			const int8_t *x = input + b * n_in;                                                  \
			STATE_T *rows = state + b * p->filters * mem;                                        \
                                                                                                             \
			for (f = 0; f < p->filters; f++) {                                                   \
				STATE_T *row = rows + f * mem;                                               \
				const int8_t *w = feature_weights + f * n_in;                                \
				int32_t acc = feature_bias[f];                                               \
                                                                                                             \
				for (k = 0; k + 1 < mem; k++) {                                              \
					row[k] = row[k + 1];                                                 \
				}                                                                            \
				for (k = 0; k < n_in; k++) {                                                 \
					acc += (int32_t)w[k] * (int32_t)x[k];                                \
				}                                                                            \
				acc = usmp_mul_by_quantized_multiplier(acc, p->feature_multiplier,           \
								       p->feature_shift);                    \
				row[mem - 1] = (STATE_T)svdf_wrap(                                           \
					usmp_clamp(acc, p->state_min, p->state_max) + p->state_offset,       \
					p->state_max);                                                       \
			}                                                                                    \
			for (u = 0; u < units; u++) {                                                        \
				uint32_t acc = (uint32_t)bias[u];                                            \
                                                                                                             \
				for (r = 0; r < p->rank; r++) {                                              \
					const int32_t at = (u * p->rank + r) * mem;                          \
                                                                                                             \
					for (k = 0; k < mem; k++) {                                          \
						acc += (uint32_t)((int32_t)time_weights[at + k] *            \
								  (int32_t)rows[at + k]);            \
					}                                                                    \
				}                                                                            \
				*output++ = (int8_t)usmp_clamp(                                              \
					usmp_mul_by_quantized_multiplier((int32_t)acc, p->output_multiplier, \
									 p->output_shift) +                  \
						p->output_offset,                                            \
					-128, 127);                                                          \
			}                                                                                    \
		}                                                                                            \
	}

USMP_SVDF_INTEGER(usmp_svdf_s8_s16, int16_t)
USMP_SVDF_INTEGER(usmp_svdf_s8_s8, int8_t)

float usmp_svdf_activation_f32(int32_t activation, float x, float act_min, float act_max)
{
	uint32_t bits;

	if (activation == USMP_SVDF_TANH) {
		return usmp_tanhf(x);
	}
	if (activation == USMP_SVDF_SIGN_BIT) {
		memcpy(&bits, &x, sizeof(bits));
		return (bits >> 31) ? 1.0f : 0.0f;
	}
	return usmp_clamp_f32(x, act_min, act_max);
}

void usmp_svdf_f32(const struct usmp_svdf_f32_params *p, const float *input, const float *feature_weights,
		   const float *time_weights, const float *bias, float *state, float *output)
{
	const int32_t n_in = p->input_size;
	const int32_t mem = p->memory;
	const int32_t units = p->filters / p->rank;
	int32_t b, f, k, u, r;

	for (b = 0; b < p->batches; b++) {
		const float *x = input + b * n_in;
		float *rows = state + b * p->filters * mem;

		for (f = 0; f < p->filters; f++) {
			float *row = rows + f * mem;
			const float *w = feature_weights + f * n_in;
			float acc = 0.0f;

			for (k = 0; k + 1 < mem; k++) {
				row[k] = row[k + 1];
			}
			for (k = 0; k < n_in; k++) {
				acc += w[k] * x[k];
			}
			row[mem - 1] = acc;
		}
		for (u = 0; u < units; u++) {
			float acc = bias[u];

			for (r = 0; r < p->rank; r++) {
				const int32_t at = (u * p->rank + r) * mem;
				float sum = 0.0f;

				for (k = 0; k < mem; k++) {
					sum += time_weights[at + k] * rows[at + k];
				}
				acc += sum;
			}
			*output++ = usmp_svdf_activation_f32(p->activation, acc, p->act_min, p->act_max);
		}
	}
}
