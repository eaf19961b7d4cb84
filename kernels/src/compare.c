/* Comparison and logical kernels (see usmp_kernels/compare.h). */
#include "usmp_kernels.h"

/* One comparison, as a byte 0 or 1; the same expression for every type. */
#define USMP_COMPARE(op, x, y)                                                                            \
	(uint8_t)((op) == USMP_EQUAL           ? (x) == (y)                                              \
		  : (op) == USMP_NOT_EQUAL     ? (x) != (y)                                              \
		  : (op) == USMP_GREATER       ? (x) > (y)                                               \
		  : (op) == USMP_GREATER_EQUAL ? (x) >= (y)                                              \
		  : (op) == USMP_LESS          ? (x) < (y)                                               \
					       : (x) <= (y))

#define USMP_DEFINE_COMPARE(suffix, type)                                                                  \
	void usmp_compare_##suffix(const struct usmp_compare_params *p, const type *input1,               \
				   const type *input2, uint8_t *output)                                   \
	{                                                                                                 \
		const int32_t op = p->op;                                                                 \
                                                                                                          \
		USMP_BROADCAST_BINARY(type, p, input1, input2, output, USMP_COMPARE(op, x, y));           \
	}

USMP_DEFINE_COMPARE(b8, uint8_t)
USMP_DEFINE_COMPARE(s32, int32_t)
USMP_DEFINE_COMPARE(s64, int64_t)
USMP_DEFINE_COMPARE(f32, float)

static int32_t scaled(int32_t value, int32_t offset, int32_t left_shift, int32_t multiplier, int32_t shift)
{
	return usmp_mul_by_quantized_multiplier((offset + value) * ((int32_t)1 << left_shift), multiplier, shift);
}

static uint8_t compare_s8(const struct usmp_compare_s8_params *p, int32_t x, int32_t y)
{
	const int32_t a = scaled(x, p->input1_offset, p->left_shift, p->input1_multiplier, p->input1_shift);
	const int32_t b = scaled(y, p->input2_offset, p->left_shift, p->input2_multiplier, p->input2_shift);

	return USMP_COMPARE(p->op, a, b);
}

void usmp_compare_s8(const struct usmp_compare_s8_params *p, const int8_t *input1, const int8_t *input2,
		     uint8_t *output)
{
	USMP_BROADCAST_BINARY(int32_t, p, input1, input2, output, compare_s8(p, x, y));
}

void usmp_logical_and_b8(const struct usmp_broadcast_params *p, const uint8_t *input1, const uint8_t *input2,
			 uint8_t *output)
{
	USMP_BROADCAST_BINARY(uint8_t, p, input1, input2, output, (uint8_t)(x != 0 && y != 0));
}

void usmp_logical_or_b8(const struct usmp_broadcast_params *p, const uint8_t *input1, const uint8_t *input2,
			uint8_t *output)
{
	USMP_BROADCAST_BINARY(uint8_t, p, input1, input2, output, (uint8_t)(x != 0 || y != 0));
}
