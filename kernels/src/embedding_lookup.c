/* EMBEDDING_LOOKUP: copy or dequantize the rows the ids pick (see usmp_kernels/embedding_lookup.h). */
#include "usmp_kernels.h"

void usmp_embedding_lookup(const struct usmp_embedding_lookup_params *p, const int32_t *ids, const void *table,
			   void *output)
{
	const uint8_t *rows = (const uint8_t *)table;
	uint8_t *out = (uint8_t *)output;
	int32_t i;
	int32_t k;

	for (i = 0; i < p->lookups; i++) {
		const int32_t id = ids[i];

		if (id >= 0 && id < p->rows) {
			const uint8_t *row = rows + id * p->row_bytes;

			for (k = 0; k < p->row_bytes; k++) {
				out[k] = row[k];
			}
		} else {
			for (k = 0; k < p->row_bytes; k++) {
				out[k] = 0;
			}
		}
		out += p->row_bytes;
	}
}

void usmp_embedding_lookup_s8_f32(const struct usmp_embedding_lookup_s8_f32_params *p, const int32_t *ids,
				  const int8_t *table, float *output)
{
	int32_t i;
	int32_t k;

	for (i = 0; i < p->lookups; i++) {
		const int32_t id = ids[i];

		if (id >= 0 && id < p->rows) {
			const int8_t *row = table + id * p->columns;

			for (k = 0; k < p->columns; k++) {
				output[k] = (float)row[k] * p->scale;
			}
		} else {
			for (k = 0; k < p->columns; k++) {
				output[k] = 0.0f;
			}
		}
		output += p->columns;
	}
}
