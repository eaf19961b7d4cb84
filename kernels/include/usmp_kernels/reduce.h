/*
 * USMP kernels: MEAN over any set of axes.
 *
 * The input is read once in row-major order; each element is added to the
 * output it reduces into, at out_step-weighted coordinates (out_step is 0
 * on reduced dimensions). This is TFLite's summation order, so float sums
 * round exactly as the reference's do.
 */
#ifndef USMP_KERNELS_REDUCE_H
#define USMP_KERNELS_REDUCE_H

#include <stdint.h>

#include "usmp_kernels/shape_ops.h"

struct usmp_mean_s8_params {
	int32_t count[USMP_ND_DIMS];    /* input shape, outermost first, padded with leading 1s */
	int32_t out_step[USMP_ND_DIMS]; /* output elements per input step; 0 on reduced dimensions */
	int32_t num_outputs;
	int32_t sum_offset;    /* input zero point * elements per output, wrapped to 32 bits */
	int32_t multiplier;    /* input_scale / output_scale / elements per output, as TFLite derives it */
	int32_t shift;
	int32_t output_offset; /* output zero point */
};

/* accumulators: num_outputs int32 of planned scratch memory. */
void usmp_mean_s8(const struct usmp_mean_s8_params *p, const int8_t *input, int32_t *accumulators,
		  int8_t *output);

struct usmp_mean_f32_params {
	int32_t count[USMP_ND_DIMS];
	int32_t out_step[USMP_ND_DIMS];
	int32_t num_outputs;
	float divisor; /* elements per output */
};

/* Sums into output, then divides in place. */
void usmp_mean_f32(const struct usmp_mean_f32_params *p, const float *input, float *output);

#endif /* USMP_KERNELS_REDUCE_H */
