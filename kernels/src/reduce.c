/* MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL kernels (see usmp_kernels/reduce.h). */
#include <float.h>

#include "usmp_kernels.h"

#define INNER (USMP_ND_DIMS - 1)

/*
 * The one reduction walk: runs `fold` for every input element i, in row-major
 * order, with o the output element it reduces into. Every kernel below is
 * this walk with a different fold, so they all visit in TFLite's order.
 */
#define REDUCE_WALK(p, i, o, fold)                                                                  \
	do {                                                                                        \
		int32_t idx_[USMP_ND_DIMS - 1] = {0};                                               \
		int32_t i = 0;                                                                      \
		int32_t k_;                                                                         \
                                                                                                    \
		if (usmp_nd_nonempty((p)->count)) {                                                 \
			do {                                                                        \
				int32_t o = usmp_nd_row_offset(idx_, (p)->out_step);                \
                                                                                                    \
				for (k_ = 0; k_ < (p)->count[INNER]; k_++) {                        \
					fold;                                                       \
					i++;                                                        \
					o += (p)->out_step[INNER];                                  \
				}                                                                   \
			} while (usmp_nd_next_row((p)->count, idx_));                               \
		}                                                                                   \
	} while (0)

/* From the raw sums to the outputs; also the last step of a MEAN that ends a depth-first chain. */
#define USMP_DEFINE_QUANTIZED_SUM_FINISH(suffix, type, lo, hi)                                      \
	void usmp_quantized_sum_finish_##suffix(const struct usmp_quantized_sum_params *p,          \
						const int32_t *accumulators, type *output)          \
	{                                                                                           \
		int32_t k;                                                                          \
                                                                                                    \
		for (k = 0; k < p->num_outputs; k++) {                                              \
			const int32_t sum = (int32_t)((uint32_t)accumulators[k] - (uint32_t)p->sum_offset); \
			const int32_t value =                                                       \
				usmp_mul_by_quantized_multiplier(sum, p->multiplier, p->shift) + p->output_offset; \
                                                                                                    \
			output[k] = (type)usmp_clamp(value, lo, hi);                                \
		}                                                                                   \
	}

USMP_DEFINE_QUANTIZED_SUM_FINISH(s8, int8_t, INT8_MIN, INT8_MAX)
USMP_DEFINE_QUANTIZED_SUM_FINISH(s16, int16_t, INT16_MIN, INT16_MAX)

/* Unsigned adds: a wrapping int32 sum is defined in C, as TFLite's overflow is expected. */
#define USMP_DEFINE_QUANTIZED_SUM(suffix, type, lo, hi)                                             \
	void usmp_quantized_sum_##suffix(const struct usmp_quantized_sum_params *p, const type *input, \
					 int32_t *accumulators, type *output)                         \
	{                                                                                           \
		int32_t k;                                                                          \
                                                                                                    \
		for (k = 0; k < p->num_outputs; k++) {                                              \
			accumulators[k] = 0;                                                        \
		}                                                                                   \
		REDUCE_WALK(p, i, o,                                                                \
			    accumulators[o] = (int32_t)((uint32_t)accumulators[o] + (uint32_t)(int32_t)input[i])); \
		usmp_quantized_sum_finish_##suffix(p, accumulators, output);                        \
	}

USMP_DEFINE_QUANTIZED_SUM(s8, int8_t, INT8_MIN, INT8_MAX)
USMP_DEFINE_QUANTIZED_SUM(s16, int16_t, INT16_MIN, INT16_MAX)

void usmp_sum_f32(const struct usmp_reduce_params *p, const float *input, float *output)
{
	int32_t k;

	for (k = 0; k < p->num_outputs; k++) {
		output[k] = 0.0f;
	}
	REDUCE_WALK(p, i, o, output[o] += input[i]);
}

void usmp_mean_f32(const struct usmp_mean_f32_params *p, const float *input, float *output)
{
	int32_t k;

	for (k = 0; k < p->num_outputs; k++) {
		output[k] = 0.0f;
	}
	REDUCE_WALK(p, i, o, output[o] += input[i]);
	for (k = 0; k < p->num_outputs; k++) {
		output[k] = output[k] / p->divisor;
	}
}

/* `better(a, b)`: a replaces the running value b. */
#define USMP_DEFINE_REDUCE_EXTREME(name, type, start, better)                                       \
	void name(const struct usmp_reduce_params *p, const type *input, type *output)               \
	{                                                                                           \
		int32_t k;                                                                          \
                                                                                                    \
		for (k = 0; k < p->num_outputs; k++) {                                              \
			output[k] = (start);                                                        \
		}                                                                                   \
		REDUCE_WALK(p, i, o, if (input[i] better output[o]) { output[o] = input[i]; });      \
	}

USMP_DEFINE_REDUCE_EXTREME(usmp_reduce_max_f32, float, -FLT_MAX, >)
USMP_DEFINE_REDUCE_EXTREME(usmp_reduce_min_f32, float, FLT_MAX, <)
USMP_DEFINE_REDUCE_EXTREME(usmp_reduce_max_s8, int8_t, INT8_MIN, >)
USMP_DEFINE_REDUCE_EXTREME(usmp_reduce_min_s8, int8_t, INT8_MAX, <)

void usmp_reduce_all_b8(const struct usmp_reduce_params *p, const uint8_t *input, uint8_t *output)
{
	int32_t k;

	for (k = 0; k < p->num_outputs; k++) {
		output[k] = 1;
	}
	REDUCE_WALK(p, i, o, output[o] = (uint8_t)(output[o] && input[i]));
}
