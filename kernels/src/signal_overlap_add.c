/* SignalOverlapAdd: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

#define USMP_OVERLAP_ADD(suffix, type, add)                                                                   \
	void usmp_signal_overlap_add_##suffix(const struct usmp_signal_overlap_add_params *p, const type *input,  \
					      type *state, type *output)                                         \
	{                                                                                                      \
		int32_t row, frame, j;                                                                         \
                                                                                                               \
		for (row = 0; row < p->rows; row++) {                                                          \
			for (frame = 0; frame < p->frames; frame++) {                                          \
				for (j = 0; j < p->frame_size; j++) {                                          \
					state[j] = add(input[j], state[j]);                                    \
				}                                                                              \
				for (j = 0; j < p->frame_step; j++) {                                          \
					output[j] = state[j];                                                  \
				}                                                                              \
				for (j = p->frame_step; j < p->frame_size; j++) {                              \
					state[j - p->frame_step] = state[j];                                   \
				}                                                                              \
				for (j = p->frame_size - p->frame_step; j < p->frame_size; j++) {              \
					state[j] = 0;                                                          \
				}                                                                              \
				input += p->frame_size;                                                        \
				output += p->frame_step;                                                       \
			}                                                                                      \
			state += p->frame_size;                                                                \
		}                                                                                              \
	}

#define SATURATING_ADD_S16(x, y) ((int16_t)usmp_clamp((int32_t)(x) + (y), INT16_MIN, INT16_MAX))
#define ADD_F32(x, y) ((y) + (x))

USMP_OVERLAP_ADD(s16, int16_t, SATURATING_ADD_S16)
USMP_OVERLAP_ADD(f32, float, ADD_F32)
