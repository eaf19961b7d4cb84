/*
 * USMP kernels: MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL over any set of axes.
 *
 * The input is read once in row-major order; each element is folded into the
 * output it reduces into, at out_step-weighted coordinates (out_step is 0
 * on reduced dimensions). This is TFLite's visiting order, so float sums
 * round exactly as the reference's do. Every params struct starts with the
 * same walk fields (count, out_step, num_outputs).
 */
#ifndef USMP_KERNELS_REDUCE_H
#define USMP_KERNELS_REDUCE_H

#include <stdint.h>

#include "usmp_kernels/shape_ops.h"

struct usmp_reduce_params {
	int32_t count[USMP_ND_DIMS];    /* input shape, outermost first, padded with leading 1s */
	int32_t out_step[USMP_ND_DIMS]; /* output elements per input step; 0 on reduced dimensions */
	int32_t num_outputs;
};

/*
 * Quantized MEAN and SUM: sum the raw inputs into int32 accumulators (wrapping
 * as TFLite's do), subtract zero point * n, rescale, add the output zero point.
 */
struct usmp_quantized_sum_params {
	int32_t count[USMP_ND_DIMS];
	int32_t out_step[USMP_ND_DIMS];
	int32_t num_outputs;
	int32_t sum_offset;    /* input zero point * elements per output, wrapped to 32 bits */
	int32_t multiplier;    /* input_scale / output_scale (MEAN: also / elements per output) */
	int32_t shift;
	int32_t output_offset; /* output zero point */
};

/* accumulators: num_outputs int32 of planned scratch memory. */
void usmp_quantized_sum_s8(const struct usmp_quantized_sum_params *p, const int8_t *input, int32_t *accumulators,
			   int8_t *output);
void usmp_quantized_sum_s16(const struct usmp_quantized_sum_params *p, const int16_t *input,
			    int32_t *accumulators, int16_t *output);
/* Only the rescale of given sums (count and out_step unused). */
void usmp_quantized_sum_finish_s8(const struct usmp_quantized_sum_params *p, const int32_t *accumulators,
				  int8_t *output);
void usmp_quantized_sum_finish_s16(const struct usmp_quantized_sum_params *p, const int32_t *accumulators,
				   int16_t *output);

struct usmp_mean_f32_params {
	int32_t count[USMP_ND_DIMS];
	int32_t out_step[USMP_ND_DIMS];
	int32_t num_outputs;
	float divisor; /* elements per output */
};

/* Sums into output, then divides in place. */
void usmp_mean_f32(const struct usmp_mean_f32_params *p, const float *input, float *output);
void usmp_sum_f32(const struct usmp_reduce_params *p, const float *input, float *output);

/*
 * Largest or smallest value per output, starting from the type's extreme (a
 * NaN input never replaces the running value, as in the reference). int8
 * inputs and outputs share one quantization, so values are compared raw.
 */
void usmp_reduce_max_f32(const struct usmp_reduce_params *p, const float *input, float *output);
void usmp_reduce_min_f32(const struct usmp_reduce_params *p, const float *input, float *output);
void usmp_reduce_max_s8(const struct usmp_reduce_params *p, const int8_t *input, int8_t *output);
void usmp_reduce_min_s8(const struct usmp_reduce_params *p, const int8_t *input, int8_t *output);

/* Logical AND of bools (one byte each, 0 or 1); 1 for an output no input reaches. */
void usmp_reduce_all_b8(const struct usmp_reduce_params *p, const uint8_t *input, uint8_t *output);

#endif /* USMP_KERNELS_REDUCE_H */
