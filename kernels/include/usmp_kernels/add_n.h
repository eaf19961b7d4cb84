/*
 * USMP kernels: ADD_N, the sum of N tensors of one shape.
 *
 * A call takes a fixed list of pointers, so the sum is built one input per
 * call into an accumulator, in TFLite's order: `first` starts it, `accumulate`
 * adds each further input. float32 accumulates in the output itself; int8
 * accumulates the rescaled inputs in an int32 scratch buffer that `finish`
 * rescales to the output.
 */
#ifndef USMP_KERNELS_ADD_N_H
#define USMP_KERNELS_ADD_N_H

#include <stdint.h>

struct usmp_add_n_f32_params {
	int32_t size;
};

void usmp_add_n_f32_first(const struct usmp_add_n_f32_params *p, const float *input, float *sum);
void usmp_add_n_f32_accumulate(const struct usmp_add_n_f32_params *p, const float *input, float *sum);

struct usmp_add_n_s8_params {
	int32_t size;
	int32_t input_offset; /* minus the inputs' common zero point */
	int32_t left_shift;
	int32_t input_multiplier;
	int32_t input_shift;
	int32_t output_offset;
	int32_t output_multiplier;
	int32_t output_shift;
	int32_t act_min;
	int32_t act_max;
};

void usmp_add_n_s8_first(const struct usmp_add_n_s8_params *p, const int8_t *input, int32_t *sum);
void usmp_add_n_s8_accumulate(const struct usmp_add_n_s8_params *p, const int8_t *input, int32_t *sum);
void usmp_add_n_s8_finish(const struct usmp_add_n_s8_params *p, const int32_t *sum, int8_t *output);

#endif /* USMP_KERNELS_ADD_N_H */
