/* SignalFilterBankSquareRoot: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

/* The number of bits a 64-bit value needs (64 for 0, as TFLite Micro's GCC build). */
static int32_t msb64(uint64_t x)
{
	const uint32_t high = (uint32_t)(x >> 32);

	if (x == 0) {
		return 64;
	}
	return high != 0 ? 32 + usmp_msb32(high) : usmp_msb32((uint32_t)x);
}

/*
 * Bit-by-bit integer square root, then rounded up when the remainder exceeds the root (not past the largest
 * root of the width): the 32-bit form below 2^32, the 64-bit one above, as TFLite Micro's Sqrt64.
 */
static uint32_t sqrt64(uint64_t value)
{
	const int32_t wide = (value >> 32) != 0;
	const int32_t top = wide ? 63 : 31;
	uint64_t root = 0, bit;
	int32_t free_bits, steps;

	if (value == 0) {
		return 0;
	}
	free_bits = ((top + 1) - (wide ? msb64(value) : usmp_msb32((uint32_t)value))) | 1;
	bit = (uint64_t)1 << (top - free_bits);
	for (steps = (top - free_bits) / 2 + 1; steps > 0; steps--) {
		if (value >= root + bit) {
			value -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	if (value > root && root != (wide ? 0xFFFFFFFFu : 0xFFFFu)) {
		root++;
	}
	return (uint32_t)root;
}

void usmp_signal_filter_bank_square_root(const struct usmp_signal_filter_bank_square_root_params *p,
					 const uint64_t *input, const int32_t *scale_bits, uint32_t *output)
{
	int32_t i;

	for (i = 0; i < p->channels; i++) {
		output[i] = sqrt64(input[i]) >> scale_bits[0];
	}
}
