/*
 * An output row's input rows (kernels/scalar/rows.c): read in place, or copied into scratch, each padded with
 * the zero point to the columns the row's windows span (from column -pad_left), filter_h rows one after the
 * other, where the windows reach into the padding.
 */
#ifndef USMP_SCALAR_ROWS_H
#define USMP_SCALAR_ROWS_H

#include <stdint.h>

#include "usmp_kernels/scalar.h"

void usmp_scalar_copy(int8_t *dst, const int8_t *src, int32_t n);
void usmp_scalar_fill(int8_t *dst, int8_t value, int32_t n);
int32_t usmp_scalar_row_span(const struct usmp_scalar_conv_params *p);
int usmp_scalar_row_padded(const struct usmp_scalar_conv_params *p, int32_t oy);
void usmp_scalar_padded_rows(const struct usmp_scalar_conv_params *p, const int8_t *image, int32_t oy,
			     int8_t *dst);

#endif /* USMP_SCALAR_ROWS_H */
