/*
 * USMP kernels: CAST between float32, int8, int16, int32 and bool, as TFLite
 * Micro converts (quantization parameters are ignored):
 * - float to integer truncates towards zero and saturates, NaN gives 0;
 * - integer to a narrower integer keeps the low bits (two's complement wrap);
 * - anything to bool is "not zero" (NaN is true); bool is 0 or 1;
 * - uint32 and int32 into each other keep the bits.
 */
#ifndef USMP_KERNELS_CAST_H
#define USMP_KERNELS_CAST_H

#include <stdint.h>

struct usmp_cast_params {
	int32_t size; /* elements */
};

#define USMP_DECLARE_CAST_FROM(from, from_type)                                                           \
	void usmp_cast_##from##_f32(const struct usmp_cast_params *p, const from_type *input, float *output);   \
	void usmp_cast_##from##_s8(const struct usmp_cast_params *p, const from_type *input, int8_t *output);   \
	void usmp_cast_##from##_s16(const struct usmp_cast_params *p, const from_type *input, int16_t *output); \
	void usmp_cast_##from##_s32(const struct usmp_cast_params *p, const from_type *input, int32_t *output); \
	void usmp_cast_##from##_b8(const struct usmp_cast_params *p, const from_type *input, uint8_t *output);

USMP_DECLARE_CAST_FROM(f32, float)
USMP_DECLARE_CAST_FROM(s8, int8_t)
USMP_DECLARE_CAST_FROM(s16, int16_t)
USMP_DECLARE_CAST_FROM(s32, int32_t)
USMP_DECLARE_CAST_FROM(b8, uint8_t)

/* uint32 <-> int32 (the audio front end's): the same 32 bits. */
void usmp_cast_u32_s32(const struct usmp_cast_params *p, const uint32_t *input, int32_t *output);
void usmp_cast_s32_u32(const struct usmp_cast_params *p, const int32_t *input, uint32_t *output);

#endif /* USMP_KERNELS_CAST_H */
