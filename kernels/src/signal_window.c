/* SignalWindow: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_window(const struct usmp_signal_window_params *p, const int16_t *input, const int16_t *weights,
			int16_t *output)
{
	int32_t f, i;

	for (f = 0; f < p->frames; f++) {
		for (i = 0; i < p->size; i++) {
			const int32_t raw = usmp_asr32((int32_t)input[i] * weights[i], p->shift);

			output[i] = (int16_t)usmp_clamp(raw, INT16_MIN, INT16_MAX);
		}
		input += p->size;
		output += p->size;
	}
}
