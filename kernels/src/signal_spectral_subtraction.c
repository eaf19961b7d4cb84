/* SignalFilterBankSpectralSubtraction: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_spectral_subtraction(const struct usmp_signal_spectral_subtraction_params *p,
				      const uint32_t *input, uint32_t *noise, uint32_t *output,
				      uint32_t *noise_output)
{
	int32_t i;

	for (i = 0; i < p->channels; i++) {
		const int32_t odd = i & 1;
		const uint32_t smoothing = odd ? p->alternate_smoothing : p->smoothing;
		const uint32_t keep = odd ? p->alternate_one_minus_smoothing : p->one_minus_smoothing;
		const uint32_t scaled = input[i] << p->smoothing_bits;
		uint32_t estimate, floor, remaining;

		noise[i] = (uint32_t)(((uint64_t)scaled * smoothing + (uint64_t)noise[i] * keep) >>
				      p->spectral_subtraction_bits);
		estimate = noise[i];
		if (estimate > scaled) {
			estimate = scaled;
			if (p->clamping) {
				noise[i] = estimate;
			}
		}
		floor = (uint32_t)(((uint64_t)input[i] * p->min_signal_remaining) >> p->spectral_subtraction_bits);
		remaining = (scaled - estimate) >> p->smoothing_bits;
		output[i] = remaining > floor ? remaining : floor;
		noise_output[i] = noise[i];
	}
}
