/* CAST: one loop per (from, to) pair, each converting through the helpers below. */

#include "usmp_kernels.h"

/* Float to an integer range [lo, hi]: truncation towards zero, saturated; NaN gives 0. */
static int32_t float_to_int(float x, float lo, float above_hi, int32_t min, int32_t max)
{
	if (x != x) {
		return 0;
	}
	if (x >= above_hi) {
		return max;
	}
	if (x <= lo) {
		return min;
	}
	return (int32_t)x;
}

/* The low 8 or 16 bits of x as a signed value, without implementation-defined conversions. */
static int32_t low_bits_s8(int32_t x)
{
	return (int32_t)(((uint32_t)x & 0xffu) ^ 0x80u) - 0x80;
}

static int32_t low_bits_s16(int32_t x)
{
	return (int32_t)(((uint32_t)x & 0xffffu) ^ 0x8000u) - 0x8000;
}

/* Integer sources (int8, int16, int32, bool) read as int32; float sources are converted with float_to_int. */
#define INT_TO_F32(x) ((float)(x))
#define INT_TO_S8(x) ((int8_t)low_bits_s8(x))
#define INT_TO_S16(x) ((int16_t)low_bits_s16(x))
#define INT_TO_S32(x) ((int32_t)(x))
#define INT_TO_B8(x) ((uint8_t)((x) != 0))
#define F32_TO_F32(x) (x)
#define F32_TO_S8(x) ((int8_t)float_to_int(x, -128.0f, 128.0f, INT8_MIN, INT8_MAX))
#define F32_TO_S16(x) ((int16_t)float_to_int(x, -32768.0f, 32768.0f, INT16_MIN, INT16_MAX))
#define F32_TO_S32(x) float_to_int(x, -2147483648.0f, 2147483648.0f, INT32_MIN, INT32_MAX)
#define F32_TO_B8(x) ((uint8_t)((x) != 0.0f))

#define USMP_DEFINE_CAST(from, from_type, source, to, to_type, convert)                                 \
	void usmp_cast_##from##_##to(const struct usmp_cast_params *p, const from_type *input, to_type *output) \
	{                                                                                               \
		int32_t i;                                                                              \
                                                                                                        \
		for (i = 0; i < p->size; i++) {                                                         \
			const source x = input[i];                                                      \
                                                                                                        \
			output[i] = convert(x);                                                         \
		}                                                                                       \
	}

#define USMP_DEFINE_CASTS_FROM_INT(from, from_type)                          \
	USMP_DEFINE_CAST(from, from_type, int32_t, f32, float, INT_TO_F32)     \
	USMP_DEFINE_CAST(from, from_type, int32_t, s8, int8_t, INT_TO_S8)      \
	USMP_DEFINE_CAST(from, from_type, int32_t, s16, int16_t, INT_TO_S16)   \
	USMP_DEFINE_CAST(from, from_type, int32_t, s32, int32_t, INT_TO_S32)   \
	USMP_DEFINE_CAST(from, from_type, int32_t, b8, uint8_t, INT_TO_B8)

USMP_DEFINE_CAST(f32, float, float, f32, float, F32_TO_F32)
USMP_DEFINE_CAST(f32, float, float, s8, int8_t, F32_TO_S8)
USMP_DEFINE_CAST(f32, float, float, s16, int16_t, F32_TO_S16)
USMP_DEFINE_CAST(f32, float, float, s32, int32_t, F32_TO_S32)
USMP_DEFINE_CAST(f32, float, float, b8, uint8_t, F32_TO_B8)
USMP_DEFINE_CASTS_FROM_INT(s8, int8_t)
USMP_DEFINE_CASTS_FROM_INT(s16, int16_t)
USMP_DEFINE_CASTS_FROM_INT(s32, int32_t)
USMP_DEFINE_CASTS_FROM_INT(b8, uint8_t)

void usmp_cast_u32_s32(const struct usmp_cast_params *p, const uint32_t *input, int32_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		const uint32_t x = input[i];

		output[i] = x > (uint32_t)INT32_MAX ? (int32_t)(x - 2147483648u) - INT32_MAX - 1 : (int32_t)x;
	}
}

void usmp_cast_s32_u32(const struct usmp_cast_params *p, const int32_t *input, uint32_t *output)
{
	int32_t i;

	for (i = 0; i < p->size; i++) {
		output[i] = (uint32_t)input[i];
	}
}
