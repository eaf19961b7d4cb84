/*
 * CONV_2D and FULLY_CONNECTED on Helium as a matrix product (see usmp_kernels/helium.h).
 *
 * Each output pixel's window is a column of 16-byte chunks: the input itself
 * for a 1x1 window over whole chunks, else an im2col of a few output pixels
 * at a time (padding is the input zero point, so the folded bias is exact
 * everywhere), or for windows of short filter rows chunks the loop gathers
 * itself from padded copies of an output row's input rows. The matrix loop
 * takes two pixels and a block of four output channels at once: per chunk
 * two column loads, four filter loads and eight
 * VMLADAVA (128 multiply-accumulates in 16 instructions), the eight sums in
 * general registers; then both pixels' sums are requantized as two vectors.
 */
#include "usmp_kernels/helium.h"

#include <stddef.h>
#include <string.h>

#include "usmp_kernels/arith.h"

#include "helium_ops.h"

/* What the narrow loop gathers a window of one chunk with (USMP_HELIUM_GATHERED): in the constants, after the
 * blocks. */
struct gathered {
	uint8_t offsets[16]; /* of the window's bytes from its first one in the padded rows */
};

/* What the loops for the pixels and channels the pairs' loop leaves take: a block's four sums on their way into a
 * vector (gemm_lone, gemm_single), and the pixels whose last block's channels (out_ch % 4) gemm_lone writes. */
struct lone_tails {
	int32_t sums[4]; /* 56 */
	int32_t pixels;
};

/* What the matrix loop reads; the assembly below reads the fields at these offsets. */
struct gemm_job {
	const int8_t *column0; /* 0: the first pair's first pixel's column */
	const int8_t *column1; /* 4: its second pixel's */
	int32_t pair_step;     /* 8: bytes from a pair's columns to the next pair's */
	int32_t pairs;         /* 12 */
	const int8_t *blocks;  /* 16: the first block of 4 output channels */
	int32_t full_blocks;   /* 20: blocks of 4 channels the assembly takes */
	int32_t chunks;        /* 24 */
	int8_t *output;        /* 28: the first pixel's output */
	int32_t out_ch;        /* 32: bytes from one pixel's output to the next's */
	int32_t output_offset; /* 36 */
	int32_t act_min;       /* 40 */
	int32_t act_max;       /* 44 */
	int32_t block_bytes;   /* 48 */
	const uint16_t *pair;  /* 52: a pixel pair's 8 output offsets, as the unclamped requantization interleaves them */
	union {
		uint32_t saved[16]; /* 56: d8-d15 (callee-saved) while a loop that uses them runs, here rather than on the stack */
		struct lone_tails tails; /* what gemm_lone and gemm_single take, done before the pairs' loop runs */
		struct {
			uint32_t saved_q4[4];    /* 56: d8-d9 while gemm_pairs_rows runs */
			const uint8_t *offsets;  /* 72: a chunk's 16 offsets in the padded rows (USMP_HELIUM_ROWS) */
			int32_t chunk_step;      /* 76: bytes from a chunk's first filter row to the next chunk's */
		} rows;
	};
};

/* A block's bytes: the four biases, the filter chunks, the multipliers and the right shifts, and with
 * left shifts (general) the left shifts. */
static int32_t block_bytes(int32_t chunks, int32_t general)
{
	return 16 + 64 * chunks + (general ? 48 : 32);
}

/* What a call's loops share, kept in its scratch (struct matrix_state): the blocks, the narrow loop's sums or the
 * gathered constants, and where the next run's columns start (output row, column; the output row whose input rows
 * are padded). */
struct matrix_call {
	const int8_t *blocks;
	int32_t *sums; /* the narrow loop's (one chunk) */
	int32_t general;
	int32_t oy;
	int32_t ox;
	union {
		int32_t padded;                  /* gathers: the output row whose input rows are padded */
		const struct gathered *gathered; /* USMP_HELIUM_GATHERED */
	};
};
struct matrix_state;

/* The gathered constants, after the blocks. */
static inline const struct gathered *gathered_of(const struct usmp_helium_conv_params *p, const int8_t *blocks)
{
	return (const struct gathered *)(const void *)(blocks + (size_t)((p->out_ch + 3) >> 2) *
									  block_bytes(p->chunks, p->requant_general));
}

/* Bytes of a padded row (gathered windows): the input columns every window of an output row reads, from the
 * first window's first tap (padding included). */
HELIUM_INLINE int32_t padded_row_bytes(const struct usmp_helium_conv_params *p)
{
	return ((p->out_w - 1) * p->stride_w + p->filter_w) * p->in_ch;
}

/* Bytes from a gathered chunk's first filter row to the next chunk's (USMP_HELIUM_ROWS: 16 / row filter rows a
 * chunk, in an output row's padded rows). */
static inline int32_t chunk_step(const struct usmp_helium_conv_params *p)
{
	return 16 / (p->filter_w * p->in_ch) * padded_row_bytes(p);
}

#if USMP_HELIUM_NATIVE
/*
 * Pixel pairs against every full block of 4 output channels, in assembly: GCC can neither keep eight accumulators
 * (VMLADAVA wants even registers, and lr is one) nor the requantization vectors in registers. Pairs outer, blocks
 * inner: the blocks are read as one stream (biases, filter chunks, multipliers, shifts), the pair's columns from
 * the start for each block. Per block the eight sums start from its biases (two ldm), each 16-byte chunk of both
 * columns meets the block's four filters (8 VMLADAVA: a loop, or unrolled for 2, 4 and 8 chunks), then the sums go
 * through the stack (one stm, two vector loads: cheaper than eight lane moves) and are requantized as
 * helium_requantize (without left shifts and with every right shift non-zero the rounding fix needs no mask),
 * offset (q3, or general from the stack), clamped (q6, q7) and stored, 4 channels of each pixel (VSTRB.32 takes a
 * low register for its address). The frame: the sums at sp, the pair's output (32), the end of the full blocks
 * (36), the pair's columns (40, 44), the job (48: in the kernel's scratch, where the loops that use q4..q7 save
 * them), then a copy of the fields the loops read (52: pair_step, pairs, blocks, chunks, out_ch, output_offset).
 */
/* One 16-byte chunk of both columns (at [r9 + off], [r11 + off], or post-incremented) against the block's four
 * filters (r5 moves on): 8 VMLADAVA. */
#define GEMM_CHUNK(col0, col1)                   \
	"	vldrb.8	q0, " col0 "\n"           \
	"	vldrb.8	q1, " col1 "\n" GEMM_CHUNK_FILTERS
/* the chunk (q0, q1) against the block's four filters */
#define GEMM_CHUNK_FILTERS                       \
	"	vldrb.8	q2, [r5], #16\n"          \
	"	vmladava.s8	r0, q0, q2\n"     \
	"	vmladava.s8	r8, q1, q2\n"     \
	"	vldrb.8	q2, [r5], #16\n"          \
	"	vmladava.s8	r2, q0, q2\n"     \
	"	vmladava.s8	r10, q1, q2\n"    \
	"	vldrb.8	q2, [r5], #16\n"          \
	"	vmladava.s8	r4, q0, q2\n"     \
	"	vmladava.s8	r12, q1, q2\n"    \
	"	vldrb.8	q2, [r5], #16\n"          \
	"	vmladava.s8	r6, q0, q2\n"     \
	"	vmladava.s8	lr, q1, q2\n"
#define GEMM_AT(off) GEMM_CHUNK("[r9, #" off "]", "[r11, #" off "]")
/* any number of chunks: the columns from the pair's first byte again, a loop */
#define GEMM_CHUNKS_LOOP                                                     \
	"	ldr	r9, [sp, #40]\n"                                      \
	"	ldr	r11, [sp, #44]\n"                                     \
	"	ldr	r1, [sp, #64]\n"                                      \
	"4:" GEMM_CHUNK("[r9], #16", "[r11], #16") "	subs	r1, r1, #1\n" \
	"	bne	4b\n"
/* two, four and eight chunks unrolled: the columns stay where they are (no loop, no reloads) */
#define GEMM_CHUNKS_2 GEMM_AT("0") GEMM_AT("16")
#define GEMM_CHUNKS_4 GEMM_CHUNKS_2 GEMM_AT("32") GEMM_AT("48")
#define GEMM_CHUNKS_8 GEMM_CHUNKS_4 GEMM_AT("64") GEMM_AT("80") GEMM_AT("96") GEMM_AT("112")

#define GEMM_PAIRS(name, chunk_loop, job_setup, setup, pair_setup, save, requant, restore)             \
	__attribute__((naked, noinline)) static void name(const struct gemm_job *job)                      \
	{                                                                                                  \
		(void)job;                                                                                 \
		__asm volatile("	push	{r4-r11, lr}\n" save                                        \
			       "	sub	sp, sp, #76\n"                                              \
			       "	ldm	r0, {r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12}\n" \
			       "	ldr	lr, [r0, #48]\n"                                           \
			       "	mla	lr, r6, lr, r5\n"                                          \
			       "	str	lr, [sp, #36]\n" job_setup                                 \
			       "	str	r0, [sp, #48]\n"                                            \
			       "	add	r0, sp, #52\n"                                              \
			       "	stm	r0, {r3, r4, r5, r7, r9, r10}\n" setup                       \
			       "	mov	r7, r8\n"                                                   \
			       "	mov	r9, r1\n"                                                   \
			       "	mov	r11, r2\n"                                                  \
			       "2:	str	r9, [sp, #40]\n"                                            \
			       "	str	r11, [sp, #44]\n"                                           \
			       "	str	r7, [sp, #32]\n" pair_setup                                 \
			       "	ldr	r5, [sp, #60]\n"                                            \
			       "3:	ldm	r5, {r0, r2, r4, r6}\n"                                     \
			       "	ldm	r5!, {r8, r10, r12, lr}\n" chunk_loop                       \
			       "	stm	sp, {r0, r2, r4, r6, r8, r10, r12, lr}\n"                   \
			       "	vldrw.u32	q0, [sp]\n"                                         \
			       "	vldrw.u32	q1, [sp, #16]\n" requant                            \
			       "	ldr	r1, [sp, #36]\n"                                            \
			       "	cmp	r5, r1\n"                                                   \
			       "	bne	3b\n"                                                       \
			       "	ldr	r7, [sp, #32]\n"                                            \
			       "	ldr	r1, [sp, #68]\n"                                            \
			       "	add	r7, r7, r1, lsl #1\n"                                       \
			       "	ldr	r9, [sp, #40]\n"                                            \
			       "	ldr	r11, [sp, #44]\n"                                           \
			       "	ldr	r1, [sp, #52]\n"                                            \
			       "	add	r9, r9, r1\n"                                               \
			       "	add	r11, r11, r1\n"                                             \
			       "	ldr	r1, [sp, #56]\n"                                            \
			       "	subs	r1, r1, #1\n"                                               \
			       "	str	r1, [sp, #56]\n"                                            \
			       "	bne	2b\n" restore                                              \
			       "	add	sp, sp, #76\n"                                              \
			       "	pop	{r4-r11, pc}\n");                                           \
	}
/* The sums q0, q1 requantized with the block's multipliers (q4) and shifts (q5) as helium_requantize (left shifts
 * in q3 where there are some: left_load, left_shift; the rounding fix in q2: fix0, fix1), then finished. */
#define PAIRS_REQUANT(left_load, left_shift, fix0, fix1, finish)                               \
	"	vldrw.u32	q4, [r5], #16\n"                                                   \
	"	vldrw.u32	q5, [r5], #16\n" left_load left_shift                              \
	"	vqrdmulh.s32	q0, q0, q4\n"                                                      \
	"	vqrdmulh.s32	q1, q1, q4\n" fix0 "	vqadd.s32	q0, q0, q2\n" fix1            \
	"	vqadd.s32	q1, q1, q2\n"                                                      \
	"	vrshl.s32	q0, q0, q5\n"                                                      \
	"	vrshl.s32	q1, q1, q5\n" finish
/* q4..q7 (d8-d15) are callee-saved: only the loops that need them save them */
#define PAIRS_SAVE "	add	r1, r0, #56\n	vstmia	r1, {d8-d15}\n"
#define PAIRS_RESTORE "	ldr	r0, [sp, #48]\n	add	r0, r0, #56\n	vldmia	r0, {d8-d15}\n"

/* Clamped (act_min, act_max in q6, q7), each pixel's 4 channels stored by its own pointer (r7, r3). */
#define PAIRS_CLAMP_SETUP "	vdup.32	q6, r11\n	vdup.32	q7, r12\n"
#define PAIRS_CLAMP_PAIR "	ldr	r3, [sp, #68]\n	add	r3, r7, r3\n"
#define PAIRS_CLAMP_FINISH(offset_add)           \
	offset_add                               \
	"	vmax.s32	q0, q0, q6\n"      \
	"	vmax.s32	q1, q1, q6\n"      \
	"	vmin.s32	q0, q0, q7\n"      \
	"	vmin.s32	q1, q1, q7\n"      \
	"	vstrb.32	q0, [r7], #4\n"    \
	"	vstrb.32	q1, [r3], #4\n"
/* every right shift non-zero, no left shift: the rounding fix is the sign alone */
#define PAIRS_FIX0 "	vshr.s32	q2, q0, #31\n"
#define PAIRS_FIX1 "	vshr.s32	q2, q1, #31\n"
/* any shifts (and every clamped layer: requant_general, select/helium.py): left shifts in q3, the rounding fix
 * only where there is a right shift, the offset from the stack, the clamp */
GEMM_PAIRS(gemm_pairs_general, GEMM_CHUNKS_LOOP, "", PAIRS_CLAMP_SETUP, PAIRS_CLAMP_PAIR, PAIRS_SAVE,
	   PAIRS_REQUANT("	vldrw.u32	q3, [r5], #16\n", "	vshl.s32	q0, q0, q3\n	vshl.s32	q1, q1, q3\n",
			 "	vand	q2, q0, q5\n	vshr.s32	q2, q2, #31\n",
			 "	vand	q2, q1, q5\n	vshr.s32	q2, q2, #31\n",
			 PAIRS_CLAMP_FINISH("	ldr	r1, [sp, #72]\n	vadd.i32	q0, q0, r1\n	vadd.i32	q1, q1, r1\n")),
	   PAIRS_RESTORE)
/*
 * Right shifts only and the whole int8 range (the common case: no activation, or RELU/RELU6 with the zero point
 * at -128): the pair's sums requantized with the multipliers, then the shifts, in q2 (the rounding fix there too),
 * narrowed with saturation into one interleaved int16 vector, offset there (r3), narrowed into int8 (which is the
 * clamp) and scattered to both pixels' outputs with the offsets in q3. Four vector registers: nothing to save.
 */
#define PAIRS_FULL_REQUANT                                                                                    \
	"	vldrw.u32	q2, [r5], #16\n"                                                                    \
	"	vqrdmulh.s32	q0, q0, q2\n"                                                                       \
	"	vqrdmulh.s32	q1, q1, q2\n" PAIRS_FIX0 "	vqadd.s32	q0, q0, q2\n" PAIRS_FIX1                   \
	"	vqadd.s32	q1, q1, q2\n"                                                                       \
	"	vldrw.u32	q2, [r5], #16\n"                                                                    \
	"	vrshl.s32	q0, q0, q2\n"                                                                       \
	"	vrshl.s32	q1, q1, q2\n"                                                                       \
	"	vqmovnb.s32	q2, q0\n	vqmovnt.s32	q2, q1\n	vqadd.s16	q2, q2, r3\n"                  \
	"	vqmovnb.s16	q0, q2\n	vstrb.16	q0, [r7, q3]\n	adds	r7, r7, #4\n"
#define PAIRS_FULL_SETUP "	ldr	lr, [r0, #52]\n	vldrh.u16	q3, [lr]\n"
#define PAIRS_FULL(name, chunk_loop) \
	GEMM_PAIRS(name, chunk_loop, PAIRS_FULL_SETUP, "	mov	r3, r10\n", "", "", PAIRS_FULL_REQUANT, "")
PAIRS_FULL(gemm_pairs_full, GEMM_CHUNKS_LOOP) /* any number of chunks */
PAIRS_FULL(gemm_pairs_2, GEMM_CHUNKS_2) /* 32-deep columns (MobileNet's first layer, 32-channel 1x1) */
PAIRS_FULL(gemm_pairs_4, GEMM_CHUNKS_4) /* DS-CNN's and MobileNet's 64-channel 1x1 layers */
PAIRS_FULL(gemm_pairs_8, GEMM_CHUNKS_8) /* 128 channels */
/*
 * The same with each chunk of both pixels' windows gathered (USMP_HELIUM_ROWS: filter rows of 1, 2, 4 or 8 bytes,
 * 16 / row of them a chunk): the chunk's 16 offsets in the padded rows in q4 (its d8-d9 saved in the job), its
 * windows chunk_step apart (r3 meanwhile: the output offset is reloaded for the requantization). No columns.
 */
GEMM_PAIRS(gemm_pairs_rows,
	   "	ldr	r9, [sp, #40]\n"
	   "	ldr	r11, [sp, #44]\n"
	   "	ldr	r1, [sp, #64]\n"
	   "	ldr	r3, [sp, #48]\n"
	   "	ldr	r3, [r3, #76]\n"
	   "4:	vldrb.u8	q0, [r9, q4]\n"
	   "	vldrb.u8	q1, [r11, q4]\n"
	   "	add	r9, r9, r3\n"
	   "	add	r11, r11, r3\n" GEMM_CHUNK_FILTERS "	subs	r1, r1, #1\n"
	   "	bne	4b\n",
	   PAIRS_FULL_SETUP "	ldr	lr, [r0, #72]\n	vldrb.u8	q4, [lr]\n", "	mov	r3, r10\n", "",
	   "	add	r1, r0, #56\n	vstmia	r1, {d8-d9}\n", "	ldr	r3, [sp, #72]\n" PAIRS_FULL_REQUANT,
	   "	ldr	r0, [sp, #48]\n	add	r0, r0, #56\n	vldmia	r0, {d8-d9}\n")


/*
 * An odd last pixel against every full block (the pairs' job: its column pairs * pair_step past column0, its
 * output pairs * 2 * out_ch past output), in assembly: per block the four sums start from the biases, each chunk
 * of the column meets the four filters (4 VMLADAVA; with 4 chunks or more the first four held in q4..q7, the
 * others loaded in a loop), the sums go into one vector through memory (one stm, one vector load) and are
 * requantized as the pairs' loop does (the whole int8 range narrowed, or general: left shifts and the clamp) into
 * the pixel's 4 channels. Called before the pairs' loop: its frame (the registers it saves, the sums) adds less
 * to gemm's than gemm_lone's does; q4..q7 are saved in the job, as the pairs' loop does.
 */
#define GEMM_SINGLE(name, save, setup, chunks, sums, requant, restore)                       \
	__attribute__((naked, noinline)) static void name(const struct gemm_job *job)        \
	{                                                                                    \
		(void)job;                                                                   \
		__asm volatile("	push	{r4-r11, lr}\n" save                          \
			       "	ldr	r1, [r0, #0]\n"                               \
			       "	ldr	r2, [r0, #8]\n"                               \
			       "	ldr	r3, [r0, #12]\n"                              \
			       "	mla	r1, r2, r3, r1\n"                             \
			       "	ldr	r7, [r0, #28]\n"                              \
			       "	ldr	r2, [r0, #32]\n"                              \
			       "	mul	r3, r3, r2\n"                                 \
			       "	add	r7, r7, r3, lsl #1\n"                         \
			       "	ldr	r5, [r0, #16]\n"                              \
			       "	ldr	r11, [r0, #20]\n"                             \
			       "	ldr	r2, [r0, #48]\n"                              \
			       "	mla	r11, r11, r2, r5\n"                           \
			       "	ldr	r10, [r0, #36]\n" setup                       \
			       "1:	ldm	r5!, {r2, r4, r6, r8}\n" chunks               \
			       "	stm	" sums ", {r2, r4, r6, r8}\n"                 \
			       "	vldrw.u32	q0, [" sums "]\n" requant             \
			       "	vstrb.32	q0, [r7], #4\n"                       \
			       "	cmp	r5, r11\n"                                    \
			       "	bne	1b\n" restore                                 \
			       "	pop	{r4-r11, pc}\n");                             \
	}
/* the column's chunk (a q register) against the block's four filters (r5 moves on) */
#define SINGLE_CHUNK(q)                                  \
	"	vldrb.8	q0, [r5], #16\n"                  \
	"	vmladava.s8	r2, " q ", q0\n"          \
	"	vldrb.8	q1, [r5], #16\n"                  \
	"	vmladava.s8	r4, " q ", q1\n"          \
	"	vldrb.8	q0, [r5], #16\n"                  \
	"	vmladava.s8	r6, " q ", q0\n"          \
	"	vldrb.8	q1, [r5], #16\n"                  \
	"	vmladava.s8	r8, " q ", q1\n"
/* any number of chunks: a loop over the column (the sums through the job's tails.sums, r12) */
#define SINGLE_LOOP_SETUP "	ldr	r9, [r0, #24]\n	add	r12, r0, #56\n"
#define SINGLE_LOOP                                      \
	"	mov	r3, r1\n"                                 \
	"	dls	lr, r9\n"                                 \
	"2:	vldrb.8	q2, [r3], #16\n" SINGLE_CHUNK("q2") \
	"	le	lr, 2b\n"
/* 4 chunks or more: the first four held in q4..q7 for every block (d8-d15 saved in the job), the others loaded
 * in a loop (r1 of them from r12: the column's start is not needed again); the sums on the stack */
#define SINGLE_HELD_SAVE "	sub	sp, sp, #16\n	add	r1, r0, #56\n	vstmia	r1, {d8-d15}\n"
#define SINGLE_HELD_SETUP                                              \
	"	vldrb.8	q4, [r1]\n"                                            \
	"	vldrb.8	q5, [r1, #16]\n"                                       \
	"	vldrb.8	q6, [r1, #32]\n"                                       \
	"	vldrb.8	q7, [r1, #48]\n"                                       \
	"	add	r12, r1, #64\n"                                         \
	"	ldr	r1, [r0, #24]\n"                                        \
	"	subs	r1, r1, #4\n"
#define SINGLE_HELD                                                    \
	SINGLE_CHUNK("q4") SINGLE_CHUNK("q5") SINGLE_CHUNK("q6") SINGLE_CHUNK("q7") \
	"	cbz	r1, 3f\n"                                              \
	"	mov	r3, r12\n"                                             \
	"	dls	lr, r1\n"                                              \
	"2:	vldrb.8	q2, [r3], #16\n" SINGLE_CHUNK("q2")                  \
	"	le	lr, 2b\n"                                               \
	"3:\n"
#define SINGLE_HELD_RESTORE "	add	r0, r0, #56\n	vldmia	r0, {d8-d15}\n	add	sp, sp, #16\n"
/* right shifts only, the whole int8 range: as PAIRS_FULL_REQUANT on one pixel (the offset in r10) */
#define SINGLE_FULL_REQUANT                               \
	"	vldrw.u32	q1, [r5], #16\n"                \
	"	vqrdmulh.s32	q0, q0, q1\n"                   \
	"	vshr.s32	q1, q0, #31\n"                  \
	"	vqadd.s32	q0, q0, q1\n"                   \
	"	vldrw.u32	q1, [r5], #16\n"                \
	"	vrshl.s32	q0, q0, q1\n"                   \
	"	vqmovnb.s32	q1, q0\n"                       \
	"	vqadd.s16	q1, q1, r10\n"                  \
	"	vqmovnb.s16	q0, q1\n"
GEMM_SINGLE(gemm_single_held, SINGLE_HELD_SAVE, SINGLE_HELD_SETUP, SINGLE_HELD, "sp", SINGLE_FULL_REQUANT, SINGLE_HELD_RESTORE)
GEMM_SINGLE(gemm_single_full, "", SINGLE_LOOP_SETUP, SINGLE_LOOP, "r12", SINGLE_FULL_REQUANT, "")
/* any shifts, clamped (act_min, act_max from the job) */
GEMM_SINGLE(gemm_single_general, "", SINGLE_LOOP_SETUP, SINGLE_LOOP, "r12",
	    "	vldrw.u32	q1, [r5], #16\n"
	    "	vldrw.u32	q2, [r5], #16\n"
	    "	vldrw.u32	q3, [r5], #16\n"
	    "	vshl.s32	q0, q0, q3\n"
	    "	vqrdmulh.s32	q0, q0, q1\n"
	    "	vand	q3, q0, q2\n"
	    "	vshr.s32	q3, q3, #31\n"
	    "	vqadd.s32	q0, q0, q3\n"
	    "	vrshl.s32	q0, q0, q2\n"
	    "	vadd.i32	q0, q0, r10\n"
	    "	ldr	r3, [r0, #40]\n"
	    "	vdup.32	q1, r3\n"
	    "	vmax.s32	q0, q0, q1\n"
	    "	ldr	r3, [r0, #44]\n"
	    "	vdup.32	q1, r3\n"
	    "	vmin.s32	q0, q0, q1\n",
	    "")

/* What the narrow loop reads (the assembly below reads the fields at these offsets). */
struct narrow_job {
	const int8_t *columns; /* 0: the first pixel's column */
	int32_t stride;        /* 4: bytes from one pixel's column to the next's */
	int32_t pixels;        /* 8 (>= 1) */
	const int8_t *blocks;  /* 12 */
	int32_t full_blocks;   /* 16 (>= 1) */
	int32_t block_bytes;   /* 20 */
	int8_t *output;        /* 24: the first pixel's output */
	int32_t out_ch;        /* 28 */
	int32_t output_offset; /* 32 */
	int32_t act_min;       /* 36 */
	int32_t act_max;       /* 40 */
	int32_t *sums;         /* 44: scratch for `pixels` x 4 sums */
	const uint16_t *pair;  /* 48: a pixel pair's 8 output offsets, as the unclamped loop interleaves them */
	uint32_t saved[16];    /* 52: d8-d15 while the loop runs */
	const uint8_t *gather; /* 116: USMP_HELIUM_GATHERED: a column's offsets from its first byte in the padded rows */
};

/* The clamp to act_min and act_max in q2 and q3 (after the offset). */
#define NARROW_CLAMP_SETUP                      \
	"	ldr	r2, [r0, #36]\n"          \
	"	vdup.32	q2, r2\n"                 \
	"	ldr	r2, [r0, #40]\n"          \
	"	vdup.32	q3, r2\n"
/* A pixel's four sums a step, requantized (bias q6, multipliers q4, right shifts q5), offset, clamped, stored. */
#define NARROW_REQUANT(left_shift, fix)                  \
	"	mov	r6, r7\n"                          \
	"	dls	lr, r2\n"                          \
	"3:	vldrw.u32	q0, [r5], #16\n"           \
	"	vadd.i32	q0, q0, q6\n" left_shift   \
	"	vqrdmulh.s32	q0, q0, q4\n" fix          \
	"	vqadd.s32	q0, q0, q1\n"              \
	"	vrshl.s32	q0, q0, q5\n"              \
	"	vadd.i32	q0, q0, r12\n"             \
	"	vmax.s32	q0, q0, q2\n"              \
	"	vmin.s32	q0, q0, q3\n"              \
	"	vstrb.32	q0, [r6]\n"                \
	"	add	r6, r6, r1\n"                      \
	"	le	lr, 3b\n"
/* The same for the whole int8 range, two pixels a step: their sums narrowed with saturation into one int16
 * vector (interleaved), offset there, narrowed with saturation into int8 (which is the clamp) and scattered to
 * both pixels' outputs with the pair's offsets in q2; an odd last pixel under the predicate of its lanes. */
#define NARROW_PAIR_SETUP                       \
	"	ldr	r2, [r0, #48]\n"          \
	"	vldrh.u16	q2, [r2]\n"
#define NARROW_REQUANT_ONE(q)                           \
	"	vadd.i32	" q ", " q ", q6\n"       \
	"	vqrdmulh.s32	" q ", " q ", q4\n"       \
	"	vshr.s32	q1, " q ", #31\n"         \
	"	vqadd.s32	" q ", " q ", q1\n"       \
	"	vrshl.s32	" q ", " q ", q5\n"
#define NARROW_REQUANT_PAIRS                            \
	"	mov	r6, r7\n"                         \
	"	lsrs	r4, r2, #1\n"                     \
	"	wls	lr, r4, 5f\n"                     \
	"3:	vldrw.u32	q0, [r5], #16\n"          \
	"	vldrw.u32	q7, [r5], #16\n"          \
	NARROW_REQUANT_ONE("q0") NARROW_REQUANT_ONE("q7") \
	"	vqmovnb.s32	q1, q0\n"                 \
	"	vqmovnt.s32	q1, q7\n"                 \
	"	vqadd.s16	q1, q1, r12\n"            \
	"	vqmovnb.s16	q0, q1\n"                 \
	"	vstrb.16	q0, [r6, q2]\n"           \
	"	add	r6, r6, r1, lsl #1\n"             \
	"	le	lr, 3b\n"                         \
	"5:	tst	r2, #1\n"                         \
	"	beq	6f\n"                             \
	"	vldrw.u32	q0, [r5]\n"               \
	NARROW_REQUANT_ONE("q0")                        \
	"	vqmovnb.s32	q1, q0\n"                 \
	"	vqadd.s16	q1, q1, r12\n"            \
	"	vqmovnb.s16	q0, q1\n"                 \
	"	movw	r4, #0x3333\n"                    \
	"	vmsr	p0, r4\n"                         \
	"	vpst\n"                                   \
	"	vstrbt.16	q0, [r6, q2]\n"           \
	"6:\n"

/*
 * Columns of a single 16-byte chunk (depth <= 16) against every full block, in assembly: a block's four filters
 * stay in q4..q7 while every pixel's column is loaded once for four VMLADAV, the four sums stored as they come
 * (one stm); then the block's biases, multipliers and shifts take their places and the sums are requantized
 * (requant: NARROW_REQUANT, NARROW_REQUANT_PAIRS) into the pixels' four outputs.
 */
#define GEMM_NARROW(name, setup, left_load, requant) GEMM_NARROW_AS(name, setup, left_load, requant, "", \
							       "	vldrb.8	q0, [r1]\n")
/* gathered (the offsets in q1 for each block: the requantization takes q1 after the pixels' loop) */
#define NARROW_GATHER_SETUP "	ldr	r2, [r0, #116]\n	vldrb.u8	q1, [r2]\n"
#define NARROW_GATHER_LOAD "	vldrb.u8	q0, [r1, q1]\n"
#define GEMM_NARROW_AS(name, setup, left_load, requant, block_setup, load)                                 \
	__attribute__((naked, noinline)) static void name(const struct narrow_job *job)                    \
	{                                                                                                  \
		(void)job;                                                                                 \
		__asm volatile("	push	{r4-r11, lr}\n"                                             \
			       "	add	r1, r0, #52\n"                                              \
			       "	vstmia	r1, {d8-d15}\n"                                             \
			       "	ldr	r9, [r0, #12]\n"                                            \
			       "	ldr	r11, [r0, #16]\n"                                           \
			       "	ldr	r7, [r0, #24]\n" setup                                      \
			       "	ldr	r12, [r0, #32]\n"                                           \
			       "	ldr	r3, [r0, #4]\n"                                             \
			       "1:	vldrw.u32	q4, [r9, #16]\n"                                    \
			       "	vldrw.u32	q5, [r9, #32]\n"                                    \
			       "	vldrw.u32	q6, [r9, #48]\n"                                    \
			       "	vldrw.u32	q7, [r9, #64]\n"                                    \
			       "	ldr	r1, [r0, #0]\n"                                             \
			       "	ldr	r5, [r0, #44]\n" block_setup                                \
			       "	ldr	r2, [r0, #8]\n"                                             \
			       "	dls	lr, r2\n"                                                   \
			       "2:" load                                                                   \
			       "	add	r1, r1, r3\n"                                               \
			       "	vmladav.s8	r4, q0, q4\n"                                       \
			       "	vmladav.s8	r6, q0, q5\n"                                       \
			       "	vmladav.s8	r8, q0, q6\n"                                       \
			       "	vmladav.s8	r10, q0, q7\n"                                      \
			       "	stm	r5!, {r4, r6, r8, r10}\n"                                   \
			       "	le	lr, 2b\n"                                                   \
			       "	vldrw.u32	q6, [r9]\n"                                         \
			       "	vldrw.u32	q4, [r9, #80]\n"                                    \
			       "	vldrw.u32	q5, [r9, #96]\n" left_load                          \
			       "	ldr	r5, [r0, #44]\n"                                            \
			       "	ldr	r1, [r0, #28]\n" requant                                    \
			       "	ldr	r2, [r0, #20]\n"                                            \
			       "	add	r9, r9, r2\n"                                               \
			       "	adds	r7, r7, #4\n"                                               \
			       "	subs	r11, r11, #1\n"                                             \
			       "	bne	1b\n"                                                       \
			       "	add	r0, r0, #52\n"                                              \
			       "	vldmia	r0, {d8-d15}\n"                                             \
			       "	pop	{r4-r11, pc}\n");                                           \
	}

/* any shifts (and every clamped layer): left shifts in q7, the rounding fix only where there is a right shift */
GEMM_NARROW(gemm_narrow_general, NARROW_CLAMP_SETUP, "	vldrw.u32	q7, [r9, #112]\n",
	    NARROW_REQUANT("	vshl.s32	q0, q0, q7\n", "	vand	q1, q0, q5\n	vshr.s32	q1, q1, #31\n"))
/* right shifts only, the whole int8 range: two pixels a step */
GEMM_NARROW(gemm_narrow_pairs, NARROW_PAIR_SETUP, "", NARROW_REQUANT_PAIRS)
/* the whole int8 range, each pixel's column gathered from the padded rows (direct: USMP_HELIUM_GATHERED) */
GEMM_NARROW_AS(gemm_narrow_gathered_pairs, NARROW_PAIR_SETUP, "", NARROW_REQUANT_PAIRS, NARROW_GATHER_SETUP,
	       NARROW_GATHER_LOAD)


/* The last block's channels (out_ch % 4) of each of the job's pixels (tails.pixels), a pixel at a time: everything
 * from the job, and the four sums through its memory: no vector register to save, a small frame. */
__attribute__((noinline)) static void gemm_lone(const struct usmp_helium_conv_params *p, struct gemm_job *j)
{
	struct lone_tails *const t = &j->tails;
	const int8_t *const block = j->blocks + (size_t)j->full_blocks * j->block_bytes;
	const int32_t *const bias = (const int32_t *)(const void *)block;
	const int32_t *const requant = (const int32_t *)(const void *)(block + 16 + 64 * j->chunks);
	const mve_pred16_t lanes = vctp32q((uint32_t)(j->out_ch & 3));

	for (int32_t px = 0; px < t->pixels; px++) {
		const int8_t *const column = j->column0 + (size_t)px * (j->pair_step >> 1);
		const int8_t *w = block + 16;
		int32_t a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3];

		for (int32_t k = 0; k < j->chunks; k++, w += 64) {
			const int8x16_t x = vldrbq_s8(column + 16 * k);

			a0 = vmladavaq_s8(a0, x, vldrbq_s8(w));
			a1 = vmladavaq_s8(a1, x, vldrbq_s8(w + 16));
			a2 = vmladavaq_s8(a2, x, vldrbq_s8(w + 32));
			a3 = vmladavaq_s8(a3, x, vldrbq_s8(w + 48));
		}
		t->sums[0] = a0;
		t->sums[1] = a1;
		t->sums[2] = a2;
		t->sums[3] = a3;
		int32x4_t acc = vldrwq_s32(t->sums);

		if (p->requant_general) /* helium_requantize's steps, without a vector of zero left shifts */
			acc = vshlq_s32(acc, vldrwq_s32(requant + 8));
		acc = vqrdmulhq_s32(acc, vldrwq_s32(requant));
		acc = vqaddq_s32(acc, vshrq_n_s32(vandq_s32(acc, vldrwq_s32(requant + 4)), 31));
		acc = vrshlq_s32(acc, vldrwq_s32(requant + 4));
		acc = vaddq_n_s32(acc, j->output_offset);
		acc = vmaxq_s32(acc, vdupq_n_s32(j->act_min));
		acc = vminq_s32(acc, vdupq_n_s32(j->act_max));
		vstrbq_p_s32(j->output + (size_t)px * j->out_ch + 4 * j->full_blocks, acc, lanes);
	}
}

/* What the window gathers read (the offsets used there). */
struct gather_job {
	int8_t *column;          /* 0 */
	int32_t stride;          /* 4: bytes from a column to the next */
	const int8_t *src;       /* 8: the first window's first tap */
	int32_t src_step;        /* 12: from a window's first tap to the next window's */
	int32_t count;           /* 16: windows (>= 1) */
	const uint16_t *offsets; /* 20: 16 * chunks offsets of the column's bytes from the window's first tap */
	uint32_t saved[16];      /* 24: d8-d15 while the gather runs */
};

/* What a call keeps during the matrix loop, in its scratch (the first USMP_HELIUM_MATRIX_STATE_BYTES) rather
 * than on the stack: the assembly's job (and the vector registers it saves), a pixel pair's output offsets. */
struct matrix_state {
	struct matrix_call call;
	union {
		struct gemm_job pairs;
		struct narrow_job narrow;
		struct gather_job gather;
	} job;
	union {
		uint16_t pair[8];
		uint32_t pair_words[4];
	};
};
typedef char matrix_state_fits[sizeof(struct matrix_state) <= USMP_HELIUM_MATRIX_STATE_BYTES ? 1 : -1];

/* A pixel pair's output offsets, (k, out_ch + k) as two halfwords of a word, little-endian. */
HELIUM_INLINE void pair_offsets(struct matrix_state *st, int32_t out_ch)
{
	for (uint32_t k = 0; k < 4; k++)
		st->pair_words[k] = k | ((uint32_t)out_ch + k) << 16;
}

/* The job of the pairs' loop (and of gemm_lone) over `pixels` columns stride apart. */
HELIUM_INLINE struct gemm_job *pairs_job(const struct usmp_helium_conv_params *p, struct matrix_state *st,
					 const int8_t *columns, int32_t stride, int32_t pixels, int8_t *out,
					 int32_t out_ch, int32_t general)
{
	struct gemm_job *const j = &st->job.pairs;

	j->column0 = columns;
	j->column1 = columns + stride;
	j->pair_step = 2 * stride;
	j->pairs = pixels >> 1;
	j->blocks = st->call.blocks;
	j->full_blocks = out_ch >> 2;
	j->chunks = p->chunks;
	j->output = out;
	j->out_ch = out_ch;
	j->output_offset = p->output_offset;
	j->act_min = p->act_min;
	j->act_max = p->act_max;
	j->block_bytes = block_bytes(p->chunks, general);
	j->pair = st->pair;
	return j;
}

/* USMP_HELIUM_ROWS: an output row of pixel pairs (whole blocks, the whole int8 range: select/helium.py), each chunk
 * of their windows gathered from the padded rows by the pairs' loop. */
HELIUM_HOT_SETUP static void gemm_rows(const struct usmp_helium_conv_params *p, struct matrix_state *st,
				       const int8_t *rows, int32_t stride, int32_t pixels, int8_t *out)
{
	struct gemm_job *j;

	pair_offsets(st, p->out_ch);
	j = pairs_job(p, st, rows, stride, pixels, out, p->out_ch, 0);
	j->rows.offsets = st->call.gathered->offsets;
	j->rows.chunk_step = chunk_step(p);
	gemm_pairs_rows(j);
}

/* The sums of `pixels` columns (stride bytes apart) against every block, requantized into `out` (pixels apart by
 * out_ch). */
HELIUM_HOT_SETUP static void gemm(const struct usmp_helium_conv_params *p, struct matrix_state *st, const int8_t *columns,
			    int32_t stride, int32_t pixels, int8_t *out)
{
	const int32_t general = st->call.general, out_ch = p->out_ch;
	struct gemm_job *const j = &st->job.pairs;

	pair_offsets(st, out_ch);
	if (p->chunks == 1 && out_ch >= 4) { /* every pixel through the narrow loop, the last block's channels after */
		struct narrow_job *const n = &st->job.narrow;

		n->columns = columns;
		n->stride = stride;
		n->pixels = pixels;
		n->blocks = st->call.blocks;
		n->full_blocks = out_ch >> 2;
		n->block_bytes = block_bytes(1, general);
		n->output = out;
		n->out_ch = out_ch;
		n->output_offset = p->output_offset;
		n->act_min = p->act_min;
		n->act_max = p->act_max;
		n->sums = st->call.sums;
		n->pair = st->pair;
		n->gather = st->call.gathered->offsets; /* read only where gathered */
		if (general)
			gemm_narrow_general(n);
		else if (p->direct == USMP_HELIUM_GATHERED) /* the whole int8 range (select/helium.py) */
			gemm_narrow_gathered_pairs(n);
		else
			gemm_narrow_pairs(n);
		columns = n->columns; /* read back rather than kept across the call: gemm's frame stays small */
		stride = n->stride;
		pixels = n->pixels;
		out = n->output;
	}
	/* the job of the pairs' loop, and of gemm_lone (the narrow loop's job is done with) */
	pairs_job(p, st, columns, stride, pixels, out, out_ch, general);
	/* what the pairs' loop leaves, first (it writes other outputs): the last block's channels where out_ch is no
	 * multiple of 4, and an odd last pixel's full blocks; then the pairs' loop, a tail call (gemm's frame is gone
	 * while it runs) */
	if (out_ch & 3) {
		j->tails.pixels = pixels;
		gemm_lone(p, j);
	}
	if (p->chunks == 1 || j->full_blocks == 0)
		return;
	if (pixels & 1) { /* the odd last pixel */
		if (st->call.general)
			gemm_single_general(j);
		else if (p->chunks >= 4)
			gemm_single_held(j);
		else
			gemm_single_full(j);
	}
	if (j->pairs == 0)
		return;
	if (st->call.general)
		gemm_pairs_general(j);
	else if (p->chunks == 2) /* the whole int8 range: a narrower one is general (select/helium.py) */
		gemm_pairs_2(j);
	else if (p->chunks == 4)
		gemm_pairs_4(j);
	else if (p->chunks == 8)
		gemm_pairs_8(j);
	else
		gemm_pairs_full(j);
}

HELIUM_INLINE void fill_bytes(int8_t *dst, int8_t value, int32_t n)
{
	__asm volatile("	vdup.8	q0, %[v]\n"
		       "	wlstp.8	lr, %[n], 2f\n"
		       "1:	vstrb.8	q0, [%[dst]], #16\n"
		       "	letp	lr, 1b\n"
		       "2:\n"
		       : [dst] "+r"(dst)
		       : [n] "r"(n), [v] "r"((int32_t)value)
		       : "q0", "lr", "memory");
}

/* count (>= 1) runs of n bytes, src_step and dst_step apart: one filter row of consecutive windows. */
HELIUM_INLINE void copy_runs(int8_t *dst, int32_t dst_step, const int8_t *src, int32_t src_step, int32_t count,
			     int32_t n)
{
	const int8_t *s;
	int8_t *d;

	__asm volatile("1:	mov	%[s], %[src]\n"
		       "	mov	%[d], %[dst]\n"
		       "	wlstp.8	lr, %[n], 3f\n"
		       "2:	vldrb.8	q0, [%[s]], #16\n"
		       "	vstrb.8	q0, [%[d]], #16\n"
		       "	letp	lr, 2b\n"
		       "3:	add	%[src], %[src], %[ss]\n"
		       "	add	%[dst], %[dst], %[ds]\n"
		       "	subs	%[count], %[count], #1\n"
		       "	bne	1b\n"
		       : [s] "=&r"(s), [d] "=&r"(d), [src] "+r"(src), [dst] "+r"(dst), [count] "+r"(count)
		       : [n] "r"(n), [ss] "r"(src_step), [ds] "r"(dst_step)
		       : "q0", "lr", "memory", "cc");
}
/* count (>= 1) runs of n bytes of `value`, dst_step apart. */
HELIUM_INLINE void fill_runs(int8_t *dst, int32_t dst_step, int8_t value, int32_t count, int32_t n)
{
	int8_t *d;

	__asm volatile("	vdup.8	q0, %[v]\n"
		       "1:	mov	%[d], %[dst]\n"
		       "	wlstp.8	lr, %[n], 3f\n"
		       "2:	vstrb.8	q0, [%[d]], #16\n"
		       "	letp	lr, 2b\n"
		       "3:	add	%[dst], %[dst], %[ds]\n"
		       "	subs	%[count], %[count], #1\n"
		       "	bne	1b\n"
		       : [d] "=&r"(d), [dst] "+r"(dst), [count] "+r"(count)
		       : [n] "r"(n), [ds] "r"(dst_step), [v] "r"((int32_t)value)
		       : "q0", "lr", "memory", "cc");
}

/* `count` windows of gathered bytes into columns, 8 a gather (VLDRB.U16 with the offsets in q2 on), the whole
 * column of `chunks` 16-byte chunks (offsets past the depth read the first tap again, against zero filter
 * bytes). One function per chunk count. */
#define GATHER_PAIR(n, a, b) \
	"	vldrb.u16	q0, [r3, q" a "]\n" \
	"	vstrb.16	q0, [r1, #" n "]\n" \
	"	vldrb.u16	q1, [r3, q" b "]\n" \
	"	vstrb.16	q1, [r1, #" n " + 8]\n"
#define GATHER_WINDOWS(name, load, pairs)                                              \
	__attribute__((naked, noinline)) static void name(const struct gather_job *job) \
	{                                                                               \
		(void)job;                                                              \
		__asm volatile("	push	{r4-r6, lr}\n"                           \
			       "	add	r1, r0, #24\n"                           \
			       "	vstmia	r1, {d8-d15}\n"                          \
			       "	ldm	r0, {r1, r2, r3, r4, r5, r6}\n" load     \
			       "	dls	lr, r5\n"                                \
			       "1:" pairs "	add	r3, r3, r4\n"                    \
			       "	add	r1, r1, r2\n"                            \
			       "	le	lr, 1b\n"                                \
			       "	add	r0, r0, #24\n"                           \
			       "	vldmia	r0, {d8-d15}\n"                          \
			       "	pop	{r4-r6, pc}\n");                         \
	}
GATHER_WINDOWS(gather_windows_1, "	vldrh.u16	q2, [r6]\n	vldrh.u16	q3, [r6, #16]\n",
	       GATHER_PAIR("0", "2", "3"))
GATHER_WINDOWS(gather_windows_2,
	       "	vldrh.u16	q2, [r6]\n	vldrh.u16	q3, [r6, #16]\n"
	       "	vldrh.u16	q4, [r6, #32]\n	vldrh.u16	q5, [r6, #48]\n",
	       GATHER_PAIR("0", "2", "3") GATHER_PAIR("16", "4", "5"))
GATHER_WINDOWS(gather_windows_3,
	       "	vldrh.u16	q2, [r6]\n	vldrh.u16	q3, [r6, #16]\n"
	       "	vldrh.u16	q4, [r6, #32]\n	vldrh.u16	q5, [r6, #48]\n"
	       "	vldrh.u16	q6, [r6, #64]\n	vldrh.u16	q7, [r6, #80]\n",
	       GATHER_PAIR("0", "2", "3") GATHER_PAIR("16", "4", "5") GATHER_PAIR("32", "6", "7"))

/* count windows (src_step apart) of gathered bytes into columns `stride` apart: windows whose filter rows are
 * shorter than a vector. */
HELIUM_INLINE void gather_windows(int8_t *column, int32_t stride, const int8_t *src, int32_t src_step, int32_t count,
				  const uint16_t *offsets, int32_t chunks, struct matrix_state *st)
{
	struct gather_job *const j = &st->job.gather;

	j->column = column;
	j->stride = stride;
	j->src = src;
	j->src_step = src_step;
	j->count = count;
	j->offsets = offsets;
	if (chunks == 1) {
		gather_windows_1(j);
		return;
	}
	if (chunks == 2) {
		gather_windows_2(j);
		return;
	}
	if (chunks == 3) {
		gather_windows_3(j);
		return;
	}
	for (; count > 0; count--, src += src_step, column += stride)
		for (int32_t g = 0; g < 2 * chunks; g++)
			vstrbq_s16(column + 8 * g, vldrbq_gather_offset_s16(src, vldrhq_u16(offsets + 8 * g)));
}
#else
HELIUM_INLINE void copy_bytes(int8_t *dst, const int8_t *src, int32_t n)
{
	memcpy(dst, src, (size_t)n);
}

HELIUM_INLINE void gather_windows(int8_t *column, int32_t stride, const int8_t *src, int32_t src_step, int32_t count,
				  const uint16_t *offsets, int32_t chunks, struct matrix_state *st)
{
	(void)st;
	for (; count > 0; count--, src += src_step, column += stride)
		for (int32_t i = 0; i < 16 * chunks; i++)
			column[i] = src[offsets[i]];
}

HELIUM_INLINE void copy_runs(int8_t *dst, int32_t dst_step, const int8_t *src, int32_t src_step, int32_t count,
			     int32_t n)
{
	for (; count > 0; count--, dst += dst_step, src += src_step)
		memcpy(dst, src, (size_t)n);
}

HELIUM_INLINE void fill_runs(int8_t *dst, int32_t dst_step, int8_t value, int32_t count, int32_t n)
{
	for (; count > 0; count--, dst += dst_step)
		memset(dst, value, (size_t)n);
}

HELIUM_INLINE void fill_bytes(int8_t *dst, int8_t value, int32_t n)
{
	memset(dst, value, (size_t)n);
}

/* The same sums one output at a time from the same constants (the host tests, builds without Helium). */
/* the call's shared fields only */
struct matrix_state {
	struct matrix_call call;
};

static void gemm(const struct usmp_helium_conv_params *p, struct matrix_state *st, const int8_t *columns,
		 int32_t stride, int32_t pixels, int8_t *out)
{
	const int32_t bytes = block_bytes(p->chunks, p->requant_general);
	const int8_t *const blocks = st->call.blocks;
	const struct gathered *const g = gathered_of(p, blocks); /* USMP_HELIUM_GATHERED */

	for (int32_t px = 0; px < pixels; px++, columns += stride, out += p->out_ch) {
		for (int32_t o = 0; o < p->out_ch; o++) {
			const int8_t *block = blocks + (size_t)(o >> 2) * bytes;
			const int32_t *requant = (const int32_t *)(const void *)(block + 16 + 64 * p->chunks);
			int32_t sum = ((const int32_t *)(const void *)block)[o & 3];

			for (int32_t k = 0; k < p->depth; k++) {
				const int8_t x = p->direct >= USMP_HELIUM_GATHERED
							 ? columns[(k >> 4) * chunk_step(p) + g->offsets[k & 15]]
							 : columns[k];

				sum += (int32_t)x * block[16 + (k >> 4) * 64 + (o & 3) * 16 + (k & 15)];
			}
			sum = usmp_mul_by_quantized_multiplier(
				sum, requant[o & 3], requant[4 + (o & 3)] + (p->requant_general ? requant[8 + (o & 3)] : 0));
			out[o] = (int8_t)usmp_clamp(sum + p->output_offset, p->act_min, p->act_max);
		}
	}
}

/* the twin's gemm reads the gathered windows itself */
static void gemm_rows(const struct usmp_helium_conv_params *p, struct matrix_state *st, const int8_t *rows,
		      int32_t stride, int32_t pixels, int8_t *out)
{
	gemm(p, st, rows, stride, pixels, out);
}
#endif

/* One filter row of a window into the column: its taps inside the input copied, those outside padding. */
HELIUM_INLINE void window_row(const struct usmp_helium_conv_params *p, const int8_t *row, int32_t x0, int8_t *column)
{
	const int32_t c = p->in_ch, taps = p->filter_w;
	const int8_t pad = (int8_t)p->pad_value;

	if (row == NULL) {
		fill_bytes(column, pad, taps * c);
		return;
	}
	if (p->dilation_w == 1) {
		int32_t first, end;

		helium_window_span(x0, p->in_w, taps, &first, &end);
		if (end <= first) {
			fill_bytes(column, pad, taps * c);
			return;
		}
		if (first > 0)
			fill_bytes(column, pad, first * c);
		copy_bytes(column + first * c, row + (x0 + first) * c, (end - first) * c);
		if (end < taps)
			fill_bytes(column + end * c, pad, (taps - end) * c);
		return;
	}
	for (int32_t k = 0; k < taps; k++, column += c) {
		const int32_t x = x0 + k * p->dilation_w;

		if (x < 0 || x >= p->in_w)
			fill_bytes(column, pad, c);
		else
			copy_bytes(column, row + x * c, c);
	}
}

/* The column of output pixel x of output row oy, a window the input's edges cut: filter row by filter row, the
 * rows outside the input padding. Out of line: the loop over the windows inside keeps no call. */
HELIUM_INLINE void window_column(const struct usmp_helium_conv_params *p,
								   const int8_t *image, int32_t oy, int32_t x,
								   int8_t *column)
{
	const int32_t row_bytes = p->filter_w * p->in_ch;

	for (int32_t ky = 0, y = oy * p->stride_h - p->pad_top; ky < p->filter_h; ky++, y += p->dilation_h)
		window_row(p, y < 0 || y >= p->in_h ? NULL : image + (size_t)y * p->in_w * p->in_ch,
			   x * p->stride_w - p->pad_left, column + ky * row_bytes);
}

/* The columns of output pixels [xa, xb) of output row oy: the pixels whose windows lie inside the input's width
 * copy their runs of each filter row in one loop (padding for a row outside the input), those at the edges
 * window by window. */
HELIUM_HOT_SETUP __attribute__((always_inline)) static inline void row_columns(const struct usmp_helium_conv_params *p, const int8_t *image, int32_t oy,
				   int32_t xa, int32_t xb, int8_t *columns)
{
	const int32_t stride = 16 * p->chunks, row_bytes = p->filter_w * p->in_ch, in_row = p->in_w * p->in_ch;
	const int32_t sw = p->stride_w, pl = p->pad_left, span = (p->filter_w - 1) * p->dilation_w;
	int32_t first = (pl + sw - 1) / sw, end = (p->in_w - 1 - span + pl) / sw + 1; /* windows inside */

	if (p->dilation_w != 1 || p->in_w - 1 - span + pl < 0)
		first = end = xb;
	first = first < xa ? xa : first > xb ? xb : first;
	end = end > xb ? xb : end < first ? first : end;
	if (end > first) {
		int8_t *column = columns + (first - xa) * stride;
		const int8_t *row = image + (first * sw - pl) * p->in_ch;

		for (int32_t ky = 0, y = oy * p->stride_h - p->pad_top; ky < p->filter_h;
		     ky++, y += p->dilation_h, column += row_bytes) {
			if (y < 0 || y >= p->in_h)
				fill_runs(column, stride, (int8_t)p->pad_value, end - first, row_bytes);
			else
				copy_runs(column, stride, row + (size_t)y * in_row, sw * p->in_ch, end - first, row_bytes);
		}
	}
	for (int32_t x = xa == first ? end : xa; x < xb; x = x + 1 == first ? end : x + 1) /* the windows cut */
		window_column(p, image, oy, x, columns + (x - xa) * stride);
}

/* The input rows output row oy's windows read (filter row ky at ky * padded_row_bytes), padded with the zero
 * point left, right, above and below the input, so that every window of the row is gathered alike. */
static void padded_rows(const struct usmp_helium_conv_params *p, const int8_t *image, int32_t oy,
			int8_t *rows)
{
	const int32_t c = p->in_ch, bytes = padded_row_bytes(p), left = p->pad_left * c;
	const int32_t inside = p->in_w * c < bytes - left ? p->in_w * c : bytes - left;
	const int8_t pad = (int8_t)p->pad_value;

	for (int32_t ky = 0, y = oy * p->stride_h - p->pad_top; ky < p->filter_h; ky++, y += p->dilation_h, rows += bytes) {
		if (y < 0 || y >= p->in_h) {
			fill_bytes(rows, pad, bytes);
			continue;
		}
		fill_bytes(rows, pad, left);
		copy_bytes(rows + left, image + (size_t)y * p->in_w * c, inside);
		fill_bytes(rows + left + inside, pad, bytes - left - inside);
	}
}

/* `run` pixels of a 1x1 layer of at most 16 channels at a time, the input read as the columns, `in_ch` bytes
 * apart; the last pixel's column, whose 16 bytes would run past the input, is copied first. Its scratch: the
 * columns (after the call's state): the narrow loop's sums, then that column. */
__attribute__((noinline)) static void direct_narrow(const struct usmp_helium_conv_params *p, const int8_t *input, int8_t *scratch,
			  int8_t *output, struct matrix_state *st)
{
	const int32_t pixels = p->batches * p->out_h * p->out_w, c = p->in_ch;
	int8_t *lone = scratch + 16 * p->run; /* a column of 16 bytes */

	st->call.sums = (int32_t *)(void *)scratch;

	for (int32_t px = 0; px < pixels; px += p->run) {
		int32_t n = pixels - px < p->run ? pixels - px : p->run;

		if (px + n == pixels && c < 16) {
			copy_bytes(lone, input + (size_t)(pixels - 1) * c, c);
			gemm(p, st, lone, 16, 1, output + (size_t)(pixels - 1) * p->out_ch);
			n--;
		}
		if (n > 0)
			gemm(p, st, input + (size_t)px * c, c, n, output + (size_t)px * p->out_ch);
	}
}

/* The call's state at the start of its scratch: on the core (4-byte pointers, the plan's alignment); a host's
 * twin keeps its few fields on its stack, whose pointers may need more alignment than the plan gives. */
#if USMP_HELIUM_NATIVE
#define matrix_state_in(scratch) ((struct matrix_state *)(void *)(scratch))
#else
#define matrix_state_in(scratch) ((void)(scratch), &(struct matrix_state){ { NULL, NULL, 0, 0, 0, { 0 } } })
#endif

/* The gathered columns of `part` output pixels from (row, ox) of image: the padded rows copied when the
 * output row (oy, counting every image's) changes. */
HELIUM_INLINE void gathered_columns(const struct usmp_helium_conv_params *p, const int8_t *image, int32_t oy,
				    int32_t row, int32_t ox, int32_t part, struct matrix_state *st, int8_t *columns,
				    int8_t *column)
{
	const int32_t stride = 16 * p->chunks;
	const uint16_t *offsets = (const uint16_t *)(const void *)(st->call.blocks +
								    (size_t)((p->out_ch + 3) >> 2) *
									    block_bytes(p->chunks, p->requant_general));
	int8_t *rows = columns + (size_t)p->run * stride + (p->chunks == 1 ? 16 * p->run + 16 : 0);

	if (st->call.padded != oy)
		padded_rows(p, image, row, rows);
	st->call.padded = oy;
	gather_windows(column, stride, rows + ox * p->stride_w * p->in_ch, p->stride_w * p->in_ch, part, offsets,
		       p->chunks, st);
}

/* The columns of the run of n output pixels from the cursor (st->call.oy, ox: oy counts the rows of every
 * image of the batch), which moves on past them, im2col (gathers: from padded copies of the rows, else row by
 * row). Out of line, one function for each way: their frames and their callees' are gone when the matrix loop
 * runs, and each keeps few values. */
#define RUN_COLUMNS(name, part_columns)                                                                             \
	HELIUM_HOT_SETUP __attribute__((noinline)) static void name(const struct usmp_helium_conv_params *p,        \
								    const int8_t *input, struct matrix_state *st,   \
								    int8_t *columns, int32_t n)                     \
	{                                                                                                           \
		int32_t oy = st->call.oy, ox = st->call.ox;                                                         \
                                                                                                                    \
		for (int32_t done = 0; done < n; oy++, ox = 0) { /* the run's part of each output row */             \
			const int32_t part = n - done < p->out_w - ox ? n - done : p->out_w - ox;                   \
			const int32_t batch = oy / p->out_h, row = oy - batch * p->out_h;                           \
			const int8_t *const image = input + (size_t)batch * p->in_h * p->in_w * p->in_ch;           \
			int8_t *const column = columns + done * 16 * p->chunks;                                     \
                                                                                                                    \
			part_columns;                                                                               \
			done += part;                                                                               \
			ox += part;                                                                                 \
			if (ox < p->out_w)                                                                          \
				break;                                                                              \
		}                                                                                                   \
		st->call.oy = oy;                                                                                   \
		st->call.ox = ox;                                                                                   \
	}
RUN_COLUMNS(run_rows, row_columns(p, image, row, ox, ox + part, column))
RUN_COLUMNS(run_gathers, gathered_columns(p, image, oy, row, ox, part, st, columns, column))

/* An output row at a time, its windows gathered from the row's padded input rows by the narrow loop (one chunk) or
 * by the pairs' loop a chunk at a time (USMP_HELIUM_ROWS): no columns. The scratch after the call's state: the
 * narrow loop's sums (an output row's), then the rows. */
__attribute__((noinline)) static void gathered_rows(const struct usmp_helium_conv_params *p, const int8_t *input,
						   int8_t *scratch, int8_t *output, struct matrix_state *st)
{
	const int32_t stride = p->stride_w * p->in_ch;
	int8_t *const rows = scratch + (p->chunks == 1 ? 16 * p->out_w + 16 : 0);

	st->call.sums = (int32_t *)(void *)scratch;
	st->call.gathered = gathered_of(p, st->call.blocks);
	for (int32_t oy = 0; oy < p->batches * p->out_h; oy++, output += (size_t)p->out_w * p->out_ch) {
		const int32_t batch = oy / p->out_h;

		padded_rows(p, input + (size_t)batch * p->in_h * p->in_w * p->in_ch, oy - batch * p->out_h, rows);
		if (p->direct == USMP_HELIUM_ROWS)
			gemm_rows(p, st, rows, stride, p->out_w, output);
		else
			gemm(p, st, rows, stride, p->out_w, output);
	}
}

/* `run` output pixels at a time (a run may span output rows and images): their columns (im2col by rows of the
 * output; windows of rows under a vector gathered from padded copies of the rows), then the matrix loop over
 * them. The scratch: the call's state, then the columns, with depth <= 16 the sums of the narrow loop (a 1x1
 * layer: the input is the columns), with gathers the padded rows. The loop keeps few values: a small frame
 * under run_columns' and gemm's. */
void usmp_helium_conv_s8(const struct usmp_helium_conv_params *p, const int8_t *input,
			 const int8_t *blocks, int8_t *scratch, int8_t *output)
{
	struct matrix_state *const st = matrix_state_in(scratch);
	int8_t *const columns = scratch + USMP_HELIUM_MATRIX_STATE_BYTES;
	const int32_t pixels = p->batches * p->out_h * p->out_w;

	st->call.blocks = blocks;
	st->call.general = p->requant_general;
	if (p->direct == USMP_HELIUM_DIRECT) {
		direct_narrow(p, input, columns, output, st);
		return;
	}
	if (p->direct == USMP_HELIUM_GATHERED) {
		gathered_rows(p, input, columns, output, st);
		return;
	}
	st->call.sums = (int32_t *)(void *)(columns + (size_t)p->run * 16 * p->chunks);
	st->call.oy = 0;
	st->call.ox = 0;
	st->call.padded = -1;
	for (int32_t px = 0; px < pixels; px += p->run) {
		const int32_t n = pixels - px < p->run ? pixels - px : p->run;

		if (p->gathers)
			run_gathers(p, input, st, columns, n);
		else
			run_rows(p, input, st, columns, n);
		gemm(p, st, columns, 16 * p->chunks, n, output + (size_t)px * p->out_ch);
	}
}

/* USMP_HELIUM_ROWS: the pairs' loop gathers the windows from each output row's padded rows. An entry of its own,
 * so that a program without other convolutions links none of the columns' code. */
void usmp_helium_conv_rows_s8(const struct usmp_helium_conv_params *p, const int8_t *input, const int8_t *blocks,
			      int8_t *scratch, int8_t *output)
{
	struct matrix_state *const st = matrix_state_in(scratch);

	st->call.blocks = blocks;
	st->call.general = p->requant_general;
	gathered_rows(p, input, scratch + USMP_HELIUM_MATRIX_STATE_BYTES, output, st);
}

HELIUM_HOT void usmp_helium_conv_1x1_s8(const struct usmp_helium_conv_params *p, const int8_t *input,
					const int8_t *blocks, int8_t *scratch, int8_t *output)
{
	struct matrix_state *const st = matrix_state_in(scratch);

	st->call.blocks = blocks;
	st->call.sums = NULL;
	st->call.general = p->requant_general;
	gemm(p, st, input, p->in_ch, p->batches * p->out_h * p->out_w, output);
}
