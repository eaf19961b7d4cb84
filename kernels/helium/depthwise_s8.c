/*
 * DEPTHWISE_CONV_2D (multiplier 1) on Helium (see usmp_kernels/helium.h).
 *
 * The input rows a window reads are first copied, 16 channels at a time,
 * into strips: rows of pixels padded with the input zero point on both
 * sides (and rows outside the input all zero point), so every window is
 * read the same way and the folded bias is exact everywhere. The strips of
 * a group of channels form a ring of filter_h rows: stepping down an output
 * row copies only the input rows not yet there. Where fewer channels divide
 * 16 and the stride along the width is 1 (MobileNet's first depthwise
 * layer: 8 channels), a strip holds the pixels' channels as they are, and a
 * vector spans 16 / channels pixels.
 *
 * Per tap one 16-lane input vector and the 16 filter bytes are multiplied
 * into int16 products (VMULLB/VMULLT: even and odd lanes); two taps' products
 * are added in int16 (|x| <= 128 and |w| <= 127 keep two in range) and
 * widened into four int32 sums, lanes (0, 4, 8, 12), (2, 6, 10, 14),
 * (1, 5, 9, 13) and (3, 7, 11, 15), which the compiler's constants follow;
 * requantization narrows them back into lane order (VQMOVN, then the zero
 * point and clamp on int16, VMOVN).
 */
#include "usmp_kernels/helium.h"

#include <stddef.h>

#include "usmp_kernels/arith.h"

#include "helium_ops.h"

/* A group's constants: the biases, the filter's taps (16 bytes each), the multipliers, the right shifts and,
 * general, the left shifts, the int32 fields in the sums' lane order. */
static int32_t group_bytes(int32_t taps, int32_t general)
{
	return 64 + 16 * taps + (general ? 192 : 128);
}

/* Bytes of one pixel in a strip: the channels themselves where a vector spans several pixels, else 16. */
HELIUM_INLINE int32_t lane_bytes(const struct usmp_helium_depthwise_params *p)
{
	return p->pixels_per_vector > 1 ? p->channels : 16;
}

#if USMP_HELIUM_NATIVE
/* What dw_vectors reads (the offsets used there). */
struct dw_job {
	const int8_t *row0;  /* 0: the first group's first vector's first tap in its strip */
	const int8_t *row1;  /* 4: the same column of the second filter row's strip */
	const int8_t *row2;  /* 8: of the third's */
	int32_t step;        /* 12: bytes from one vector's first tap to the next's */
	int32_t count;       /* 16: vectors a group */
	const int8_t *group; /* 20: the first group's constants */
	int8_t *out;         /* 24: its first vector's output */
	int32_t out_step;    /* 28 */
	int32_t groups;      /* 32 */
	int32_t zero_point;  /* 36: the output zero point */
	int32_t act_min;     /* 40 */
	int32_t act_max;     /* 44 */
	uint32_t lanes;      /* 48: the lanes of the last group stored, as VPR.P0 (the others store 16) */
	int32_t strip_bytes; /* 52: from a group's strip to the next group's */
	int32_t group_bytes; /* 56: from a group's constants to the next group's */
	union {
		uint32_t saved[16]; /* 60: d8-d15 (callee-saved) while the assembly runs, kept here rather than on the stack */
		int16_t even[8];    /* dw_row_general's even lanes while it sums the odd ones (the assembly is not running) */
	};
};

/* Two taps, the strips at a and b (addressing modes), times the filter's taps at [r9, #wa] and [r9, #wb] (the
 * group's constants, read as words: the bytes are the same): their int16 products summed into q6 (even lanes) and
 * q7 (odd), then widened into the sums q0..q3. The second tap's input is loaded again rather than kept (eight
 * registers hold the rest): first at b, then at b_again (b, or b with the strip's post-increment). */
#define DW_ASM_PAIR(a, b, b_again, wa, wb)    \
	"	vldrb.8	q4, " a "\n"          \
	"	vldrw.u32	q5, [r9, #" wa "]\n" \
	"	vmullb.s8	q6, q4, q5\n" \
	"	vmullt.s8	q7, q4, q5\n" \
	"	vldrb.8	q4, " b "\n"          \
	"	vldrw.u32	q5, [r9, #" wb "]\n" \
	"	vmullb.s8	q4, q4, q5\n" \
	"	vadd.i16	q6, q6, q4\n" \
	"	vldrb.8	q4, " b_again "\n"    \
	"	vmullt.s8	q4, q4, q5\n" \
	"	vadd.i16	q7, q7, q4\n" DW_ASM_WIDEN
#define DW_ASM_WIDEN                          \
	"	vmovlb.s16	q4, q6\n"     \
	"	vadd.i32	q0, q0, q4\n" \
	"	vmovlt.s16	q4, q6\n"     \
	"	vadd.i32	q1, q1, q4\n" \
	"	vmovlb.s16	q4, q7\n"     \
	"	vadd.i32	q2, q2, q4\n" \
	"	vmovlt.s16	q4, q7\n"     \
	"	vadd.i32	q3, q3, q4\n"
/* Sum q<n> requantized (right shifts only): its multipliers at [r9, #m], its shifts at [r9, #s]. */
#define DW_ASM_REQUANT(n, m, s)                      \
	"	vldrw.u32	q4, [r9, #" m "]\n"  \
	"	vldrw.u32	q5, [r9, #" s "]\n"  \
	"	vqrdmulh.s32	q" n ", q" n ", q4\n" \
	"	vshr.s32	q4, q" n ", #31\n"   \
	"	vqadd.s32	q" n ", q" n ", q4\n" \
	"	vrshl.s32	q" n ", q" n ", q5\n"

/*
 * `count` vectors of each of `groups` groups of a 3x3 layer whose shifts are all right shifts, in assembly (GCC
 * spilled the sums and the predicate), the taps of a filter row `tap` bytes apart in its strip and consecutive
 * vectors `step` bytes apart (immediates: one function per strip layout and stride). Per vector the four sums
 * start from the group's biases and take the nine taps in pairs from the three strips (r0, r5, r8: each moves on
 * by `step` at its last load, the one of its first tap); then they are requantized, narrowed with saturation into
 * int16 (even channels, odd channels), offset by the zero point there, narrowed with saturation into lane order
 * (the whole int8 range: a narrower activation is clamped after, dw_clamp) and stored under the group's lanes
 * (VPR.P0: all 16 but in the last group; `store` moves the output on). Between groups the strips, the constants
 * and the output move on by a group (the job keeps the group's first addresses).
 */
#define DW_VECTORS(name, tap, tap2, step, store)                                                                 \
	__attribute__((naked, noinline)) static void name(struct dw_job *job)                                      \
	{                                                                                                          \
		(void)job;                                                                                         \
		__asm volatile("	push	{r4-r11, lr}\n"                                                     \
			       "	add	r2, r0, #60\n"                                                      \
			       "	vstmia	r2, {d8-d15}\n"                                                     \
			       "	mov	r1, r0\n"                                                           \
			       "	ldr	r12, [r1, #36]\n"                                                   \
			       "	ldrd	r9, r3, [r1, #20]\n"                                                \
			       "	ldrd	r11, r4, [r1, #28]\n"                                               \
			       "	ldrd	r0, r5, [r1, #0]\n"                                                 \
			       "	ldr	r8, [r1, #8]\n"                                                     \
			       "0:	movw	r2, #65535\n"                                                       \
			       "	cmp	r4, #1\n"                                                           \
			       "	it	eq\n"                                                               \
			       "	ldreq	r2, [r1, #48]\n"                                                    \
			       "	vmsr	p0, r2\n"                                                           \
			       "	ldr	r2, [r1, #16]\n"                                                    \
			       "	dls	lr, r2\n"                                                           \
			       "1:	vldrw.u32	q0, [r9]\n"                                                 \
			       "	vldrw.u32	q1, [r9, #16]\n"                                            \
			       "	vldrw.u32	q2, [r9, #32]\n"                                            \
			       "	vldrw.u32	q3, [r9, #48]\n"                                            \
			       DW_ASM_PAIR("[r0, #" tap "]", "[r0, #" tap2 "]", "[r0, #" tap2 "]", "80", "96")        \
			       DW_ASM_PAIR("[r5, #" tap "]", "[r0]", "[r0], #" step, "128", "64")                     \
			       DW_ASM_PAIR("[r5, #" tap2 "]", "[r5]", "[r5], #" step, "144", "112")                   \
			       DW_ASM_PAIR("[r8, #" tap "]", "[r8, #" tap2 "]", "[r8, #" tap2 "]", "176", "192")      \
			       "	vldrb.8	q4, [r8], #" step "\n"                                              \
			       "	vldrw.u32	q5, [r9, #160]\n"                                          \
			       "	vmullb.s8	q6, q4, q5\n"                                               \
			       "	vmullt.s8	q7, q4, q5\n" DW_ASM_WIDEN DW_ASM_REQUANT("0", "208", "272") \
			       DW_ASM_REQUANT("1", "224", "288") DW_ASM_REQUANT("2", "240", "304")          \
			       DW_ASM_REQUANT("3", "256", "320")                                           \
			       "	vqmovnb.s32	q6, q0\n"                                                   \
			       "	vqmovnt.s32	q6, q1\n"                                                   \
			       "	vqmovnb.s32	q7, q2\n"                                                   \
			       "	vqmovnt.s32	q7, q3\n"                                                   \
			       "	vqadd.s16	q6, q6, r12\n"                                              \
			       "	vqadd.s16	q7, q7, r12\n"                                              \
			       "	vqmovnb.s16	q4, q6\n"                                                   \
			       "	vqmovnt.s16	q4, q7\n"                                                   \
			       "	vpst\n" store                                                       \
			       "	le	lr, 1b\n"                                                           \
			       "	subs	r4, r4, #1\n"                                                       \
			       "	beq	9f\n"                                                               \
			       "	ldr	r2, [r1, #52]\n"                                                    \
			       "	ldr	r0, [r1, #0]\n"                                                     \
			       "	add	r0, r0, r2\n"                                                       \
			       "	str	r0, [r1, #0]\n"                                                     \
			       "	ldr	r5, [r1, #4]\n"                                                     \
			       "	add	r5, r5, r2\n"                                                       \
			       "	str	r5, [r1, #4]\n"                                                     \
			       "	ldr	r8, [r1, #8]\n"                                                     \
			       "	add	r8, r8, r2\n"                                                       \
			       "	str	r8, [r1, #8]\n"                                                     \
			       "	ldr	r2, [r1, #56]\n"                                                    \
			       "	add	r9, r9, r2\n"                                                       \
			       "	ldr	r3, [r1, #24]\n"                                                    \
			       "	add	r3, r3, #16\n"                                                      \
			       "	str	r3, [r1, #24]\n"                                                    \
			       "	b	0b\n"                                                               \
			       "9:	add	r2, r1, #60\n"                                                      \
			       "	vldmia	r2, {d8-d15}\n"                                                     \
			       "	pop	{r4-r11, pc}\n");                                                   \
	}

/* a pixel's 16 channels a strip column, the output a pixel (r11: the channels) apart; stride 1 and 2 */
#define DW_STORE_PIXEL "	vstrbt.8	q4, [r3]\n	add	r3, r3, r11\n"
DW_VECTORS(dw_vectors_16, "16", "32", "16", DW_STORE_PIXEL)
DW_VECTORS(dw_vectors_16_s2, "16", "32", "32", DW_STORE_PIXEL)
/* 8 channels a pixel, two pixels a vector (stride 1), the outputs consecutive */
DW_VECTORS(dw_vectors_8, "8", "16", "16", "	vstrbt.8	q4, [r3], #16\n")

/* How a pass's input rows go into the strips of a ring slot, the same for every row of a chunk (fill_gathered
 * reads the fields at these offsets). */
struct strip_fill {
	int32_t pixel;       /* 0: bytes of an input pixel (the channels) */
	int32_t left;        /* 4: vectors of the zero point left of the input */
	int32_t inside;      /* 8: pixels inside the input */
	int32_t right;       /* 12: vectors of the zero point right of it */
	int32_t bytes;       /* 16: from a group's strip to the next group's */
	int32_t groups;      /* 20 */
	uint32_t last;       /* 24: the last group's lanes, as VPR.P0 */
	int32_t pad;         /* 28: the input zero point */
	int32_t vectors;     /* 32: of the strips of a slot (a row outside the input) */
	const int8_t *first; /* 36: input row 0's first pixel inside the strips, at the pass's first channel */
	int32_t row;         /* 40: bytes of an input row */
	int32_t copy;        /* 44: the strips' pixels are the input's (one group): a row is one contiguous run */
	int32_t left_bytes;  /* 48: strip bytes left of the input */
};

/* Input row src (NULL: the zero point, a row outside the input) into the strips of a ring slot, group by group:
 * the zero point left of the input, its pixels' 16 channels of the group gathered one a vector (the last group's
 * lanes past the channels zero, under a predicate; a whole group's without one), the zero point right of it. */
__attribute__((naked, noinline)) static void fill_gathered(const struct strip_fill *f, const int8_t *src, int8_t *slot)
{
	(void)f;
	(void)src;
	(void)slot;
	__asm volatile("	push	{r4-r7, lr}\n"
		       "	ldr	r3, [r0, #28]\n"
		       "	vdup.8	q1, r3\n"
		       "	cbz	r1, 8f\n"
		       "	ldrd	r3, r4, [r0, #16]\n"
		       "	ldr	r12, [r0, #0]\n"
		       "1:	mov	r5, r2\n"
		       "	ldr	r6, [r0, #4]\n"
		       "	wls	lr, r6, 2f\n"
		       "3:	vstrb.8	q1, [r5], #16\n"
		       "	le	lr, 3b\n"
		       "2:	mov	r7, r1\n"
		       "	ldr	r6, [r0, #8]\n"
		       "	cmp	r4, #1\n"
		       "	bne	11f\n"
		       "	ldr	lr, [r0, #24]\n"
		       "	vmsr	p0, lr\n"
		       "	add	lr, lr, #1\n"
		       "	cmp	lr, #65536\n"
		       "	beq	11f\n"
		       "	wls	lr, r6, 5f\n"
		       "4:	vpst\n"
		       "	vldrbt.8	q0, [r7]\n"
		       "	add	r7, r7, r12\n"
		       "	vstrb.8	q0, [r5], #16\n"
		       "	le	lr, 4b\n"
		       "	b	5f\n"
		       "11:	wls	lr, r6, 5f\n"
		       "12:	vldrb.8	q0, [r7]\n"
		       "	add	r7, r7, r12\n"
		       "	vstrb.8	q0, [r5], #16\n"
		       "	le	lr, 12b\n"
		       "5:	ldr	r6, [r0, #12]\n"
		       "	wls	lr, r6, 6f\n"
		       "7:	vstrb.8	q1, [r5], #16\n"
		       "	le	lr, 7b\n"
		       "6:	add	r2, r2, r3\n"
		       "	adds	r1, r1, #16\n"
		       "	subs	r4, r4, #1\n"
		       "	bne	1b\n"
		       "	pop	{r4-r7, pc}\n"
		       "8:	ldr	r6, [r0, #32]\n"
		       "	wls	lr, r6, 9f\n"
		       "10:	vstrb.8	q1, [r2], #16\n"
		       "	le	lr, 10b\n"
		       "9:	pop	{r4-r7, pc}\n");
}

/* Input row y (the zero point where y lies outside the input) into the strips of a ring slot. */
HELIUM_INLINE void fill_slot(const struct strip_fill *f, int32_t y, int32_t in_h, int8_t *slot)
{
	const int8_t *src = y >= 0 && y < in_h && f->inside > 0 ? f->first + (size_t)y * f->row : NULL;

	if (!f->copy || src == NULL) {
		fill_gathered(f, src, slot);
		return;
	}
	const int8x16_t pad = vdupq_n_s8((int8_t)f->pad);
	int8_t *to = slot;

	for (int32_t i = 0; i < f->left; i++, to += 16) /* a vector may overlap the row: the copy follows */
		vstrbq_s8(to, pad);
	copy_bytes(slot + f->left_bytes, src, f->inside * f->pixel);
	to = slot + f->left_bytes + f->inside * f->pixel;
	for (int32_t i = 0; i < f->right; i++, to += 16)
		vstrbq_s8(to, pad);
}

/* What a pass keeps during a call, planned with the strips (at their start, USMP_HELIUM_DW_STATE_BYTES) rather
 * than on the stack: the assembly's job (and the registers it saves), the rows' fill, the filter rows' strips. */
struct dw_loop {
	int32_t batch;      /* the image */
	int32_t x0;         /* the first output pixel of a row the strips span */
	int8_t *o;          /* the output row's first vector */
	int32_t oy;         /* the output row */
	int32_t y0;         /* its first filter row's input row */
	int32_t top;        /* the ring slot of its first filter row */
	int32_t filled;     /* the last input row filled */
	int32_t n;          /* vectors of a row the strips span */
	int32_t pixels;     /* their pixels */
	int32_t g0;         /* the pass's first group */
	int32_t general;    /* not the 3x3 assembly: dw_row_general */
	int32_t full;       /* the whole int8 range: no clamp after the assembly */
};
struct dw_state {
	struct dw_job j;
	struct strip_fill f;
	int8_t *rows[USMP_HELIUM_DW_MAX_FILTER_H];
	struct dw_loop l;  /* the kernel's loops: read back after each call rather than kept in a frame */
};
typedef char dw_state_fits[sizeof(struct dw_state) <= USMP_HELIUM_DW_STATE_BYTES ? 1 : -1];
#else
/* The same sums one lane at a time from the same constants, straight from the input (the host tests, builds
 * without Helium). */
static void dw_lanes(const struct usmp_helium_depthwise_params *p, const int8_t *image, int32_t y0, int32_t x0,
		     int32_t offset, const int8_t *g, int32_t count, int8_t *out)
{
	static const uint8_t field_of_lane[16] = { 0, 8, 4, 12, 1, 9, 5, 13, 2, 10, 6, 14, 3, 11, 7, 15 };
	const int32_t taps = p->filter_h * p->filter_w;
	const int32_t *k = (const int32_t *)(const void *)g, *requant = (const int32_t *)(const void *)(g + 64 + 16 * taps);

	for (int32_t lane = 0; lane < count; lane++) {
		const int32_t field = field_of_lane[lane], pixel = (offset + lane) / p->channels;
		const int32_t channel = (offset + lane) % p->channels;
		int32_t sum = k[field];

		for (int32_t ky = 0, t = 0; ky < p->filter_h; ky++) {
			for (int32_t kx = 0; kx < p->filter_w; kx++, t++) {
				const int32_t y = y0 + ky * p->dilation_h;
				const int32_t x = x0 + pixel * p->stride_w + kx * p->dilation_w;
				const int32_t v = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w
							  ? image[((size_t)y * p->in_w + x) * p->channels + channel]
							  : -p->input_offset;

				sum += v * g[64 + 16 * t + lane];
			}
		}
		sum = usmp_mul_by_quantized_multiplier(sum, requant[field],
						       requant[16 + field] + (p->requant_general ? requant[32 + field] : 0));
		out[lane] = (int8_t)usmp_clamp(sum + p->output_offset, p->act_min, p->act_max);
	}
}
#endif

#if USMP_HELIUM_NATIVE
/* The outputs of `count` vectors of each of the job's groups from o clamped to [act_min, act_max]: dw_vectors
 * stores the whole int8 range, a narrower activation takes this pass after (the lanes the job stored only). */
__attribute__((noinline)) static void dw_clamp(const struct dw_job *j, int8_t *o, int32_t count)
{
	const int8x16_t lo = vdupq_n_s8((int8_t)j->act_min), hi = vdupq_n_s8((int8_t)j->act_max);

	for (int32_t gi = 0; gi < j->groups; gi++, o += 16) {
		const mve_pred16_t lanes = gi + 1 < j->groups ? 0xFFFF : (mve_pred16_t)j->lanes;
		int8_t *at = o;

		for (int32_t v = 0; v < count; v++, at += j->out_step)
			vstrbq_p_s8(at, vminq_s8(vmaxq_s8(vldrbq_z_s8(at, lanes), lo), hi), lanes);
	}
}

/* TFLite's requantization of four sums (helium_requantize's steps) with the constants at q: the multipliers, the
 * right shifts at q + 16, the left shifts at q + 32 (general). */
HELIUM_INLINE int32x4_t dw_requantize(const struct usmp_helium_depthwise_params *p, int32x4_t s, const int32_t *q)
{
	if (p->requant_general)
		s = vshlq_s32(s, vldrwq_s32(q + 32));
	s = vqrdmulhq_s32(s, vldrwq_s32(q));
	s = vqaddq_s32(s, vshrq_n_s32(vandq_s32(s, vldrwq_s32(q + 16)), 31));
	return vrshlq_s32(s, vldrwq_s32(q + 16));
}

/* Half the lanes of a vector (odd: the odd ones), any window and requantization: their two sums over the taps
 * (the vector `at` bytes into each filter row's strip, taps `tap` bytes apart along it), requantized, narrowed
 * into int16, offset and clamped. Few vectors live: none to save. */
HELIUM_INLINE int16x8_t dw_half(const struct usmp_helium_depthwise_params *p, const struct dw_state *st, int32_t at,
				const int8_t *g, int odd)
{
	const int32_t tap = lane_bytes(p) * p->dilation_w;
	const int32_t *const k = (const int32_t *)(const void *)g + 8 * odd;
	int32x4_t a = vldrwq_s32(k), b = vldrwq_s32(k + 4);
	const int8_t *w = g + 64;

	for (int32_t ky = 0; ky < p->filter_h; ky++) {
		for (int32_t kx = 0; kx < p->filter_w; kx++, w += 16) {
			const int8x16_t x = vldrbq_s8(st->rows[ky] + at + kx * tap), wv = vldrbq_s8(w);
			const int16x8_t e = odd ? vmulltq_int_s8(x, wv) : vmullbq_int_s8(x, wv);

			a = vaddq_s32(a, vmovlbq_s16(e));
			b = vaddq_s32(b, vmovltq_s16(e));
		}
	}
	const int32_t *const q = (const int32_t *)(const void *)w + 8 * odd;
	int16x8_t h = vqmovntq_s32(vqmovnbq_s32(vdupq_n_s16(0), dw_requantize(p, a, q)), dw_requantize(p, b, q + 4));

	h = vqaddq_n_s16(h, (int16_t)p->output_offset);
	return vminq_s16(vmaxq_s16(h, vdupq_n_s16((int16_t)p->act_min)), vdupq_n_s16((int16_t)p->act_max));
}

/* Any window and requantization: the `n` vectors of an output row (its first `pixels` pixels), each group's one
 * at a time, half the lanes at a time (the even ones wait in the state). Out of line, so that its locals stay
 * off the common path's frame. */
__attribute__((noinline)) static void dw_row_general(const struct usmp_helium_depthwise_params *p, struct dw_state *st)
{
	const struct dw_job *const j = &st->j;
	const int32_t per = p->pixels_per_vector, ch = p->channels;

	for (int32_t gi = 0; gi < j->groups; gi++) {
		const int32_t left = per > 1 ? ch : ch - 16 * (st->l.g0 + gi);

		for (int32_t v = 0; v < st->l.n; v++) {
			const int32_t in_vector = st->l.pixels - v * per < per ? st->l.pixels - v * per : per;
			const int32_t at = gi * j->strip_bytes + v * j->step;
			const int8_t *const g = j->group + gi * j->group_bytes;

			vstrhq_s16(st->j.even, dw_half(p, st, at, g, 0));
			const int16x8_t odd = dw_half(p, st, at, g, 1);

			vstrbq_p_s8(st->l.o + 16 * gi + (size_t)v * j->out_step,
				    vmovntq_s16(vmovnbq_s16(vdupq_n_s8(0), vldrhq_s16(st->j.even)), odd),
				    vctp8q((uint32_t)(per > 1 ? in_vector * ch : left < 16 ? left : 16)));
		}
	}
}
#endif

#if USMP_HELIUM_NATIVE
/* The ring slots of the output row's filter rows (st->rows) filled: with dilation 1 the slot of input row y is
 * (top + y - y0) mod filter_h, and only the rows not yet there are filled. */
HELIUM_INLINE void dw_fill_rows(const struct usmp_helium_depthwise_params *p, struct dw_state *st)
{
	struct dw_loop *const l = &st->l;
	const int32_t fh = p->filter_h, y0 = l->y0, slot_bytes = st->f.vectors << 4; /* a ring slot's strips */
	int8_t *const ring = (int8_t *)(void *)st + USMP_HELIUM_DW_STATE_BYTES;

	if (p->dilation_h == 1) {
		const int32_t from = l->filled >= y0 ? l->filled + 1 : y0;
		int32_t top = l->top;

		if (l->oy > 0)
			for (top += p->stride_h; top >= fh;)
				top -= fh;
		l->top = top;
		for (int32_t y = from, slot = top + (from - y0) % fh; y < y0 + fh; y++, slot++) {
			slot = slot >= fh ? slot - fh : slot;
			fill_slot(&st->f, y, p->in_h, ring + (size_t)slot * slot_bytes);
		}
		l->filled = y0 + fh - 1;
		for (int32_t ky = 0, slot = l->top; ky < fh; ky++, slot = slot + 1 < fh ? slot + 1 : 0)
			st->rows[ky] = ring + (size_t)slot * slot_bytes;
	} else {
		for (int32_t ky = 0; ky < fh; ky++) {
			st->rows[ky] = ring + (size_t)ky * slot_bytes;
			fill_slot(&st->f, y0 + ky * p->dilation_h, p->in_h, st->rows[ky]);
		}
	}
}

/* The output row's vectors from the filled strips: the 3x3 assembly (then the clamp of a narrower activation),
 * a lone last pixel of two a vector through it too; any other window or requantization dw_row_general. */
HELIUM_INLINE void dw_row(const struct usmp_helium_depthwise_params *p, struct dw_state *st)
{
	struct dw_job *const j = &st->j;
	struct dw_loop *const l = &st->l;

	if (l->general) {
		dw_row_general(p, st);
		return;
	}
	j->row0 = st->rows[0];
	j->row1 = st->rows[1];
	j->row2 = st->rows[2];
	j->out = l->o;
	if (j->count > 0) { /* direct calls: the stack bound follows them */
		if (p->pixels_per_vector > 1)
			dw_vectors_8(j);
		else if (p->stride_w == 1)
			dw_vectors_16(j);
		else
			dw_vectors_16_s2(j);
		if (!l->full)
			dw_clamp(j, l->o, j->count);
	}
	if (j->count < l->n) { /* two pixels a vector, one left: a single group */
		const int32_t whole = j->count;

		j->row0 = st->rows[0] + whole * j->step;
		j->row1 = st->rows[1] + whole * j->step;
		j->row2 = st->rows[2] + whole * j->step;
		j->out = l->o + (size_t)whole * j->out_step;
		j->count = 1;
		j->lanes = vctp8q((uint32_t)(l->pixels % p->pixels_per_vector * p->channels));
		dw_vectors_8(j);
		if (!l->full)
			dw_clamp(j, j->out, 1);
		j->count = whole;
		j->lanes = st->f.last;
	}
}
#endif

/* Groups of 16 lanes a pixel: a vector spanning several pixels takes all the channels in one. */
HELIUM_INLINE int32_t dw_groups(const struct usmp_helium_depthwise_params *p)
{
	return p->pixels_per_vector > 1 ? 1 : (p->channels + 15) >> 4;
}

#if USMP_HELIUM_NATIVE
/* A pass's set-up, for the loop's batch and first group (st->l): the fill's and the job's fields that stay the
 * same over its rows (a depth-first band sets them once per band); those that stay the same over the call too
 * only at its first pass. Out of line and without calls: its frame is gone when the rows run. */
HELIUM_HOT_SETUP __attribute__((noinline)) static void dw_pass_setup(const struct usmp_helium_depthwise_params *p,
								   const int8_t *constants, struct dw_state *st)
{
	const int32_t ch = p->channels, per = p->pixels_per_vector, g0 = st->l.g0;
	const int32_t groups = dw_groups(p) - g0 < p->group_pass ? dw_groups(p) - g0 : p->group_pass;
	const int32_t rest = ch - 16 * (g0 + groups - 1); /* the last group's lanes */
	struct strip_fill *const f = &st->f;
	struct dw_job *const j = &st->j;

	if (g0 == 0 && st->l.batch == 0) { /* the call's first pass */
		const int32_t lb = lane_bytes(p), sw = p->stride_w;

		f->pixel = ch;
		f->bytes = USMP_HELIUM_DW_STRIP_BYTES(p->strip_width, lb);
		f->pad = -p->input_offset;
		f->row = p->in_w * ch;
		f->copy = lb == ch;
		j->step = per > 1 ? 16 : sw * lb;
		j->out_step = per > 1 ? 16 : ch;
		j->zero_point = p->output_offset;
		j->act_min = p->act_min;
		j->act_max = p->act_max;
		j->strip_bytes = f->bytes;
		j->group_bytes = group_bytes(p->filter_h * p->filter_w, p->requant_general);
		st->l.general = !(p->filter_h == 3 && p->filter_w == 3 && p->dilation_w == 1 && sw <= 2 &&
				  !p->requant_general);
		st->l.full = p->act_min == -128 && p->act_max == 127; /* else dw_vectors' outputs are clamped after */
	}
	f->groups = groups;
	f->last = vctp8q((uint32_t)(per > 1 || rest > 16 ? 16 : rest));
	f->vectors = groups * f->bytes >> 4;
	j->group = constants + (size_t)g0 * j->group_bytes;
	j->groups = groups;
	j->lanes = f->last;
}

/* The strips' span of output pixels of a row from st->l.x0 (the scratch's width): where its strip columns lie
 * inside the input, its vectors, its first output. Out of line and without calls, as dw_pass_setup. */
HELIUM_HOT_SETUP __attribute__((noinline)) static void dw_span_setup(const struct usmp_helium_depthwise_params *p,
								   const int8_t *input, int8_t *output,
								   struct dw_state *st)
{
	struct dw_loop *const l = &st->l;
	const int32_t ch = p->channels, per = p->pixels_per_vector, lb = lane_bytes(p), sw = p->stride_w;
	const int32_t x0 = l->x0, span = p->chunk * per, pixels = p->out_w - x0 < span ? p->out_w - x0 : span;
	const int32_t n = (pixels + per - 1) / per, col0 = x0 * sw; /* its vectors, its first input column */
	const int32_t width = (n * per - 1) * sw + (p->filter_w - 1) * p->dilation_w + 1;
	/* strip columns [first, end) lie inside the input */
	const int32_t first = p->pad_left > col0 ? p->pad_left - col0 : 0;
	const int32_t edge = p->pad_left + p->in_w - col0 < width ? p->pad_left + p->in_w - col0 : width;
	const int32_t end = edge > first ? edge : first;
	const int8_t *const image = input + (size_t)l->batch * p->in_h * p->in_w * ch;
	struct strip_fill *const f = &st->f;

	f->left = (first * lb + 15) >> 4;
	f->inside = end - first;
	f->right = (width * lb - end * lb + 15) >> 4;
	f->first = image + (ptrdiff_t)(col0 + first - p->pad_left) * ch + 16 * l->g0;
	f->left_bytes = first * lb;
	st->j.count = pixels / per; /* whole vectors: with two pixels a vector, one may be left */
	l->n = n;
	l->pixels = pixels;
	l->o = output + (size_t)l->batch * p->out_h * p->out_w * ch + 16 * l->g0 + (size_t)x0 * ch;
	l->top = 0;
	l->filled = INT32_MIN;
}

/* Passes over groups of 16 lanes (group_pass at a time), each over the output rows, a span of the strips'
 * width at a time: the strips of a ring slot hold their input row side by side, a call of the assembly takes
 * every group of an output row. The loops keep their counters in the state (st->l), read back after each call:
 * few values live across the calls, a small frame. */
void usmp_helium_depthwise_s8(const struct usmp_helium_depthwise_params *p, const int8_t *input,
			      const int8_t *constants, int8_t *strips, int8_t *output)
{
	struct dw_state *const st = (struct dw_state *)(void *)strips; /* the state, then the rings of strips */
	struct dw_loop *const l = &st->l;

	for (l->batch = 0; l->batch < p->batches; l->batch++) {
		for (l->g0 = 0; l->g0 < dw_groups(p); l->g0 += p->group_pass) {
			dw_pass_setup(p, constants, st);
			for (l->x0 = 0; l->x0 < p->out_w; l->x0 += p->chunk * p->pixels_per_vector) {
				dw_span_setup(p, input, output, st);
				for (l->oy = 0, l->y0 = -p->pad_top; l->oy < p->out_h;
				     l->oy++, l->y0 += p->stride_h, l->o += (size_t)p->out_w * p->channels) {
					dw_fill_rows(p, st);
					dw_row(p, st);
				}
			}
		}
	}
}
#else
/* Every output row of groups [g0, g0 + groups) lane by lane from the constants g. */
static void dw_pass(const struct usmp_helium_depthwise_params *p, const int8_t *image, const int8_t *g, int32_t g0,
		    int32_t groups, int8_t *out)
{
	const int32_t ch = p->channels, per = p->pixels_per_vector;
	const int32_t gbytes = group_bytes(p->filter_h * p->filter_w, p->requant_general);

	for (int32_t gi = 0; gi < groups; gi++) {
		const int32_t offset = per > 1 ? 0 : 16 * (g0 + gi), left = per > 1 ? ch : ch - offset;
		int8_t *o = out + offset;

		for (int32_t oy = 0; oy < p->out_h; oy++, o += (size_t)p->out_w * ch)
			for (int32_t x = 0; x < p->out_w; x++)
				dw_lanes(p, image, oy * p->stride_h - p->pad_top, x * p->stride_w - p->pad_left, offset,
					 g + gi * gbytes, left < 16 ? left : 16, o + (size_t)x * ch);
	}
}

void usmp_helium_depthwise_s8(const struct usmp_helium_depthwise_params *p, const int8_t *input,
			      const int8_t *constants, int8_t *strips, int8_t *output)
{
	const int32_t groups = dw_groups(p);
	const int32_t bytes = group_bytes(p->filter_h * p->filter_w, p->requant_general);
	const size_t in_image = (size_t)p->in_h * p->in_w * p->channels, out_image = (size_t)p->out_h * p->out_w * p->channels;

	(void)strips;
	for (int32_t batch = 0; batch < p->batches; batch++, input += in_image, output += out_image)
		for (int32_t g0 = 0; g0 < groups; g0 += p->group_pass)
			dw_pass(p, input, constants + (size_t)g0 * bytes, g0,
				groups - g0 < p->group_pass ? groups - g0 : p->group_pass, output);
}
#endif

/*
 * usmp_helium_depthwise_rows_s8: the 3x3 layers of stride 1 or 2 of whole groups of 16 channels (no left shifts) with the
 * input read in place, no strips: a depth-first band's rows are read where its producer left them, so the plan
 * holds no copy of them. Consecutive vectors are consecutive 16-byte runs of the input (a pixel's groups, then
 * the next pixel's), so each of the nine taps is a pointer moving on 16 bytes a vector (and by a pixel more after
 * each pixel with stride 2). A tap outside the input
 * (padding) reads a pixel of the zero point instead, which the constants hold after the groups' with the output
 * zero point and the clamp's bounds as vectors (the tail): a row's left edge pixel, its inside ones and its right
 * edge pixel in one call, a row outside the input a pixel a call.
 */
#if USMP_HELIUM_NATIVE
/* What dwr_row reads (the offsets used there): the state, all of it. */
struct dwr_job {
	const int8_t *tap[9]; /* 0: each tap's input at the row's first pixel's first group (row-major taps) */
	const int8_t *group;  /* 36: the first group's constants */
	int8_t *out;          /* 40: the row's first output */
	int32_t groups;       /* 44 */
	int32_t pixels;       /* 48: of the current run, counted down */
	const int8_t *tail;   /* 52: the output zero point (8 int16), act_min and act_max (16 int8), the zero-point pixel */
	int32_t left;         /* 56: pixels of the left edge (their first taps outside the input): 0 or 1 */
	int32_t inside;       /* 60: then pixels inside the input */
	int32_t right;        /* 64: then pixels of the right edge (their last taps outside): 0 or 1 */
	int32_t run;          /* 68: the run under way (0 left, 1 inside, 2 right) */
	int32_t skip;         /* 72: bytes the taps move on after a pixel's groups beyond them: (stride - 1) pixels */
	int32_t back;         /* 76: bytes of an input pixel: the first taps after the left edge, behind the second */
	const int8_t *last[3]; /* 80: the last taps of the right edge: the zero point, or with two pixels a vector
				* each filter row's last pixel and the zero point (edges) */
	uint32_t saved[16];   /* 92: d8-d15 (callee-saved) while the assembly runs, kept here rather than on the stack */
	const int8_t *rows[3]; /* the output row's filter rows' input rows (NULL: outside the input) */
	/* with two pixels (8 channels) a vector, the vectors at the input's edges, a filter row's each: the zero point
	 * and its first pixel, its last pixel and the zero point (USMP_HELIUM_DW_ROWS_EDGES_BYTES) */
	int8_t edges[];
};
typedef char dwr_state_fits[sizeof(struct dwr_job) == USMP_HELIUM_DW_ROWS_STATE_BYTES ? 1 : -1];

/* Tap a's input (r_a, moving on) and tap b's (r_b, loaded twice, moving on at the second) times their filter
 * bytes at [r9, #wa] and [r9, #wb], the int16 products summed into q6 (even lanes) and q7 (odd) and widened. */
#define DWR_ASM_PAIR(ra, rb, wa, wb)                \
	"	vldrb.8	q4, [" ra "], #16\n"        \
	"	vldrw.u32	q5, [r9, #" wa "]\n" \
	"	vmullb.s8	q6, q4, q5\n"        \
	"	vmullt.s8	q7, q4, q5\n"        \
	"	vldrb.8	q4, [" rb "]\n"             \
	"	vldrw.u32	q5, [r9, #" wb "]\n" \
	"	vmullb.s8	q4, q4, q5\n"        \
	"	vadd.i16	q6, q6, q4\n"        \
	"	vldrb.8	q4, [" rb "], #16\n"        \
	"	vmullt.s8	q4, q4, q5\n"        \
	"	vadd.i16	q7, q7, q4\n" DW_ASM_WIDEN

/*
 * An output row's runs of pixels, `groups` vectors a pixel: per vector the four sums start from the group's biases
 * and take the nine taps (r0, r2-r8, r10), are requantized, narrowed as dw_vectors narrows them, clamped with the
 * tail's bounds (r12) and stored (r11 moves on 16 bytes); the constants (r9) move on a group a vector and back to
 * the first group at each pixel. After the left edge pixel the first taps of each filter row (r0, r4, r7) move from
 * the zero-point pixel into the input, a pixel behind the second ones; for the right edge pixel the last taps (r3,
 * r6, r10) move to the zero-point pixel.
 */
__attribute__((naked, noinline)) static void dwr_row(struct dwr_job *job)
{
	(void)job;
	__asm volatile("	push	{r4-r11, lr}\n"
		       "	add	r2, r0, #92\n"
		       "	vstmia	r2, {d8-d15}\n"
		       "	mov	r1, r0\n"
		       "	ldr	r12, [r1, #52]\n"
		       "	ldrd	r9, r11, [r1, #36]\n"
		       "	ldrd	r0, r2, [r1, #0]\n"
		       "	ldrd	r3, r4, [r1, #8]\n"
		       "	ldrd	r5, r6, [r1, #16]\n"
		       "	ldrd	r7, r8, [r1, #24]\n"
		       "	ldr	r10, [r1, #32]\n"
		       "	movs	lr, #0\n"
		       "	str	lr, [r1, #68]\n"
		       "	ldr	lr, [r1, #56]\n"
		       "	b	5f\n"
		       /* the next run */
		       "6:	ldr	r9, [r1, #68]\n"
		       "	adds	r9, r9, #1\n"
		       "	str	r9, [r1, #68]\n"
		       "	cmp	r9, #2\n"
		       "	beq	7f\n"
		       "	bhi	9f\n"
		       "	ldr	lr, [r1, #56]\n" /* inside: after a left edge pixel, the first taps into the input */
		       "	cmp	lr, #0\n"
		       "	beq	8f\n"
		       "	ldr	r9, [r1, #76]\n"
		       "	sub	r0, r2, r9\n"
		       "	sub	r4, r5, r9\n"
		       "	sub	r7, r8, r9\n"
		       "8:	ldr	lr, [r1, #60]\n"
		       "	b	5f\n"
		       "7:	ldr	r3, [r1, #80]\n" /* right: the last taps on the zero point (or the edge vectors) */
		       "	ldr	r6, [r1, #84]\n"
		       "	ldr	r10, [r1, #88]\n"
		       "	ldr	lr, [r1, #64]\n"
		       "5:	cmp	lr, #0\n"
		       "	beq	6b\n"
		       "	str	lr, [r1, #48]\n"
		       "	ldr	r9, [r1, #36]\n"
		       /* a run's pixels */
		       "0:	ldr	lr, [r1, #44]\n"
		       "1:	vldrw.u32	q0, [r9]\n"
		       "	vldrw.u32	q1, [r9, #16]\n"
		       "	vldrw.u32	q2, [r9, #32]\n"
		       "	vldrw.u32	q3, [r9, #48]\n"
		       DWR_ASM_PAIR("r0", "r2", "64", "80")
		       DWR_ASM_PAIR("r3", "r4", "96", "112")
		       DWR_ASM_PAIR("r5", "r6", "128", "144")
		       DWR_ASM_PAIR("r7", "r8", "160", "176")
		       "	vldrb.8	q4, [r10], #16\n"
		       "	vldrw.u32	q5, [r9, #192]\n"
		       "	vmullb.s8	q6, q4, q5\n"
		       "	vmullt.s8	q7, q4, q5\n" DW_ASM_WIDEN DW_ASM_REQUANT("0", "208", "272")
		       DW_ASM_REQUANT("1", "224", "288") DW_ASM_REQUANT("2", "240", "304")
		       DW_ASM_REQUANT("3", "256", "320")
		       "	vqmovnb.s32	q6, q0\n"
		       "	vqmovnt.s32	q6, q1\n"
		       "	vqmovnb.s32	q7, q2\n"
		       "	vqmovnt.s32	q7, q3\n"
		       "	vldrw.u32	q5, [r12]\n"
		       "	vqadd.s16	q6, q6, q5\n"
		       "	vqadd.s16	q7, q7, q5\n"
		       "	vqmovnb.s16	q4, q6\n"
		       "	vqmovnt.s16	q4, q7\n"
		       "	vldrw.u32	q5, [r12, #16]\n"
		       "	vmax.s8	q4, q4, q5\n"
		       "	vldrw.u32	q5, [r12, #32]\n"
		       "	vmin.s8	q4, q4, q5\n"
		       "	vstrb.8	q4, [r11], #16\n"
		       "	add	r9, r9, #336\n"
		       "	subs	lr, lr, #1\n"
		       "	bne	1b\n"
		       "	ldr	r9, [r1, #72]\n" /* stride 2: the taps on by a pixel more */
		       "	cmp	r9, #0\n"
		       "	beq	2f\n"
		       "	add	r0, r0, r9\n"
		       "	add	r2, r2, r9\n"
		       "	add	r3, r3, r9\n"
		       "	add	r4, r4, r9\n"
		       "	add	r5, r5, r9\n"
		       "	add	r6, r6, r9\n"
		       "	add	r7, r7, r9\n"
		       "	add	r8, r8, r9\n"
		       "	add	r10, r10, r9\n"
		       "2:	ldr	r9, [r1, #48]\n"
		       "	subs	r9, r9, #1\n"
		       "	str	r9, [r1, #48]\n"
		       "	ldr	r9, [r1, #36]\n"
		       "	bne	0b\n"
		       "	b	6b\n"
		       "9:	add	r2, r1, #92\n"
		       "	vldmia	r2, {d8-d15}\n"
		       "	pop	{r4-r11, pc}\n");
}

/* The row's taps at vector a (j->rows[ky]: filter row ky's input row, NULL outside the input), each inside the
 * input read in place, else the zero-point pixel, or with two pixels a vector the filter row's edge vectors: the
 * first taps of a vector whose first pixel lies left of the input, the last ones of a vector whose last lies right. */
HELIUM_HOT_SETUP __attribute__((noinline)) static void dwr_taps(const struct usmp_helium_depthwise_params *p,
							       struct dwr_job *j, int32_t a)
{
	const int32_t ch = p->channels, per = p->pixels_per_vector;
	const int8_t *const pad = j->tail + 48;
	const int8_t *const *rows = j->rows;
	const int8_t **tap = j->tap;

	for (int32_t ky = 0; ky < 3; ky++, tap += 3) {
		if (rows[ky] == NULL) {
			tap[0] = tap[1] = tap[2] = pad;
			continue;
		}
		const int32_t x = a * per * p->stride_w - p->pad_left; /* the first tap's first pixel */
		const int8_t *const base = rows[ky] + x * ch;

		tap[0] = x < 0 ? (per > 1 ? j->edges + 16 * ky : pad) : base;
		tap[1] = base + ch;
		tap[2] = x + 1 + per >= p->in_w ? j->last[ky] : base + 2 * ch;
	}
}

/* Output row r (counting every image's rows): its filter rows' input rows (NULL outside the input), with two pixels
 * a vector their edge vectors, and its first output; whether one of them lies outside the input. */
HELIUM_HOT_SETUP __attribute__((noinline)) static int32_t dwr_rows(const struct usmp_helium_depthwise_params *p,
								  struct dwr_job *j, const int8_t *input,
								  int8_t *output, int32_t r)
{
	const int32_t batch = r / p->out_h, oy = r - batch * p->out_h, row = p->in_w * p->channels;
	const int8_t *const image = input + (size_t)batch * p->in_h * row;
	int32_t outside = 0;

	for (int32_t ky = 0; ky < 3; ky++) {
		const int32_t y = oy * p->stride_h - p->pad_top + ky;
		const int8_t *const in = image + (size_t)y * row;

		j->rows[ky] = y >= 0 && y < p->in_h ? in : NULL;
		outside |= j->rows[ky] == NULL;
		if (p->pixels_per_vector > 1 && j->rows[ky] != NULL) { /* 8 channels: a pixel is two words */
			uint32_t *const e = (uint32_t *)(void *)(j->edges + 16 * ky);
			const uint32_t *const first = (const uint32_t *)(const void *)in;
			const uint32_t *const last = (const uint32_t *)(const void *)(in + row - 8);

			e[2] = first[0];
			e[3] = first[1];
			e[12] = last[0];
			e[13] = last[1];
		}
	}
	j->out = output + (size_t)r * p->out_w * p->channels;
	return outside;
}

/* A row with a filter row outside the input: the zero-point pixel stands for that whole row, so a vector a call. */
HELIUM_HOT_SETUP __attribute__((noinline)) static void dwr_pixels(const struct usmp_helium_depthwise_params *p,
								 struct dwr_job *j)
{
	const int32_t left = j->left, inside = j->inside, right = j->right;
	const int32_t per = p->pixels_per_vector, step = per * p->channels;

	j->left = j->right = 0;
	j->inside = 1;
	for (int32_t a = 0; a < p->out_w / per; a++, j->out += step) {
		dwr_taps(p, j, a);
		dwr_row(j);
	}
	j->left = left;
	j->inside = inside;
	j->right = right;
}

void usmp_helium_depthwise_rows_s8(const struct usmp_helium_depthwise_params *p, const int8_t *input,
				   const int8_t *constants, int8_t *state, int8_t *output)
{
	struct dwr_job *const j = (struct dwr_job *)(void *)state;
	const int32_t per = p->pixels_per_vector, n = p->out_w / per, span = per * p->stride_w;
	/* vectors [0, left) have their first tap left of the input, vectors from `edge` on their last right of it:
	 * those in [left, right) read only the input */
	const int32_t edge = (p->in_w + p->pad_left - 1 - per + span - 1) / span;
	const int32_t left = p->pad_left < n ? p->pad_left : n;
	const int32_t right = edge < left ? left : (edge < n ? edge : n);

	j->skip = (p->stride_w - 1) * p->channels;
	j->back = p->channels;
	j->group = constants;
	j->groups = per > 1 ? 1 : p->channels >> 4;
	j->tail = constants + (size_t)j->groups * 336;
	for (int32_t ky = 0; ky < 3; ky++) /* the zero point, or the edge vectors' right halves */
		j->last[ky] = per > 1 ? j->edges + 48 + 16 * ky : j->tail + 48;
	if (per > 1) { /* the edge vectors' zero-point halves */
		const uint32_t zero = *(const uint32_t *)(const void *)(j->tail + 48);

		for (int32_t k = 0; k < 6; k++) {
			uint32_t *const e = (uint32_t *)(void *)(j->edges + 16 * k);

			e[k < 3 ? 0 : 2] = zero;
			e[k < 3 ? 1 : 3] = zero;
		}
	}
	j->left = left;
	j->inside = right - left;
	j->right = n - right;
	for (int32_t r = 0; r < p->batches * p->out_h; r++) {
		if (dwr_rows(p, j, input, output, r)) {
			dwr_pixels(p, j);
			continue;
		}
		dwr_taps(p, j, 0);
		dwr_row(j);
	}
}
#else
void usmp_helium_depthwise_rows_s8(const struct usmp_helium_depthwise_params *p, const int8_t *input,
				   const int8_t *constants, int8_t *state, int8_t *output)
{
	usmp_helium_depthwise_s8(p, input, constants, state, output); /* the same sums lane by lane, no strips */
}
#endif
