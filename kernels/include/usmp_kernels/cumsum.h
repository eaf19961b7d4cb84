/*
 * USMP kernels: CUMSUM along one axis, inclusive or exclusive, either direction.
 *
 * The input is viewed as [before, depth, after] around the axis. Each of the
 * before * after lines is walked from element `first` in steps of `step`
 * (both in elements from the line's start; step is negative for reverse).
 */
#ifndef USMP_KERNELS_CUMSUM_H
#define USMP_KERNELS_CUMSUM_H

#include <stdint.h>

struct usmp_cumsum_f32_params {
	int32_t before;
	int32_t depth;
	int32_t after;
	int32_t first;
	int32_t step;
	int32_t exclusive; /* 1: each output excludes its own input */
};

void usmp_cumsum_f32(const struct usmp_cumsum_f32_params *p, const float *input, float *output);

/*
 * int8 follows TFLite's quantized ADD arithmetic: (input - zero point) << 20,
 * halved by a multiplier, summed in int32 (wrapping, as the reference's sum
 * does) from a start value the compiler computes, then rescaled to the output.
 */
struct usmp_cumsum_s8_params {
	int32_t before;
	int32_t depth;
	int32_t after;
	int32_t first;
	int32_t step;
	int32_t exclusive;
	int32_t start;        /* the accumulator of every line before its first element */
	int32_t input_offset; /* -input zero point */
	int32_t left_shift;
	int32_t input_multiplier;
	int32_t input_shift;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t output_offset;
};

void usmp_cumsum_s8(const struct usmp_cumsum_s8_params *p, const int8_t *input, int8_t *output);

#endif /* USMP_KERNELS_CUMSUM_H */
