/* USMP kernels: QUANTIZE (float, 8-, 16- or 32-bit to int8, uint8, int16 or int32), DEQUANTIZE (8- or 16-bit to float). */
#ifndef USMP_KERNELS_QUANTIZE_H
#define USMP_KERNELS_QUANTIZE_H

#include <stdint.h>

/* float to int8: round(x / scale) + zero_point, halves away from zero, saturated. */
struct usmp_quantize_f32_s8_params {
	int32_t size;
	float scale;
	int32_t zero_point;
};

void usmp_quantize_f32_s8(const struct usmp_quantize_f32_s8_params *p, const float *input, int8_t *output);
void usmp_quantize_f32_s16(const struct usmp_quantize_f32_s8_params *p, const float *input, int16_t *output);

/*
 * int8 to int8 with a new scale and zero point, clamped to [act_min, act_max]:
 * int8 QUANTIZE, and int8 RELU (which TFLite computes as a requantize).
 */
struct usmp_requantize_s8_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	int32_t multiplier; /* input scale / output scale */
	int32_t shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_requantize_s8(const struct usmp_requantize_s8_params *p, const int8_t *input, int8_t *output);

/* The same requantize between int8 and uint8 (QUANTIZE int8 -> uint8 and back), clamped to [act_min, act_max]. */
void usmp_requantize_s8_u8(const struct usmp_requantize_s8_params *p, const int8_t *input, uint8_t *output);
void usmp_requantize_u8_s8(const struct usmp_requantize_s8_params *p, const uint8_t *input, int8_t *output);

/* The same requantize between the other pairs TFLite Micro runs (16x8 models, int32 results). */
void usmp_requantize_s16(const struct usmp_requantize_s8_params *p, const int16_t *input, int16_t *output);
void usmp_requantize_s16_s8(const struct usmp_requantize_s8_params *p, const int16_t *input, int8_t *output);
void usmp_requantize_s8_s16(const struct usmp_requantize_s8_params *p, const int8_t *input, int16_t *output);
void usmp_requantize_s8_s32(const struct usmp_requantize_s8_params *p, const int8_t *input, int32_t *output);
void usmp_requantize_s16_s32(const struct usmp_requantize_s8_params *p, const int16_t *input, int32_t *output);
void usmp_requantize_s32_s8(const struct usmp_requantize_s8_params *p, const int32_t *input, int8_t *output);
void usmp_requantize_s32_s16(const struct usmp_requantize_s8_params *p, const int32_t *input, int16_t *output);

struct usmp_dequantize_s8_f32_params {
	int32_t size;
	float scale;
	int32_t zero_point;
};

void usmp_dequantize_s8_f32(const struct usmp_dequantize_s8_f32_params *p, const int8_t *input, float *output);
void usmp_dequantize_s16_f32(const struct usmp_dequantize_s8_f32_params *p, const int16_t *input, float *output);
void usmp_dequantize_u8_f32(const struct usmp_dequantize_s8_f32_params *p, const uint8_t *input, float *output);

#endif /* USMP_KERNELS_QUANTIZE_H */
