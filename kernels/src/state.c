/* Byte copy and fill of state buffers (see usmp_kernels/state.h). */
#include "usmp_kernels.h"

void usmp_copy_bytes(const struct usmp_copy_bytes_params *p, const void *input, void *output)
{
	const uint8_t *in = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	int32_t i;

	for (i = 0; i < p->count; i++) {
		out[i] = in[i];
	}
}

void usmp_fill_bytes(const struct usmp_fill_bytes_params *p, void *output)
{
	const uint8_t value = (uint8_t)p->value;
	uint8_t *out = (uint8_t *)output;
	int32_t i;

	for (i = 0; i < p->count; i++) {
		out[i] = value;
	}
}
