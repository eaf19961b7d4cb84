/*
 * 16x8 DEPTHWISE_CONV_2D (multiplier 1) on Helium (see usmp_kernels/helium.h).
 *
 * Eight channels a vector: per tap one load of the pixel's eight int16
 * values, one widening load of the tap's eight filter bytes, and VMULLB /
 * VMULLT (the even and the odd channels' products as int32) added into two
 * sums of four lanes that start from the biases. Zero points are 0, so taps
 * outside the input are skipped. The sums are rescaled as the matrix kernel's,
 * narrowed back into channel order (VMOVNB, VMOVNT) and stored, the last
 * group of channels tail-predicated.
 */
#include "usmp_kernels/helium.h"

#include "helium_ops.h"

enum { LANES = 8, GROUP_FIELDS = 32 }; /* int32 fields of a group before its filter */

#if USMP_HELIUM_NATIVE
/* Two sums of four lanes (even, odd channels) rescaled, clamped and narrowed into the eight channels. */
HELIUM_INLINE int16x8_t rescale(int32x4_t even, int32x4_t odd, const int32_t *k, int32x4_t lo, int32x4_t hi)
{
	even = vshlq_s32(vaddq_s32(vmulhq_s32(even, vldrwq_s32(k + 8)), vldrwq_s32(k + 16)), vldrwq_s32(k + 24));
	odd = vshlq_s32(vaddq_s32(vmulhq_s32(odd, vldrwq_s32(k + 12)), vldrwq_s32(k + 20)), vldrwq_s32(k + 28));
	even = vminq_s32(vmaxq_s32(even, lo), hi);
	odd = vminq_s32(vmaxq_s32(odd, lo), hi);
	return vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), even), odd);
}

/* A window's taps [kx0, kx1) of rows [ky0, ky1) for the 8 channels of a full group: per tap the pixel's channels
 * times the tap's filter bytes into the two sums, in assembly (GCC spills the unrolled rows). */
HELIUM_INLINE void window_sums(const int16_t *at, const int8_t *filter, int32_t ky0, int32_t ky1, int32_t kx0,
			       int32_t kx1, int32_t row_step, int32_t tap_step, int32_t filter_w, int32x4_t *even,
			       int32x4_t *odd)
{
	const int16_t *row = at + ky0 * row_step + kx0 * tap_step, *x;
	const int8_t *w = filter + (ky0 * filter_w + kx0) * LANES;
	int32_t rows = ky1 - ky0;
	int32x4_t e = *even, o = *odd, t;
	int16x8_t v, f;

	__asm volatile("1:	mov	%[x], %[row]\n"
		       "	dls	lr, %[taps]\n"
		       "2:	vldrh.16	%q[v], [%[x]]\n"
		       "	add	%[x], %[x], %[ts]\n"
		       "	vldrb.s16	%q[f], [%[w]], #8\n"
		       "	vmullb.s16	%q[t], %q[v], %q[f]\n"
		       "	vadd.i32	%q[e], %q[e], %q[t]\n"
		       "	vmullt.s16	%q[t], %q[v], %q[f]\n"
		       "	vadd.i32	%q[o], %q[o], %q[t]\n"
		       "	le	lr, 2b\n"
		       "	add	%[row], %[row], %[rs]\n"
		       "	add	%[w], %[w], %[skip]\n"
		       "	subs	%[rows], %[rows], #1\n"
		       "	bne	1b\n"
		       : [e] "+w"(e), [o] "+w"(o), [t] "=&w"(t), [v] "=&w"(v), [f] "=&w"(f), [x] "=&r"(x), [w] "+l"(w),
			 [row] "+r"(row), [rows] "+r"(rows)
		       : [taps] "r"(kx1 - kx0), [ts] "r"(2 * tap_step), [rs] "r"(2 * row_step),
			 [skip] "r"((filter_w - kx1 + kx0) * LANES)
		       : "lr", "memory", "cc");
	*even = e;
	*odd = o;
}

/* The same for the last group's `lanes` channels (the rest read as zeros). */
HELIUM_INLINE void tail_sums(const int16_t *at, const int8_t *filter, int32_t ky0, int32_t ky1, int32_t kx0,
			     int32_t kx1, int32_t row_step, int32_t tap_step, int32_t filter_w, mve_pred16_t lanes,
			     int32x4_t *even, int32x4_t *odd)
{
	int32x4_t e = *even, o = *odd;
	int32_t ky, kx;

	for (ky = ky0; ky < ky1; ky++) {
		const int16_t *x = at + ky * row_step + kx0 * tap_step;
		const int8_t *w = filter + (ky * filter_w + kx0) * LANES;

		for (kx = kx0; kx < kx1; kx++, x += tap_step, w += LANES) {
			const int16x8_t v = vldrhq_z_s16(x, lanes);
			const int16x8_t f = vldrbq_s16(w);

			e = vaddq_s32(e, vmullbq_int_s16(v, f));
			o = vaddq_s32(o, vmulltq_int_s16(v, f));
		}
	}
	*even = e;
	*odd = o;
}
#else
/* Lane l's field: the even channels' 4 values, then the odd channels'. */
static int32_t field(const int32_t *k, int32_t which, int32_t lane)
{
	return k[which * LANES + (lane & 1) * 4 + (lane >> 1)];
}
#endif

HELIUM_HOT void usmp_helium_depthwise_s16(const struct usmp_helium_depthwise_s16_params *p, const int16_t *input,
					  const int8_t *constants, int16_t *output)
{
	const int32_t channels = p->channels, taps = p->filter_h * p->filter_w;
	const int32_t group_bytes = 4 * GROUP_FIELDS + LANES * taps;
	const int32_t row_step = p->dilation_h * p->in_w * channels, tap_step = p->dilation_w * channels;
	int32_t b, oy, ox, c;
#if USMP_HELIUM_NATIVE
	const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
#endif

	for (b = 0; b < p->batches; b++) {
		const int16_t *image = input + b * p->in_h * p->in_w * channels;

		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;
			int32_t ky0 = 0, ky1 = p->filter_h;

			while (ky0 < ky1 && iy0 + ky0 * p->dilation_h < 0)
				ky0++;
			while (ky1 > ky0 && iy0 + (ky1 - 1) * p->dilation_h >= p->in_h)
				ky1--;
			for (ox = 0; ox < p->out_w; ox++, output += channels) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const int8_t *group = constants;
				int32_t kx0 = 0, kx1 = p->filter_w;

				while (kx0 < kx1 && ix0 + kx0 * p->dilation_w < 0)
					kx0++;
				while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w)
					kx1--;
				const int16_t *pixel = image + (iy0 * p->in_w + ix0) * channels;

				for (c = 0; c < channels; c += LANES, group += group_bytes) {
					const int32_t *k = (const int32_t *)group;
					const int8_t *filter = group + 4 * GROUP_FIELDS;
					const int16_t *at = pixel + c;
#if USMP_HELIUM_NATIVE
					const mve_pred16_t lanes = vctp16q((uint32_t)(channels - c));
					int32x4_t even = vldrwq_s32(k), odd = vldrwq_s32(k + 4);

					if (ky0 == ky1 || kx0 == kx1)
						; /* the window lies in the padding: the bias alone */
					else if (channels - c >= LANES)
						window_sums(at, filter, ky0, ky1, kx0, kx1, row_step, tap_step, p->filter_w,
							    &even, &odd);
					else
						tail_sums(at, filter, ky0, ky1, kx0, kx1, row_step, tap_step, p->filter_w,
							  lanes, &even, &odd);
					vstrhq_p_s16(output + c, rescale(even, odd, k, lo, hi), lanes);
#else
					int32_t lane, ky, kx;

					for (lane = 0; lane < LANES && c + lane < channels; lane++) {
						int32_t sum = field(k, 0, lane), scaled;

						for (ky = ky0; ky < ky1; ky++)
							for (kx = kx0; kx < kx1; kx++)
								sum += at[ky * row_step + kx * tap_step + lane] *
								       filter[(ky * p->filter_w + kx) * LANES + lane];
						scaled = (int32_t)(((int64_t)sum * field(k, 1, lane)) >> 32) + field(k, 2, lane);
						scaled >>= -field(k, 3, lane);
						scaled = scaled < p->act_min ? p->act_min : scaled > p->act_max ? p->act_max : scaled;
						output[c + lane] = (int16_t)scaled;
					}
#endif
				}
			}
		}
	}
}
