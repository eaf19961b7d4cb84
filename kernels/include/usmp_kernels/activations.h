/* USMP kernels: RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH. */
#ifndef USMP_KERNELS_ACTIVATIONS_H
#define USMP_KERNELS_ACTIVATIONS_H

#include <stdint.h>

/* int8 and int16 RELU6: a clamp to [lo, hi] in the input's quantization (TFLM does not requantize). */
struct usmp_relu6_s8_params {
	int32_t size;
	int32_t lo;
	int32_t hi;
};

void usmp_relu6_s8(const struct usmp_relu6_s8_params *p, const int8_t *input, int8_t *output);
void usmp_relu6_s16(const struct usmp_relu6_s8_params *p, const int16_t *input, int16_t *output);

/* int16 RELU (zero points 0): the input rescaled by input scale / output scale, clamped to [0, 32767]. */
struct usmp_relu_s16_params {
	int32_t size;
	int32_t multiplier;
	int32_t shift;
};

void usmp_relu_s16(const struct usmp_relu_s16_params *p, const int16_t *input, int16_t *output);

/* float RELU and RELU6: a clamp to [lo, hi]. */
struct usmp_relu_f32_params {
	int32_t size;
	float lo;
	float hi;
};

void usmp_relu_f32(const struct usmp_relu_f32_params *p, const float *input, float *output);

struct usmp_leaky_relu_s8_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	int32_t identity_multiplier; /* input scale / output scale */
	int32_t identity_shift;
	int32_t alpha_multiplier; /* |alpha| * input scale / output scale */
	int32_t alpha_shift;
	int32_t alpha_negative;
};

void usmp_leaky_relu_s8(const struct usmp_leaky_relu_s8_params *p, const int8_t *input, int8_t *output);
/* int16 ("16x8") LEAKY_RELU: the same arithmetic, clamped to int16. */
void usmp_leaky_relu_s16(const struct usmp_leaky_relu_s8_params *p, const int16_t *input, int16_t *output);

struct usmp_leaky_relu_f32_params {
	int32_t size;
	float alpha;
};

void usmp_leaky_relu_f32(const struct usmp_leaky_relu_f32_params *p, const float *input, float *output);

/* int8 LOGISTIC and TANH: output = table[input + 128], the table computed by the compiler. */
struct usmp_lookup_s8_params {
	int32_t size;
};

void usmp_lookup_s8(const struct usmp_lookup_s8_params *p, const int8_t *input, const int8_t *table,
		    int8_t *output);

/*
 * int16 LOGISTIC and TANH (zero points 0, output Q0.15), as TFLite Micro computes them: the input
 * is rescaled to x = (input * multiplier + 2^(shift-1)) >> shift, and |x| interpolates table, the
 * 256 samples of sigmoid(i / 24) in 0.16 (LOGISTIC in steps of 2^9 of x, TANH in steps of 2^8).
 */
struct usmp_sigmoid_s16_params {
	int32_t size;
	int32_t multiplier; /* 1 .. 32767 */
	int32_t shift;      /* 0 .. 31 */
};

void usmp_logistic_s16(const struct usmp_sigmoid_s16_params *p, const int16_t *input, const uint16_t *table,
		       int16_t *output);
void usmp_tanh_s16(const struct usmp_sigmoid_s16_params *p, const int16_t *input, const uint16_t *table,
		   int16_t *output);

struct usmp_unary_f32_params {
	int32_t size;
};

void usmp_logistic_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_tanh_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);

#endif /* USMP_KERNELS_ACTIVATIONS_H */
