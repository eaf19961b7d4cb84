/*
 * What the DSP depthwise kernels (depthwise.c: int8, depthwise_s16.c: 16x8) share: SMLAD's two lanes must
 * belong to one channel, so each input row the windows need is laid out once per group of four channels as
 * pairs of horizontally adjacent pixels, `filter_h` rows kept as a ring; dw_rows walks the output rows,
 * lays out the rows each needs (a kernel's fill_row) and computes the row (its out_row). The 3x3 assembly
 * computes a row of every channel of a group from the ring and the filter rows' tap pairs; only the
 * requantization and the stores differ by type (FINISH_PAIR, FINISH_ONE).
 */
#ifndef USMP_DSP_DEPTHWISE_COMMON_H
#define USMP_DSP_DEPTHWISE_COMMON_H

#include "usmp_kernels/dsp.h"

enum { GROUP = 4 }; /* channels laid out together */

/* Ring row `slot`, pair j, channel c of the group at words[(j * filter_h + slot) * GROUP + c]. */
struct ring {
	uint32_t *words;
	int32_t filter_h;
	int32_t next;      /* the next input row to lay out */
	int32_t next_slot; /* and the ring row it goes to */
};

/* A kernel's type and constants as its two row functions read them. */
struct dw_kernel {
	const void *filter;
	const struct usmp_dsp_channel_requant *requant;
	int32_t element_bytes; /* of the input and the output */
	int wide;              /* int8: the filter is int16 and doubled */
};

/* Input row iy of channels [c0, c0 + n) into ring row `slot` (zeros outside the input). */
typedef void (*dw_fill_row)(const struct usmp_dsp_depthwise_params *p, const void *image, int32_t iy, int32_t slot,
			    int32_t c0, int32_t n, const struct ring *r);
/* One output row of channels [c0, c0 + n) (out: the first's output) from the ring rows of filter rows 0.. in
 * `slots`. */
typedef void (*dw_out_row)(const struct usmp_dsp_depthwise_params *p, const uint32_t *words, const int32_t *slots,
			   int32_t c0, int32_t n, void *out, const struct dw_kernel *k);

static inline __attribute__((always_inline)) void dw_rows(const struct usmp_dsp_depthwise_params *p,
							  const void *input, void *output, int16_t *scratch,
							  const struct dw_kernel *k, dw_fill_row fill, dw_out_row row)
{
	const int32_t fh = p->filter_h, channels = p->channels, size = k->element_bytes;
	struct ring r = { (uint32_t *)(void *)scratch, fh, 0, 0 };
	int32_t slots[16];
	int32_t b, c0, oy, ky, top;

	for (b = 0; b < p->batches; b++) {
		const int8_t *image = (const int8_t *)input + b * p->in_h * p->in_w * channels * size;
		int8_t *out_image = (int8_t *)output + b * p->out_h * p->out_w * channels * size;

		for (c0 = 0; c0 < channels; c0 += GROUP) {
			const int32_t n = channels - c0 < GROUP ? channels - c0 : GROUP;

			r.next = -p->pad_top;
			r.next_slot = top = 0; /* the ring row of input row iy0 */
			for (oy = 0; oy < p->out_h; oy++) {
				const int32_t iy0 = oy * p->stride_h - p->pad_top;

				for (top += oy > 0 ? p->stride_h : 0; top >= fh; top -= fh)
					;
				if (r.next < iy0) { /* a stride past the filter skips rows */
					r.next = iy0;
					r.next_slot = top;
				}
				for (; r.next < iy0 + fh; r.next++) {
					fill(p, image, r.next, r.next_slot, c0, n, &r);
					if (++r.next_slot == fh)
						r.next_slot = 0;
				}
				for (ky = 0; ky < fh; ky++)
					slots[ky] = top + ky < fh ? top + ky : top + ky - fh;
				row(p, r.words, slots, c0, n, out_image + ((oy * p->out_w) * channels + c0) * size, k);
			}
		}
	}
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/* What the 3x3 assembly reads and advances channel by channel (offsets fixed there). */
struct group_job {
	const uint32_t *words;       /* 0: the ring's word of the channel, ring row 0, pair 0 */
	void *out;                   /* 4: the channel's first output of the row */
	int32_t pixel;               /* 8: bytes between the output's pixels */
	int32_t count;               /* 12: outputs in the row */
	const void *filter;          /* 16: the channel's filter */
	const struct usmp_dsp_channel_requant *requant; /* 20 */
	int32_t n;                   /* 24: channels of the group */
	int32_t row_offset[3];       /* 28: bytes into a channel's filter of the row ring rows 0, 1, 2 hold */
};

/*
 * One output row of every channel of a group, 3x3 filter, in assembly: GCC (even at -O2) does not keep the
 * six filter words, both sums and the pointers in registers. In the loops r0: the ring's pair, r1: out,
 * r2: the pixel stride, r3: pairs of outputs left, r4..r9: the tap pairs of the filter rows ring rows 0, 1,
 * 2 hold, r10/r11: the sums, r12/lr: input words. The stack holds [sp]: count, then the channel's bias
 * (twice), multiplier, round and shift, the job and the channels left. A pair of outputs of stride 1
 * (columns P, P+1, P even) reads pairs P/2 and P/2 + 1 of each ring row (48 bytes apart), one of stride
 * 2 (P, P + 2) pairs P/2 to P/2 + 2. FILTER_ROWS loads the channel's filter rows as int16 tap pairs into
 * r4..r9 (r10 the filter, r12/lr/[r11, #36] the rows' byte offsets) and moves r10 to the next channel's;
 * FINISH_PAIR and FINISH_ONE requantize r10 and r11 (r10) and store them at r1 (and r1 + r2).
 */
#define DW_PAIR_S1(slot, wa, wb)                                      \
	"	ldr	r12, [r0, #" #slot " * 16]\n"                         \
	"	ldr	lr, [r0, #" #slot " * 16 + 48]\n"                     \
	"	smlad	r10, r12, " wa ", r10\n"                              \
	"	smlatb	r11, r12, " wa ", r11\n"                              \
	"	smlabt	r10, lr, " wb ", r10\n"                               \
	"	smlad	r11, lr, " wb ", r11\n"
#define DW_PAIR_S2(slot, wa, wb)                                      \
	"	ldr	r12, [r0, #" #slot " * 16]\n"                         \
	"	ldr	lr, [r0, #" #slot " * 16 + 48]\n"                     \
	"	smlad	r10, r12, " wa ", r10\n"                              \
	"	smlabt	r10, lr, " wb ", r10\n"                               \
	"	ldr	r12, [r0, #" #slot " * 16 + 96]\n"                    \
	"	smlad	r11, lr, " wa ", r11\n"                               \
	"	smlabt	r11, r12, " wb ", r11\n"
#define DW_ONE(slot, wa, wb)                                          \
	"	ldr	r12, [r0, #" #slot " * 16]\n"                         \
	"	ldr	lr, [r0, #" #slot " * 16 + 48]\n"                     \
	"	smlad	r10, r12, " wa ", r10\n"                              \
	"	smlabt	r10, lr, " wb ", r10\n"
#define DW_FILTER_WIDE                                                \
	"	add	r3, r10, r12\n"                                       \
	"	ldrd	r4, r5, [r3]\n"                                       \
	"	add	r3, r10, lr\n"                                        \
	"	ldrd	r6, r7, [r3]\n"                                       \
	"	ldr	r12, [r11, #36]\n"                                    \
	"	add	r3, r10, r12\n"                                       \
	"	ldrd	r8, r9, [r3]\n"                                       \
	"	add	r10, r10, #24\n"
#define DW_GROUP_ASM(FILTER_ROWS, PAIR, STEP, OUT_BYTES, FINISH_PAIR, FINISH_ONE)                         \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"                                     \
	"	sub	sp, sp, #32\n"                                                                 \
	"	str	r0, [sp, #24]\n"                                                               \
	"	ldr	r1, [r0, #12]\n"                                                               \
	"	str	r1, [sp]\n"                                                                    \
	"	ldr	r1, [r0, #24]\n"                                                               \
	"	str	r1, [sp, #28]\n"                                                               \
	"5:	ldr	r11, [sp, #24]\n"                                                              \
	"	ldr	r10, [r11, #20]\n"                                                             \
	"	ldm	r10!, {r4, r5, r6, r7}\n"                                                      \
	"	str	r10, [r11, #20]\n"                                                             \
	"	strd	r4, r4, [sp, #4]\n"                                                            \
	"	strd	r5, r6, [sp, #12]\n"                                                           \
	"	str	r7, [sp, #20]\n"                                                               \
	"	ldr	r10, [r11, #16]\n"                                                             \
	"	ldrd	r12, lr, [r11, #28]\n"                                                         \
	FILTER_ROWS                                                                            \
	"	str	r10, [r11, #16]\n"                                                             \
	"	ldm	r11, {r0, r1, r2}\n"                                                           \
	"	adds	r3, r0, #4\n"                                                                  \
	"	str	r3, [r11]\n"                                                                   \
	"	adds	r3, r1, #" #OUT_BYTES "\n"                                                     \
	"	str	r3, [r11, #4]\n"                                                               \
	"	ldr	r3, [sp]\n"                                                                    \
	"	lsrs	r3, r3, #1\n"                                                                  \
	"	beq	8f\n"                                                                          \
	"1:	ldrd	r10, r11, [sp, #4]\n"                                                          \
	PAIR(0, "r4", "r5") PAIR(1, "r6", "r7") PAIR(2, "r8", "r9")                            \
	"	adds	r0, r0, #" #STEP "\n"                                                          \
	FINISH_PAIR                                                                            \
	"	add	r1, r1, r2, lsl #1\n"                                                          \
	"	subs	r3, r3, #1\n"                                                                  \
	"	bne	1b\n"                                                                          \
	"8:	ldr	r3, [sp]\n"                                                                    \
	"	tst	r3, #1\n"                                                                      \
	"	beq	9f\n"                                                                          \
	"	ldr	r10, [sp, #4]\n"                                                               \
	DW_ONE(0, "r4", "r5") DW_ONE(1, "r6", "r7") DW_ONE(2, "r8", "r9")                      \
	FINISH_ONE                                                                             \
	"9:	ldr	r3, [sp, #28]\n"                                                               \
	"	subs	r3, r3, #1\n"                                                                  \
	"	str	r3, [sp, #28]\n"                                                               \
	"	bne	5b\n"                                                                          \
	"	add	sp, sp, #32\n"                                                                 \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"


/* The loop above as functions of a struct group_job (r0). */
#define GROUP_FUNCTION(name, body)                                               \
	__attribute__((naked, noinline)) static void name(struct group_job *job) \
	{                                                                        \
		(void)job;                                                       \
		__asm volatile(body);                                            \
	}
#endif

#endif /* USMP_DSP_DEPTHWISE_COMMON_H */
