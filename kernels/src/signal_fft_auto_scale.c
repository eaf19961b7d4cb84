/* SignalFftAutoScale: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_fft_auto_scale(const struct usmp_signal_fft_auto_scale_params *p, const int16_t *input,
				int16_t *output, int32_t *scale_bits)
{
	int16_t largest = 0; /* |x| in 16 bits: |-32768| wraps to -32768, whose 32-bit pattern needs 32 bits */
	int32_t bits, i;

	for (i = 0; i < p->size; i++) {
		if (input[i] > largest) {
			largest = input[i];
		} else if (-input[i] > largest) {
			largest = usmp_wrap16(-input[i]);
		}
	}
	bits = 16 - usmp_msb32((uint32_t)(int32_t)largest) - 1;
	if (bits < 0) {
		bits = 0;
	}
	for (i = 0; i < p->size; i++) {
		output[i] = usmp_wrap16((int32_t)((uint32_t)(int32_t)input[i] << bits));
	}
	*scale_bits = bits;
}
