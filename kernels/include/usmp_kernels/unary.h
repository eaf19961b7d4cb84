/*
 * USMP kernels: one-input elementwise operators (ABS, NEG, CEIL, FLOOR, ROUND,
 * SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, ELU, HARD_SWISH on float32; ABS and
 * RSQRT on int16; LOGICAL_NOT; ZEROS_LIKE). int8 ones are compile-time tables
 * run by usmp_lookup_s8. All map element i to element i, so they run in place.
 */
#ifndef USMP_KERNELS_UNARY_H
#define USMP_KERNELS_UNARY_H

#include <stdint.h>

#include "usmp_kernels/activations.h" /* struct usmp_unary_f32_params */

void usmp_abs_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_neg_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_ceil_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_floor_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_round_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_sqrt_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_rsqrt_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_square_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_exp_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_log_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_sin_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_cos_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_elu_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);
void usmp_hard_swish_f32(const struct usmp_unary_f32_params *p, const float *input, float *output);

/*
 * int16 ABS: |x - input_zero_point|, rescaled when the scales differ, plus the
 * output zero point, saturated. Without quantization TFLite Micro takes the
 * plain C++ abs, whose -32768 wraps back to -32768 (wrap_minimum).
 */
struct usmp_abs_s16_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	int32_t rescale;
	int32_t multiplier;
	int32_t shift;
	int32_t wrap_minimum;
};

void usmp_abs_s16(const struct usmp_abs_s16_params *p, const int16_t *input, int16_t *output);

/*
 * int16 RSQRT: TFLite's fixed-point 1/sqrt(x - input_zero_point), rescaled by
 * multiplier/shift (1 / (sqrt(input scale) * output scale)). Zero, and the
 * negative values on which TFLite Micro stops with an error, give 32767.
 */
struct usmp_rsqrt_s16_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	int32_t multiplier;
	int32_t shift;
};

void usmp_rsqrt_s16(const struct usmp_rsqrt_s16_params *p, const int16_t *input, int16_t *output);

/* 1/sqrt(x) as multiplier * 2^shift for x > 1 (TFLite's Newton-Raphson in Q3); shift <= 0. */
void usmp_inv_sqrt_multiplier(int32_t x, int32_t *multiplier, int32_t *shift);

struct usmp_bytes_params {
	int32_t size; /* bytes */
};

/* LOGICAL_NOT on bool bytes (0 or 1). */
void usmp_logical_not_b8(const struct usmp_bytes_params *p, const uint8_t *input, uint8_t *output);

/*
 * ZEROS_LIKE: all bytes of the output zero (0, 0.0f and false are all-zero
 * bits), whatever its type. The input is not read.
 */
void usmp_zero_fill(const struct usmp_bytes_params *p, const void *input, void *output);

#endif /* USMP_KERNELS_UNARY_H */
