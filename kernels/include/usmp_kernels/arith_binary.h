/*
 * USMP kernels: DIV, FLOOR_DIV, FLOOR_MOD, MAXIMUM, MINIMUM and
 * SQUARED_DIFFERENCE of two tensors, with TFLite broadcasting
 * (usmp_kernels/broadcast.h).
 */
#ifndef USMP_KERNELS_ARITH_BINARY_H
#define USMP_KERNELS_ARITH_BINARY_H

#include <stdint.h>

#include "usmp_kernels/broadcast.h"
#include "usmp_kernels/elementwise.h"

/* MAXIMUM and MINIMUM compare the stored values: TFLite ignores quantization here. */
void usmp_maximum_s8(const struct usmp_broadcast_params *p, const int8_t *input1, const int8_t *input2,
		     int8_t *output);
void usmp_maximum_s16(const struct usmp_broadcast_params *p, const int16_t *input1, const int16_t *input2,
		      int16_t *output);
void usmp_maximum_s32(const struct usmp_broadcast_params *p, const int32_t *input1, const int32_t *input2,
		      int32_t *output);
void usmp_maximum_s64(const struct usmp_broadcast_params *p, const int64_t *input1, const int64_t *input2,
		      int64_t *output);
void usmp_maximum_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
		      float *output);
void usmp_minimum_s8(const struct usmp_broadcast_params *p, const int8_t *input1, const int8_t *input2,
		     int8_t *output);
void usmp_minimum_s16(const struct usmp_broadcast_params *p, const int16_t *input1, const int16_t *input2,
		      int16_t *output);
void usmp_minimum_s32(const struct usmp_broadcast_params *p, const int32_t *input1, const int32_t *input2,
		      int32_t *output);
void usmp_minimum_s64(const struct usmp_broadcast_params *p, const int64_t *input1, const int64_t *input2,
		      int64_t *output);
void usmp_minimum_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
		      float *output);

/* float DIV: the quotient (inf or nan for a zero divisor), then the fused activation's clamp. */
void usmp_div_f32(const struct usmp_binary_f32_params *p, const float *input1, const float *input2,
		  float *output);

struct usmp_div_s32_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t act_min;
	int32_t act_max;
};

/* int32 DIV truncates towards zero. (A zero divisor gives 0 and INT32_MIN / -1 gives INT32_MIN,
 * where TFLite's arithmetic is undefined.) */
void usmp_div_s32(const struct usmp_div_s32_params *p, const int32_t *input1, const int32_t *input2,
		  int32_t *output);

/* int8 DIV: the numerator times the divisor's fixed-point reciprocal, then rescaled to the output. */
struct usmp_div_s8_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride1[USMP_BROADCAST_MAX_RANK];
	int32_t stride2[USMP_BROADCAST_MAX_RANK];
	int32_t input1_offset; /* minus the input zero points */
	int32_t input2_offset;
	int32_t output_offset;
	int32_t output_multiplier; /* input1 scale / (input2 scale * output scale) */
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_div_s8(const struct usmp_div_s8_params *p, const int8_t *input1, const int8_t *input2,
		 int8_t *output);

/* floor(x / y) with the division in double, as TFLite does; x - floor(x / y) * y by fmod. */
void usmp_floor_div_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
			float *output);
void usmp_floor_mod_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
			float *output);

/* (x - y)^2; int32 wraps around. */
void usmp_squared_difference_f32(const struct usmp_broadcast_params *p, const float *input1, const float *input2,
				 float *output);
void usmp_squared_difference_s32(const struct usmp_broadcast_params *p, const int32_t *input1,
				 const int32_t *input2, int32_t *output);

/*
 * int8 and int16 SQUARED_DIFFERENCE: both inputs rescaled to a common scale
 * (with left_shift bits of headroom), the difference squared, then rescaled
 * to the output. Same parameters as int8 ADD.
 */
void usmp_squared_difference_s8(const struct usmp_add_s8_params *p, const int8_t *input1, const int8_t *input2,
				int8_t *output);
void usmp_squared_difference_s16(const struct usmp_add_s8_params *p, const int16_t *input1,
				 const int16_t *input2, int16_t *output);

#endif /* USMP_KERNELS_ARITH_BINARY_H */
