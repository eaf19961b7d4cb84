/* What the window kernels of this directory share: an output row's input rows, padded where they must be. */
#include "usmp_kernels/armv6m.h"
#include "usmp_kernels/scalar.h"

#include "scalar_ops.h"
#include "scalar_rows.h"

#if USMP_ARMV6M
/* the frameless copy (padded_rows is on the deepest path of a convolution on the Cortex-M0) */
#define copy_row usmp_armv6m_copy
#else
#define copy_row usmp_scalar_copy

/* n bytes from src to dst (a word at a time where both are aligned). */
void usmp_scalar_copy(int8_t *dst, const int8_t *src, int32_t n)
{
	if ((((uintptr_t)dst | (uintptr_t)src) & 3u) == 0) {
		for (; n >= 8; n -= 8, src += 8, dst += 8) {
			const uint32_t a = scalar_load32(src), b = scalar_load32(src + 4);

			scalar_store32(dst, a);
			scalar_store32(dst + 4, b);
		}
	}
	for (; n >= 4; n -= 4, src += 4, dst += 4) {
		const int8_t a = src[0], b = src[1], c = src[2], d = src[3];

		dst[0] = a;
		dst[1] = b;
		dst[2] = c;
		dst[3] = d;
	}
	for (; n > 0; n--)
		*dst++ = *src++;
}
#endif

SCALAR_NO_LIBCALL void usmp_scalar_fill(int8_t *dst, int8_t value, int32_t n)
{
	for (; n > 0; n--)
		*dst++ = value;
}

/* The columns an output row's windows span, from column -pad_left. */
int32_t usmp_scalar_row_span(const struct usmp_scalar_conv_params *p)
{
	return (p->out_w - 1) * p->stride_w + (p->filter_w - 1) * p->dilation_w + 1;
}

/* Output row oy's filter_h input rows, each padded with the zero point to the span, one after the other (in bytes
 * throughout, few values live across the copies: this sits under a kernel's frame). */
void usmp_scalar_padded_rows(const struct usmp_scalar_conv_params *p, const int8_t *image, int32_t oy,
			     int8_t *dst)
{
	const int32_t span = usmp_scalar_row_span(p), row = span * p->in_ch;
	const int32_t left_columns = p->pad_left < span ? p->pad_left : span, left = left_columns * p->in_ch;
	const int32_t width = (span - left_columns < p->in_w ? span - left_columns : p->in_w) * p->in_ch;
	int32_t iy = oy * p->stride_h - p->pad_top, r;

	for (r = p->filter_h; r > 0; r--, dst += row, iy += p->dilation_h) {
		if (iy < 0 || iy >= p->in_h) {
			usmp_scalar_fill(dst, (int8_t)p->zero_point, row);
			continue;
		}
		usmp_scalar_fill(dst, (int8_t)p->zero_point, left);
		copy_row(dst + left, image + iy * p->in_w * p->in_ch, width);
		usmp_scalar_fill(dst + left + width, (int8_t)p->zero_point, row - left - width);
	}
}

/* Whether output row oy's windows reach into the padding (above, below, left or right). */
int usmp_scalar_row_padded(const struct usmp_scalar_conv_params *p, int32_t oy)
{
	const int32_t iy0 = oy * p->stride_h - p->pad_top;

	return p->pad_left > 0 || usmp_scalar_row_span(p) - p->pad_left > p->in_w || iy0 < 0 ||
	       iy0 + (p->filter_h - 1) * p->dilation_h >= p->in_h;
}
