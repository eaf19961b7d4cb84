/* SignalFramer: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

void usmp_signal_framer(const struct usmp_signal_framer_params *p, const int16_t *input, int16_t *queue,
			int32_t *counts, int16_t *output, uint8_t *valid)
{
	int32_t row, frame, j;

	*valid = 1;
	for (row = 0; row < p->rows; row++) {
		int16_t *q = queue + row * p->capacity;

		for (frame = 0; frame < p->frames; frame++) {
			int32_t count = counts[row];

			for (j = 0; j < p->frame_step && count < p->capacity; j++) {
				q[count++] = *input++;
			}
			input += p->frame_step - j;
			if (count >= p->frame_size) {
				for (j = 0; j < p->frame_size; j++) {
					output[j] = q[j];
				}
				for (j = p->frame_step; j < count; j++) {
					q[j - p->frame_step] = q[j];
				}
				count -= p->frame_step;
			} else {
				for (j = 0; j < p->frame_size; j++) {
					output[j] = 0;
				}
				*valid = 0;
			}
			counts[row] = count;
			output += p->frame_size;
		}
	}
}
