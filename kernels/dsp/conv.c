/*
 * CONV_2D and FULLY_CONNECTED on the DSP extension (see usmp_kernels/dsp.h).
 *
 * Two output pixels at a time: their windows are widened into two int16
 * columns with the input offset added (SXTAB16: bytes 0 and 2 of each input
 * word, then bytes 1 and 3), laid out [quad][column][2 words] so that one
 * load brings both columns' four taps. Every output channel pair then sums
 * its filter quads against both columns with SMLAD, two taps an instruction,
 * starting from the bias, and the four sums are requantized and stored.
 */
#include "usmp_kernels/conv.h"
#include "usmp_kernels/dsp.h"

#include "dsp_ops.h"

#if defined(__GNUC__) && !defined(__clang__)
/* the builds optimise for size (-Os); the inner loops are worth their bytes */
#define DSP_HOT __attribute__((optimize("O2")))
/* a short fill stays a loop, not a call of memset (a frame more under the kernel's) */
#define DSP_NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define DSP_HOT
#define DSP_NO_LIBCALL
#endif

/* What the pairs assembly takes (r0 points here), in the order it loads it. */
struct pairs_job {
	int8_t *out;             /* the first pair's outputs of the first column */
	int32_t second;          /* bytes from a first-column output to the second column's */
	const uint32_t *end;     /* the weights stream's end: the last pair's block ends there */
	const uint32_t *columns; /* both columns, [quad][column][2 words] */
	int32_t quads;
	const uint32_t *weights; /* the first pair's block of the weights stream */
};

/*
 * What a call keeps while it runs (its job): the pairs assembly's job, the output pixel it builds a column
 * for, and where; at the start of its scratch (CONV_JOB_BYTES, select/dsp.py: CONV_JOB_BYTES), not on the
 * stack. Planned for 4-byte pointers: a build with wider ones (a test on a 64-bit host) keeps it on its stack.
 */
struct conv_job {
	struct pairs_job pairs;
	const int8_t *image; /* the batch's input */
	int8_t *stage;       /* scratch for a window's rows */
	uint32_t offset;     /* the input offset, twice */
	int32_t oy, ox;      /* the next output pixel */
	int32_t fx0, fx1;    /* the filter columns of its window inside the input */
	int32_t left;        /* the batch's output pixels not yet written */
	int32_t batches;     /* the batches after this one */
};
#define CONV_JOB_BYTES 60
#define CONV_JOB_PLANNED (UINTPTR_MAX <= 0xFFFFFFFFu)
typedef char conv_job_fits[!CONV_JOB_PLANNED || sizeof(struct conv_job) == CONV_JOB_BYTES ? 1 : -1];

/* `quads` quads of int8 from src, widened with the offset into one column (stride 4 words a quad). */
#if USMP_DSP_NATIVE
/* In assembly: GCC (-Os) kept the pointers and the offset on the stack. Two quads a turn. */
__attribute__((naked, noinline)) static void widen(uint32_t *column, const int8_t *src, int32_t quads,
						 uint32_t offset)
{
	(void)column;
	(void)src;
	(void)quads;
	(void)offset;
	__asm volatile(
		"	push	{r4, r5}\n"
		"	lsrs	r2, r2, #1\n"
		"	bcc	2f\n"
		"	ldr	r12, [r1], #4\n"
		"	sxtab16	r4, r3, r12\n"
		"	sxtab16	r5, r3, r12, ror #8\n"
		"	strd	r4, r5, [r0], #16\n"
		"2:	cbz	r2, 4f\n"
		"3:	ldr	r12, [r1], #4\n"
		"	sxtab16	r4, r3, r12\n"
		"	sxtab16	r5, r3, r12, ror #8\n"
		"	strd	r4, r5, [r0], #16\n"
		"	ldr	r12, [r1], #4\n"
		"	sxtab16	r4, r3, r12\n"
		"	sxtab16	r5, r3, r12, ror #8\n"
		"	strd	r4, r5, [r0], #16\n"
		"	subs	r2, r2, #1\n"
		"	bne	3b\n"
		"4:	pop	{r4, r5}\n"
		"	bx	lr\n");
}
#else
static void widen(uint32_t *column, const int8_t *src, int32_t quads, uint32_t offset)
{
	for (; quads > 0; quads--, src += 4, column += 4) {
		const uint32_t x = dsp_read32(src);

		column[0] = dsp_sxtab16(offset, x);
		column[1] = dsp_sxtab16_odd(offset, x);
	}
}
#endif

/* `quads` quads of padding: 0 once the offset is added. */
static void pad(uint32_t *column, int32_t quads)
{
	for (; quads > 0; quads--, column += 4) {
		column[0] = 0;
		column[1] = 0;
	}
}

/* n bytes, a word at a time while they last. */
static inline __attribute__((always_inline)) void copy_bytes(int8_t *dst, const int8_t *src, int32_t n)
{
	for (; n >= 4; n -= 4, dst += 4, src += 4)
		dsp_write32(dst, dsp_read32(src));
	if (n & 2) {
		dst[0] = src[0];
		dst[1] = src[1];
		dst += 2;
		src += 2;
	}
	if (n & 1)
		*dst = *src;
}

/* `rows` runs of n bytes, `step` bytes apart in the input, one after the other into stage (which has 12
 * bytes to spare after its quads). A run of at most 12 bytes is three words (the bytes past it are written
 * over by the next run) where reading them stays inside the input (`end`). */
__attribute__((noinline)) static int8_t *copy_rows(int8_t *stage, const int8_t *src, int32_t rows, int32_t n,
						  int32_t step, const int8_t *end)
{
	if (n <= 12 && src + (rows - 1) * step + 12 <= end) {
		for (; rows > 0; rows--, stage += n, src += step) {
			const uint32_t w0 = dsp_read32(src), w1 = dsp_read32(src + 4), w2 = dsp_read32(src + 8);

			dsp_write32(stage, w0);
			dsp_write32(stage + 4, w1);
			dsp_write32(stage + 8, w2);
		}
		return stage;
	}
	for (; rows > 0; rows--, stage += n, src += step)
		copy_bytes(stage, src, n);
	return stage;
}

/* The int8 bytes [0, n) of a window row into stage: the input's from `first` to `end`, the zero point elsewhere. */
DSP_NO_LIBCALL static void stage_row(int8_t *stage, const int8_t *src, int32_t first, int32_t end, int32_t n,
				     int8_t zero_point)
{
	int32_t i;

	for (i = 0; i < first; i++)
		stage[i] = zero_point;
	copy_bytes(stage + first, src, end - first);
	for (i = end; i < n; i++)
		stage[i] = zero_point;
}

/*
 * The window of output pixel (oy, ox) as one column. Without horizontal dilation a filter row is a run of
 * the input: rows of whole quads (their bytes a multiple of 4) are widened straight from the input, or from
 * a copy padded with the zero point where the window is cut; other rows are copied (padded likewise) one
 * after the other and the window widened at once. A dilated window is gathered tap by tap.
 */
DSP_HOT static void window_column(const struct usmp_dsp_conv_params *p, struct conv_job *j, uint32_t *column)
{
	const int8_t *const image = j->image;
	int8_t *const stage = j->stage;
	const uint32_t offset = j->offset;
	const int32_t iy0 = j->oy * p->stride_h - p->pad_top, ix0 = j->ox * p->stride_w - p->pad_left;
	const int32_t in_ch = p->in_ch, row_bytes = p->filter_w * in_ch;
	const int8_t zero_point = (int8_t)-p->input_offset;
	int8_t *at = stage;
	int32_t fx0, fx1, ky, kx;

	if (p->filter_h == 1 && p->filter_w == 1 && (in_ch & 3) == 0) { /* a pixel: whole quads */
		if (iy0 < 0 || iy0 >= p->in_h || ix0 < 0 || ix0 >= p->in_w)
			pad(column, p->quads);
		else
			widen(column, image + (iy0 * p->in_w + ix0) * in_ch, p->quads, offset);
		return;
	}
	if (p->dilation_w == 1) {
		const int32_t row_quads = row_bytes >> 2, whole = (row_bytes & 3) == 0;

		usmp_window_taps(ix0, 1, p->filter_w, p->in_w, &j->fx0, &j->fx1);
		fx0 = j->fx0;
		fx1 = j->fx1;
		if (!whole && fx0 == 0 && fx1 == p->filter_w && iy0 >= 0 &&
		    iy0 + (p->filter_h - 1) * p->dilation_h < p->in_h) { /* inside: the rows one after the other */
			at = copy_rows(stage, image + (iy0 * p->in_w + ix0) * in_ch, p->filter_h, row_bytes,
				       p->dilation_h * p->in_w * in_ch, image + p->in_h * p->in_w * in_ch);
			while ((at - stage) & 3)
				*at++ = zero_point;
			widen(column, stage, p->quads, offset);
			return;
		}
		for (ky = 0; ky < p->filter_h; ky++) {
			const int32_t iy = iy0 + ky * p->dilation_h;
			const int8_t *row = image + (iy * p->in_w + ix0) * in_ch;
			const int inside = iy >= 0 && iy < p->in_h && fx1 > fx0;

			if (!whole) {
				if (inside)
					stage_row(at, row + fx0 * in_ch, fx0 * in_ch, fx1 * in_ch, row_bytes, zero_point);
				else
					stage_row(at, row, 0, 0, row_bytes, zero_point);
				at += row_bytes;
			} else if (!inside) {
				pad(column, row_quads);
			} else if (fx0 == 0 && fx1 == p->filter_w) {
				widen(column, row, row_quads, offset);
			} else {
				stage_row(stage, row + fx0 * in_ch, fx0 * in_ch, fx1 * in_ch, row_bytes, zero_point);
				widen(column, stage, row_quads, offset);
			}
			column += whole ? 4 * row_quads : 0;
		}
		if (whole)
			return;
	} else {
		for (ky = 0; ky < p->filter_h; ky++) {
			const int32_t iy = iy0 + ky * p->dilation_h;

			for (kx = 0; kx < p->filter_w; kx++, at += in_ch) {
				const int32_t ix = ix0 + kx * p->dilation_w;

				if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w)
					stage_row(at, image, 0, 0, in_ch, zero_point);
				else
					copy_bytes(at, image + (iy * p->in_w + ix) * in_ch, in_ch);
			}
		}
	}
	while ((at - stage) & 3)
		*at++ = zero_point;
	widen(column, stage, p->quads, offset);
}

/*
 * The weights stream (see usmp_kernels/dsp.h), one block per output channel pair: the two biases, the
 * filter's quads (2 words of int8, or 4 of int16 pairs: wide), then the multipliers, roundings and shifts.
 */
enum { BIAS_WORDS = 2, REQUANT_WORDS = 6 };
#define PAIR_WORDS(quads, wide) (BIAS_WORDS + (quads) * ((wide) ? 4 : 2) + REQUANT_WORDS)

/* The next quad of a channel pair's filter as int16 pairs: taps 0 and 2, then 1 and 3, of each channel. */
static inline __attribute__((always_inline)) const uint32_t *filter_quad(const uint32_t *weights, int wide,
									  uint32_t *w0a, uint32_t *w0b,
									  uint32_t *w1a, uint32_t *w1b)
{
	if (wide) {
		*w0a = weights[0];
		*w0b = weights[1];
		*w1a = weights[2];
		*w1b = weights[3];
		return weights + 4;
	}
	*w0a = dsp_sxtb16(weights[0]);
	*w0b = dsp_sxtb16_odd(weights[0]);
	*w1a = dsp_sxtb16(weights[1]);
	*w1b = dsp_sxtb16_odd(weights[1]);
	return weights + 2;
}

/* One pixel of whole quads read straight from the input (its bytes widened as the sums go: no column, no
 * scratch) against every output channel: a fully connected layer's batch of one, the last pixel of a 1x1
 * convolution. In C (the host, and the odd last channel on the DSP cores). */
static void pixel_c(const int8_t *pixel, uint32_t offset, const uint32_t *weights, int32_t first, int32_t out_ch,
		    int32_t quads, int8_t *out, int wide)
{
	const int32_t block = PAIR_WORDS(quads, wide);
	int32_t o;

	for (o = 2 * first, weights += first * block, out += 2 * first; o < out_ch; o += 2, out += 2) {
		int32_t a0 = (int32_t)weights[0], a1 = (int32_t)weights[1];
		const int32_t *k;
		int32_t g;

		for (g = 0, weights += BIAS_WORDS; g < quads; g++) {
			const uint32_t x = dsp_read32(pixel + 4 * g);
			const uint32_t xa = dsp_sxtab16(offset, x), xb = dsp_sxtab16_odd(offset, x);
			uint32_t w0a, w0b, w1a, w1b;

			weights = filter_quad(weights, wide, &w0a, &w0b, &w1a, &w1b);
			a0 = dsp_smlad(xb, w0b, dsp_smlad(xa, w0a, a0));
			a1 = dsp_smlad(xb, w1b, dsp_smlad(xa, w1a, a1));
		}
		k = (const int32_t *)weights;
		weights += REQUANT_WORDS;
		if (!wide) {
			a0 = (int32_t)((uint32_t)a0 << 1);
			a1 = (int32_t)((uint32_t)a1 << 1);
		}
		out[0] = (int8_t)dsp_requantize(a0, k[0], k[2], k[4]);
		if (o + 1 < out_ch)
			out[1] = (int8_t)dsp_requantize(a1, k[1], k[3], k[5]);
	}
}

/* Channel pairs [first, pairs) against one or both columns, in C (the host; the odd last channel and the
 * odd last pixel on the DSP cores). A pair's second column goes `second` bytes after its first. */
static void pairs_c(const uint32_t *columns, const uint32_t *weights, int32_t first, int32_t out_ch,
		    int32_t quads, int8_t *out, int32_t second, int two_columns, int wide)
{
	const int32_t block = PAIR_WORDS(quads, wide);
	int32_t o;

	for (o = 2 * first, weights += first * block, out += 2 * first; o < out_ch; o += 2, out += 2) {
		int32_t a00 = (int32_t)weights[0], a01 = a00, a10 = (int32_t)weights[1], a11 = a10;
		const uint32_t *x = columns;
		const int32_t *k;
		int32_t g;

		for (g = quads, weights += BIAS_WORDS; g > 0; g--, x += 4) {
			uint32_t w0a, w0b, w1a, w1b;

			weights = filter_quad(weights, wide, &w0a, &w0b, &w1a, &w1b);
			a00 = dsp_smlad(x[1], w0b, dsp_smlad(x[0], w0a, a00));
			a01 = dsp_smlad(x[3], w0b, dsp_smlad(x[2], w0a, a01));
			a10 = dsp_smlad(x[1], w1b, dsp_smlad(x[0], w1a, a10));
			a11 = dsp_smlad(x[3], w1b, dsp_smlad(x[2], w1a, a11));
		}
		k = (const int32_t *)weights; /* multiplier[2], round[2], shift[2] */
		weights += REQUANT_WORDS;
		if (!wide) { /* the requantization takes doubled sums */
			a00 = (int32_t)((uint32_t)a00 << 1);
			a01 = (int32_t)((uint32_t)a01 << 1);
			a10 = (int32_t)((uint32_t)a10 << 1);
			a11 = (int32_t)((uint32_t)a11 << 1);
		}
		out[0] = (int8_t)dsp_requantize(a00, k[0], k[2], k[4]);
		if (o + 1 < out_ch)
			out[1] = (int8_t)dsp_requantize(a10, k[1], k[3], k[5]);
		if (two_columns) {
			out[second] = (int8_t)dsp_requantize(a01, k[0], k[2], k[4]);
			if (o + 1 < out_ch)
				out[second + 1] = (int8_t)dsp_requantize(a11, k[1], k[3], k[5]);
		}
	}
}

#if USMP_DSP_NATIVE

/*
 * Every full channel pair against both columns, in assembly: GCC keeps neither the four sums, the four
 * column words nor the loop count in registers through this loop (it spills the count), and the loop is
 * most of a convolution. r1 walks the weights stream: the pair's biases start the sums (r10/r11: channel
 * 0 of the pair, columns 0/1; r12/lr: channel 1), then per quad one LDM brings both columns' four taps and
 * one the two channels' filter words, eight SMLADs; then the requantization of usmp_kernels/dsp.h. The
 * stack holds out, second, the end of the weights, columns and quads. QUAD_NARROW widens the int8 filter
 * (SXTB16), QUAD_WIDE reads int16 pairs; DOUBLE doubles the narrow sums (the wide filter is doubled).
 */
#define QUAD_NARROW                           \
	"	ldm	r0!, {r3, r4, r5, r6}\n"      \
	"	ldm	r1!, {r7, r8}\n"              \
	"	sxtb16	r9, r7\n"                     \
	"	smlad	r10, r3, r9, r10\n"           \
	"	smlad	r11, r5, r9, r11\n"           \
	"	sxtb16	r9, r7, ror #8\n"             \
	"	smlad	r10, r4, r9, r10\n"           \
	"	smlad	r11, r6, r9, r11\n"           \
	"	sxtb16	r9, r8\n"                     \
	"	smlad	r12, r3, r9, r12\n"           \
	"	smlad	lr, r5, r9, lr\n"             \
	"	sxtb16	r9, r8, ror #8\n"             \
	"	smlad	r12, r4, r9, r12\n"           \
	"	smlad	lr, r6, r9, lr\n"
#define QUAD_WIDE                             \
	"	ldm	r0!, {r3, r4, r5, r6}\n"      \
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
#define DOUBLE                                \
	"	lsl	r10, r10, #1\n"               \
	"	lsl	r11, r11, #1\n"               \
	"	lsl	r12, r12, #1\n"               \
	"	lsl	lr, lr, #1\n"
#define PAIRS_ASM(QUAD, DOUBLE_SUMS)                                                  \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                            \
	"	ldm	r0, {r2, r3, r4, r5, r6, r7}\n"                                      \
	"	push	{r2, r3, r4, r5, r6}\n"                                              \
	"	mov	r1, r7\n"                                                            \
	"1:	ldrd	r0, r2, [sp, #12]\n"                                                 \
	"	ldrd	r11, lr, [r1]\n"                                                     \
	"	ldrd	r10, r12, [r1], #8\n"                                                \
	"	lsrs	r2, r2, #1\n"                                                        \
	"	bcc	2f\n"                                                                \
	QUAD                                                                         \
	"2:	beq	4f\n"                                                                \
	"3:\n"                                                                       \
	QUAD QUAD                                                                    \
	"	subs	r2, r2, #1\n"                                                        \
	"	bne	3b\n"                                                                \
	"4:	ldm	r1!, {r3, r4, r5, r6, r7, r8}\n"                                     \
	DOUBLE_SUMS                                                                  \
	"	add	r9, r5, r10, asr #31\n"                                             \
	"	smmlar	r10, r10, r3, r9\n"                                                  \
	"	add	r9, r5, r11, asr #31\n"                                             \
	"	smmlar	r11, r11, r3, r9\n"                                                  \
	"	add	r9, r6, r12, asr #31\n"                                             \
	"	smmlar	r12, r12, r4, r9\n"                                                  \
	"	add	r9, r6, lr, asr #31\n"                                              \
	"	smmlar	lr, lr, r4, r9\n"                                                    \
	"	asr	r10, r10, r7\n"                                                      \
	"	asr	r11, r11, r7\n"                                                      \
	"	asr	r12, r12, r8\n"                                                      \
	"	asr	lr, lr, r8\n"                                                        \
	"	ssat	r10, #8, r10\n"                                                      \
	"	ssat	r11, #8, r11\n"                                                      \
	"	ssat	r12, #8, r12\n"                                                      \
	"	ssat	lr, #8, lr\n"                                                        \
	"	ldrd	r2, r3, [sp]\n"                                                      \
	"	strb	r10, [r2]\n"                                                         \
	"	strb	r12, [r2, #1]\n"                                                     \
	"	strb	r11, [r2, r3]\n"                                                     \
	"	add	r3, r3, r2\n"                                                        \
	"	strb	lr, [r3, #1]\n"                                                      \
	"	adds	r2, r2, #2\n"                                                        \
	"	str	r2, [sp]\n"                                                          \
	"	ldr	r2, [sp, #8]\n"                                                      \
	"	cmp	r1, r2\n"                                                            \
	"	bne	1b\n"                                                                \
	"	add	sp, sp, #20\n"                                                       \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

/* The same for one column (the last pixel of an odd count, a fully connected layer's one batch): r10 and r12
 * the pair's two sums; two quads a turn like the pairs' loop. */
#define NARROW1_MACS                          \
	"	ldm	r1!, {r7, r8}\n"              \
	"	sxtb16	r9, r7\n"                     \
	"	smlad	r10, r3, r9, r10\n"           \
	"	sxtb16	r9, r7, ror #8\n"             \
	"	smlad	r10, r4, r9, r10\n"           \
	"	sxtb16	r9, r8\n"                     \
	"	smlad	r12, r3, r9, r12\n"           \
	"	sxtb16	r9, r8, ror #8\n"             \
	"	smlad	r12, r4, r9, r12\n"
#define WIDE1_MACS                            \
	"	ldm	r1!, {r5, r6, r7, r8}\n"      \
	"	smlad	r10, r3, r5, r10\n"           \
	"	smlad	r10, r4, r6, r10\n"           \
	"	smlad	r12, r3, r7, r12\n"           \
	"	smlad	r12, r4, r8, r12\n"
#define COLUMN_WORDS "	ldrd	r3, r4, [r0], #16\n"
/* The same reading the pixel's int8 bytes (r0) and widening them with the offset pair (r11). */
#define PIXEL_WORDS                           \
	"	ldr	r3, [r0], #4\n"              \
	"	sxtab16	r4, r11, r3, ror #8\n"       \
	"	sxtab16	r3, r11, r3\n"
#define QUAD1_NARROW COLUMN_WORDS NARROW1_MACS
#define QUAD1_WIDE COLUMN_WORDS WIDE1_MACS
#define QUAD1_RAW_NARROW PIXEL_WORDS NARROW1_MACS
#define QUAD1_RAW_WIDE PIXEL_WORDS WIDE1_MACS
#define DOUBLE1                               \
	"	lsl	r10, r10, #1\n"               \
	"	lsl	r12, r12, #1\n"
#define PAIRS1_ASM(QUAD, DOUBLE_SUMS)                                                 \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                            \
	"	ldm	r0, {r2, r3, r4, r5, r6, r7}\n"                                      \
	"	push	{r2, r3, r4, r5, r6}\n"                                              \
	"	mov	r1, r7\n"                                                            \
	"	mov	r11, r3\n"                                                           \
	"1:	ldrd	r0, r2, [sp, #12]\n"                                                 \
	"	ldrd	r10, r12, [r1], #8\n"                                                \
	"	lsrs	r2, r2, #1\n"                                                        \
	"	bcc	2f\n"                                                                \
	QUAD                                                                         \
	"2:	beq	4f\n"                                                                \
	"3:\n"                                                                       \
	QUAD QUAD                                                                    \
	"	subs	r2, r2, #1\n"                                                        \
	"	bne	3b\n"                                                                \
	"4:\n"                                                                       \
	"	ldm	r1!, {r3, r4, r5, r6, r7, r8}\n"                                     \
	DOUBLE_SUMS                                                                  \
	"	add	r9, r5, r10, asr #31\n"                                             \
	"	smmlar	r10, r10, r3, r9\n"                                                  \
	"	add	r9, r6, r12, asr #31\n"                                             \
	"	smmlar	r12, r12, r4, r9\n"                                                  \
	"	asr	r10, r10, r7\n"                                                      \
	"	asr	r12, r12, r8\n"                                                      \
	"	ssat	r10, #8, r10\n"                                                      \
	"	ssat	r12, #8, r12\n"                                                      \
	"	ldr	r2, [sp]\n"                                                          \
	"	strb	r10, [r2]\n"                                                         \
	"	strb	r12, [r2, #1]\n"                                                     \
	"	adds	r2, r2, #2\n"                                                        \
	"	str	r2, [sp]\n"                                                          \
	"	ldr	r2, [sp, #8]\n"                                                      \
	"	cmp	r1, r2\n"                                                            \
	"	bne	1b\n"                                                                \
	"	add	sp, sp, #20\n"                                                       \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

/* The loops above as functions of a struct pairs_job (r0). */
#define PAIRS_FUNCTION(name, body)                                                    \
	__attribute__((naked, noinline)) static void name(const struct pairs_job *job) \
	{                                                                             \
		(void)job;                                                            \
		__asm volatile(body);                                                 \
	}

PAIRS_FUNCTION(pairs_narrow_asm, PAIRS_ASM(QUAD_NARROW, DOUBLE))
PAIRS_FUNCTION(pairs_wide_asm, PAIRS_ASM(QUAD_WIDE, ""))
PAIRS_FUNCTION(pairs1_narrow_asm, PAIRS1_ASM(QUAD1_NARROW, DOUBLE1))
PAIRS_FUNCTION(pairs1_wide_asm, PAIRS1_ASM(QUAD1_WIDE, ""))
/* One pixel straight from the input: job->columns is the pixel, job->second the offset pair. */
PAIRS_FUNCTION(pixel_narrow_asm, PAIRS1_ASM(QUAD1_RAW_NARROW, DOUBLE1))
PAIRS_FUNCTION(pixel_wide_asm, PAIRS1_ASM(QUAD1_RAW_WIDE, ""))
#endif

#if USMP_DSP_NATIVE
enum { ODD_ONE_COLUMN, ODD_TWO_COLUMNS, ODD_PIXEL };

/* The last output channel of an odd count, in C, from what the assembly's job holds (apart from the kernel's loop:
 * nine arguments would take its frame). */
__attribute__((noinline)) static void odd_channel(const struct conv_job *j, const uint32_t *weights, int32_t out_ch,
						  int kind, int wide)
{
	const struct pairs_job *const job = &j->pairs;

	if (kind == ODD_PIXEL)
		pixel_c((const int8_t *)(const void *)job->columns, j->offset, weights, out_ch >> 1, out_ch, job->quads,
			job->out, wide);
	else
		pairs_c(job->columns, weights, out_ch >> 1, out_ch, job->quads, job->out, out_ch,
			kind == ODD_TWO_COLUMNS, wide);
}
#endif

/* The pairs job's fields that stay the same through a call: set once (the assemblies copy the job, never write it). */
static inline __attribute__((always_inline)) void pairs_of(struct conv_job *j, const uint32_t *columns,
							   const uint32_t *weights, int32_t out_ch, int32_t quads,
							   int wide)
{
	j->pairs.second = out_ch;
	j->pairs.end = weights + (out_ch >> 1) * PAIR_WORDS(quads, wide);
	j->pairs.columns = columns;
	j->pairs.quads = quads;
	j->pairs.weights = weights;
}

/* Both columns (or only the first) against every output channel pair. */
static inline __attribute__((always_inline)) void columns_times_filter(
	struct conv_job *j, const uint32_t *columns, const uint32_t *weights, int32_t out_ch, int32_t quads,
	int8_t *out, int two_columns, int wide)
{
	(void)j;
#if USMP_DSP_NATIVE
	(void)columns;
	(void)quads;
	j->pairs.out = out;
	if (out_ch >= 2 && two_columns)
		(wide ? pairs_wide_asm : pairs_narrow_asm)(&j->pairs);
	else if (out_ch >= 2)
		(wide ? pairs1_wide_asm : pairs1_narrow_asm)(&j->pairs);
	if (out_ch & 1)
		odd_channel(j, weights, out_ch, two_columns ? ODD_TWO_COLUMNS : ODD_ONE_COLUMN, wide);
#else
	pairs_c(columns, weights, 0, out_ch, quads, out, out_ch, two_columns, wide);
#endif
}

/* One pixel straight from the input against every output channel pair (the job's columns and second stand for
 * the pixel and the offset pair meanwhile). */
static inline __attribute__((always_inline)) void pixel_times_filter(struct conv_job *j, const int8_t *pixel,
								     uint32_t offset, const uint32_t *weights,
								     int32_t out_ch, int32_t quads, int8_t *out,
								     int wide)
{
	(void)j;
#if USMP_DSP_NATIVE
	struct pairs_job *const job = &j->pairs;
	const uint32_t *const columns = job->columns;

	(void)quads;
	job->out = out;
	job->second = (int32_t)offset;
	job->columns = (const uint32_t *)(const void *)pixel;
	if (out_ch >= 2)
		(wide ? pixel_wide_asm : pixel_narrow_asm)(job);
	if (out_ch & 1)
		odd_channel(j, weights, out_ch, ODD_PIXEL, wide);
	job->second = out_ch;
	job->columns = columns;
#else
	pixel_c(pixel, offset, weights, 0, out_ch, quads, out, wide);
#endif
}

/* The input pixel output pixel (oy, ox) reads if the window is that one pixel, inside the input, of whole
 * quads (a 1x1 convolution, a fully connected layer), else NULL. */
static inline const int8_t *lone_pixel(const struct usmp_dsp_conv_params *p, const int8_t *image, int32_t oy,
				       int32_t ox)
{
	const int32_t iy = oy * p->stride_h - p->pad_top, ix = ox * p->stride_w - p->pad_left;

	if (p->filter_h != 1 || p->filter_w != 1 || (p->in_ch & 3) || iy < 0 || iy >= p->in_h || ix < 0 ||
	    ix >= p->in_w)
		return NULL;
	return image + (iy * p->in_w + ix) * p->in_ch;
}

/* The job's output pixel (oy, ox)'s column: a lone pixel widened straight away, any other window built; then
 * the next pixel. */
static inline __attribute__((always_inline)) void column(const struct usmp_dsp_conv_params *p, struct conv_job *j,
							 uint32_t *column)
{
	const int8_t *pixel = lone_pixel(p, j->image, j->oy, j->ox);

	if (pixel != NULL)
		widen(column, pixel, p->quads, j->offset);
	else
		window_column(p, j, column);
	if (++j->ox == p->out_w) {
		j->ox = 0;
		j->oy++;
	}
}

/*
 * One step of a call: the job's next two output pixels (or the batch's last one) against every output channel
 * pair, then the next step's pixels; 0 once the call's outputs are all written. Everything a step needs is in
 * the job: the kernel's loop around it keeps only two pointers in registers (its frame is under every step's).
 */
static inline __attribute__((always_inline)) int step(const struct usmp_dsp_conv_params *p, struct conv_job *j,
						      int wide)
{
	const int32_t out_ch = p->out_ch;
	const int two = j->left > 1;
	int8_t *const out = j->pairs.out;
	uint32_t *const columns = (uint32_t *)(uintptr_t)j->pairs.columns;
	/* A call of one pixel (a fully connected layer's batch of one) has no columns (select/dsp.py): its pixel is
	 * read as it is. Any other odd last pixel is widened into the first column once and goes through the
	 * one-column loop (1.3 instructions a MAC against the raw pixel's 1.9: its quads widened again per pair). */
	const int8_t *const lone = two || p->batches * p->out_h * p->out_w != 1 ? NULL
									       : lone_pixel(p, j->image, j->oy, j->ox);

	if (lone != NULL) { /* the call's one pixel, read as it is */
		pixel_times_filter(j, lone, j->offset, j->pairs.weights, out_ch, p->quads, out, wide);
	} else {
		column(p, j, columns);
		if (two)
			column(p, j, columns + 2);
		else if (!USMP_DSP_NATIVE) /* the C sums read the second column too (not stored) */
			pad(columns + 2, p->quads);
		columns_times_filter(j, columns, j->pairs.weights, out_ch, p->quads, out, two, wide);
	}
	j->pairs.out = out + (two ? 2 * out_ch : out_ch);
	j->left -= two ? 2 : 1;
	if (j->left > 0)
		return 1;
	if (j->batches-- == 0)
		return 0;
	j->image += p->in_h * p->in_w * p->in_ch;
	j->oy = j->ox = 0;
	j->left = p->out_h * p->out_w;
	return 1;
}

DSP_HOT __attribute__((noinline)) static int step_narrow(const struct usmp_dsp_conv_params *p, struct conv_job *j)
{
	return step(p, j, 0);
}

DSP_HOT __attribute__((noinline)) static int step_wide(const struct usmp_dsp_conv_params *p, struct conv_job *j)
{
	return step(p, j, 1);
}

static inline __attribute__((always_inline)) void conv(const struct usmp_dsp_conv_params *p, const int8_t *input,
						       const uint32_t *weights, int16_t *scratch, int8_t *output,
						       int wide)
{
#if CONV_JOB_PLANNED
	struct conv_job *const j = (struct conv_job *)(void *)scratch;
#else
	struct conv_job on_stack, *const j = &on_stack;
#endif
	uint32_t *const columns = (uint32_t *)(void *)((int8_t *)scratch + CONV_JOB_BYTES);
	const int32_t pixels = p->out_h * p->out_w;

	if (pixels <= 0 || p->batches <= 0)
		return;
	j->stage = (int8_t *)(columns + 4 * p->quads);
	j->offset = dsp_pair(p->input_offset, p->input_offset);
	pairs_of(j, columns, weights, p->out_ch, p->quads, wide);
	j->pairs.out = output;
	j->image = input;
	j->oy = j->ox = 0;
	j->left = pixels;
	j->batches = p->batches - 1;
	while (wide ? step_wide(p, j) : step_narrow(p, j))
		;
	if (p->act_min > -128 || p->act_max < 127)
		dsp_clamp_outputs(output, p->batches * pixels * p->out_ch, p->act_min, p->act_max);
}

DSP_HOT void usmp_dsp_conv_s8(const struct usmp_dsp_conv_params *p, const int8_t *input, const uint32_t *weights,
			      int16_t *scratch, int8_t *output)
{
	conv(p, input, weights, scratch, output, 0);
}

DSP_HOT void usmp_dsp_conv_wide_s8(const struct usmp_dsp_conv_params *p, const int8_t *input,
				   const uint32_t *weights, int16_t *scratch, int8_t *output)
{
	conv(p, input, weights, scratch, output, 1);
}
