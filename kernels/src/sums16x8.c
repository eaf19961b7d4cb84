/* The sums of the 16x8 kernels (see usmp_kernels/sums16x8.h). */
#include "usmp_kernels.h"

int64_t usmp_dot_s16(const int16_t *x, const int8_t *w, int32_t n)
{
	int64_t acc = 0;

	while (n > 0) {
		const int32_t chunk = n < 256 ? n : 256;
		int32_t part = 0;
		int32_t i;

		for (i = 0; i < chunk; i++) {
			part += (int32_t)x[i] * (int32_t)w[i];
		}
		acc += part;
		x += chunk;
		w += chunk;
		n -= chunk;
	}
	return acc;
}

int32_t usmp_rescale_16x8(int64_t sum, int64_t bias, int32_t wide, int32_t multiplier, int32_t shift)
{
	const uint64_t total = (uint64_t)sum + (uint64_t)bias;

	if (wide) {
		return usmp_requantize_s64((int64_t)total, multiplier, shift);
	}
	return usmp_mul_by_quantized_multiplier((int32_t)(uint32_t)total, multiplier, shift);
}
