/*
 * AVERAGE_POOL_2D and MEAN over the pixels on Helium (see usmp_kernels/helium.h).
 *
 * Eight channels a vector: a window's (or every pixel's) bytes are summed in
 * int16 lanes (at most 256 of them: |sum| <= 32768), then widened. The
 * average divides as TFLite rounds it, (|sum| + n / 2) / n with the sum's
 * sign, by a multiply-high with 2^32 / n rounded up, exact for these
 * magnitudes; the mean is TFLite's sum rescaled (the zero point's share
 * taken out, the multiplier and shift, the output zero point).
 */
#include "usmp_kernels/helium.h"

#include <stddef.h>

#include "usmp_kernels/arith.h"

#include "helium_ops.h"

#if USMP_HELIUM_NATIVE
/* n int8 vectors of 8 lanes from src, step bytes apart (lanes predicated), summed in int16. */
HELIUM_INLINE int16x8_t sum_rows(const int8_t *src, int32_t step, int32_t n, mve_pred16_t lanes)
{
	int16x8_t sum = vdupq_n_s16(0);

	for (; n > 0; n--, src += step)
		sum = vaddq_s16(sum, vldrbq_z_s16(src, lanes));
	return sum;
}

/* The sums' average as TFLite rounds it: sign(sum) * floor((|sum| + n / 2) / n), magic = 2^32 / n rounded up. */
HELIUM_INLINE int32x4_t average(int32x4_t sum, int32_t half, uint32_t magic)
{
	const int32x4_t sign = vshrq_n_s32(sum, 31);
	const uint32x4_t u = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(sum), half));
	const int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(u, vdupq_n_u32(magic)));

	return vsubq_s32(veorq_s32(q, sign), sign);
}

/* Two int32 vectors (even and odd lanes of 8) clamped and stored as 8 bytes in lane order. */
HELIUM_INLINE void store_lanes(int32x4_t even, int32x4_t odd, int32_t lo, int32_t hi, mve_pred16_t lanes, int8_t *out)
{
	even = vminq_s32(vmaxq_s32(even, vdupq_n_s32(lo)), vdupq_n_s32(hi));
	odd = vminq_s32(vmaxq_s32(odd, vdupq_n_s32(lo)), vdupq_n_s32(hi));
	vstrbq_p_s16(out, vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), even), odd), lanes);
}

HELIUM_HOT void usmp_helium_avg_pool_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output)
{
	const int32_t ch = p->channels, in_row = p->in_w * ch;

	for (int32_t b = 0; b < p->batches; b++) {
		const int8_t *image = input + (size_t)b * p->in_h * in_row;

		for (int32_t oy = 0; oy < p->out_h; oy++) {
			int32_t y0, y1;

			helium_window_span(oy * p->stride_h - p->pad_top, p->in_h, p->filter_h, &y0, &y1);
			y0 += oy * p->stride_h - p->pad_top;
			y1 += oy * p->stride_h - p->pad_top;
			for (int32_t ox = 0; ox < p->out_w; ox++, output += ch) {
				int32_t x0, x1;

				helium_window_span(ox * p->stride_w - p->pad_left, p->in_w, p->filter_w, &x0, &x1);
				x0 += ox * p->stride_w - p->pad_left;
				x1 += ox * p->stride_w - p->pad_left;
				const int32_t rows = y1 > y0 ? y1 - y0 : 0, cols = x1 > x0 ? x1 - x0 : 0, n = rows * cols;
				const uint32_t magic = n > 1 ? 0xFFFFFFFFu / (uint32_t)n + 1u : 0u;

				for (int32_t c = 0; c < ch; c += 8) {
					const mve_pred16_t lanes = vctp16q((uint32_t)(ch - c));
					const int8_t *x = image + (size_t)y0 * in_row + x0 * ch + c;
					int16x8_t sum = vdupq_n_s16(0);

					for (int32_t r = 0; r < rows; r++, x += in_row)
						sum = vaddq_s16(sum, sum_rows(x, ch, cols, lanes));
					int32x4_t even = vmovlbq_s16(sum), odd = vmovltq_s16(sum);

					if (n > 1) {
						even = average(even, n / 2, magic);
						odd = average(odd, n / 2, magic);
					}
					store_lanes(even, odd, p->act_min, p->act_max, lanes, output + c);
				}
			}
		}
	}
}

HELIUM_HOT void usmp_helium_mean_s8(const struct usmp_helium_mean_params *p, const int8_t *input, int8_t *output)
{
	const int32_t ch = p->channels;
	const int32_t left = p->shift > 0 ? p->shift : 0, right = p->shift < 0 ? -p->shift : 0;

	for (int32_t c = 0; c < ch; c += 8) {
		const mve_pred16_t lanes = vctp16q((uint32_t)(ch - c));
		const int16x8_t sum = sum_rows(input + c, ch, p->pixels, lanes);
		int32x4_t half[2] = { vmovlbq_s16(sum), vmovltq_s16(sum) };

		for (int k = 0; k < 2; k++) {
			int32x4_t v = vqrdmulhq_n_s32(vshlq_r_s32(vsubq_s32(half[k], vdupq_n_s32(p->sum_offset)), left),
						      p->multiplier);

			v = vrshlq_n_s32(vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, vdupq_n_s32(right ? -1 : 0)), 31)), -right);
			half[k] = vaddq_n_s32(v, p->output_offset);
		}
		store_lanes(half[0], half[1], -128, 127, lanes, output + c);
	}
}
#else
/* The same a value at a time (the host tests, builds without Helium). */
void usmp_helium_avg_pool_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output)
{
	usmp_avg_pool_s8(p, input, output);
}

void usmp_helium_mean_s8(const struct usmp_helium_mean_params *p, const int8_t *input, int8_t *output)
{
	for (int32_t c = 0; c < p->channels; c++) {
		int32_t sum = 0;

		for (int32_t k = 0; k < p->pixels; k++)
			sum += input[(size_t)k * p->channels + c];
		sum = usmp_mul_by_quantized_multiplier(sum - p->sum_offset, p->multiplier, p->shift) + p->output_offset;
		output[c] = (int8_t)usmp_clamp(sum, -128, 127);
	}
}
#endif
