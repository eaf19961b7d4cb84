/* SignalStacker: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_stacker(const struct usmp_signal_stacker_params *p, const int16_t *input, int16_t *queue,
			 int32_t *status, int16_t *output, uint8_t *valid)
{
	int32_t count = status[0], copies, j;

	/* the new frame, and on the stream's first frame that frame again as its left context */
	copies = status[1] ? 1 : 1 + p->left_context;
	status[1] = 1;
	while (copies-- > 0) {
		for (j = 0; j < p->channels && count < p->stack_size; j++) {
			queue[count++] = input[j];
		}
	}
	if (count >= p->stack_size) {
		for (j = 0; j < p->stack_size; j++) {
			output[j] = queue[j];
		}
		for (j = p->step_size; j < count; j++) {
			queue[j - p->step_size] = queue[j];
		}
		count -= p->step_size;
		*valid = 1;
	} else {
		for (j = 0; j < p->stack_size; j++) {
			output[j] = 0;
		}
		*valid = 0;
	}
	status[0] = count;
}
