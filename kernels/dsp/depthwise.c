/*
 * DEPTHWISE_CONV_2D on the DSP extension (see usmp_kernels/dsp.h and depthwise_common.h).
 *
 * SMLAD multiplies two int16 lanes by two and adds both products to one sum,
 * so its lanes must belong to one channel: two horizontally adjacent pixels.
 * Each input row is therefore widened once per group of four channels into
 * such pairs (rows outside [0, in_h) and the padding columns are zeros), and
 * an output at even column P sums, per filter row, (x[P], x[P+1]) . (w0, w1)
 * with SMLAD and x[P+2] * w2 with SMLABT; one at odd P takes x[P] * w0
 * (SMLATB) and (x[P+1], x[P+2]) . (w1, w2). The filter rows are kept as
 * those two tap pairs.
 */
#include "usmp_kernels/dsp.h"

#include "depthwise_common.h"
#include "dsp_ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#define DSP_HOT __attribute__((optimize("O2")))
#else
#define DSP_HOT
#endif

/* Pixels a and b, four channels each, as the four channels' words (a, b), offset added. */
static inline __attribute__((always_inline)) void widen_pair(uint32_t *at, uint32_t a, uint32_t b, uint32_t offset)
{
	const uint32_t a02 = dsp_sxtab16(offset, a), a13 = dsp_sxtab16_odd(offset, a);
	const uint32_t b02 = dsp_sxtab16(offset, b), b13 = dsp_sxtab16_odd(offset, b);

	at[0] = dsp_lanes0(a02, b02);
	at[1] = dsp_lanes0(a13, b13);
	at[2] = dsp_lanes1(a02, b02);
	at[3] = dsp_lanes1(a13, b13);
}

#if USMP_DSP_NATIVE
/* `count` pairs of pixels inside the input (four channels each, `channels` bytes apart) into words `step`
 * bytes apart, in assembly (GCC -Os keeps the pointers on the stack): SXTAB16 widens and adds the offset,
 * PKHBT/PKHTB pair the two pixels' lanes channel by channel. */
__attribute__((naked, noinline)) static void widen_pairs(uint32_t *at, const int8_t *src, int32_t count,
						       int32_t channels, uint32_t offset, int32_t step)
{
	(void)at;
	(void)src;
	(void)count;
	(void)channels;
	(void)offset;
	(void)step;
	__asm volatile(
		"	push	{r4, r5, r6, r7, r8, r9, r10, r11}\n"
		"	ldrd	r10, r11, [sp, #32]\n"
		"1:	ldr	r8, [r1]\n"
		"	ldr	r9, [r1, r3]\n"
		"	add	r1, r1, r3, lsl #1\n"
		"	sxtab16	r6, r10, r8\n"
		"	sxtab16	r12, r10, r9\n"
		"	pkhbt	r4, r6, r12, lsl #16\n"
		"	pkhtb	r6, r12, r6, asr #16\n"
		"	sxtab16	r7, r10, r8, ror #8\n"
		"	sxtab16	r12, r10, r9, ror #8\n"
		"	pkhbt	r5, r7, r12, lsl #16\n"
		"	pkhtb	r7, r12, r7, asr #16\n"
		"	stm	r0, {r4, r5, r6, r7}\n"
		"	add	r0, r0, r11\n"
		"	subs	r2, r2, #1\n"
		"	bne	1b\n"
		"	pop	{r4, r5, r6, r7, r8, r9, r10, r11}\n"
		"	bx	lr\n");
}
#endif

/* The job's input row iy of its channels [c0, c0 + n) into ring row `slot`: per pair of pixels, each channel's two values
 * (offset added) in one word. A pixel outside the input reads as four zero points (0 once the offset is
 * added). */
DSP_HOT static void widen_row(const struct usmp_dsp_depthwise_params *p, const struct dw_job *job)
{
	const void *const input = job->image;
	const int32_t iy = job->r.next, slot = job->r.next_slot, c0 = job->c0, n = job->n;
	const struct ring *const r = &job->r;
	const int8_t *image = input;
	const int32_t step = r->filter_h * GROUP;
	const uint32_t offset = dsp_pair(p->input_offset, p->input_offset);
	const uint32_t padding = 0x01010101u * (uint8_t)-p->input_offset;
	uint32_t *at = r->words + slot * GROUP;
	int32_t j, c;

	if (iy < 0 || iy >= p->in_h) {
		for (j = 0; j < p->row_pairs; j++, at += step)
			at[0] = at[1] = at[2] = at[3] = 0;
		return;
	}
	image += iy * p->in_w * p->channels + c0;
	for (j = 0; j < p->row_pairs; j++, at += step) {
		const int32_t ix = 2 * j - p->pad_left;
		uint32_t a = padding, b = padding;

#if USMP_DSP_NATIVE
		if (n == GROUP && ix >= 0 && ix + 1 < p->in_w) { /* the pairs inside the input, at once */
			const int32_t count = (p->in_w - ix) / 2 < p->row_pairs - j ? (p->in_w - ix) / 2 : p->row_pairs - j;

			widen_pairs(at, image + ix * p->channels, count, p->channels, offset, 4 * step);
			j += count - 1;
			at += (count - 1) * step;
			continue;
		}
#endif
		if (n == GROUP) {
			if (ix >= 0 && ix < p->in_w)
				a = dsp_read32(image + ix * p->channels);
			if (ix + 1 >= 0 && ix + 1 < p->in_w)
				b = dsp_read32(image + (ix + 1) * p->channels);
		} else {
			for (c = 0; c < n; c++) {
				const uint32_t byte_mask = ~(0xFFu << (8 * c));

				if (ix >= 0 && ix < p->in_w)
					a = (a & byte_mask) | ((uint32_t)(uint8_t)image[ix * p->channels + c] << (8 * c));
				if (ix + 1 >= 0 && ix + 1 < p->in_w)
					b = (b & byte_mask) |
					    ((uint32_t)(uint8_t)image[(ix + 1) * p->channels + c] << (8 * c));
			}
		}
		widen_pair(at, a, b, offset);
	}
}

/* One channel's filter row as its two tap pairs (w0, w1) and (w1, w2), widened and doubled if need be. */
static inline __attribute__((always_inline)) void filter_row(const void *filter, int32_t index, int wide,
							     uint32_t *w01, uint32_t *w12)
{
	if (wide) {
		const uint32_t *w = (const uint32_t *)filter + 2 * index;

		*w01 = w[0];
		*w12 = w[1];
	} else {
		const uint32_t w = ((const uint32_t *)filter)[index];

		*w01 = dsp_sxtb16(w);
		*w12 = dsp_sxtb16_odd(w);
	}
}

/*
 * Output row `out` (stride out_step between pixels) of one channel: column c of the group, the ring rows
 * of filter rows 0.. in `slots`, filter rows from `first_row` of the channel's filter.
 */
static void channel_row(const struct usmp_dsp_depthwise_params *p, const uint32_t *words, const int32_t *slots,
			const void *filter, int32_t first_row, const struct usmp_dsp_channel_requant *k,
			int8_t *out, int wide)
{
	const int32_t fh = p->filter_h, pair_step = fh * GROUP;
	int32_t ox;

	for (ox = 0; ox < p->out_w; ox++, out += p->channels) {
		const int32_t x0 = ox * p->stride_w;
		const uint32_t *pair = words + (x0 >> 1) * pair_step;
		int32_t acc = k->bias, ky;

		for (ky = 0; ky < fh; ky++) {
			const uint32_t a = pair[slots[ky] * GROUP], b = pair[pair_step + slots[ky] * GROUP];
			uint32_t w01, w12;

			filter_row(filter, first_row + ky, wide, &w01, &w12);
			if (x0 & 1)
				acc = dsp_smlad(b, w12, dsp_smlatb(a, w01, acc));
			else
				acc = dsp_smlabt(b, w12, dsp_smlad(a, w01, acc));
		}
		if (!wide)
			acc = (int32_t)((uint32_t)acc << 1);
		*out = (int8_t)dsp_requantize(acc, k->multiplier, k->round, k->shift);
	}
}

#if USMP_DSP_NATIVE
/* depthwise_common.h's 3x3 assembly for int8: the filter rows widened with SXTB16 (narrow) or read as they are
 * (wide, doubled), the sums doubled for the narrow one, requantized (usmp_kernels/dsp.h) and stored as bytes. */
#define DW_FILTER_NARROW                                              \
	"	ldr	r4, [r10, r12]\n"                                     \
	"	sxtb16	r5, r4, ror #8\n"                                     \
	"	sxtb16	r4, r4\n"                                             \
	"	ldr	r6, [r10, lr]\n"                                      \
	"	sxtb16	r7, r6, ror #8\n"                                     \
	"	sxtb16	r6, r6\n"                                             \
	"	ldr	r12, [r11, #36]\n"                                    \
	"	ldr	r8, [r10, r12]\n"                                     \
	"	sxtb16	r9, r8, ror #8\n"                                     \
	"	sxtb16	r8, r8\n"                                             \
	"	add	r10, r10, #12\n"
#define DW8_FINISH_PAIR(DOUBLE)                                     \
	DOUBLE                                                      \
	"	ldrd	r12, lr, [sp, #12]\n"                               \
	"	add	lr, lr, r10, asr #31\n"                            \
	"	smmlar	r10, r10, r12, lr\n"                                \
	"	ldr	lr, [sp, #16]\n"                                   \
	"	add	lr, lr, r11, asr #31\n"                            \
	"	smmlar	r11, r11, r12, lr\n"                                \
	"	ldr	lr, [sp, #20]\n"                                   \
	"	asr	r10, r10, lr\n"                                     \
	"	asr	r11, r11, lr\n"                                     \
	"	ssat	r10, #8, r10\n"                                     \
	"	ssat	r11, #8, r11\n"                                     \
	"	strb	r10, [r1]\n"                                        \
	"	strb	r11, [r1, r2]\n"
#define DW8_FINISH_ONE(DOUBLE)                                      \
	DOUBLE                                                      \
	"	ldrd	r12, lr, [sp, #12]\n"                               \
	"	add	lr, lr, r10, asr #31\n"                            \
	"	smmlar	r10, r10, r12, lr\n"                                \
	"	ldr	lr, [sp, #20]\n"                                   \
	"	asr	r10, r10, lr\n"                                     \
	"	ssat	r10, #8, r10\n"                                     \
	"	strb	r10, [r1]\n"
#define DW_DOUBLE_ONE "	lsl	r10, r10, #1\n"
#define DW_DOUBLE_PAIR "	lsl	r10, r10, #1\n	lsl	r11, r11, #1\n"

GROUP_FUNCTION(group_s1_wide, DW_GROUP_ASM(DW_FILTER_WIDE, DW_PAIR_S1, 48, 1, DW8_FINISH_PAIR(""), DW8_FINISH_ONE("")))
GROUP_FUNCTION(group_s2_wide, DW_GROUP_ASM(DW_FILTER_WIDE, DW_PAIR_S2, 96, 1, DW8_FINISH_PAIR(""), DW8_FINISH_ONE("")))
GROUP_FUNCTION(group_s1_narrow, DW_GROUP_ASM(DW_FILTER_NARROW, DW_PAIR_S1, 48, 1, DW8_FINISH_PAIR(DW_DOUBLE_PAIR),
					    DW8_FINISH_ONE(DW_DOUBLE_ONE)))
GROUP_FUNCTION(group_s2_narrow, DW_GROUP_ASM(DW_FILTER_NARROW, DW_PAIR_S2, 96, 1, DW8_FINISH_PAIR(DW_DOUBLE_PAIR),
					    DW8_FINISH_ONE(DW_DOUBLE_ONE)))

/* One output row of channels [c0, c0 + n) of a 3x3 filter, through the assembly above. */
static inline __attribute__((always_inline)) void group_row_3x3(const struct usmp_dsp_depthwise_params *p,
								const uint32_t *words, struct dw_job *j,
								const void *filter, int32_t c0, int32_t n,
								const struct usmp_dsp_channel_requant *k,
								int8_t *out, int wide)
{
	const int32_t row_bytes = wide ? 8 : 4;
	struct group_job *const job = &j->group;
	int32_t ky;

	job->words = words;
	job->out = out;
	job->pixel = p->channels;
	job->count = p->out_w;
	job->filter = (const int8_t *)filter + c0 * 3 * row_bytes;
	job->requant = k + c0;
	job->n = n;
	for (ky = 0; ky < 3; ky++)
		job->row_offset[j->slots[ky]] = ky * row_bytes;
	if (p->stride_w == 1)
		(wide ? group_s1_wide : group_s1_narrow)(job);
	else
		(wide ? group_s2_wide : group_s2_narrow)(job);
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
		group_row_3x3(p, words, j, k->filter, c0, n, k->requant, out, k->wide);
		return;
	}
#endif
	for (c = 0; c < n; c++)
		channel_row(p, words + c, j->slots, k->filter, (c0 + c) * p->filter_h, k->requant + c0 + c,
			    (int8_t *)out + c, k->wide);
}

static inline __attribute__((always_inline)) void depthwise(const struct usmp_dsp_depthwise_params *p,
							    const int8_t *input, const void *filter,
							    const struct usmp_dsp_channel_requant *requant,
							    int16_t *scratch, int8_t *output, int wide)
{
	const struct dw_kernel k = { filter, requant, 1, wide };

	dw_rows(p, input, output, scratch, &k, widen_row, out_row);
	if (p->act_min > -128 || p->act_max < 127)
		dsp_clamp_outputs(output, p->batches * p->out_h * p->out_w * p->channels, p->act_min, p->act_max);
}

DSP_HOT void usmp_dsp_depthwise_s8(const struct usmp_dsp_depthwise_params *p, const int8_t *input,
				   const int8_t *filter, const struct usmp_dsp_channel_requant *requant,
				   int16_t *rows, int8_t *output)
{
	depthwise(p, input, filter, requant, rows, output, 0);
}

DSP_HOT void usmp_dsp_depthwise_wide_s8(const struct usmp_dsp_depthwise_params *p, const int8_t *input,
					const int16_t *filter, const struct usmp_dsp_channel_requant *requant,
					int16_t *rows, int8_t *output)
{
	depthwise(p, input, filter, requant, rows, output, 1);
}
