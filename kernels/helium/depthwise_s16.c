/*
 * 16x8 DEPTHWISE_CONV_2D (multiplier 1) on Helium (see usmp_kernels/helium.h).
 *
 * Eight channels a vector: per tap one load of the pixel's eight int16
 * values, one widening load of the tap's eight filter bytes, and VMULLB /
 * VMULLT (the even and the odd channels' products as int32) added into two
 * sums of four lanes that start from the biases. Zero points are 0, so taps
 * outside the input are skipped. The sums are rescaled as the matrix kernel's,
 * narrowed back into channel order (VMOVNB, VMOVNT) and stored, the last
 * group of channels tail-predicated. Along an output row, the pixels whose
 * windows lie wholly inside the input's width go group by group through one
 * assembly block a pixel (the taps, the rescale and the store); the pixels at
 * the borders, and the last partial group, through the general loop.
 */
#include "usmp_kernels/helium.h"

#include "helium_ops.h"

enum { LANES = 8, GROUP_FIELDS = 32 }; /* int32 fields of a group before its filter */

/* The rows [ky0, ky1) and columns [kx0, kx1) of a window that lie inside the input. */
struct span {
	int32_t ky0, ky1, kx0, kx1;
};

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
#else
/* Lane l's field: the even channels' 4 values, then the odd channels'. */
static int32_t field(const int32_t *k, int32_t which, int32_t lane)
{
	return k[which * LANES + (lane & 1) * 4 + (lane >> 1)];
}
#endif

/* One group's outputs of one pixel (any span, a full or the last partial group), `at` the window's first tap. */
HELIUM_HOT static void group_pixel(const struct usmp_helium_depthwise_s16_params *p, const int16_t *at,
				   const int8_t *group, struct span s, int32_t lanes_left, int16_t *out)
{
	const int32_t *k = (const int32_t *)group;
	const int8_t *filter = group + 4 * GROUP_FIELDS;
	const int32_t row_step = p->dilation_h * p->in_w * p->channels, tap_step = p->dilation_w * p->channels;
	int32_t ky, kx;
#if USMP_HELIUM_NATIVE
	const mve_pred16_t lanes = vctp16q((uint32_t)lanes_left);
	int32x4_t e = vldrwq_s32(k), o = vldrwq_s32(k + 4);

	for (ky = s.ky0; ky < s.ky1; ky++) {
		const int16_t *x = at + ky * row_step + s.kx0 * tap_step;
		const int8_t *w = filter + (ky * p->filter_w + s.kx0) * LANES;

		for (kx = s.kx0; kx < s.kx1; kx++, x += tap_step, w += LANES) {
			const int16x8_t v = vldrhq_z_s16(x, lanes);
			const int16x8_t f = vldrbq_s16(w);

			e = vaddq_s32(e, vmullbq_int_s16(v, f));
			o = vaddq_s32(o, vmulltq_int_s16(v, f));
		}
	}
	vstrhq_p_s16(out, rescale(e, o, k, vdupq_n_s32(p->act_min), vdupq_n_s32(p->act_max)), lanes);
#else
	int32_t lane;

	for (lane = 0; lane < LANES && lane < lanes_left; lane++) {
		int32_t sum = field(k, 0, lane), scaled;

		for (ky = s.ky0; ky < s.ky1; ky++)
			for (kx = s.kx0; kx < s.kx1; kx++)
				sum += at[ky * row_step + kx * tap_step + lane] * filter[(ky * p->filter_w + kx) * LANES + lane];
		scaled = (int32_t)(((int64_t)sum * field(k, 1, lane)) >> 32) + field(k, 2, lane);
		scaled >>= -field(k, 3, lane);
		scaled = scaled < p->act_min ? p->act_min : scaled > p->act_max ? p->act_max : scaled;
		out[lane] = (int16_t)scaled;
	}
#endif
}

#if USMP_HELIUM_NATIVE
/* group_run's assembly: the sums from the biases, a tap (the pixel's channels at x times the filter's next 8
 * bytes), the next filter row, and the rescale, clamp and store. */
#define DW_START                                  \
	"	vldrw.u32	%q[e], [%[k]]\n"          \
	"	vldrw.u32	%q[o], [%[k], #16]\n"     \
	"	mov	%[row], %[at]\n"                    \
	"	mov	%[w], %[filter]\n"
#define DW_TAP                                     \
	"	vldrh.16	%q[v], [%[x]]\n"               \
	"	vldrb.s16	%q[f], [%[w]], #8\n"          \
	"	vmullb.s16	%q[t], %q[v], %q[f]\n"       \
	"	vadd.i32	%q[e], %q[e], %q[t]\n"         \
	"	vmullt.s16	%q[t], %q[v], %q[f]\n"       \
	"	vadd.i32	%q[o], %q[o], %q[t]\n"
#define DW_NEXT_ROW                                \
	"	add	%[row], %[row], %[rs]\n"             \
	"	subs	%[left], %[left], #1\n"             \
	"	bne	1b\n"
#define DW_FINISH                                  \
	"	vldrw.u32	%q[t], [%[k], #32]\n"     \
	"	vmulh.s32	%q[e], %q[e], %q[t]\n"     \
	"	vldrw.u32	%q[t], [%[k], #48]\n"     \
	"	vmulh.s32	%q[o], %q[o], %q[t]\n"     \
	"	vldrw.u32	%q[t], [%[k], #64]\n"     \
	"	vadd.i32	%q[e], %q[e], %q[t]\n"      \
	"	vldrw.u32	%q[t], [%[k], #80]\n"     \
	"	vadd.i32	%q[o], %q[o], %q[t]\n"      \
	"	vldrw.u32	%q[t], [%[k], #96]\n"     \
	"	vshl.s32	%q[e], %q[e], %q[t]\n"      \
	"	vldrw.u32	%q[t], [%[k], #112]\n"    \
	"	vshl.s32	%q[o], %q[o], %q[t]\n"      \
	"	vmax.s32	%q[e], %q[e], %q[lo]\n"     \
	"	vmax.s32	%q[o], %q[o], %q[lo]\n"     \
	"	vmin.s32	%q[e], %q[e], %q[hi]\n"     \
	"	vmin.s32	%q[o], %q[o], %q[hi]\n"     \
	"	vmovnb.i32	%q[v], %q[e]\n"            \
	"	vmovnt.i32	%q[v], %q[o]\n"            \
	"	vstrh.16	%q[v], [%[out]]\n"
#define DW_OUTPUTS                                                                                        \
	: [e] "=&w"(e), [o] "=&w"(o), [t] "=&w"(t), [v] "=&w"(v), [f] "=&w"(f), [row] "=&r"(row), [x] "=&r"(x), \
	  [w] "=&l"(w), [left] "+r"(left)
#define DW_INPUTS                                                                                          \
	: [k] "r"(k), [at] "r"(at), [filter] "r"(filter), [taps] "r"(taps), [ts] "r"(ts), [rs] "r"(rs),           \
	  [out] "r"(out), [lo] "w"(lo), [hi] "w"(hi)
#define DW_CLOBBERS : "lr", "memory", "cc"
#endif

/*
 * One full group's outputs of `count` pixels of an output row whose windows span every column of the filter
 * (rows s.ky0 to s.ky1), `at` the first pixel's first tap: in assembly, per pixel the sums from the biases, per
 * filter row a low-overhead loop over its taps, the rescale (fields reloaded: eight vector registers hold the
 * sums, the operands and the clamp) and the store.
 */
HELIUM_HOT static void group_run(const struct usmp_helium_depthwise_s16_params *p, const int16_t *at,
				 const int8_t *group, struct span s, int32_t count, int16_t *out)
{
#if USMP_HELIUM_NATIVE
	const int32_t *k = (const int32_t *)group;
	const int8_t *filter = group + 4 * GROUP_FIELDS + s.ky0 * p->filter_w * LANES;
	const int32_t ts = 2 * p->dilation_w * p->channels, rs = 2 * p->dilation_h * p->in_w * p->channels;
	const int32_t pixel = p->stride_w * p->channels, rows = s.ky1 - s.ky0, taps = p->filter_w;
	const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
	int32_t n;

	at += s.ky0 * (rs / 2);
	for (n = 0; n < count; n++, at += pixel, out += p->channels) {
		const int16_t *row, *x;
		const int8_t *w;
		int32_t left = rows;
		int32x4_t e, o, t;
		int16x8_t v, f;

		if (taps == 3) /* three taps a row, unrolled */
			__asm volatile(DW_START "1:	mov	%[x], %[row]\n" DW_TAP "	add	%[x], %[x], %[ts]\n" DW_TAP
				       "	add	%[x], %[x], %[ts]\n" DW_TAP DW_NEXT_ROW DW_FINISH
				       DW_OUTPUTS DW_INPUTS DW_CLOBBERS);
		else
			__asm volatile(DW_START "1:	mov	%[x], %[row]\n"
				       "	dls	lr, %[taps]\n"
				       "2:" DW_TAP "	add	%[x], %[x], %[ts]\n"
				       "	le	lr, 2b\n" DW_NEXT_ROW DW_FINISH
				       DW_OUTPUTS DW_INPUTS DW_CLOBBERS);
	}
#else
	int32_t n;

	for (n = 0; n < count; n++, at += p->stride_w * p->channels, out += p->channels)
		group_pixel(p, at, group, s, LANES, out);
#endif
}

/* One full group's outputs of one pixel whose window the input's width cuts (columns s.kx0 to s.kx1 of the
 * filter), `at` its window's first tap (row 0, column 0): group_run's assembly, the columns left out skipped. */
HELIUM_HOT static void group_edge(const struct usmp_helium_depthwise_s16_params *p, const int16_t *at,
				  const int8_t *group, struct span s, int16_t *out)
{
#if USMP_HELIUM_NATIVE
	const int32_t *k = (const int32_t *)group;
	const int8_t *filter = group + 4 * GROUP_FIELDS + (s.ky0 * p->filter_w + s.kx0) * LANES;
	const int32_t ts = 2 * p->dilation_w * p->channels, rs = 2 * p->dilation_h * p->in_w * p->channels;
	const int32_t taps = s.kx1 - s.kx0, skip = (p->filter_w - taps) * LANES;
	const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
	const int16_t *row, *x;
	const int8_t *w;
	int32_t left = s.ky1 - s.ky0;
	int32x4_t e, o, t;
	int16x8_t v, f;

	at += s.ky0 * (rs / 2) + s.kx0 * (ts / 2);
	__asm volatile(DW_START "1:	mov	%[x], %[row]\n"
		       "	dls	lr, %[taps]\n"
		       "2:" DW_TAP "	add	%[x], %[x], %[ts]\n"
		       "	le	lr, 2b\n"
		       "	add	%[w], %[w], %[skip]\n" DW_NEXT_ROW DW_FINISH DW_OUTPUTS DW_INPUTS, [skip] "r"(skip) DW_CLOBBERS);
#else
	group_pixel(p, at, group, s, LANES, out);
#endif
}

HELIUM_HOT void usmp_helium_depthwise_s16(const struct usmp_helium_depthwise_s16_params *p, const int16_t *input,
					  const int8_t *constants, int16_t *output)
{
	const int32_t channels = p->channels, taps = p->filter_h * p->filter_w, full = channels / LANES;
	const int32_t group_bytes = 4 * GROUP_FIELDS + LANES * taps;
	int32_t b, oy, ox, g, first = 0, end = p->out_w;

	/* the output columns whose windows lie inside the input's width: [first, end) */
	while (first < end && first * p->stride_w - p->pad_left < 0)
		first++;
	while (end > first && (end - 1) * p->stride_w - p->pad_left + (p->filter_w - 1) * p->dilation_w >= p->in_w)
		end--;
	for (b = 0; b < p->batches; b++) {
		const int16_t *image = input + b * p->in_h * p->in_w * channels;

		for (oy = 0; oy < p->out_h; oy++, output += p->out_w * channels) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;
			const int16_t *row = image + iy0 * p->in_w * channels;
			struct span s = { 0, p->filter_h, 0, p->filter_w };

			while (s.ky0 < s.ky1 && iy0 + s.ky0 * p->dilation_h < 0)
				s.ky0++;
			while (s.ky1 > s.ky0 && iy0 + (s.ky1 - 1) * p->dilation_h >= p->in_h)
				s.ky1--;
			const int runs = s.ky0 < s.ky1 && first < end;

			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const int16_t *at = row + ix0 * channels;
				struct span c = s;
				int32_t from = 0;

				if (ox >= first && ox < end) { /* inside: the runs below take the full groups */
					if (runs && full * LANES == channels) {
						ox = end - 1;
						continue;
					}
					if (runs)
						from = full;
				} else {
					while (c.kx0 < c.kx1 && ix0 + c.kx0 * p->dilation_w < 0)
						c.kx0++;
					while (c.kx1 > c.kx0 && ix0 + (c.kx1 - 1) * p->dilation_w >= p->in_w)
						c.kx1--;
				}
				if (c.ky0 < c.ky1 && c.kx0 < c.kx1)
					for (; from < full; from++)
						group_edge(p, at + from * LANES, constants + from * group_bytes, c,
							   output + ox * channels + from * LANES);
				for (g = from; g * LANES < channels; g++)
					group_pixel(p, at + g * LANES, constants + g * group_bytes, c,
						    channels - g * LANES, output + ox * channels + g * LANES);
			}
			if (runs)
				for (g = 0; g < full; g++)
					group_run(p, row + (first * p->stride_w - p->pad_left) * channels + g * LANES,
						  constants + g * group_bytes, s, end - first, output + first * channels + g * LANES);
		}
	}
}
