/*
 * USMP kernels: SVDF (singular value decomposition filter).
 *
 * The state holds, per batch and filter, the last `memory` outputs of the
 * feature projection, oldest first. Each call shifts every row left by one,
 * appends the projection of the new input, then sums each row weighted by
 * the time weights into the unit it belongs to (`rank` filters per unit).
 */
#ifndef USMP_KERNELS_SVDF_H
#define USMP_KERNELS_SVDF_H

#include <stdint.h>

struct usmp_svdf_s8_params {
	int32_t batches;
	int32_t input_size;
	int32_t filters; /* units * rank */
	int32_t rank;
	int32_t memory;
	int32_t feature_multiplier; /* input * feature weights -> state scale */
	int32_t feature_shift;
	int32_t state_offset; /* the state's zero point, added after the clamp (wrapping) */
	int32_t state_min;    /* the state type's range */
	int32_t state_max;
	int32_t output_multiplier; /* state * time weights -> output scale */
	int32_t output_shift;
	int32_t output_offset;
};

/*
 * feature_bias[f] = -input_zero_point * sum of feature row f;
 * bias[u] = bias of unit u - state_zero_point * sum of its time weights
 * (both folded at compile time). The int16 form keeps an int16 state with
 * int16 time weights, the int8 form an int8 state with int8 time weights.
 */
void usmp_svdf_s8_s16(const struct usmp_svdf_s8_params *p, const int8_t *input, const int8_t *feature_weights,
		      const int32_t *feature_bias, const int16_t *time_weights, const int32_t *bias,
		      int16_t *state, int8_t *output);
void usmp_svdf_s8_s8(const struct usmp_svdf_s8_params *p, const int8_t *input, const int8_t *feature_weights,
		     const int32_t *feature_bias, const int8_t *time_weights, const int32_t *bias,
		     int8_t *state, int8_t *output);

struct usmp_svdf_f32_params {
	int32_t batches;
	int32_t input_size;
	int32_t filters;
	int32_t rank;
	int32_t memory;
	int32_t activation; /* USMP_SVDF_CLAMP (act_min, act_max), USMP_SVDF_TANH or USMP_SVDF_SIGN_BIT */
	float act_min;
	float act_max;
};

#define USMP_SVDF_CLAMP 0
#define USMP_SVDF_TANH 1
#define USMP_SVDF_SIGN_BIT 2 /* 1.0f when the sign bit is set, else 0.0f */

/* The float SVDF's output function: clamp to [act_min, act_max], TANH or SIGN_BIT. */
float usmp_svdf_activation_f32(int32_t activation, float x, float act_min, float act_max);

void usmp_svdf_f32(const struct usmp_svdf_f32_params *p, const float *input, const float *feature_weights,
		   const float *time_weights, const float *bias, float *state, float *output);

#endif /* USMP_KERNELS_SVDF_H */
