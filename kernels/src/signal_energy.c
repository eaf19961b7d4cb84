/* SignalEnergy: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_energy(const struct usmp_signal_energy_params *p, const int16_t *spectrum, uint32_t *output)
{
	int32_t i;

	for (i = 0; i < p->bins; i++) {
		if (i < p->start || i >= p->end) {
			output[i] = 0;
			continue;
		}
		output[i] = (uint32_t)((int32_t)spectrum[2 * i] * spectrum[2 * i]) +
			    (uint32_t)((int32_t)spectrum[2 * i + 1] * spectrum[2 * i + 1]);
	}
}
