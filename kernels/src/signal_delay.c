/* SignalDelay: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_delay(const struct usmp_signal_delay_params *p, const int16_t *input, int16_t *state,
		       int16_t *output)
{
	int32_t row, j;

	for (row = 0; row < p->rows; row++) {
		/* the stream is the kept samples, then this frame: the frame's worth comes out, the rest is kept */
		for (j = 0; j < p->frame; j++) {
			output[j] = j < p->delay ? state[j] : input[j - p->delay];
		}
		for (j = 0; j < p->delay; j++) {
			const int32_t from = p->frame + j;

			state[j] = from < p->delay ? state[from] : input[from - p->delay];
		}
		input += p->frame;
		output += p->frame;
		state += p->delay;
	}
}
