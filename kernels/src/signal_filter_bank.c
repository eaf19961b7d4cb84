/* SignalFilterBank: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_filter_bank(const struct usmp_signal_filter_bank_params *p, const uint32_t *input,
			     const int16_t *weights, const int16_t *unweights, const int16_t *frequency_starts,
			     const int16_t *weight_starts, const int16_t *widths, uint64_t *output)
{
	uint64_t weighted = 0, unweighted = 0;
	int32_t channel, j;

	for (channel = 0; channel <= p->channels; channel++) {
		const uint32_t *x = input + frequency_starts[channel];
		const int32_t first = weight_starts[channel];

		for (j = 0; j < widths[channel]; j++) {
			/* the int16 weight widened to 64 bits (sign included) times the energy, modulo 2^64 */
			weighted += (uint64_t)(int64_t)weights[first + j] * x[j];
			unweighted += (uint64_t)(int64_t)unweights[first + j] * x[j];
		}
		if (channel > 0) {
			output[channel - 1] = weighted;
		}
		weighted = unweighted;
		unweighted = 0;
	}
}
