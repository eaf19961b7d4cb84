/*
 * 16x8 CONV_2D and FULLY_CONNECTED on the DSP extension (see usmp_kernels/dsp.h).
 *
 * int16 activations need no widening: a window is its int16 taps, so SMLAD
 * takes them as they are against the filter, which the compiler widened to
 * int16 once. Two output pixels at a time: each window is one column of taps
 * (quads of four), read straight from the input where it is one pixel of
 * whole quads (a 1x1 convolution, a fully connected layer), else copied with
 * zeros for the padding; every output channel pair then sums its filter quads
 * against both columns, eight MACs per two column loads and two filter loads,
 * starting from the bias, and the four sums are requantized and stored.
 */
#include "usmp_kernels/conv.h"
#include "usmp_kernels/dsp.h"

#include "dsp_ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#define DSP_HOT __attribute__((optimize("O2")))
#else
#define DSP_HOT
#endif

/* The weights stream, per output channel pair: two biases, per quad the two channels' tap pairs (t0, t1),
 * (t2, t3), then the two multipliers, roundings and shifts. */
enum { BIAS_WORDS = 2, REQUANT_WORDS = 6 };
#define PAIR_WORDS(quads) (BIAS_WORDS + 4 * (quads) + REQUANT_WORDS)

/* The requantization of usmp_kernels/dsp.h: a 64-bit sum (int64 bias) or a doubled 32-bit one. */
static inline __attribute__((always_inline)) int16_t requantize(int32_t sum, const int32_t *k, int lane, int wrap)
{
	const int32_t multiplier = k[lane], round = k[2 + lane], shift = k[4 + lane];

	if (wrap)
		return (int16_t)dsp_ssat16(dsp_smmlar(sum, multiplier, round + (sum >> 31)) >> shift);
	return (int16_t)dsp_ssat16(dsp_smmla(sum, multiplier, round) >> shift);
}

/* n int16 values, a word at a time (either side may be 2-byte aligned). */
static inline __attribute__((always_inline)) void copy_taps(int16_t *dst, const int16_t *src, int32_t n)
{
	for (; n >= 2; n -= 2, dst += 2, src += 2)
		dsp_write32(dst, dsp_read32(src));
	if (n)
		*dst = *src;
}

static inline __attribute__((always_inline)) void zero_taps(int16_t *dst, int32_t n)
{
	for (; n > 0; n--)
		*dst++ = 0;
}

/*
 * The taps of output pixel (oy, ox)'s window: a pointer into the input where the window is one pixel of
 * whole quads inside it, else `column`, filled: per filter row the run of the input's taps the window covers
 * (zeros for padding), tap by tap when dilated, then zeros up to whole quads.
 */
DSP_HOT static const int16_t *window(const struct usmp_dsp_conv_params *p, const int16_t *image, int32_t oy,
				     int32_t ox, int16_t *column)
{
	const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
	const int32_t in_ch = p->in_ch, row_taps = p->filter_w * in_ch;
	int16_t *at = column;
	int32_t fx0, fx1, ky, kx;

	if (p->filter_h == 1 && p->filter_w == 1 && (in_ch & 3) == 0) {
		if (iy0 >= 0 && iy0 < p->in_h && ix0 >= 0 && ix0 < p->in_w)
			return image + (iy0 * p->in_w + ix0) * in_ch;
		zero_taps(column, 4 * p->quads);
		return column;
	}
	if (p->dilation_w == 1) {
		usmp_window_taps(ix0, 1, p->filter_w, p->in_w, &fx0, &fx1);
		for (ky = 0; ky < p->filter_h; ky++, at += row_taps) {
			const int32_t iy = iy0 + ky * p->dilation_h;

			if (iy < 0 || iy >= p->in_h || fx1 <= fx0) {
				zero_taps(at, row_taps);
				continue;
			}
			zero_taps(at, fx0 * in_ch);
			copy_taps(at + fx0 * in_ch, image + (iy * p->in_w + ix0 + fx0) * in_ch, (fx1 - fx0) * in_ch);
			zero_taps(at + fx1 * in_ch, (p->filter_w - fx1) * in_ch);
		}
	} else {
		for (ky = 0; ky < p->filter_h; ky++) {
			const int32_t iy = iy0 + ky * p->dilation_h;

			for (kx = 0; kx < p->filter_w; kx++, at += in_ch) {
				const int32_t ix = ix0 + kx * p->dilation_w;

				if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w)
					zero_taps(at, in_ch);
				else
					copy_taps(at, image + (iy * p->in_w + ix) * in_ch, in_ch);
			}
		}
	}
	zero_taps(at, 4 * p->quads - (int32_t)(at - column));
	return column;
}

/* Channel pairs [first, pairs) against one or two columns, in C (the host; the odd last channel on the DSP
 * cores). A pair's outputs of the second column go `second` values after the first's. */
static void pairs_c(const int16_t *col0, const int16_t *col1, const uint32_t *weights, int32_t first,
		    int32_t out_ch, int32_t quads, int16_t *out, int32_t second, int two, int wrap)
{
	int32_t o;

	for (o = 2 * first, weights += first * PAIR_WORDS(quads), out += 2 * first; o < out_ch; o += 2, out += 2) {
		int32_t a00 = (int32_t)weights[0], a01 = a00, a10 = (int32_t)weights[1], a11 = a10;
		const int16_t *x0 = col0, *x1 = col1;
		const int32_t *k;
		int32_t g;

		for (g = quads, weights += BIAS_WORDS; g > 0; g--, weights += 4, x0 += 4, x1 += 4) {
			const uint32_t x0a = dsp_read32(x0), x0b = dsp_read32(x0 + 2);
			const uint32_t x1a = dsp_read32(x1), x1b = dsp_read32(x1 + 2);

			a00 = dsp_smlad(x0b, weights[1], dsp_smlad(x0a, weights[0], a00));
			a01 = dsp_smlad(x1b, weights[1], dsp_smlad(x1a, weights[0], a01));
			a10 = dsp_smlad(x0b, weights[3], dsp_smlad(x0a, weights[2], a10));
			a11 = dsp_smlad(x1b, weights[3], dsp_smlad(x1a, weights[2], a11));
		}
		k = (const int32_t *)weights; /* multiplier[2], round[2], shift[2] */
		weights += REQUANT_WORDS;
		out[0] = requantize(a00, k, 0, wrap);
		if (o + 1 < out_ch)
			out[1] = requantize(a10, k, 1, wrap);
		if (two) {
			out[second] = requantize(a01, k, 0, wrap);
			if (o + 1 < out_ch)
				out[second + 1] = requantize(a11, k, 1, wrap);
		}
	}
}

#if USMP_DSP_NATIVE
/* What the assembly below takes (r0 points here), in the order it loads it. */
struct pairs_job {
	int16_t *out;            /* the first pair's outputs of the first column */
	int32_t second;          /* bytes from a first-column output to the second column's */
	const uint32_t *end;     /* the weights stream's end: the last full pair's block ends there */
	const int16_t *col0;     /* the first column's taps (word aligned) */
	int32_t quads;
	const uint32_t *weights; /* the first pair's block of the weights stream */
	const int16_t *col1;     /* the second column's */
};

/*
 * Every full channel pair against both columns, in assembly (GCC keeps neither the four sums, the column
 * words nor the count in registers through this loop). r0/r9 walk the columns, r1 the weights stream; the
 * pair's biases start the sums (r10/r11: channel 0 of the pair, columns 0/1; r12/lr: channel 1); per quad
 * two LDRDs bring both columns' four taps, two LDMs the channels' tap pairs, eight SMLADs. Then the
 * requantization (REQUANT: SMMLA of a 64-bit sum, or SMMLAR of a doubled 32-bit one), SSAT #16, and the
 * pair's two outputs of each column stored as one word. The stack holds out, second, end, col0, quads, col1.
 */
#define QUAD2                                 \
	"	ldrd	r3, r4, [r0], #8\n"           \
	"	ldrd	r5, r6, [r9], #8\n"           \
	"	ldm	r1!, {r7, r8}\n"              \
	"	smlad	r10, r3, r7, r10\n"           \
	"	smlad	r11, r5, r7, r11\n"           \
	"	smlad	r10, r4, r8, r10\n"           \
	"	smlad	r11, r6, r8, r11\n"           \
	"	ldm	r1!, {r7, r8}\n"              \
	"	smlad	r12, r3, r7, r12\n"           \
	"	smlad	lr, r5, r7, lr\n"             \
	"	smlad	r12, r4, r8, r12\n"           \
	"	smlad	lr, r6, r8, lr\n"
/* r3/r4: the pair's multipliers, r5/r6 its roundings; a sum in `sum`, its channel's (r3, r5) or (r4, r6). */
#define SMMLA64(sum, m, round) "	smmla	" sum ", " sum ", " m ", " round "\n"
#define SMMLAR32(sum, m, round)                                  \
	"	add	r9, " round ", " sum ", asr #31\n"               \
	"	smmlar	" sum ", " sum ", " m ", r9\n"
#define PAIRS2_ASM(REQUANT)                                                           \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                            \
	"	ldm	r0, {r2, r3, r4, r5, r6, r7, r8}\n"                                  \
	"	push	{r2, r3, r4, r5, r6, r8}\n"                                          \
	"	mov	r1, r7\n"                                                            \
	"1:	ldrd	r0, r2, [sp, #12]\n"                                                 \
	"	ldr	r9, [sp, #20]\n"                                                     \
	"	ldrd	r11, lr, [r1]\n"                                                     \
	"	ldrd	r10, r12, [r1], #8\n"                                                \
	"	lsrs	r2, r2, #1\n"                                                        \
	"	bcc	2f\n"                                                                \
	QUAD2                                                                        \
	"2:	beq	4f\n"                                                                \
	"3:\n"                                                                       \
	QUAD2 QUAD2                                                                  \
	"	subs	r2, r2, #1\n"                                                        \
	"	bne	3b\n"                                                                \
	"4:	ldm	r1!, {r3, r4, r5, r6, r7, r8}\n"                                     \
	REQUANT("r10", "r3", "r5") REQUANT("r11", "r3", "r5")                        \
	REQUANT("r12", "r4", "r6") REQUANT("lr", "r4", "r6")                         \
	"	asr	r10, r10, r7\n"                                                      \
	"	asr	r11, r11, r7\n"                                                      \
	"	asr	r12, r12, r8\n"                                                      \
	"	asr	lr, lr, r8\n"                                                        \
	"	ssat	r10, #16, r10\n"                                                     \
	"	ssat	r11, #16, r11\n"                                                     \
	"	ssat	r12, #16, r12\n"                                                     \
	"	ssat	lr, #16, lr\n"                                                       \
	"	ldrd	r2, r3, [sp]\n"                                                      \
	"	pkhbt	r10, r10, r12, lsl #16\n"                                            \
	"	pkhbt	r11, r11, lr, lsl #16\n"                                             \
	"	str	r10, [r2]\n"                                                         \
	"	str	r11, [r2, r3]\n"                                                     \
	"	adds	r2, r2, #4\n"                                                        \
	"	str	r2, [sp]\n"                                                          \
	"	ldr	r2, [sp, #8]\n"                                                      \
	"	cmp	r1, r2\n"                                                            \
	"	bne	1b\n"                                                                \
	"	add	sp, sp, #24\n"                                                       \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

/* The same for one column (the last pixel of an odd count, a fully connected layer's one batch): r10 and r12
 * the pair's two sums. */
#define QUAD1                                 \
	"	ldrd	r3, r4, [r0], #8\n"           \
	"	ldm	r1!, {r5, r6, r7, r8}\n"      \
	"	smlad	r10, r3, r5, r10\n"           \
	"	smlad	r10, r4, r6, r10\n"           \
	"	smlad	r12, r3, r7, r12\n"           \
	"	smlad	r12, r4, r8, r12\n"
#define PAIRS1_ASM(REQUANT)                                                           \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                            \
	"	ldm	r0, {r2, r3, r4, r5, r6, r7, r8}\n"                                  \
	"	push	{r2, r3, r4, r5, r6, r8}\n"                                          \
	"	mov	r1, r7\n"                                                            \
	"1:	ldrd	r0, r2, [sp, #12]\n"                                                 \
	"	ldrd	r10, r12, [r1], #8\n"                                                \
	"2:\n"                                                                       \
	QUAD1                                                                        \
	"	subs	r2, r2, #1\n"                                                        \
	"	bne	2b\n"                                                                \
	"	ldm	r1!, {r3, r4, r5, r6, r7, r8}\n"                                     \
	REQUANT("r10", "r3", "r5") REQUANT("r12", "r4", "r6")                        \
	"	asr	r10, r10, r7\n"                                                      \
	"	asr	r12, r12, r8\n"                                                      \
	"	ssat	r10, #16, r10\n"                                                     \
	"	ssat	r12, #16, r12\n"                                                     \
	"	ldr	r2, [sp]\n"                                                          \
	"	pkhbt	r10, r10, r12, lsl #16\n"                                            \
	"	str	r10, [r2]\n"                                                         \
	"	adds	r2, r2, #4\n"                                                        \
	"	str	r2, [sp]\n"                                                          \
	"	ldr	r2, [sp, #8]\n"                                                      \
	"	cmp	r1, r2\n"                                                            \
	"	bne	1b\n"                                                                \
	"	add	sp, sp, #24\n"                                                       \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

#define PAIRS_FUNCTION(name, body)                                                    \
	__attribute__((naked, noinline)) static void name(const struct pairs_job *job) \
	{                                                                             \
		(void)job;                                                            \
		__asm volatile(body);                                                 \
	}

PAIRS_FUNCTION(pairs2_s64, PAIRS2_ASM(SMMLA64))
PAIRS_FUNCTION(pairs2_s32, PAIRS2_ASM(SMMLAR32))
PAIRS_FUNCTION(pairs1_s64, PAIRS1_ASM(SMMLA64))
PAIRS_FUNCTION(pairs1_s32, PAIRS1_ASM(SMMLAR32))
#endif

/*
 * 64-bit sums (usmp_dsp_conv_s16_sum64): partial sums of at most CHUNK_QUADS quads in 32 bits (127 quads of
 * int16 x int8 products stay below 2^31), added into 64 bits, then TFLite's 64-bit rescale. The weights stream
 * per channel pair: the quads, then per channel the bias (low and high word), the 16-bit multiplier, the right
 * shift and the output offset.
 */
enum { CHUNK_QUADS = 127, WIDE_WORDS = 10 };

static int16_t requantize64(int64_t sum, const int32_t *k)
{
	const int64_t total = sum + (int64_t)(((uint64_t)(uint32_t)k[1] << 32) | (uint32_t)k[0]);
	const int64_t scaled = (total * k[2] + ((int64_t)1 << (k[3] - 1))) >> k[3];

	return (int16_t)dsp_ssat16((int32_t)scaled + k[4]);
}

static void pairs64_c(const int16_t *col0, const int16_t *col1, const uint32_t *weights, int32_t out_ch,
		      int32_t quads, int16_t *out, int32_t second, int two)
{
	int32_t o, g, q;

	for (o = 0; o < out_ch; o += 2, out += 2, weights += 4 * quads + WIDE_WORDS) {
		int64_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
		const int32_t *k = (const int32_t *)(weights + 4 * quads);

		for (g = 0; g < quads; g += CHUNK_QUADS) {
			const int32_t end = quads - g < CHUNK_QUADS ? quads : g + CHUNK_QUADS;
			int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;

			for (q = g; q < end; q++) {
				const uint32_t *w = weights + 4 * q;
				const uint32_t x0a = dsp_read32(col0 + 4 * q), x0b = dsp_read32(col0 + 4 * q + 2);
				const uint32_t x1a = dsp_read32(col1 + 4 * q), x1b = dsp_read32(col1 + 4 * q + 2);

				a00 = dsp_smlad(x0b, w[1], dsp_smlad(x0a, w[0], a00));
				a01 = dsp_smlad(x1b, w[1], dsp_smlad(x1a, w[0], a01));
				a10 = dsp_smlad(x0b, w[3], dsp_smlad(x0a, w[2], a10));
				a11 = dsp_smlad(x1b, w[3], dsp_smlad(x1a, w[2], a11));
			}
			s00 += a00;
			s01 += a01;
			s10 += a10;
			s11 += a11;
		}
		out[0] = requantize64(s00, k);
		if (o + 1 < out_ch)
			out[1] = requantize64(s10, k + 5);
		if (two) {
			out[second] = requantize64(s01, k);
			if (o + 1 < out_ch)
				out[second + 1] = requantize64(s11, k + 5);
		}
	}
}

/* One or two columns against every output channel pair (wrap 2: the 64-bit sums). */
static inline __attribute__((always_inline)) void columns_times_filter(const int16_t *col0, const int16_t *col1,
								       const uint32_t *weights, int32_t out_ch,
								       int32_t quads, int16_t *out, int two,
								       int wrap)
{
	if (wrap == 2) {
		pairs64_c(col0, col1, weights, out_ch, quads, out, out_ch, two);
		return;
	}
#if USMP_DSP_NATIVE
	if (out_ch >= 2) {
		const struct pairs_job job = { out, 2 * out_ch, weights + (out_ch >> 1) * PAIR_WORDS(quads), col0,
					       quads, weights, col1 };

		if (two)
			(wrap ? pairs2_s32 : pairs2_s64)(&job);
		else
			(wrap ? pairs1_s32 : pairs1_s64)(&job);
		if (out_ch & 1)
			pairs_c(col0, col1, weights, out_ch >> 1, out_ch, quads, out, out_ch, two, wrap);
		return;
	}
#endif
	pairs_c(col0, col1, weights, 0, out_ch, quads, out, out_ch, two, wrap);
}

static inline __attribute__((always_inline)) void conv(const struct usmp_dsp_conv_params *p, const int16_t *input,
						       const uint32_t *weights, int16_t *scratch, int16_t *output,
						       int wrap)
{
	const int32_t pixels = p->out_h * p->out_w, out_ch = p->out_ch;
	int16_t *columns[2] = { scratch, scratch + 4 * p->quads };
	int16_t *out = output;
	int32_t b, px;

	for (b = 0; b < p->batches; b++) {
		const int16_t *image = input + b * p->in_h * p->in_w * p->in_ch;
		int32_t oy = 0, ox = 0;

		for (px = 0; px < pixels; px += 2, out += 2 * out_ch) {
			const int two = px + 1 < pixels;
			const int16_t *col0 = window(p, image, oy, ox, columns[0]), *col1 = col0;

			if (++ox == p->out_w) {
				ox = 0;
				oy++;
			}
			if (two) {
				col1 = window(p, image, oy, ox, columns[1]);
				if (++ox == p->out_w) {
					ox = 0;
					oy++;
				}
			}
			columns_times_filter(col0, col1, weights, out_ch, p->quads, out, two, wrap);
			if (!two)
				out -= out_ch;
		}
	}
	if (p->act_min > -32768 || p->act_max < 32767)
		dsp_clamp_outputs16(output, (int32_t)(out - output), p->act_min, p->act_max);
}

DSP_HOT void usmp_dsp_conv_s16(const struct usmp_dsp_conv_params *p, const int16_t *input, const uint32_t *weights,
			       int16_t *scratch, int16_t *output)
{
	conv(p, input, weights, scratch, output, 0);
}

DSP_HOT void usmp_dsp_conv_s16_sum32(const struct usmp_dsp_conv_params *p, const int16_t *input,
				     const uint32_t *weights, int16_t *scratch, int16_t *output)
{
	conv(p, input, weights, scratch, output, 1);
}

DSP_HOT void usmp_dsp_conv_s16_sum64(const struct usmp_dsp_conv_params *p, const int16_t *input,
				     const uint32_t *weights, int16_t *scratch, int16_t *output)
{
	conv(p, input, weights, scratch, output, 2);
}
