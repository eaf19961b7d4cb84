/*
 * USMP kernels: the sums of the 16x8 FULLY_CONNECTED, CONV_2D and
 * DEPTHWISE_CONV_2D (int16 activations, int8 weights).
 *
 * Kept in their own file so that the int8 kernels' files keep their own
 * copies of the int8 rescale inlined.
 */
#ifndef USMP_KERNELS_SUMS16X8_H
#define USMP_KERNELS_SUMS16X8_H

#include <stdint.h>

/* sum of x[i] * w[i] for i < n, in 64 bits (int32 partial sums of 256 products, which cannot overflow) */
int64_t usmp_dot_s16(const int16_t *x, const int8_t *w, int32_t n);

/*
 * TFLite's rescale of a 16x8 sum plus bias (scripts/usmp/lower/ops/sums16x8.py):
 * wide (int64 bias), the 64-bit total with a 16-bit multiplier and a right
 * shift (usmp_requantize_s64); else (int32 bias) the total wrapped to 32 bits
 * and the int8 rescale. The total wraps around as TFLite's does.
 */
int32_t usmp_rescale_16x8(int64_t sum, int64_t bias, int32_t wide, int32_t multiplier, int32_t shift);

#endif /* USMP_KERNELS_SUMS16X8_H */
