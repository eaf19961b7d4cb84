/*
 * AVERAGE_POOL_2D of int16 on Helium (see usmp_kernels/helium.h).
 *
 * Four channels a vector, each tap widened to an int32 lane as it is loaded
 * (VLDRH.S32) and summed; the sum is divided as TFLite rounds it,
 * sign(sum) * floor((|sum| + n / 2) / n), by a multiply-high with 2^32 / n
 * rounded up: exact while (|sum| + n / 2) * (n - 1) < 2^32, which windows of
 * at most 256 taps of int16 keep. Nothing but a few words of locals: the
 * whole call is loops over the output, channels and taps.
 */
#include "usmp_kernels/helium.h"

#include <stddef.h>

#include "helium_ops.h"

#if USMP_HELIUM_NATIVE
/* The window of rows x cols taps from x (row_step and ch elements apart) over 4 channels (lanes), rounded to its average. */
static int32x4_t window_average(const int16_t *x, int32_t rows, int32_t cols, int32_t row_step, int32_t ch,
				mve_pred16_t lanes)
{
	const int32_t n = rows * cols;
	int32x4_t sum = vdupq_n_s32(0);

	for (int32_t r = 0; r < rows; r++, x += row_step) {
		const int16_t *tap = x;

		for (int32_t k = 0; k < cols; k++, tap += ch)
			sum = vaddq_s32(sum, vldrhq_z_s32(tap, lanes));
	}
	if (n <= 1)
		return sum;
	const int32x4_t sign = vshrq_n_s32(sum, 31);
	const uint32x4_t u = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(sum), n / 2));
	const int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(u, vdupq_n_u32(0xFFFFFFFFu / (uint32_t)n + 1u)));

	return vsubq_s32(veorq_s32(q, sign), sign);
}

HELIUM_HOT void usmp_helium_avg_pool_s16(const struct usmp_pool_s8_params *p, const int16_t *input, int16_t *output)
{
	const int32_t ch = p->channels, row_step = p->in_w * ch;

	for (int32_t b = 0; b < p->batches; b++, input += (size_t)p->in_h * row_step) {
		for (int32_t oy = 0; oy < p->out_h; oy++) {
			const int32_t iy = oy * p->stride_h - p->pad_top;
			int32_t y0, y1;

			helium_window_span(iy, p->in_h, p->filter_h, &y0, &y1);
			for (int32_t ox = 0; ox < p->out_w; ox++, output += ch) {
				const int32_t ix = ox * p->stride_w - p->pad_left;
				int32_t x0, x1;

				helium_window_span(ix, p->in_w, p->filter_w, &x0, &x1);
				const int16_t *x = input + (size_t)(iy + y0) * row_step + (ix + x0) * ch;
				const int32_t rows = y1 > y0 ? y1 - y0 : 0, cols = x1 > x0 ? x1 - x0 : 0;

				for (int32_t c = 0; c < ch; c += 4) {
					const mve_pred16_t lanes = vctp32q((uint32_t)(ch - c));
					int32x4_t v = window_average(x + c, rows, cols, row_step, ch, lanes);

					v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(p->act_min)), vdupq_n_s32(p->act_max));
					vstrhq_p_s32(output + c, v, lanes);
				}
			}
		}
	}
}
#else
/* The same a value at a time (the host tests, builds without Helium). */
void usmp_helium_avg_pool_s16(const struct usmp_pool_s8_params *p, const int16_t *input, int16_t *output)
{
	usmp_avg_pool_s16(p, input, output);
}
#endif
