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
__attribute__((noinline)) HELIUM_HOT static void group_pixel(const struct usmp_helium_depthwise_s16_params *p, const int16_t *at,
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
	"	vshl.s32	%q[o], %q[o], %q[t]\n"
#define DW_STORE                                   \
	"	vmovnb.i32	%q[v], %q[e]\n"            \
	"	vmovnt.i32	%q[v], %q[o]\n"            \
	"	vstrh.16	%q[v], [%[out]]\n"
/* the clamp before the narrowing, its bounds loaded from the parameters (no vector registers kept for them) */
#define DW_CLAMP                            \
	"	ldr	%[x], %[lo]\n"                   \
	"	vdup.32	%q[t], %[x]\n"                 \
	"	vmax.s32	%q[e], %q[e], %q[t]\n"      \
	"	vmax.s32	%q[o], %q[o], %q[t]\n"      \
	"	ldr	%[x], %[hi]\n"                   \
	"	vdup.32	%q[t], %[x]\n"                 \
	"	vmin.s32	%q[e], %q[e], %q[t]\n"      \
	"	vmin.s32	%q[o], %q[o], %q[t]\n"
#define DW_OUTPUTS                                                                                        \
	: [e] "=&w"(e), [o] "=&w"(o), [t] "=&w"(t), [v] "=&w"(v), [f] "=&w"(f), [row] "=&r"(row), [x] "=&r"(x), \
	  [w] "=&l"(w), [left] "+r"(left)
#define DW_INPUTS                                                                                          \
	: [k] "r"(k), [at] "r"(at), [filter] "r"(filter), [taps] "r"(taps), [ts] "r"(ts), [rs] "r"(rs),           \
	  [out] "r"(out)
#define DW_BOUNDS [lo] "m"(p->act_min), [hi] "m"(p->act_max)
#define DW_CLOBBERS : "lr", "memory", "cc"
#endif

/*
 * One full group's outputs of `count` pixels of an output row whose windows span every column of the filter
 * (rows s.ky0 to s.ky1), `at` the first pixel's first tap: in assembly, per pixel the sums from the biases, per
 * filter row a low-overhead loop over its taps, the rescale (fields and clamp bounds reloaded: five vector registers, the
 * sums and the operands: one callee-saved) and the store; out of line, called once a row and group.
 */
__attribute__((noinline)) HELIUM_HOT static void group_run(const struct usmp_helium_depthwise_s16_params *p, const int16_t *at,
				 const int8_t *group, struct span s, int32_t count, int16_t *out)
{
#if USMP_HELIUM_NATIVE
	const int32_t *k = (const int32_t *)group;
	const int8_t *filter = group + 4 * GROUP_FIELDS + s.ky0 * p->filter_w * LANES;
	const int32_t ts = 2 * p->dilation_w * p->channels, rs = 2 * p->dilation_h * p->in_w * p->channels;
	const int32_t pixel = p->stride_w * p->channels, rows = s.ky1 - s.ky0, taps = p->filter_w;
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
				       DW_CLAMP DW_STORE DW_OUTPUTS DW_INPUTS, DW_BOUNDS DW_CLOBBERS);
		else
			__asm volatile(DW_START "1:	mov	%[x], %[row]\n"
				       "	dls	lr, %[taps]\n"
				       "2:" DW_TAP "	add	%[x], %[x], %[ts]\n"
				       "	le	lr, 2b\n" DW_NEXT_ROW DW_FINISH
				       DW_CLAMP DW_STORE DW_OUTPUTS DW_INPUTS, DW_BOUNDS DW_CLOBBERS);
	}
#else
	int32_t n;

	for (n = 0; n < count; n++, at += p->stride_w * p->channels, out += p->channels)
		group_pixel(p, at, group, s, LANES, out);
#endif
}

/* The first `full` groups' outputs of one pixel whose window the input cuts (rows s->ky0 to s->ky1, columns s->kx0
 * to s->kx1 of the filter), `at` its window's first tap (row 0, column 0), the groups' constants group_bytes
 * apart: group_run's assembly a group, the columns left out skipped; one call a pixel. */
__attribute__((noinline)) HELIUM_HOT static void edge_groups(const struct usmp_helium_depthwise_s16_params *p,
							   const int16_t *at, const int8_t *group, int32_t group_bytes,
							   const struct span *s, int32_t full, int16_t *out)
{
#if USMP_HELIUM_NATIVE
	const int32_t ts = 2 * p->dilation_w * p->channels, rs = 2 * p->dilation_h * p->in_w * p->channels;
	const int32_t taps = s->kx1 - s->kx0, skip = (p->filter_w - taps) * LANES, rows = s->ky1 - s->ky0;
	const int32_t first_tap = (s->ky0 * p->filter_w + s->kx0) * LANES;

	at += s->ky0 * (rs / 2) + s->kx0 * (ts / 2);
	for (; full > 0; full--, at += LANES, group += group_bytes, out += LANES) {
		const int32_t *k = (const int32_t *)group;
		const int8_t *w = group + 4 * GROUP_FIELDS + first_tap;
		const int16_t *x, *a = at;
		int32_t left = rows;
		int32x4_t e, o, t;
		int16x8_t v, f;

		__asm volatile("	vldrw.u32	%q[e], [%[k]]\n"
			       "	vldrw.u32	%q[o], [%[k], #16]\n"
			       "1:	mov	%[x], %[a]\n"
			       "	dls	lr, %[taps]\n"
			       "2:" DW_TAP "	add	%[x], %[x], %[ts]\n"
			       "	le	lr, 2b\n"
			       "	add	%[w], %[w], %[skip]\n"
			       "	add	%[a], %[a], %[rs]\n"
			       "	subs	%[left], %[left], #1\n"
			       "	bne	1b\n" DW_FINISH DW_CLAMP DW_STORE
			       : [e] "=&w"(e), [o] "=&w"(o), [t] "=&w"(t), [v] "=&w"(v), [f] "=&w"(f), [x] "=&r"(x),
				 [w] "+&l"(w), [left] "+&r"(left), [a] "+&r"(a)
			       : [k] "r"(k), [taps] "r"(taps), [ts] "r"(ts), [rs] "r"(rs), [out] "r"(out), [skip] "r"(skip),
				 DW_BOUNDS
			       : "lr", "memory", "cc");
	}
#else
	for (; full > 0; full--, at += LANES, group += group_bytes, out += LANES)
		group_pixel(p, at, group, *s, LANES, out);
#endif
}

/* The driver's loops, in the call's state (planned scratch) rather than in its frame: read back after each call. */
struct dw16_loop {
	const int16_t *row;   /* the output row's first window's row, column 0 */
	int32_t out_at;       /* the output row's first element */
	struct span s;        /* the output row's span */
	struct span c;        /* the pixel's span */
	int32_t b, oy, ox, g, from, first, end;
};
typedef char dw16_state_fits[sizeof(struct dw16_loop) <= USMP_HELIUM_DW_S16_STATE_BYTES ? 1 : -1];

HELIUM_HOT void usmp_helium_depthwise_s16(const struct usmp_helium_depthwise_s16_params *p, const int16_t *input,
					  const int8_t *constants, int32_t *state, int16_t *output)
{
	struct dw16_loop *l = (struct dw16_loop *)state;
	const int32_t channels = p->channels, full = channels / LANES;
	const int32_t group_bytes = 4 * GROUP_FIELDS + LANES * p->filter_h * p->filter_w;

	/* the output columns whose windows lie inside the input's width: [first, end) */
	for (l->first = 0, l->end = p->out_w; l->first < l->end && l->first * p->stride_w - p->pad_left < 0;)
		l->first++;
	while (l->end > l->first &&
	       (l->end - 1) * p->stride_w - p->pad_left + (p->filter_w - 1) * p->dilation_w >= p->in_w)
		l->end--;
	l->out_at = 0;
	for (l->b = 0; l->b < p->batches; l->b++) {
		for (l->oy = 0; l->oy < p->out_h; l->oy++, l->out_at += p->out_w * channels) {
			const int32_t iy0 = l->oy * p->stride_h - p->pad_top;

			l->row = input + (l->b * p->in_h + iy0) * p->in_w * channels;
			l->s = (struct span){ 0, p->filter_h, 0, p->filter_w };
			while (l->s.ky0 < l->s.ky1 && iy0 + l->s.ky0 * p->dilation_h < 0)
				l->s.ky0++;
			while (l->s.ky1 > l->s.ky0 && iy0 + (l->s.ky1 - 1) * p->dilation_h >= p->in_h)
				l->s.ky1--;
			const int runs = l->s.ky0 < l->s.ky1 && l->first < l->end;

			for (l->ox = 0; l->ox < p->out_w; l->ox++) {
				const int32_t ix0 = l->ox * p->stride_w - p->pad_left;

				l->c = l->s;
				l->from = 0;
				if (l->ox >= l->first && l->ox < l->end) { /* inside: the runs below take the full groups */
					if (runs && full * LANES == channels) {
						l->ox = l->end - 1;
						continue;
					}
					if (runs)
						l->from = full;
				} else {
					while (l->c.kx0 < l->c.kx1 && ix0 + l->c.kx0 * p->dilation_w < 0)
						l->c.kx0++;
					while (l->c.kx1 > l->c.kx0 && ix0 + (l->c.kx1 - 1) * p->dilation_w >= p->in_w)
						l->c.kx1--;
				}
				if (l->c.ky0 < l->c.ky1 && l->c.kx0 < l->c.kx1 && l->from < full) {
					edge_groups(p, l->row + ix0 * channels, constants, group_bytes, &l->c, full,
						    output + l->out_at + l->ox * channels);
					l->from = full;
				}
				for (l->g = l->from; l->g * LANES < channels; l->g++)
					group_pixel(p, l->row + ix0 * channels + l->g * LANES, constants + l->g * group_bytes,
						    l->c, channels - l->g * LANES, output + l->out_at + l->ox * channels + l->g * LANES);
			}
			if (runs)
				for (l->g = 0; l->g < full; l->g++)
					group_run(p, l->row + (l->first * p->stride_w - p->pad_left) * channels + l->g * LANES,
						  constants + l->g * group_bytes, l->s, l->end - l->first,
						  output + l->out_at + l->first * channels + l->g * LANES);
		}
	}
}
