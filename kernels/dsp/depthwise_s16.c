/*
 * 16x8 DEPTHWISE_CONV_2D on the DSP extension (usmp_kernels/dsp.h, depthwise_common.h), as depthwise.c does
 * int8: each input row is laid out once per group of four channels as pairs of horizontally adjacent pixels
 * (PKHBT/PKHTB of the two pixels' int16 words: no widening, no offset; zeros outside the input), and an
 * output takes two MAC instructions a filter row against the filter's tap pairs (w0, w1), (w1, w2), widened
 * to int16 by the compiler.
 */
#include "usmp_kernels/dsp.h"

#include "depthwise_common.h"
#include "dsp_ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#define DSP_HOT __attribute__((optimize("O2")))
#else
#define DSP_HOT
#endif

/* Pixels a and b, channels (0, 1) and (2, 3) of each, as the four channels' words (a, b). */
static inline __attribute__((always_inline)) void pair_pixels(uint32_t *at, uint32_t a01, uint32_t a23,
							      uint32_t b01, uint32_t b23)
{
	at[0] = dsp_lanes0(a01, b01);
	at[1] = dsp_lanes1(a01, b01);
	at[2] = dsp_lanes0(a23, b23);
	at[3] = dsp_lanes1(a23, b23);
}

#if USMP_DSP_NATIVE
/* `count` pairs of pixels inside the input (four channels each, `pixel` bytes apart) into words `step` bytes
 * apart, in assembly: four loads and PKHBT/PKHTB channel by channel. */
__attribute__((naked, noinline)) static void pair_pixels_asm(uint32_t *at, const int16_t *src, int32_t count,
							     int32_t pixel, int32_t step)
{
	(void)at;
	(void)src;
	(void)count;
	(void)pixel;
	(void)step;
	__asm volatile(
		"	push	{r4, r5, r6, r7, r8, r9, r10}\n"
		"	ldr	r10, [sp, #28]\n"
		"1:	ldr	r8, [r1]\n"
		"	ldr	r9, [r1, r3]\n"
		"	ldr	r12, [r1, #4]\n"
		"	add	r4, r1, r3\n"
		"	ldr	r7, [r4, #4]\n"
		"	add	r1, r1, r3, lsl #1\n"
		"	pkhbt	r4, r8, r9, lsl #16\n"
		"	pkhtb	r5, r9, r8, asr #16\n"
		"	pkhbt	r6, r12, r7, lsl #16\n"
		"	pkhtb	r7, r7, r12, asr #16\n"
		"	stm	r0, {r4, r5, r6, r7}\n"
		"	add	r0, r0, r10\n"
		"	subs	r2, r2, #1\n"
		"	bne	1b\n"
		"	pop	{r4, r5, r6, r7, r8, r9, r10}\n"
		"	bx	lr\n");
}
#endif

/* The int16 values of channels [c0, c0 + n) of pixel ix as two words (zeros outside the input or the group). */
static inline __attribute__((always_inline)) void pixel_words(const struct usmp_dsp_depthwise_params *p,
							      const int16_t *row, int32_t ix, int32_t n,
							      uint32_t *w01, uint32_t *w23)
{
	int16_t v[GROUP] = { 0, 0, 0, 0 };
	int32_t c;

	if (ix >= 0 && ix < p->in_w)
		for (c = 0; c < n; c++)
			v[c] = row[ix * p->channels + c];
	*w01 = dsp_pair(v[0], v[1]);
	*w23 = dsp_pair(v[2], v[3]);
}

/* The job's input row iy of its channels [c0, c0 + n) into ring row `slot`: per pair of pixels, each channel's two values in
 * one word; zeros outside the input. */
DSP_HOT static void pair_row(const struct usmp_dsp_depthwise_params *p, const struct dw_job *job)
{
	const void *const input = job->image;
	const int32_t iy = job->r.next, slot = job->r.next_slot, c0 = job->c0, n = job->n;
	const struct ring *const r = &job->r;
	const int16_t *image = input;
	const int32_t step = r->filter_h * GROUP;
	uint32_t *at = r->words + slot * GROUP;
	int32_t j;

	if (iy < 0 || iy >= p->in_h) {
		for (j = 0; j < p->row_pairs; j++, at += step)
			at[0] = at[1] = at[2] = at[3] = 0;
		return;
	}
	image += iy * p->in_w * p->channels + c0;
	for (j = 0; j < p->row_pairs; j++, at += step) {
		const int32_t ix = 2 * j - p->pad_left;
		uint32_t a01, a23, b01, b23;

#if USMP_DSP_NATIVE
		if (n == GROUP && ix >= 0 && ix + 1 < p->in_w) { /* the pairs inside the input, at once */
			const int32_t count = (p->in_w - ix) / 2 < p->row_pairs - j ? (p->in_w - ix) / 2 : p->row_pairs - j;

			pair_pixels_asm(at, image + ix * p->channels, count, 2 * p->channels, 4 * step);
			j += count - 1;
			at += (count - 1) * step;
			continue;
		}
#endif
		pixel_words(p, image, ix, n, &a01, &a23);
		pixel_words(p, image, ix + 1, n, &b01, &b23);
		pair_pixels(at, a01, a23, b01, b23);
	}
}

/* The requantization of a 64-bit sum (usmp_kernels/dsp.h; TFLite's 16x8 depthwise takes an int64 bias only). */
static inline __attribute__((always_inline)) int16_t requantize(int32_t sum, const struct usmp_dsp_channel_requant *k)
{
	return (int16_t)dsp_ssat16(dsp_smmla(sum, k->multiplier, k->round) >> k->shift);
}

/* Output row `out` of one channel: column c of the group, the ring rows of filter rows 0.. in `slots`, the
 * channel's filter rows from `first_row` (two int16 tap pairs each). */
static void channel_row(const struct usmp_dsp_depthwise_params *p, const uint32_t *words, const int32_t *slots,
			const uint32_t *filter, int32_t first_row, const struct usmp_dsp_channel_requant *k,
			int16_t *out)
{
	const int32_t fh = p->filter_h, pair_step = fh * GROUP;
	int32_t ox;

	for (ox = 0; ox < p->out_w; ox++, out += p->channels) {
		const int32_t x0 = ox * p->stride_w;
		const uint32_t *pair = words + (x0 >> 1) * pair_step;
		int32_t acc = k->bias, ky;

		for (ky = 0; ky < fh; ky++) {
			const uint32_t a = pair[slots[ky] * GROUP], b = pair[pair_step + slots[ky] * GROUP];
			const uint32_t w01 = filter[2 * (first_row + ky)], w12 = filter[2 * (first_row + ky) + 1];

			if (x0 & 1)
				acc = dsp_smlad(b, w12, dsp_smlatb(a, w01, acc));
			else
				acc = dsp_smlabt(b, w12, dsp_smlad(a, w01, acc));
		}
		*out = requantize(acc, k);
	}
}

#if USMP_DSP_NATIVE
/* depthwise_common.h's 3x3 assembly for 16x8: the 64-bit sum's rescale by SMMLA (r12: multiplier, lr: round),
 * the shift, SSAT #16 and halfword stores. */
#define DW16_FINISH_PAIR                                             \
	"	ldrd	r12, lr, [sp, #12]\n"                               \
	"	smmla	r10, r10, r12, lr\n"                                \
	"	smmla	r11, r11, r12, lr\n"                                \
	"	ldr	lr, [sp, #20]\n"                                   \
	"	asr	r10, r10, lr\n"                                     \
	"	asr	r11, r11, lr\n"                                     \
	"	ssat	r10, #16, r10\n"                                    \
	"	ssat	r11, #16, r11\n"                                    \
	"	strh	r10, [r1]\n"                                        \
	"	strh	r11, [r1, r2]\n"
#define DW16_FINISH_ONE                                              \
	"	ldrd	r12, lr, [sp, #12]\n"                               \
	"	smmla	r10, r10, r12, lr\n"                                \
	"	ldr	lr, [sp, #20]\n"                                   \
	"	asr	r10, r10, lr\n"                                     \
	"	ssat	r10, #16, r10\n"                                    \
	"	strh	r10, [r1]\n"

GROUP_FUNCTION(group_s1, DW_GROUP_ASM(DW_FILTER_WIDE, DW_PAIR_S1, 48, 2, DW16_FINISH_PAIR, DW16_FINISH_ONE))
GROUP_FUNCTION(group_s2, DW_GROUP_ASM(DW_FILTER_WIDE, DW_PAIR_S2, 96, 2, DW16_FINISH_PAIR, DW16_FINISH_ONE))

/* One output row of channels [c0, c0 + n) of a 3x3 filter, through the assembly above. */
static inline __attribute__((always_inline)) void group_row_3x3(const struct usmp_dsp_depthwise_params *p,
								const uint32_t *words, struct dw_job *j,
								const uint32_t *filter, int32_t c0, int32_t n,
								const struct usmp_dsp_channel_requant *k,
								int16_t *out)
{
	struct group_job *const job = &j->group;
	int32_t ky;

	job->words = words;
	job->out = out;
	job->pixel = 2 * p->channels;
	job->count = p->out_w;
	job->filter = filter + c0 * 3 * 2;
	job->requant = k + c0;
	job->n = n;
	for (ky = 0; ky < 3; ky++)
		job->row_offset[j->slots[ky]] = ky * 8;
	(p->stride_w == 1 ? group_s1 : group_s2)(job);
}
#endif

/* One output row of channels [c0, c0 + n): the 3x3 assembly, else channel by channel in C. */
static inline __attribute__((always_inline)) void out_row(const struct usmp_dsp_depthwise_params *p,
							  const uint32_t *words, struct dw_job *j, int32_t c0,
							  int32_t n, void *out, const struct dw_kernel *k)
{
	int32_t c;

#if USMP_DSP_NATIVE
	if (p->filter_h == 3) {
		group_row_3x3(p, words, j, k->filter, c0, n, k->requant, out);
		return;
	}
#endif
	for (c = 0; c < n; c++)
		channel_row(p, words + c, j->slots, k->filter, (c0 + c) * p->filter_h, k->requant + c0 + c,
			    (int16_t *)out + c);
}

DSP_HOT void usmp_dsp_depthwise_s16(const struct usmp_dsp_depthwise_params *p, const int16_t *input,
				    const uint32_t *filter, const struct usmp_dsp_channel_requant *requant,
				    int16_t *rows, int16_t *output)
{
	const struct dw_kernel k = { filter, requant, 2, 0 };

	dw_rows(p, input, output, rows, &k, pair_row, out_row);
	if (p->act_min > -32768 || p->act_max < 32767)
		dsp_clamp_outputs16(output, p->batches * p->out_h * p->out_w * p->channels, p->act_min, p->act_max);
}
