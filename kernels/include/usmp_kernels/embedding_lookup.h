/*
 * USMP kernels: EMBEDDING_LOOKUP, rows of a table picked by int32 ids.
 *
 * Rows are copied as bytes, so one kernel serves every element type. The
 * hybrid form (int8 table, float32 output, zero point 0) dequantizes each
 * picked row with the table's scale. TFLite Micro stops with an error on an
 * id outside [0, rows); these kernels cannot report one, so they write a row
 * of zeros instead and never read outside the table.
 */
#ifndef USMP_KERNELS_EMBEDDING_LOOKUP_H
#define USMP_KERNELS_EMBEDDING_LOOKUP_H

#include <stdint.h>

struct usmp_embedding_lookup_params {
	int32_t lookups;   /* ids, rows of the output */
	int32_t rows;      /* rows of the table */
	int32_t row_bytes; /* bytes of one row */
};

void usmp_embedding_lookup(const struct usmp_embedding_lookup_params *p, const int32_t *ids, const void *table,
			   void *output);

struct usmp_embedding_lookup_s8_f32_params {
	int32_t lookups;
	int32_t rows;
	int32_t columns; /* elements of one row */
	float scale;     /* of the int8 table */
};

void usmp_embedding_lookup_s8_f32(const struct usmp_embedding_lookup_s8_f32_params *p, const int32_t *ids,
				  const int8_t *table, float *output);

#endif /* USMP_KERNELS_EMBEDDING_LOOKUP_H */
