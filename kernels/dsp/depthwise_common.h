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
#endif

/*
 * What dw_rows keeps during a call (its job): the ring, the ring rows of the filter rows and the 3x3 assembly's
 * job, at the start of the call's scratch (DW_JOB_BYTES, select/dsp.py: DEPTHWISE_JOB_BYTES), not on the stack.
 * Planned for 4-byte pointers: a build with wider ones (a test on a 64-bit host) keeps it on its stack.
 */
struct dw_job {
	struct ring r;
	const int8_t *image; /* the batch's input */
	int8_t *out_image;   /* and output */
	int32_t b, c0, n;    /* the batch, and the group's first channel and channels */
	int32_t oy, top;     /* the output row, and the ring row of its first input row */
	int32_t slots[16];
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
	struct group_job group;
#endif
};
#define DW_JOB_BYTES 148
#define DW_JOB_PLANNED (UINTPTR_MAX <= 0xFFFFFFFFu)
typedef char dw_job_fits[!DW_JOB_PLANNED || sizeof(struct dw_job) <= DW_JOB_BYTES ? 1 : -1];

/* The job's input row r.next of its channels [c0, c0 + n) into ring row r.next_slot (zeros outside the input). */
typedef void (*dw_fill_row)(const struct usmp_dsp_depthwise_params *p, const struct dw_job *j);
/* One output row of channels [c0, c0 + n) (out: the first's output) from the ring rows of filter rows 0.. in
 * the job's slots. */
typedef void (*dw_out_row)(const struct usmp_dsp_depthwise_params *p, const uint32_t *words, struct dw_job *j,
			   int32_t c0, int32_t n, void *out, const struct dw_kernel *k);

static inline __attribute__((always_inline)) void dw_rows(const struct usmp_dsp_depthwise_params *p,
							  const void *input, void *output, int16_t *scratch,
							  const struct dw_kernel *k, dw_fill_row fill, dw_out_row row)
{
#if DW_JOB_PLANNED
	struct dw_job *const j = (struct dw_job *)(void *)scratch;
#else
	struct dw_job on_stack, *const j = &on_stack;
#endif
	int32_t ky;

	j->r.words = (uint32_t *)(void *)((int8_t *)scratch + DW_JOB_BYTES);
	j->r.filter_h = p->filter_h;
	for (j->b = 0; j->b < p->batches; j->b++) {
		j->image = (const int8_t *)input + j->b * p->in_h * p->in_w * p->channels * k->element_bytes;
		j->out_image = (int8_t *)output + j->b * p->out_h * p->out_w * p->channels * k->element_bytes;
		for (j->c0 = 0; j->c0 < p->channels; j->c0 += GROUP) {
			j->n = p->channels - j->c0 < GROUP ? p->channels - j->c0 : GROUP;
			j->r.next = -p->pad_top;
			j->r.next_slot = j->top = 0; /* the ring row of input row iy0 */
			for (j->oy = 0; j->oy < p->out_h; j->oy++) {
				const int32_t iy0 = j->oy * p->stride_h - p->pad_top;

				for (j->top += j->oy > 0 ? p->stride_h : 0; j->top >= p->filter_h; j->top -= p->filter_h)
					;
				if (j->r.next < iy0) { /* a stride past the filter skips rows */
					j->r.next = iy0;
					j->r.next_slot = j->top;
				}
				for (; j->r.next < iy0 + p->filter_h; j->r.next++) {
					fill(p, j);
					if (++j->r.next_slot == p->filter_h)
						j->r.next_slot = 0;
				}
				for (ky = 0; ky < p->filter_h; ky++)
					j->slots[ky] = j->top + ky < p->filter_h ? j->top + ky : j->top + ky - p->filter_h;
				row(p, j->r.words, j, j->c0, j->n,
				    j->out_image + ((j->oy * p->out_w) * p->channels + j->c0) * k->element_bytes, k);
			}
		}
	}
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
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
