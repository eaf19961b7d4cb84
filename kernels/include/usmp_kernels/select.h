/*
 * USMP kernels: SELECT_V2, output = condition ? x : y element by element,
 * all three inputs broadcast to the output (usmp_kernels/broadcast.h).
 */
#ifndef USMP_KERNELS_SELECT_H
#define USMP_KERNELS_SELECT_H

#include <stdint.h>

#include "usmp_kernels/broadcast.h"

struct usmp_select_params {
	int32_t rank;
	int32_t shape[USMP_BROADCAST_MAX_RANK];
	int32_t stride_condition[USMP_BROADCAST_MAX_RANK];
	int32_t stride_x[USMP_BROADCAST_MAX_RANK];
	int32_t stride_y[USMP_BROADCAST_MAX_RANK];
};

/* The values are copied as they are: x, y and the output share one quantization in TFLite. */
void usmp_select_s8(const struct usmp_select_params *p, const uint8_t *condition, const int8_t *x, const int8_t *y,
		    int8_t *output);
void usmp_select_s16(const struct usmp_select_params *p, const uint8_t *condition, const int16_t *x,
		     const int16_t *y, int16_t *output);
void usmp_select_f32(const struct usmp_select_params *p, const uint8_t *condition, const float *x, const float *y,
		     float *output);

#endif /* USMP_KERNELS_SELECT_H */
