/*
 * USMP kernels: ARG_MAX and ARG_MIN along one axis.
 *
 * The input is viewed as [outer, axis_size, inner]; each output is the index
 * along the axis of the first largest (smallest) value. Comparisons are the
 * plain < and > of the reference: a NaN never replaces the running value, so
 * a NaN at index 0 wins. int8 values are compared raw (the scale is positive).
 */
#ifndef USMP_KERNELS_ARG_MIN_MAX_H
#define USMP_KERNELS_ARG_MIN_MAX_H

#include <stdint.h>

struct usmp_arg_min_max_params {
	int32_t outer;
	int32_t axis_size;
	int32_t inner;
};

void usmp_arg_max_f32_i32(const struct usmp_arg_min_max_params *p, const float *input, int32_t *output);
void usmp_arg_min_f32_i32(const struct usmp_arg_min_max_params *p, const float *input, int32_t *output);
void usmp_arg_max_s8_i32(const struct usmp_arg_min_max_params *p, const int8_t *input, int32_t *output);
void usmp_arg_min_s8_i32(const struct usmp_arg_min_max_params *p, const int8_t *input, int32_t *output);
void usmp_arg_max_f32_i64(const struct usmp_arg_min_max_params *p, const float *input, int64_t *output);
void usmp_arg_min_f32_i64(const struct usmp_arg_min_max_params *p, const float *input, int64_t *output);
void usmp_arg_max_s8_i64(const struct usmp_arg_min_max_params *p, const int8_t *input, int64_t *output);
void usmp_arg_min_s8_i64(const struct usmp_arg_min_max_params *p, const int8_t *input, int64_t *output);

#endif /* USMP_KERNELS_ARG_MIN_MAX_H */
