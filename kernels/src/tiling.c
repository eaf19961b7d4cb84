/* Forward copies inside band buffers (see usmp_kernels/tiling.h). */
#include "usmp_kernels.h"

void usmp_move_words(const struct usmp_move_params *p, const void *input, void *output)
{
	const uint32_t *in = (const uint32_t *)input;
	uint32_t *out = (uint32_t *)output;
	int32_t i;

	for (i = 0; i < p->count; i++) {
		out[i] = in[i];
	}
}

void usmp_move_bytes(const struct usmp_move_params *p, const void *input, void *output)
{
	const uint8_t *in = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	int32_t i;

	for (i = 0; i < p->count; i++) {
		out[i] = in[i];
	}
}
