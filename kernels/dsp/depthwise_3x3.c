/*
 * DEPTHWISE_CONV_2D on the DSP extension, 3x3 filter, column stride 1, channels a multiple of four, reading
 * the int8 input where it is (see usmp_kernels/dsp.h).
 *
 * depthwise.c widens each input row into int16 pairs of pixels once per group of four channels, a ring of
 * filter_h rows in its scratch; a depth-first band calls it on a few rows at a time, and every call widens
 * the halo rows again. This kernel keeps nothing between taps: per output pixel and group of four channels
 * it loads each tap's input word (four channels), splits it with SXTAB16 (channels 0 and 2, the input offset
 * added, so padding reads as 0) and SXTAB16 ROR 8 (channels 1 and 3), and multiplies the lanes with
 * SMLABB/SMLATT against the tap's int16 pairs (w0, w2), (w1, w3), doubled, laid out by select/dsp.py at
 * compile time. So a band costs a call, not its halo rows again, and a narrow row (DS-CNN's five columns)
 * no per-row set-up. Taps outside the input are skipped (their products are 0).
 */
#include "usmp_kernels/dsp.h"

#include "dsp_ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#define DW3_HOT __attribute__((optimize("O2")))
#else
#define DW3_HOT
#endif

enum { TAP_WORDS = 2, GROUP_WORDS = 9 * TAP_WORDS }; /* a tap's two pairs; a group's nine taps */

/* The four sums of a group (channels 0..3). */
struct dw3_sums {
	int32_t s0, s1, s2, s3;
};

/* One tap: the input word at `at` (four channels) against the tap's pairs t[0] = (w0, w2), t[1] = (w1, w3). */
DSP_INLINE void dw3_tap(struct dw3_sums *s, const int8_t *at, const uint32_t *t, uint32_t offset)
{
	const uint32_t x = dsp_read32(at);
	const uint32_t even = dsp_sxtab16(offset, x), odd = dsp_sxtab16_odd(offset, x);

	s->s0 = dsp_smlabb(even, t[0], s->s0);
	s->s2 = dsp_smlatt(even, t[0], s->s2);
	s->s1 = dsp_smlabb(odd, t[1], s->s1);
	s->s3 = dsp_smlatt(odd, t[1], s->s3);
}

/* The four sums requantized (their taps doubled: usmp_kernels/dsp.h) and stored at out. */
DSP_INLINE void dw3_store(const struct dw3_sums *s, const struct usmp_dsp_channel_requant *q, int8_t *out)
{
	out[0] = (int8_t)dsp_requantize(s->s0, q[0].multiplier, q[0].round, q[0].shift);
	out[1] = (int8_t)dsp_requantize(s->s1, q[1].multiplier, q[1].round, q[1].shift);
	out[2] = (int8_t)dsp_requantize(s->s2, q[2].multiplier, q[2].round, q[2].shift);
	out[3] = (int8_t)dsp_requantize(s->s3, q[3].multiplier, q[3].round, q[3].shift);
}

DSP_INLINE void dw3_bias(struct dw3_sums *s, const struct usmp_dsp_channel_requant *q)
{
	s->s0 = q[0].bias;
	s->s1 = q[1].bias;
	s->s2 = q[2].bias;
	s->s3 = q[3].bias;
}

#if USMP_DSP_NATIVE
/*
 * Every group of a pixel whose window lies inside the input (`at` its top left input pixel), in assembly: GCC
 * spills the sums' operands. r0: the group's top left input, r1: the row's bytes, r2: the pixel's, r3: the taps
 * (each tap's pairs loaded and passed by LDRD's writeback: a group's 18 words follow the last's), r4..r7: the
 * sums of channels 0..3, r8: the offset pair, r9/r10: the input word's even and odd lanes, r11/r12: the tap's
 * pairs, lr: the filter row's input. The stack arguments (q, out, then offset, replaced by the end of the
 * groups) at [sp, #36], #40 and #44 after the push.
 */
#define DW3_TAP(at)                                   \
	"	ldr	r9, " at "\n"                        \
	"	ldrd	r11, r12, [r3], #8\n"                \
	"	sxtab16	r10, r8, r9, ror #8\n"              \
	"	sxtab16	r9, r8, r9\n"                       \
	"	smlabb	r4, r9, r11, r4\n"                  \
	"	smlatt	r6, r9, r11, r6\n"                  \
	"	smlabb	r5, r10, r12, r5\n"                 \
	"	smlatt	r7, r10, r12, r7\n"
#define DW3_ROW DW3_TAP("[lr]") DW3_TAP("[lr, r2]") DW3_TAP("[lr, r2, lsl #1]")
/* Channel c's sum (reg) requantized with q (lr) as dsp_requantize does, stored at out (r11) + c. */
#define DW3_FINISH(reg, c)                            \
	"	ldrd	r9, r10, [lr, #16 * " #c " + 4]\n"   \
	"	add	r10, r10, " reg ", asr #31\n"        \
	"	smmlar	" reg ", " reg ", r9, r10\n"        \
	"	ldr	r9, [lr, #16 * " #c " + 12]\n"       \
	"	asr	" reg ", " reg ", r9\n"              \
	"	ssat	" reg ", #8, " reg "\n"              \
	"	strb	" reg ", [r11, #" #c "]\n"

__attribute__((naked, noinline)) static void dw3_inside(const int8_t *at, int32_t row, int32_t channels,
							 const uint32_t *taps,
							 const struct usmp_dsp_channel_requant *q, int8_t *out,
							 uint32_t offset)
{
	(void)at;
	(void)row;
	(void)channels;
	(void)taps;
	(void)q;
	(void)out;
	(void)offset;
	__asm volatile(
		"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"
		"	ldr	r8, [sp, #44]\n"
		"	add	r9, r0, r2\n"
		"	str	r9, [sp, #44]\n"
		"1:	ldr	lr, [sp, #36]\n"
		"	ldr	r4, [lr]\n"
		"	ldr	r5, [lr, #16]\n"
		"	ldr	r6, [lr, #32]\n"
		"	ldr	r7, [lr, #48]\n"
		"	mov	lr, r0\n"
		DW3_ROW
		"	add	lr, lr, r1\n"
		DW3_ROW
		"	add	lr, lr, r1\n"
		DW3_ROW
		"	ldr	lr, [sp, #36]\n"
		"	ldr	r11, [sp, #40]\n"
		DW3_FINISH("r4", 0) DW3_FINISH("r5", 1) DW3_FINISH("r6", 2) DW3_FINISH("r7", 3)
		"	add	lr, lr, #64\n"
		"	str	lr, [sp, #36]\n"
		"	add	r11, r11, #4\n"
		"	str	r11, [sp, #40]\n"
		"	add	r0, r0, #4\n"
		"	ldr	r9, [sp, #44]\n"
		"	cmp	r0, r9\n"
		"	blo	1b\n"
		"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n");
}

/*
 * Every group of a pixel whose window the input's edges cut to `rows` rows (>= 1, the last stack argument) of
 * two or three taps (COLS): as above, `taps` at the first tap inside; the rows counted down at [sp, #4], the
 * group's taps at [sp] (each group's 72 bytes after the last's); the stack arguments at [sp, #44] onwards.
 */
#define DW3_CUT_ASM(COLS, ROW_TAPS, SKIP)                                                  \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                              \
	"	sub	sp, sp, #8\n"                                                          \
	"	ldr	r8, [sp, #52]\n"                                                       \
	"	add	r9, r0, r2\n"                                                          \
	"	str	r9, [sp, #52]\n"                                                       \
	"	str	r3, [sp]\n"                                                            \
	"1:	ldr	lr, [sp, #44]\n"                                                       \
	"	ldr	r4, [lr]\n"                                                            \
	"	ldr	r5, [lr, #16]\n"                                                       \
	"	ldr	r6, [lr, #32]\n"                                                       \
	"	ldr	r7, [lr, #48]\n"                                                       \
	"	ldr	r3, [sp]\n"                                                            \
	"	mov	lr, r0\n"                                                              \
	"	ldr	r9, [sp, #56]\n"                                                       \
	"	str	r9, [sp, #4]\n"                                                        \
	"2:\n" ROW_TAPS SKIP                                                             \
	"	add	lr, lr, r1\n"                                                          \
	"	ldr	r9, [sp, #4]\n"                                                        \
	"	subs	r9, r9, #1\n"                                                          \
	"	str	r9, [sp, #4]\n"                                                        \
	"	bne	2b\n"                                                                  \
	"	ldr	lr, [sp, #44]\n"                                                       \
	"	ldr	r11, [sp, #48]\n"                                                      \
	DW3_FINISH("r4", 0) DW3_FINISH("r5", 1) DW3_FINISH("r6", 2) DW3_FINISH("r7", 3)   \
	"	add	lr, lr, #64\n"                                                         \
	"	str	lr, [sp, #44]\n"                                                       \
	"	add	r11, r11, #4\n"                                                        \
	"	str	r11, [sp, #48]\n"                                                      \
	"	ldr	r3, [sp]\n"                                                            \
	"	add	r3, r3, #72\n"                                                         \
	"	str	r3, [sp]\n"                                                            \
	"	add	r0, r0, #4\n"                                                          \
	"	ldr	r9, [sp, #52]\n"                                                       \
	"	cmp	r0, r9\n"                                                              \
	"	blo	1b\n"                                                                  \
	"	add	sp, sp, #8\n"                                                          \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

#define DW3_CUT_FUNCTION(name, COLS, ROW_TAPS, SKIP)                                                            \
	__attribute__((naked, noinline)) static void name(const int8_t *at, int32_t row, int32_t channels,      \
							  const uint32_t *taps,                                 \
							  const struct usmp_dsp_channel_requant *q, int8_t *out, \
							  uint32_t offset, int32_t rows)                        \
	{                                                                                                       \
		(void)at;                                                                                       \
		(void)row;                                                                                      \
		(void)channels;                                                                                 \
		(void)taps;                                                                                     \
		(void)q;                                                                                        \
		(void)out;                                                                                      \
		(void)offset;                                                                                   \
		(void)rows;                                                                                     \
		__asm volatile(DW3_CUT_ASM(COLS, ROW_TAPS, SKIP));                                              \
	}
DW3_CUT_FUNCTION(dw3_cut2, 2, DW3_TAP("[lr]") DW3_TAP("[lr, r2]"), "	add	r3, r3, #8\n")
DW3_CUT_FUNCTION(dw3_cut3, 3, DW3_ROW, "")
#else
/* Every group of a pixel whose window lies inside the input: `at` its top left input pixel. */
static void dw3_inside(const int8_t *at, int32_t row, int32_t channels, const uint32_t *taps,
		       const struct usmp_dsp_channel_requant *q, int8_t *out, uint32_t offset)
{
	int32_t g;

	for (g = 0; g < channels; g += 4, at += 4, out += 4, q += 4, taps += GROUP_WORDS) {
		struct dw3_sums s;
		const int8_t *r = at;

		dw3_bias(&s, q);
		dw3_tap(&s, r, taps + 0, offset);
		dw3_tap(&s, r + channels, taps + 2, offset);
		dw3_tap(&s, r + 2 * channels, taps + 4, offset);
		r += row;
		dw3_tap(&s, r, taps + 6, offset);
		dw3_tap(&s, r + channels, taps + 8, offset);
		dw3_tap(&s, r + 2 * channels, taps + 10, offset);
		r += row;
		dw3_tap(&s, r, taps + 12, offset);
		dw3_tap(&s, r + channels, taps + 14, offset);
		dw3_tap(&s, r + 2 * channels, taps + 16, offset);
		dw3_store(&s, q, out);
	}
}

#endif

/* A cut window's groups with `cols` taps a row (1, 2 or 3, unrolled): rows [ky0, ky1) and columns from kx0 of
 * the filter inside, `at` the input pixel of tap (ky0, kx0). */
#define DW3_CUT_GROUPS(cols)                                                                              \
	for (g = 0; g < channels; g += 4, at += 4, out += 4, q += 4, taps += GROUP_WORDS) {               \
		const int8_t *r = at;                                                                     \
		const uint32_t *t = taps;                                                                 \
		struct dw3_sums s;                                                                        \
                                                                                                          \
		dw3_bias(&s, q);                                                                          \
		for (ky = ky0; ky < ky1; ky++, r += row, t += 3 * TAP_WORDS) {                            \
			dw3_tap(&s, r, t, offset);                                                        \
			if (cols > 1)                                                                     \
				dw3_tap(&s, r + channels, t + TAP_WORDS, offset);                         \
			if (cols > 2)                                                                     \
				dw3_tap(&s, r + 2 * channels, t + 2 * TAP_WORDS, offset);                 \
		}                                                                                         \
		dw3_store(&s, q, out);                                                                    \
	}

static void dw3_cut(const int8_t *at, int32_t row, int32_t channels, const uint32_t *taps,
		    const struct usmp_dsp_channel_requant *q, int8_t *out, uint32_t offset, int32_t ky0, int32_t ky1,
		    int32_t kx0, int32_t kx1)
{
	int32_t g, ky;

	taps += (3 * ky0 + kx0) * TAP_WORDS;
	if (kx1 - kx0 == 2) {
		DW3_CUT_GROUPS(2)
	} else if (kx1 - kx0 == 3) {
		DW3_CUT_GROUPS(3)
	} else if (kx1 - kx0 == 1) {
		DW3_CUT_GROUPS(1)
	} else {
		for (g = 0; g < channels; g += 4, out += 4, q += 4) { /* no column inside: the bias alone */
			struct dw3_sums s;

			dw3_bias(&s, q);
			dw3_store(&s, q, out);
		}
	}
}

DW3_HOT void usmp_dsp_depthwise_3x3_s8(const struct usmp_dsp_depthwise_params *p, const int8_t *input,
				       const int16_t *filter, const struct usmp_dsp_channel_requant *requant,
				       int8_t *output)
{
	const int32_t channels = p->channels, row = p->in_w * channels;
	const uint32_t offset = dsp_pair(p->input_offset, p->input_offset);
	const uint32_t *const taps = (const uint32_t *)(const void *)filter;
	int8_t *out = output;
	int32_t b, oy, ox;

	for (b = 0; b < p->batches; b++) {
		const int8_t *const image = input + b * p->in_h * row;

		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy = oy * p->stride_h - p->pad_top;
			const int32_t ky0 = iy < 0 ? -iy : 0, ky1 = p->in_h - iy < 3 ? p->in_h - iy : 3;

			for (ox = 0; ox < p->out_w; ox++, out += channels) {
				const int32_t ix = ox - p->pad_left;
				const int32_t kx0 = ix < 0 ? -ix : 0, kx1 = p->in_w - ix < 3 ? p->in_w - ix : 3;
				const int8_t *const at = image + (iy + ky0) * row + (ix + kx0) * channels;

				if (ky0 == 0 && ky1 == 3 && kx0 == 0 && kx1 == 3)
					dw3_inside(at, row, channels, taps, requant, out, offset);
#if USMP_DSP_NATIVE
				else if (ky1 > ky0 && kx1 - kx0 == 2) /* direct calls: the stack bound follows them */
					dw3_cut2(at, row, channels, taps + (3 * ky0 + kx0) * TAP_WORDS, requant, out,
						 offset, ky1 - ky0);
				else if (ky1 > ky0 && kx1 - kx0 == 3)
					dw3_cut3(at, row, channels, taps + 3 * ky0 * TAP_WORDS, requant, out, offset,
						 ky1 - ky0);
#endif
				else
					dw3_cut(at, row, channels, taps, requant, out, offset, ky0, ky1, kx0, kx1);
			}
		}
	}
	if (p->act_min > -128 || p->act_max < 127)
		dsp_clamp_outputs(output, p->batches * p->out_h * p->out_w * channels, p->act_min, p->act_max);
}
