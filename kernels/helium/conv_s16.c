/*
 * 16x8 CONV_2D and FULLY_CONNECTED on Helium as a matrix product (see usmp_kernels/helium.h).
 *
 * int16 activations need no widening of their own: each output pixel's window
 * is read as its int16 taps, from the input itself where the window lies
 * inside it and its filter rows are whole vectors of 8 taps (a 1x1 window over
 * 8k channels, micro_speech's 8-wide rows, 3x3 windows over 8k channels), else
 * from a column copied with zeros for the padding (and up to whole vectors).
 * Two pixels and a block of four output channels at once: per 8 taps two
 * column loads, four widening filter loads (VLDRB.S16) and eight VMLADAVA.S16
 * (64 multiply-accumulates in 16 instructions), the eight sums in general
 * registers from the block's biases; then both pixels' sums as two vectors,
 * rescaled as TFLite's 64-bit rescale (VMULH by the 16-bit multiplier << 16,
 * the rounding with the output offset, VSHL right), clamped and stored as
 * halfwords. A last lone pixel, and the channels of a last partial block, go
 * through the same steps one pixel and four sums at a time, in C.
 */
#include "usmp_kernels/helium.h"

#include "helium_ops.h"

/* A block: 4 biases, the filter (chunks x 4 channels x 8 bytes), 4 multipliers, 4 roundings, 4 negated shifts. */
enum { LANES = 8, BIASES = 4, RESCALE = 12 };

static int32_t block_bytes(int32_t chunks)
{
	return 4 * (BIASES + RESCALE) + 32 * chunks;
}

/* n int16 values from src to dst (zeros where src is NULL), tail-predicated vectors (WLSTP skips n = 0). */
HELIUM_INLINE void fill_taps(int16_t *dst, const int16_t *src, int32_t n)
{
#if USMP_HELIUM_NATIVE
	if (src)
		copy_bytes((int8_t *)dst, (const int8_t *)src, 2 * n);
	else
		__asm volatile("	vmov.i32	q0, #0\n"
			       "	wlstp.16	lr, %[n], 2f\n"
			       "1:	vstrh.16	q0, [%[dst]], #16\n"
			       "	letp	lr, 1b\n"
			       "2:\n"
			       : [dst] "+r"(dst)
			       : [n] "r"(n)
			       : "q0", "lr", "memory");
#else
	for (; n > 0; n--)
		*dst++ = src ? *src++ : 0;
#endif
}

/* A window's taps as the matrix loop reads them: `rows` runs of `run` taps, `step` values apart, against the
 * filter's rows from `first` (a window the input's top or bottom cuts, read in place, skips filter rows). */
struct taps {
	const int16_t *x;
	int32_t rows;
	int32_t step; /* 0: one run, a column */
	int32_t first;
	int32_t run;
};

/*
 * The taps of output pixel (oy, ox)'s window: the input itself where the window lies inside it and its filter rows
 * are whole vectors (or it is one pixel), else `column`, filled: per filter row the input's taps the window covers
 * (zeros for the padding), tap by tap when dilated along the width. The column's taps past the depth up to whole
 * vectors stay the zeros usmp_helium_conv_s16 put there.
 */
__attribute__((noinline)) HELIUM_HOT static void window_cut(const struct usmp_helium_conv_s16_params *p,
							     const int16_t *image, int32_t iy0, int32_t ix0,
							     int16_t *column, struct taps *t);

/* into *t (the call's state): out of line, so that the loops calling it keep few values on the stack; a window
 * that needs cutting goes on to window_cut (a tail call) */
__attribute__((noinline)) static void window(const struct usmp_helium_conv_s16_params *p, const int16_t *image,
					     int32_t oy, int32_t ox, int16_t *column, int fill, struct taps *t)
{
	const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
	const int32_t in_ch = p->in_ch, row_taps = p->filter_w * in_ch;
	const struct taps filled = { column, 1, 0, 0, p->depth };
	int16_t *at = column;
	int32_t ky, ky0 = 0, ky1 = p->filter_h;

	if (ix0 < 0 || ix0 + (p->filter_w - 1) * p->dilation_w >= p->in_w || (p->filter_w > 1 && p->dilation_w != 1))
		return window_cut(p, image, iy0, ix0, column, t);
	if (iy0 < 0 || iy0 + (p->filter_h - 1) * p->dilation_h >= p->in_h) { /* cut at the top or bottom */
		if (fill || row_taps % LANES)
			return window_cut(p, image, iy0, ix0, column, t);
		while (ky0 < ky1 && iy0 + ky0 * p->dilation_h < 0)
			ky0++;
		while (ky1 > ky0 && iy0 + (ky1 - 1) * p->dilation_h >= p->in_h)
			ky1--;
		if (ky0 == ky1)
			return window_cut(p, image, iy0, ix0, column, t);
	}
	if (!fill && row_taps % LANES == 0) { /* rows of whole vectors: the rows inside, in place */
		const struct taps inside = { image + ((iy0 + ky0 * p->dilation_h) * p->in_w + ix0) * in_ch, ky1 - ky0,
					     p->dilation_h * p->in_w * in_ch, ky0, row_taps };

		*t = inside;
		return;
	}
	{ /* inside: a copy a filter row */
		const int16_t *src = image + (iy0 * p->in_w + ix0) * in_ch;

		for (ky = 0; ky < p->filter_h; ky++, at += row_taps, src += p->dilation_h * p->in_w * in_ch)
			fill_taps(at, src, row_taps);
	}
	*t = filled;
}

/* A window the input's borders cut, or dilated along the width: into `column`. */
HELIUM_HOT static void window_cut(const struct usmp_helium_conv_s16_params *p, const int16_t *image, int32_t iy0,
				  int32_t ix0, int16_t *column, struct taps *t)
{
	const int32_t in_ch = p->in_ch, row_taps = p->filter_w * in_ch;
	const struct taps filled = { column, 1, 0, 0, p->depth };
	int16_t *at = column;
	int32_t ky, kx, first, end;

	helium_window_span(ix0, p->in_w, p->filter_w, &first, &end);
	if (end < first)
		end = first;
	for (ky = 0; ky < p->filter_h; ky++, at += row_taps) {
		const int32_t iy = iy0 + ky * p->dilation_h;

		if (iy < 0 || iy >= p->in_h) {
			fill_taps(at, 0, row_taps);
			continue;
		}
		if (p->dilation_w == 1) {
			if (first)
				fill_taps(at, 0, first * in_ch);
			fill_taps(at + first * in_ch, image + (iy * p->in_w + ix0 + first) * in_ch, (end - first) * in_ch);
			if (end < p->filter_w)
				fill_taps(at + end * in_ch, 0, (p->filter_w - end) * in_ch);
			continue;
		}
		for (kx = 0; kx < p->filter_w; kx++) {
			const int32_t ix = ix0 + kx * p->dilation_w;
			const int inside = ix >= 0 && ix < p->in_w;

			fill_taps(at + kx * in_ch, inside ? image + (iy * p->in_w + ix) * in_ch : 0, in_ch);
		}
	}
	*t = filled;
}

#if USMP_HELIUM_NATIVE
/* What the pair loop reads, in the call's state at the start of its scratch (the assembly reads the fields at
 * these offsets and moves the pixels' taps and outputs on in place): the block's sums pass through `sums`. */
struct pair_job {
	int32_t sums[8];      /* 0: pixel 0's four channels, then pixel 1's */
	const int16_t *x0;    /* 32: the first pixel's taps */
	const int16_t *x1;    /* 36: the second's */
	int32_t rows;         /* 40: runs of taps */
	int32_t chunks;       /* 44: vectors of 8 taps a run */
	int32_t skip;         /* 48: bytes from a run's end to the next run */
	int16_t *out0;        /* 52: the first pixel's outputs */
	int16_t *out1;        /* 56 */
	const int8_t *blocks; /* 60: the first block */
	const int8_t *end;    /* 64: the end of the full blocks */
	int32_t pairs;        /* 68: pixel pairs, each `pair_step` bytes of taps after the one before */
	int32_t pair_step;    /* 72 */
	int32_t out_skip;     /* 76: bytes from a pair's last outputs to the next pair's first */
	int32_t act_min;      /* 80 */
	int32_t act_max;      /* 84 */
	int32_t before;       /* 88: bytes of a block's filter before the first run's (rows cut at the top) */
	int32_t after;        /* 92: after the last run's (rows cut at the bottom) */
};

/* One vector of 8 taps of both pixels (r1, r3) against the block's four filters (r5): 8 VMLADAVA. */
#define PAIR_CHUNK                             \
	"	vldrh.16	q0, [r1], #16\n"      \
	"	vldrh.16	q1, [r3], #16\n"      \
	"	vldrb.s16	q2, [r5], #8\n"       \
	"	vmladava.s16	r0, q0, q2\n"        \
	"	vmladava.s16	r8, q1, q2\n"        \
	"	vldrb.s16	q2, [r5], #8\n"       \
	"	vmladava.s16	r2, q0, q2\n"        \
	"	vmladava.s16	r10, q1, q2\n"       \
	"	vldrb.s16	q2, [r5], #8\n"       \
	"	vmladava.s16	r4, q0, q2\n"        \
	"	vmladava.s16	r12, q1, q2\n"       \
	"	vldrb.s16	q2, [r5], #8\n"       \
	"	vmladava.s16	r6, q0, q2\n"        \
	"	vmladava.s16	lr, q1, q2\n"

/*
 * Pairs of pixels against every full block of 4 output channels, in assembly (GCC keeps neither eight
 * accumulators, which VMLADAVA wants in even registers, lr among them, nor the loop state in registers). The job
 * stays in the call's state (r9 between blocks); per block the sums start from its biases (channels 0-3 of pixel
 * 0 in r0, r2, r4, r6, of pixel 1 in r8, r10, r12, lr), each run of taps meets the filter, then the sums become
 * two vectors through the job's `sums` (one STM, two loads), rescaled by the fields after the filter, clamped
 * (act_min in q3, act_max loaded into q2 after the shifts: no callee-saved vector register) and stored, four
 * halfwords a pixel; then the next pair. The frame: the job's address at sp, the chunks a run at sp + 4.
 */
#define PAIR_BLOCKS(name, ROWS, BEFORE, AFTER)                                                      \
	__attribute__((naked, noinline)) static void name(struct pair_job *job) \
	{                                                                             \
		(void)job;                                                            \
		__asm volatile("	push	{r4-r11, lr}\n" \
		       "	sub	sp, sp, #8\n" \
		       "	str	r0, [sp]\n" \
		       "	ldr	r7, [r0, #44]\n" \
		       "	str	r7, [sp, #4]\n" \
		       "	ldr	r6, [r0, #80]\n" \
		       "	vdup.32	q3, r6\n" \
		       "	ldr	r5, [r0, #60]\n" \
		       "	ldr	r11, [r0, #48]\n" \
		       "	mov	r9, r0\n" \
		       "1:	ldm	r5!, {r0, r2, r4, r6}\n" \
		       "	mov	r8, r0\n" \
		       "	mov	r10, r2\n" \
		       "	mov	r12, r4\n" \
		       "	mov	lr, r6\n" \
		       BEFORE \
		       "	ldrd	r1, r3, [r9, #32]\n" \
		       "	ldr	r9, [r9, #40]\n" \
		       ROWS \
		       "	ldr	r9, [sp]\n" \
		       AFTER \
		       "	stm	r9, {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
		       "	vldrw.u32	q0, [r9]\n" \
		       "	vldrw.u32	q1, [r9, #16]\n" \
		       "	vldrw.u32	q2, [r5], #16\n" \
		       "	vmulh.s32	q0, q0, q2\n" \
		       "	vmulh.s32	q1, q1, q2\n" \
		       "	vldrw.u32	q2, [r5], #16\n" \
		       "	vadd.i32	q0, q0, q2\n" \
		       "	vadd.i32	q1, q1, q2\n" \
		       "	vldrw.u32	q2, [r5], #16\n" \
		       "	vshl.s32	q0, q0, q2\n" \
		       "	vshl.s32	q1, q1, q2\n" \
		       "	ldr	r7, [r9, #84]\n" \
		       "	vdup.32	q2, r7\n" \
		       "	vmax.s32	q0, q0, q3\n" \
		       "	vmax.s32	q1, q1, q3\n" \
		       "	vmin.s32	q0, q0, q2\n" \
		       "	vmin.s32	q1, q1, q2\n" \
		       "	ldrd	r1, r3, [r9, #52]\n" \
		       "	vstrh.32	q0, [r1], #8\n" \
		       "	vstrh.32	q1, [r3], #8\n" \
		       "	strd	r1, r3, [r9, #52]\n" \
		       "	ldr	r7, [r9, #64]\n" \
		       "	cmp	r5, r7\n" \
		       "	bne	1b\n" \
		       "	ldr	r7, [r9, #68]\n" \
		       "	subs	r7, r7, #1\n" \
		       "	beq	4f\n" \
		       "	str	r7, [r9, #68]\n" \
		       "	ldrd	r1, r3, [r9, #32]\n" \
		       "	ldr	r7, [r9, #72]\n" \
		       "	add	r1, r1, r7\n" \
		       "	add	r3, r3, r7\n" \
		       "	strd	r1, r3, [r9, #32]\n" \
		       "	ldrd	r1, r3, [r9, #52]\n" \
		       "	ldr	r7, [r9, #76]\n" \
		       "	add	r1, r1, r7\n" \
		       "	add	r3, r3, r7\n" \
		       "	strd	r1, r3, [r9, #52]\n" \
		       "	ldr	r5, [r9, #60]\n" \
		       "	b	1b\n" \
		       "4:	add	sp, sp, #8\n" \
		       "	pop	{r4-r11, pc}\n"); \
}

/* Each run of taps: its vectors in a loop */
#define PAIR_ROWS                                  \
	"2:	ldr	r7, [sp, #4]\n"              \
	"3:" PAIR_CHUNK                            \
	"	subs	r7, r7, #1\n"                 \
	"	bne	3b\n"                         \
	"	add	r1, r1, r11\n"                \
	"	add	r3, r3, r11\n"                \
	"	subs	r9, r9, #1\n"                 \
	"	bne	2b\n"
/* Runs of one vector (micro_speech's rows of 8 taps): no inner loop */
#define PAIR_ROWS_1                                \
	"2:" PAIR_CHUNK                            \
	"	add	r1, r1, r11\n"                \
	"	add	r3, r3, r11\n"                \
	"	subs	r9, r9, #1\n"                 \
	"	bne	2b\n"
/* Windows the input's top or bottom cuts, read in place: the filter rows before and after theirs skipped */
#define CUT_BEFORE "	ldr	r1, [r9, #88]\n	add	r5, r5, r1\n"
#define CUT_AFTER "	ldr	r1, [r9, #92]\n	add	r5, r5, r1\n"
PAIR_BLOCKS(pair_blocks, PAIR_ROWS, "", "")
PAIR_BLOCKS(pair_blocks_1, PAIR_ROWS_1, "", "")
PAIR_BLOCKS(pair_blocks_cut, PAIR_ROWS, CUT_BEFORE, CUT_AFTER)
PAIR_BLOCKS(pair_blocks_1_cut, PAIR_ROWS_1, CUT_BEFORE, CUT_AFTER)
#endif

/* One window's taps against the blocks of 4 output channels from channel `first`: out_ch - first outputs. */
HELIUM_HOT static void taps_times_blocks(const struct usmp_helium_conv_s16_params *p, const struct taps *window_taps,
					 const int8_t *blocks, int32_t first, int16_t *out)
{
	const struct taps *const t = window_taps;
	const int32_t row_taps = t->run, bytes = block_bytes(p->chunks);
	const int32_t full = row_taps / LANES, tail = row_taps % LANES; /* a tail only where there is one row */
	int32_t o;

	blocks += first / 4 * bytes;
#if USMP_HELIUM_NATIVE
	const int32_t act_min = p->act_min, act_max = p->act_max;
	const mve_pred16_t tail_lanes = vctp16q((uint32_t)tail);

	for (o = first; o < p->out_ch; o += 4, blocks += bytes) {
		const int32_t *k = (const int32_t *)blocks;
		const int8_t *w = blocks + 4 * BIASES + 4 * t->first * t->run;
		const int16_t *x = t->x;
		int32_t a0 = k[0], a1 = k[1], a2 = k[2], a3 = k[3];
		int32x4_t s;
		{ /* per row its whole chunks, a low-overhead loop (VMLADAVA takes even registers) */
			register int32_t s0 __asm("r0") = a0, s1 __asm("r2") = a1, s2 __asm("r4") = a2;
			register int32_t s3 __asm("r6") = a3;
			const int16_t *row = t->x;
			int32_t rows = t->rows;

			__asm volatile("3:	mov	%[x], %[row]\n"
				       "	wls	lr, %[n], 2f\n"
				       "1:	vldrh.16	q0, [%[x]], #16\n"
				       "	vldrb.s16	q1, [%[w]], #8\n"
				       "	vmladava.s16	%[s0], q0, q1\n"
				       "	vldrb.s16	q2, [%[w]], #8\n"
				       "	vmladava.s16	%[s1], q0, q2\n"
				       "	vldrb.s16	q1, [%[w]], #8\n"
				       "	vmladava.s16	%[s2], q0, q1\n"
				       "	vldrb.s16	q2, [%[w]], #8\n"
				       "	vmladava.s16	%[s3], q0, q2\n"
				       "	le	lr, 1b\n"
				       "2:	add	%[row], %[row], %[step]\n"
				       "	subs	%[rows], %[rows], #1\n"
				       "	bne	3b\n"
				       : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "=&r"(x), [w] "+l"(w),
					 [row] "+r"(row), [rows] "+r"(rows)
				       : [n] "r"(full), [step] "r"(2 * t->step)
				       : "q0", "q1", "q2", "lr", "memory", "cc");
			a0 = s0;
			a1 = s1;
			a2 = s2;
			a3 = s3;
		}
		if (tail) { /* taps past the depth: zeros in the column and the filter */
			const int16x8_t v = vldrhq_z_s16(x, tail_lanes);

			a0 = vmladavaq_s16(a0, v, vldrbq_s16(w));
			a1 = vmladavaq_s16(a1, v, vldrbq_s16(w + LANES));
			a2 = vmladavaq_s16(a2, v, vldrbq_s16(w + 2 * LANES));
			a3 = vmladavaq_s16(a3, v, vldrbq_s16(w + 3 * LANES));
		}
		k = (const int32_t *)(blocks + bytes - 4 * RESCALE);
		s = vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3);
		s = vshlq_s32(vaddq_s32(vmulhq_s32(s, vldrwq_s32(k)), vldrwq_s32(k + 4)), vldrwq_s32(k + 8));
		{ /* the clamp's vectors made each block (volatile: not hoisted), no callee-saved vector register */
			int32x4_t lo, hi;

			__asm volatile("vdup.32	%q0, %1" : "=w"(lo) : "r"(act_min));
			__asm volatile("vdup.32	%q0, %1" : "=w"(hi) : "r"(act_max));
			s = vminq_s32(vmaxq_s32(s, lo), hi);
		}
		vstrhq_p_s32(out + o, s, vctp32q((uint32_t)(p->out_ch - o)));
	}
#else
	for (o = first; o < p->out_ch; o += 4, blocks += bytes) {
		const int32_t *k = (const int32_t *)(blocks + bytes - 4 * RESCALE);
		const int8_t *w = blocks + 4 * BIASES;
		int32_t lane;

		for (lane = 0; lane < 4 && o + lane < p->out_ch; lane++) {
			int32_t sum = ((const int32_t *)blocks)[lane], i, scaled;

			for (i = 0; i < t->rows * row_taps; i++) {
				const int32_t tap = t->first * row_taps + i;

				sum += t->x[i / row_taps * t->step + i % row_taps] *
				       w[(tap / LANES) * 4 * LANES + lane * LANES + tap % LANES];
			}
			scaled = (int32_t)(((int64_t)sum * k[lane]) >> 32) + k[4 + lane];
			scaled >>= -k[8 + lane];
			scaled = scaled < p->act_min ? p->act_min : scaled > p->act_max ? p->act_max : scaled;
			out[o + lane] = (int16_t)scaled;
		}
	}
	(void)full;
	(void)tail;
#endif
}

/* What a call keeps during its loops, at the start of its scratch rather than on the stack: the pair loop's job
 * (first: its sums at the scratch's start) and the two windows' taps. */
struct conv_s16_state {
#if USMP_HELIUM_NATIVE
	struct pair_job job;
#endif
	struct taps t[2];
};

/* On the core (4-byte pointers, the plan's alignment) in the scratch; a host's twin keeps it on its stack, whose
 * pointers may need more alignment than the plan gives. */
#if USMP_HELIUM_NATIVE
typedef char conv_s16_state_fits[sizeof(struct conv_s16_state) <= USMP_HELIUM_CONV_S16_STATE_BYTES ? 1 : -1];
#define conv_s16_state_in(scratch) ((struct conv_s16_state *)(void *)(scratch))
#else
#define conv_s16_state_in(scratch) ((void)(scratch), &(struct conv_s16_state){ { { 0, 0, 0, 0, 0 } } })
#endif

/* Two windows' taps (of the same form) against every block; with `pairs` > 1 (whole blocks only), as many pairs
 * of windows read in place along an output row, each two strides after the one before. */
__attribute__((noinline)) static int32_t pair_times_blocks(const struct usmp_helium_conv_s16_params *p,
							 struct conv_s16_state *st, const int8_t *blocks,
							 int16_t *out0, int16_t *out1, int32_t pairs)
{
	int32_t first = 0;

#if USMP_HELIUM_NATIVE
	const struct taps t0 = st->t[0];
	struct pair_job *const job = &st->job;
	const int32_t chunks = t0.step ? t0.run / LANES : p->chunks, run_bytes = 4 * t0.run;

	job->x0 = t0.x;
	job->x1 = st->t[1].x;
	job->rows = t0.rows;
	job->chunks = chunks;
	job->skip = 2 * (t0.step - LANES * chunks);
	job->out0 = out0;
	job->out1 = out1;
	job->blocks = blocks;
	job->end = blocks + p->out_ch / 4 * block_bytes(p->chunks);
	job->pairs = pairs;
	job->pair_step = 4 * p->stride_w * p->in_ch;
	job->out_skip = 2 * p->out_ch;
	job->act_min = p->act_min;
	job->act_max = p->act_max;
	job->before = run_bytes * t0.first;
	job->after = t0.step ? run_bytes * (p->filter_h - t0.first - t0.rows) : 0;
	first = p->out_ch / 4 * 4;
	/* direct calls only: the stack bound follows no call through a register */
	if (first && (job->before || job->after) && chunks == 1)
		pair_blocks_1_cut(job);
	else if (first && (job->before || job->after))
		pair_blocks_cut(job);
	else if (first && chunks == 1)
		pair_blocks_1(job);
	else if (first)
		pair_blocks(job);
#else
	(void)p;
	(void)st;
	(void)blocks;
	(void)out0;
	(void)out1;
	(void)pairs;
#endif
	return first;
}

#if USMP_HELIUM_NATIVE
/* A 1x1 window, stride 1, no padding, over whole vectors of channels into whole blocks: the input's pixels are
 * the columns, one after the other, every pair through one call of the assembly. */
static int32_t direct_pairs(const struct usmp_helium_conv_s16_params *p, const int16_t *image, const int8_t *blocks,
			    int16_t *output, struct pair_job *job)
{
	const int32_t pairs = p->out_h * p->out_w / 2, in_ch = p->in_ch, out_ch = p->out_ch;

	job->x0 = image;
	job->x1 = image + in_ch;
	job->rows = 1;
	job->chunks = in_ch / LANES;
	job->skip = 0;
	job->out0 = output;
	job->out1 = output + out_ch;
	job->blocks = blocks;
	job->end = blocks + out_ch / 4 * block_bytes(p->chunks);
	job->pairs = pairs;
	job->pair_step = 4 * in_ch;
	job->out_skip = 2 * out_ch;
	job->act_min = p->act_min;
	job->act_max = p->act_max;
	job->before = 0;
	job->after = 0;
	if (pairs && in_ch == LANES)
		pair_blocks_1(job);
	else if (pairs)
		pair_blocks(job);
	return 2 * pairs;
}
#endif

HELIUM_HOT_SETUP void usmp_helium_conv_s16(const struct usmp_helium_conv_s16_params *p, const int16_t *input,
				     const int8_t *blocks, int16_t *scratch, int16_t *output)
{
	/* the call's state at the start of the scratch, the columns after it */
	struct conv_s16_state *const st = conv_s16_state_in(scratch);
	int16_t *const columns = scratch + USMP_HELIUM_CONV_S16_STATE_BYTES / 2;
	const struct taps *const t0 = &st->t[0], *const t1 = &st->t[1];
	const int32_t pixels = p->out_h * p->out_w, column = LANES * p->chunks;
	/* the last output column whose window lies inside the input's width (when any does) */
	const int32_t last = (p->in_w - 1 - (p->filter_w - 1) * p->dilation_w + p->pad_left) / p->stride_w;
	const int direct = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
			   p->pad_top == 0 && p->pad_left == 0 && p->in_w == p->out_w && p->in_ch % LANES == 0 &&
			   p->out_ch % 4 == 0 && p->in_h >= p->out_h;
	int32_t b, px, first;

	for (b = 0; b < p->batches; b++) {
		const int16_t *image = input + b * p->in_h * p->in_w * p->in_ch;
		int32_t oy = 0, ox = 0;

		px = 0;
		if (b == 0) { /* the columns' taps past the depth, up to whole vectors: zeros (none in a direct layer) */
			fill_taps(columns + p->depth, 0, column - p->depth);
			fill_taps(columns + column + p->depth, 0, column - p->depth);
		}
#if USMP_HELIUM_NATIVE
		if (direct) {
			px = direct_pairs(p, image, blocks, output, &st->job);
			output += px * p->out_ch;
			oy = px / p->out_w;
			ox = px % p->out_w;
		}
#else
		(void)direct;
#endif
		for (; px + 1 < pixels; px += 2, output += 2 * p->out_ch) {
			const int32_t oy1 = ox + 1 == p->out_w ? oy + 1 : oy;
			int32_t ox1 = ox + 1 == p->out_w ? 0 : ox + 1;
			int32_t pairs = 1;

			window(p, image, oy, ox, columns, 0, &st->t[0]);
			window(p, image, oy1, ox1, columns + column, 0, &st->t[1]);
			if (t0->rows != t1->rows || t0->first != t1->first || !t0->step != !t1->step) { /* both as columns */
				window(p, image, oy, ox, columns, 1, &st->t[0]);
				window(p, image, oy1, ox1, columns + column, 1, &st->t[1]);
			} else if (USMP_HELIUM_NATIVE && t0->step && oy1 == oy && p->out_ch % 4 == 0) {
				/* the pairs after along the row read in place too: one call */
				while (ox1 + 2 * pairs <= last && ox1 + 2 * pairs < p->out_w)
					pairs++;
			}
			first = pair_times_blocks(p, st, blocks, output, output + p->out_ch, pairs);
			if (first < p->out_ch) { /* the channels of a last partial block, one window at a time */
				taps_times_blocks(p, t0, blocks, first, output);
				taps_times_blocks(p, t1, blocks, first, output + p->out_ch);
			}
			if (pairs > 1) {
				px += 2 * (pairs - 1);
				output += 2 * (pairs - 1) * p->out_ch;
				ox1 += 2 * (pairs - 1);
			}
			oy = ox1 + 1 == p->out_w ? oy1 + 1 : oy1;
			ox = ox1 + 1 == p->out_w ? 0 : ox1 + 1;
		}
		if (px < pixels) {
			window(p, image, oy, ox, columns, 0, &st->t[0]);
			taps_times_blocks(p, t0, blocks, 0, output);
			output += p->out_ch;
		}
	}
}

/*
 * usmp_helium_conv_s16_sum64: layers whose sums may leave 32 bits (micro_speech's fully connected layer of 4,000
 * inputs), summed as TFLite sums them, in 64 bits (VMLALDAVA.S16), one output channel at a time, and rescaled
 * the 64-bit way in C. `blocks` holds per output channel the int64 bias (two words), the 16-bit multiplier, the
 * right shift and the output offset, then the filter as chunks x 8 bytes (zero padded).
 */
enum { SUM64_FIELDS = 5 };

/* The int64 bias of a channel's block, its rescale, the offset and the clamp. */
static int16_t rescale64(const struct usmp_helium_conv_s16_params *p, const int32_t *k, int64_t sum)
{
	int64_t scaled;

	sum += (int64_t)(((uint64_t)(uint32_t)k[1] << 32) | (uint32_t)k[0]);
	scaled = ((sum * k[2] + ((int64_t)1 << (k[3] - 1))) >> k[3]) + k[4];
	return (int16_t)(scaled < p->act_min ? p->act_min : scaled > p->act_max ? p->act_max : scaled);
}

/* One window's taps against every output channel, two channels at a time (the second of a lone last channel
 * sums its first's filter again, unused). */
HELIUM_HOT static void taps_times_channels64(const struct usmp_helium_conv_s16_params *p,
					     const struct taps *window_taps, const int8_t *blocks, int16_t *out)
{
	const struct taps t = *window_taps;
	const int32_t row_taps = t.run, bytes = 4 * SUM64_FIELDS + LANES * p->chunks;
	int32_t o, r;

	for (o = 0; o < p->out_ch; o += 2, blocks += 2 * bytes) {
		const int32_t step = o + 1 < p->out_ch ? bytes : 0;
		const int8_t *w0 = blocks + 4 * SUM64_FIELDS + t.first * row_taps, *w1 = w0 + step;
		int64_t s0 = 0, s1 = 0;

		for (r = 0; r < t.rows; r++) {
			const int16_t *x = t.x + r * t.step;
			int32_t n;

#if USMP_HELIUM_NATIVE
			n = row_taps;
			{ /* whole vectors: VMLALDAVA wants its low halves in even registers, its high ones in odd */
				register uint32_t l0 __asm("r0") = (uint32_t)s0, h0 __asm("r1") = (uint32_t)(s0 >> 32);
				register uint32_t l1 __asm("r2") = (uint32_t)s1, h1 __asm("r3") = (uint32_t)(s1 >> 32);

				__asm volatile("	wls	lr, %[n], 2f\n"
					       "1:	vldrh.16	q0, [%[x]], #16\n"
					       "	vldrb.s16	q1, [%[w0]], #8\n"
					       "	vmlaldava.s16	%[l0], %[h0], q0, q1\n"
					       "	vldrb.s16	q2, [%[w1]], #8\n"
					       "	vmlaldava.s16	%[l1], %[h1], q0, q2\n"
					       "	le	lr, 1b\n"
					       "2:\n"
					       : [l0] "+r"(l0), [h0] "+r"(h0), [l1] "+r"(l1), [h1] "+r"(h1), [x] "+r"(x),
						 [w0] "+l"(w0), [w1] "+l"(w1)
					       : [n] "r"(n / LANES)
					       : "q0", "q1", "q2", "lr", "memory");
				s0 = (int64_t)(((uint64_t)h0 << 32) | l0);
				s1 = (int64_t)(((uint64_t)h1 << 32) | l1);
			}
			n %= LANES;
			if (n) {
				const int16x8_t v = vldrhq_z_s16(x, vctp16q((uint32_t)n));

				s0 = vmlaldavaq_s16(s0, v, vldrbq_s16(w0));
				s1 = vmlaldavaq_s16(s1, v, vldrbq_s16(w1));
				w0 += LANES;
				w1 += LANES;
			}
#else
			for (n = 0; n < row_taps; n++) {
				s0 += x[n] * w0[n];
				s1 += x[n] * w1[n];
			}
			w0 += row_taps;
			w1 += row_taps;
#endif
		}
		out[o] = rescale64(p, (const int32_t *)blocks, s0);
		if (step)
			out[o + 1] = rescale64(p, (const int32_t *)(blocks + bytes), s1);
	}
}

HELIUM_HOT_SETUP void usmp_helium_conv_s16_sum64(const struct usmp_helium_conv_s16_params *p, const int16_t *input,
					   const int8_t *blocks, int16_t *scratch, int16_t *output)
{
	struct conv_s16_state *const st = conv_s16_state_in(scratch); /* as usmp_helium_conv_s16's */
	int16_t *const columns = scratch + USMP_HELIUM_CONV_S16_STATE_BYTES / 2;
	int32_t b, oy, ox;

	for (b = 0; b < p->batches; b++) {
		const int16_t *image = input + b * p->in_h * p->in_w * p->in_ch;

		for (oy = 0; oy < p->out_h; oy++)
			for (ox = 0; ox < p->out_w; ox++, output += p->out_ch)
			{
				window(p, image, oy, ox, columns, 0, &st->t[0]);
				taps_times_channels64(p, &st->t[0], blocks, output);
			}
	}
}
