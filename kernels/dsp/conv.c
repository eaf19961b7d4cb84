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
#else
#define DSP_HOT
#endif

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
static void copy_bytes(int8_t *dst, const int8_t *src, int32_t n)
{
	for (; n >= 4; n -= 4, dst += 4, src += 4)
		dsp_write32(dst, dsp_read32(src));
	for (; n > 0; n--)
		*dst++ = *src++;
}

/* The int8 bytes [0, n) of a window row into stage: the input's from `first` to `end`, the zero point elsewhere. */
static void stage_row(int8_t *stage, const int8_t *src, int32_t first, int32_t end, int32_t n, int8_t zero_point)
{
	int32_t i;

	for (i = 0; i < first; i++)
		stage[i] = zero_point;
	copy_bytes(stage + first, src, end - first);
	for (i = end; i < n; i++)
		stage[i] = zero_point;
}

/*
 * The window of output pixel (oy, ox) as one column. A filter row of whole quads (its bytes a multiple of
 * 4, no horizontal dilation) is widened straight from the input, or from a copy padded with the zero point
 * where the window is cut; any other window is first gathered as int8, then widened.
 */
DSP_HOT static void window_column(const struct usmp_dsp_conv_params *p, const int8_t *image, int32_t oy,
				  int32_t ox, uint32_t *column, int8_t *stage, uint32_t offset)
{
	const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
	const int32_t in_ch = p->in_ch, row_bytes = p->filter_w * in_ch;
	const int8_t zero_point = (int8_t)-p->input_offset;
	int32_t fx0, fx1, ky, kx;

	if (p->filter_h == 1 && p->filter_w == 1 && (in_ch & 3) == 0) { /* a pixel: whole quads */
		if (iy0 < 0 || iy0 >= p->in_h || ix0 < 0 || ix0 >= p->in_w)
			pad(column, p->quads);
		else
			widen(column, image + (iy0 * p->in_w + ix0) * in_ch, p->quads, offset);
		return;
	}
	if (p->dilation_w == 1 && (row_bytes & 3) == 0) {
		const int32_t row_quads = row_bytes >> 2;

		usmp_window_taps(ix0, 1, p->filter_w, p->in_w, &fx0, &fx1);
		for (ky = 0; ky < p->filter_h; ky++, column += 4 * row_quads) {
			const int32_t iy = iy0 + ky * p->dilation_h;
			const int8_t *row = image + (iy * p->in_w + ix0) * in_ch;

			if (iy < 0 || iy >= p->in_h || fx1 <= fx0) {
				pad(column, row_quads);
			} else if (fx0 == 0 && fx1 == p->filter_w) {
				widen(column, row, row_quads, offset);
			} else {
				stage_row(stage, row + fx0 * in_ch, fx0 * in_ch, fx1 * in_ch, row_bytes, zero_point);
				widen(column, stage, row_quads, offset);
			}
		}
		return;
	}
	{
		int8_t *at = stage;

		for (ky = 0; ky < p->filter_h; ky++) {
			const int32_t iy = iy0 + ky * p->dilation_h;

			for (kx = 0; kx < p->filter_w; kx++, at += in_ch) {
				const int32_t ix = ix0 + kx * p->dilation_w;
				int32_t c;

				if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
					for (c = 0; c < in_ch; c++)
						at[c] = zero_point;
				} else {
					copy_bytes(at, image + (iy * p->in_w + ix) * in_ch, in_ch);
				}
			}
		}
		while ((at - stage) & 3)
			*at++ = zero_point;
		widen(column, stage, p->quads, offset);
	}
}

/* Output channel pairs [first, last) against one or both columns, in C (the host; the odd last channel and
 * the odd last pixel on the DSP cores). `wide`: the filter holds int16 pairs, doubled. */
static void pairs_c(const uint32_t *columns, const uint32_t *filter, const struct usmp_dsp_requant *k, int32_t first,
		    int32_t out_ch, int32_t quads, int8_t *out, int two_columns, int wide)
{
	int32_t o;

	filter += first * quads * (wide ? 4 : 2);
	for (o = 2 * first, k += first, out += 2 * first; o < out_ch; o += 2, k++, out += 2) {
		int32_t a00 = k->bias[0], a01 = a00, a10 = k->bias[1], a11 = a10;
		const uint32_t *x = columns;
		int32_t g;

		for (g = quads; g > 0; g--, x += 4) {
			uint32_t w0a, w0b, w1a, w1b;

			if (wide) {
				w0a = filter[0];
				w0b = filter[1];
				w1a = filter[2];
				w1b = filter[3];
				filter += 4;
			} else {
				w0a = dsp_sxtb16(filter[0]);
				w0b = dsp_sxtb16_odd(filter[0]);
				w1a = dsp_sxtb16(filter[1]);
				w1b = dsp_sxtb16_odd(filter[1]);
				filter += 2;
			}
			a00 = dsp_smlad(x[1], w0b, dsp_smlad(x[0], w0a, a00));
			a01 = dsp_smlad(x[3], w0b, dsp_smlad(x[2], w0a, a01));
			a10 = dsp_smlad(x[1], w1b, dsp_smlad(x[0], w1a, a10));
			a11 = dsp_smlad(x[3], w1b, dsp_smlad(x[2], w1a, a11));
		}
		if (!wide) { /* the requantization takes doubled sums */
			a00 = (int32_t)((uint32_t)a00 << 1);
			a01 = (int32_t)((uint32_t)a01 << 1);
			a10 = (int32_t)((uint32_t)a10 << 1);
			a11 = (int32_t)((uint32_t)a11 << 1);
		}
		out[0] = (int8_t)dsp_requantize(a00, k->multiplier[0], k->round[0], k->shift[0]);
		if (o + 1 < out_ch)
			out[1] = (int8_t)dsp_requantize(a10, k->multiplier[1], k->round[1], k->shift[1]);
		if (two_columns) {
			out[out_ch] = (int8_t)dsp_requantize(a01, k->multiplier[0], k->round[0], k->shift[0]);
			if (o + 1 < out_ch)
				out[out_ch + 1] = (int8_t)dsp_requantize(a11, k->multiplier[1], k->round[1], k->shift[1]);
		}
	}
}

#if USMP_DSP_NATIVE
/* What the assembly loops read and update (r0 points here; offsets below). */
struct pairs_job {
	const uint32_t *columns;             /* 0 */
	const uint32_t *filter;              /* 4: advances pair by pair */
	const struct usmp_dsp_requant *next; /* 8: advances pair by pair */
	int8_t *out;                         /* 12: advances pair by pair */
	int32_t out_ch;                      /* 16 */
	int32_t pairs;                       /* 20: counts down */
	int32_t quads;                       /* 24 */
};

/*
 * Every full channel pair against both columns, in assembly: GCC keeps neither the four sums, the four
 * column words nor the loop count in registers through this loop (it spills the count), and the loop is
 * most of a convolution. Per quad: one LDM brings both columns' four taps, one the two channels' filter
 * words; eight SMLADs. Per pair: the sums start from the bias; then the requantization of usmp_kernels/dsp.h.
 * r10/r11: channel 0 of the pair, columns 0/1; r12/lr: channel 1. QUAD_NARROW widens the int8 filter
 * (SXTB16), QUAD_WIDE reads int16 pairs. DOUBLE doubles the narrow sums (the wide filter is doubled).
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
	"	push	{r0, r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                        \
	"1:	ldr	r9, [sp]\n"                                                          \
	"	ldr	r2, [r9, #8]\n"                                                      \
	"	ldrd	r10, r12, [r2]\n"                                                    \
	"	mov	r11, r10\n"                                                          \
	"	mov	lr, r12\n"                                                           \
	"	ldrd	r0, r1, [r9]\n"                                                      \
	"	ldr	r2, [r9, #24]\n"                                                     \
	"	tst	r2, #1\n"                                                            \
	"	beq	2f\n"                                                                \
	QUAD                                                                         \
	"2:	lsrs	r2, r2, #1\n"                                                        \
	"	beq	4f\n"                                                                \
	"3:\n"                                                                       \
	QUAD QUAD                                                                    \
	"	subs	r2, r2, #1\n"                                                        \
	"	bne	3b\n"                                                                \
	"4:	ldr	r9, [sp]\n"                                                          \
	"	str	r1, [r9, #4]\n"                                                      \
	"	ldr	r2, [r9, #8]\n"                                                      \
	"	adds	r2, r2, #8\n"                                                        \
	"	ldm	r2!, {r3, r4, r5, r6, r7, r8}\n"                                     \
	"	str	r2, [r9, #8]\n"                                                      \
	DOUBLE_SUMS                                                                  \
	"	smmulr	r10, r10, r3\n"                                                      \
	"	smmulr	r11, r11, r3\n"                                                      \
	"	smmulr	r12, r12, r4\n"                                                      \
	"	smmulr	lr, lr, r4\n"                                                        \
	"	add	r10, r10, r10, asr #31\n"                                            \
	"	add	r11, r11, r11, asr #31\n"                                            \
	"	add	r12, r12, r12, asr #31\n"                                            \
	"	add	lr, lr, lr, asr #31\n"                                               \
	"	add	r10, r10, r5\n"                                                      \
	"	add	r11, r11, r5\n"                                                      \
	"	add	r12, r12, r6\n"                                                      \
	"	add	lr, lr, r6\n"                                                        \
	"	asr	r10, r10, r7\n"                                                      \
	"	asr	r11, r11, r7\n"                                                      \
	"	asr	r12, r12, r8\n"                                                      \
	"	asr	lr, lr, r8\n"                                                        \
	"	ssat	r10, #8, r10\n"                                                      \
	"	ssat	r11, #8, r11\n"                                                      \
	"	ssat	r12, #8, r12\n"                                                      \
	"	ssat	lr, #8, lr\n"                                                        \
	"	ldr	r2, [r9, #12]\n"                                                     \
	"	ldr	r3, [r9, #16]\n"                                                     \
	"	strb	r10, [r2]\n"                                                         \
	"	strb	r12, [r2, #1]\n"                                                     \
	"	strb	r11, [r2, r3]\n"                                                     \
	"	add	r3, r3, r2\n"                                                        \
	"	strb	lr, [r3, #1]\n"                                                      \
	"	adds	r2, r2, #2\n"                                                        \
	"	str	r2, [r9, #12]\n"                                                     \
	"	ldr	r2, [r9, #20]\n"                                                     \
	"	subs	r2, r2, #1\n"                                                        \
	"	str	r2, [r9, #20]\n"                                                     \
	"	bne	1b\n"                                                                \
	"	pop	{r0, r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

__attribute__((naked, noinline)) static void pairs_narrow_asm(struct pairs_job *job)
{
	(void)job;
	__asm volatile(PAIRS_ASM(QUAD_NARROW, DOUBLE));
}

__attribute__((naked, noinline)) static void pairs_wide_asm(struct pairs_job *job)
{
	(void)job;
	__asm volatile(PAIRS_ASM(QUAD_WIDE, ""));
}
#endif

/* Both columns (or only the first) against every output channel pair. */
static inline __attribute__((always_inline)) void columns_times_filter(
	const uint32_t *columns, const uint32_t *filter, const struct usmp_dsp_requant *k, int32_t out_ch,
	int32_t quads, int8_t *out, int two_columns, int wide)
{
#if USMP_DSP_NATIVE
	if (two_columns && out_ch >= 2) {
		struct pairs_job job = { columns, filter, k, out, out_ch, out_ch >> 1, quads };

		if (wide)
			pairs_wide_asm(&job);
		else
			pairs_narrow_asm(&job);
		if (out_ch & 1)
			pairs_c(columns, filter, k, out_ch >> 1, out_ch, quads, out, 1, wide);
		return;
	}
#endif
	pairs_c(columns, filter, k, 0, out_ch, quads, out, two_columns, wide);
}

static inline __attribute__((always_inline)) void conv(const struct usmp_dsp_conv_params *p, const int8_t *input,
						       const uint32_t *filter, const struct usmp_dsp_requant *k,
						       int16_t *scratch, int8_t *output, int wide)
{
	const int32_t pixels = p->out_h * p->out_w, out_ch = p->out_ch;
	const uint32_t offset = dsp_pair(p->input_offset, p->input_offset);
	uint32_t *columns = (uint32_t *)(void *)scratch;
	int8_t *stage = (int8_t *)(columns + 4 * p->quads);
	int8_t *out = output;
	int32_t b, px;

	for (b = 0; b < p->batches; b++) {
		const int8_t *image = input + b * p->in_h * p->in_w * p->in_ch;
		int32_t oy = 0, ox = 0;

		for (px = 0; px < pixels; px += 2, out += 2 * out_ch) {
			const int two = px + 1 < pixels;

			window_column(p, image, oy, ox, columns, stage, offset);
			if (++ox == p->out_w) {
				ox = 0;
				oy++;
			}
			if (two) {
				window_column(p, image, oy, ox, columns + 2, stage, offset);
				if (++ox == p->out_w) {
					ox = 0;
					oy++;
				}
				columns_times_filter(columns, filter, k, out_ch, p->quads, out, 1, wide);
			} else { /* the last pixel alone: the second column is zeros (its sums are not stored) */
				pad(columns + 2, p->quads);
				columns_times_filter(columns, filter, k, out_ch, p->quads, out, 0, wide);
				out -= out_ch;
			}
		}
	}
	if (p->act_min > -128 || p->act_max < 127)
		dsp_clamp_outputs(output, (int32_t)(out - output), p->act_min, p->act_max);
}

DSP_HOT void usmp_dsp_conv_s8(const struct usmp_dsp_conv_params *p, const int8_t *input, const int8_t *filter,
			      const struct usmp_dsp_requant *requant, int16_t *columns, int8_t *output)
{
	conv(p, input, (const uint32_t *)(const void *)filter, requant, columns, output, 0);
}

DSP_HOT void usmp_dsp_conv_wide_s8(const struct usmp_dsp_conv_params *p, const int8_t *input,
				   const int16_t *filter, const struct usmp_dsp_requant *requant, int16_t *columns,
				   int8_t *output)
{
	conv(p, input, (const uint32_t *)(const void *)filter, requant, columns, output, 1);
}
