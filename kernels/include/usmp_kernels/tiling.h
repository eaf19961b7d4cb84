/* USMP kernels: moves inside the band buffers of depth-first chains (scripts/usmp/tiling). */
#ifndef USMP_KERNELS_TILING_H
#define USMP_KERNELS_TILING_H

#include <stdint.h>

struct usmp_move_params {
	int32_t count; /* words for usmp_move_words, bytes for usmp_move_bytes */
};

/*
 * output[0..count) = input[0..count) where output is at or below input in the
 * same buffer (the rows a sliding band buffer keeps, moved to its top): a
 * forward copy, so the two ranges may overlap. Words need both pointers word
 * aligned; the compiler picks usmp_move_words only then.
 */
void usmp_move_words(const struct usmp_move_params *p, const void *input, void *output);
void usmp_move_bytes(const struct usmp_move_params *p, const void *input, void *output);

#endif /* USMP_KERNELS_TILING_H */
