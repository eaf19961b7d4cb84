/* USMP kernels: moves inside the band buffers of depth-first chains (scripts/usmp/tiling). */
#ifndef USMP_KERNELS_TILING_H
#define USMP_KERNELS_TILING_H

#include <stdint.h>

struct usmp_move_params {
	int32_t count; /* words for usmp_move_words, bytes for usmp_move_bytes */
};

/*
 * output[0..count) = input[0..count) where output is at or below input in the
 * same buffer (the rows a sliding band buffer keeps, moved to its top): a
 * forward copy, so the two ranges may overlap. Words need both pointers word
 * aligned; the compiler picks usmp_move_words only then.
 */
void usmp_move_words(const struct usmp_move_params *p, const void *input, void *output);
void usmp_move_bytes(const struct usmp_move_params *p, const void *input, void *output);

/*
 * A reduction over rows and columns (global AVERAGE_POOL_2D, MEAN, SUM) that
 * ends a chain takes its input band by band: acc[c] += input[i * channels + c]
 * for `count` elements per channel, in row-major order as the whole-tensor
 * kernels add them (int8: wrapping int32 sums). A finish step turns the sums
 * into outputs.
 */
struct usmp_band_sum_params {
	int32_t count;    /* elements per channel in this band: rows * width */
	int32_t channels;
};

void usmp_band_sum_s8(const struct usmp_band_sum_params *p, const int8_t *input, int32_t *acc);
void usmp_band_sum_f32(const struct usmp_band_sum_params *p, const float *input, float *acc);

/* Global average pool: round half away from zero (int8) or divide (float), then clamp. */
struct usmp_band_avg_s8_params {
	int32_t channels;
	int32_t count; /* elements averaged per channel */
	int32_t act_min;
	int32_t act_max;
};

struct usmp_band_avg_f32_params {
	int32_t channels;
	float count;
	float act_min;
	float act_max;
};

void usmp_band_avg_finish_s8(const struct usmp_band_avg_s8_params *p, const int32_t *acc, int8_t *output);
void usmp_band_avg_finish_f32(const struct usmp_band_avg_f32_params *p, const float *acc, float *output);

/* float MEAN: output[k] = acc[k] / divisor (acc may be output). */
struct usmp_band_divide_f32_params {
	int32_t count;
	float divisor;
};

void usmp_band_divide_f32(const struct usmp_band_divide_f32_params *p, const float *acc, float *output);

#endif /* USMP_KERNELS_TILING_H */
