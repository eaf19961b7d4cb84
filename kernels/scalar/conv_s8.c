/*
 * CONV_2D (no groups), DEPTHWISE_CONV_2D of one input channel and FULLY_CONNECTED on cores without SIMD:
 * a matrix product of output pixels' windows by the weights, one form per kind of core
 * (usmp_kernels/scalar.h).
 *
 * Windows are read where they lie: `rows` runs of `run` taps, `skip` bytes from the end of one run to the
 * start of the next (a filter row of an undilated window is one run), the pixels taken together `step`
 * bytes apart. An output row whose windows reach into the padding reads a copy of its filter_h input rows
 * in scratch instead, each padded with the zero point to the width the row's windows span, one after the
 * other (the zero point makes the bias with the zero point folded in right for every window). Windows are
 * not dilated horizontally (the compiler leaves those layers to the portable kernels).
 */
#include "usmp_kernels/conv.h"
#include "usmp_kernels/scalar.h"

#include "scalar_ops.h"
#include "scalar_rows.h"

#define REQUANT_WORDS 3 /* per channel: multiplier, rounding, shift */
/* each form's job (scalar_ops.h; select/scalar.py: Form.job_bytes) */
#define RV32_JOB_BYTES 180
#define V7M_JOB_BYTES 120
#define V6M_JOB_BYTES 88

/* How a group of pixels' windows are read. */
struct taps {
	const int8_t *x; /* the first pixel's first tap */
	int32_t step;    /* from a pixel's taps to the next pixel's */
	int32_t rows;
	int32_t run;
	int32_t skip;
};

/* ---------------------------------------------------------------- windows */

/*
 * Every output pixel of the call in groups of up to `group` pixels of one output row (a 1x1 window of
 * stride 1 without padding reads evenly spaced pixels across rows: then the groups run on), each handed to
 * `compute` with its taps, its pixel count and its first output.
 */
typedef void (*group_fn)(const struct usmp_scalar_conv_params *p, const struct taps *t, int32_t n,
			 const uint32_t *weights, int8_t *work, int8_t *out);

static inline __attribute__((always_inline)) void for_each_group(const struct usmp_scalar_conv_params *p,
								  const int8_t *input, const uint32_t *weights,
								  int8_t *scratch, int8_t *work, int8_t *output,
								  int32_t group, group_fn compute, struct taps *tp)
{
	const int32_t in_ch = p->in_ch, image_bytes = p->in_h * p->in_w * in_ch, run = p->filter_w * in_ch;
	struct taps *const t = tp;
	int32_t b, oy, ox;

	if (p->filter_h == 1 && p->filter_w == 1 && p->stride_w == 1 && p->stride_h == 1 && p->in_w == p->out_w &&
	    !usmp_scalar_row_padded(p, 0) && (p->in_h == p->out_h || p->batches == 1)) {
		const int32_t pixels = p->batches * p->out_h * p->out_w;

		t->step = in_ch;
		t->rows = 1;
		t->run = in_ch;
		t->skip = 0;
		for (ox = 0; ox < pixels; ox += group) {
			t->x = input + ox * in_ch;
			compute(p, t, pixels - ox < group ? pixels - ox : group, weights, work, output + ox * p->out_ch);
		}
		return;
	}
	for (b = 0; b < p->batches; b++, input += image_bytes) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;
			const int8_t *row;

			if (usmp_scalar_row_padded(p, oy)) {
				usmp_scalar_padded_rows(p, input, oy, scratch);
				row = scratch;
				t->skip = usmp_scalar_row_span(p) * in_ch - run;
			} else {
				row = input + iy0 * p->in_w * in_ch;
				t->skip = p->dilation_h * p->in_w * in_ch - run;
			}
			t->step = p->stride_w * in_ch;
			t->rows = p->filter_h;
			t->run = run;
			for (ox = 0; ox < p->out_w; ox += group, output += group * p->out_ch) {
				t->x = row + ox * t->step;
				compute(p, t, p->out_w - ox < group ? p->out_w - ox : group, weights, work, output);
			}
			output -= (ox - p->out_w) * p->out_ch;
		}
	}
}

/*
 * The same as a cursor that a form's kernel advances group by group, kept in the call's scratch with the rest of
 * its job (usmp_kernels/scalar.h) rather than on the stack: the kernel holds its address, not its counters.
 */
struct cursor {
	struct taps t;       /* the group's */
	int8_t *out;         /* the group's first output */
	const int8_t *image; /* the batch's input */
	int8_t *rows;        /* scratch for an output row's padded input rows */
	int32_t b, oy, ox;   /* the group's batch, output row and first column */
	int32_t width;       /* the row's pixels */
	int32_t n;           /* the group's pixels */
};

/* A 1x1 window of stride 1 without padding reads evenly spaced pixels across rows: one row of them all. */
static int flat(const struct usmp_scalar_conv_params *p)
{
	return p->filter_h == 1 && p->filter_w == 1 && p->stride_w == 1 && p->stride_h == 1 && p->in_w == p->out_w &&
	       !usmp_scalar_row_padded(p, 0) && (p->in_h == p->out_h || p->batches == 1);
}

static void cursor_start(struct cursor *c, const int8_t *input, int8_t *rows, int8_t *output)
{
	c->image = input;
	c->rows = rows;
	c->out = output;
	c->b = 0;
	c->oy = -1;
	c->ox = 0;
	c->width = 0;
	c->n = 0;
}

/* The next output row's taps (where it is padded, in the cursor's rows, which next_group fills); 0 past the last. */
__attribute__((noinline)) static int next_row(const struct usmp_scalar_conv_params *p, struct cursor *c)
{
	const int32_t in_ch = p->in_ch;

	c->ox = 0;
	if (flat(p)) {
		if (c->oy++ >= 0)
			return 0;
		c->width = p->batches * p->out_h * p->out_w;
		c->t.x = c->image;
		c->t.step = in_ch;
		c->t.rows = 1;
		c->t.run = in_ch;
		c->t.skip = 0;
		return 1;
	}
	if (++c->oy >= p->out_h) {
		c->oy = 0;
		c->image += p->in_h * p->in_w * in_ch;
		if (++c->b >= p->batches || p->out_h <= 0)
			return 0;
	}
	if (usmp_scalar_row_padded(p, c->oy)) {
		c->t.x = c->rows; /* next_group copies them there */
		c->t.skip = usmp_scalar_row_span(p) * in_ch - p->filter_w * in_ch;
	} else {
		c->t.x = c->image + (c->oy * p->stride_h - p->pad_top) * p->in_w * in_ch;
		c->t.skip = p->dilation_h * p->in_w * in_ch - p->filter_w * in_ch;
	}
	c->width = p->out_w;
	c->t.step = p->stride_w * in_ch;
	c->t.rows = p->filter_h;
	c->t.run = p->filter_w * in_ch;
	return 1;
}

/* The next group of up to `group` pixels of one row: its taps and first output in the cursor; 0 at the end. */
SCALAR_INLINE int32_t next_group(const struct usmp_scalar_conv_params *p, struct cursor *c, int32_t group)
{
	c->out += c->n * p->out_ch;
	c->t.x += c->n * c->t.step;
	c->ox += c->n;
	if (c->ox >= c->width) {
		if (!next_row(p, c))
			return 0;
		if (c->t.x == c->rows) /* padded: copied from the kernel's frame, not under next_row's too */
			usmp_scalar_padded_rows(p, c->image, c->oy, c->rows);
	}
	c->n = c->width - c->ox < group ? c->width - c->ox : group;
	return c->n;
}

/* A block of channels' weights: biases, taps (whole words), requantization. */
static inline int32_t block_words(int32_t channels, int32_t depth)
{
	return channels + (int32_t)(((uint32_t)(channels * depth) + 3u) >> 2) + REQUANT_WORDS * channels;
}

/* ---------------------------------------------------------------- rv32: 4 pixels x 4 channels */

enum { RV32_PIXELS = 4, RV32_CHANNELS = 4 };

/* Where a block's outputs go, and how many of its pixels and channels are real. */
struct rv32_out {
	int8_t *out; /* the block's first pixel's first channel */
	int32_t out_ch;
	int32_t pixels;
	int32_t channels;
	int32_t act_min;
	int32_t act_max;
};

/* Channel c's outputs of up to four pixels, requantized from their sums (everything read before the first
 * store: int8 stores may alias anything). */
SCALAR_INLINE void rv32_store(const struct rv32_out *o, int32_t c, const int32_t *k, int32_t s0, int32_t s1,
			      int32_t s2, int32_t s3)
{
	int8_t *out = o->out + c;
	const int32_t stride = o->out_ch, lo = o->act_min, hi = o->act_max, pixels = o->pixels;
	const int32_t m = k[REQUANT_WORDS * c], r = k[REQUANT_WORDS * c + 1], e = k[REQUANT_WORDS * c + 2];
	const int32_t v0 = scalar_requant(s0, m, r, e, lo, hi), v1 = scalar_requant(s1, m, r, e, lo, hi);
	const int32_t v2 = scalar_requant(s2, m, r, e, lo, hi), v3 = scalar_requant(s3, m, r, e, lo, hi);

	if (c >= o->channels)
		return;
	out[0] = (int8_t)v0;
	if (pixels > 1)
		out[stride] = (int8_t)v1;
	if (pixels > 2)
		out[2 * stride] = (int8_t)v2;
	if (pixels > 3)
		out[3 * stride] = (int8_t)v3;
}

/* One pixel's outputs of a block's channels. */
SCALAR_INLINE void rv32_store1(const struct rv32_out *o, const int32_t *k, int32_t s0, int32_t s1, int32_t s2,
			       int32_t s3)
{
	const int32_t sums[RV32_CHANNELS] = { s0, s1, s2, s3 };
	int32_t c;

	for (c = 0; c < RV32_CHANNELS && c < o->channels; c++)
		o->out[c] = (int8_t)scalar_requantize(sums[c], k + REQUANT_WORDS * c, o->act_min, o->act_max);
}

/* What the 4 x 4 sums read: four pixels' windows (rows of `run` taps, `skip` bytes apart), one block's taps. */
struct rv32_job {
	const int8_t *x[4];
	const int8_t *w;
	int32_t rows;
	int32_t run;
	int32_t skip;
	int32_t *sums; /* [pixel][channel], started from the biases */
	int32_t left;  /* rows_sums' row counter */
};

#if defined(__riscv) && __riscv_xlen == 32 && !defined(__riscv_32e) /* RV32E has 16 registers */
/*
 * In assembly: GCC spills the loop's end and, unrolled, half the sums. The 16 sums in s0-s11 and a4-a7, the
 * pixels' pointers in t0-t3, the taps in a1, a tap's four weights in a0, a2, a3 and ra, the pixel's tap in t5
 * and each product in t6; two taps a turn (43 instructions a tap, against 47 in C).
 */
#define RV32_PIXEL(x, off, a, b, c, d)           \
	"	lb	t5, " #off "(" #x ")\n"          \
	"	mul	t6, t5, a0\n"                    \
	"	add	" #a ", " #a ", t6\n"            \
	"	mul	t6, t5, a2\n"                    \
	"	add	" #b ", " #b ", t6\n"            \
	"	mul	t6, t5, a3\n"                    \
	"	add	" #c ", " #c ", t6\n"            \
	"	mul	t6, t5, ra\n"                    \
	"	add	" #d ", " #d ", t6\n"
#define RV32_TAP(off, w)                         \
	"	lb	a0, " #w "+0(a1)\n"              \
	"	lb	a2, " #w "+1(a1)\n"              \
	"	lb	a3, " #w "+2(a1)\n"              \
	"	lb	ra, " #w "+3(a1)\n"              \
	RV32_PIXEL(t0, off, s0, s1, s2, s3)      \
	RV32_PIXEL(t1, off, s4, s5, s6, s7)      \
	RV32_PIXEL(t2, off, s8, s9, s10, s11)    \
	RV32_PIXEL(t3, off, a4, a5, a6, a7)

__attribute__((naked, noinline)) static void rv32_sums(const struct rv32_job *j)
{
	(void)j;
	__asm volatile(
		"	addi	sp, sp, -64\n" /* [sp] the job; rows left in the job */
		"	sw	ra, 60(sp)\n"
		"	sw	s0, 56(sp)\n"
		"	sw	s1, 52(sp)\n"
		"	sw	s2, 48(sp)\n"
		"	sw	s3, 44(sp)\n"
		"	sw	s4, 40(sp)\n"
		"	sw	s5, 36(sp)\n"
		"	sw	s6, 32(sp)\n"
		"	sw	s7, 28(sp)\n"
		"	sw	s8, 24(sp)\n"
		"	sw	s9, 20(sp)\n"
		"	sw	s10, 16(sp)\n"
		"	sw	s11, 12(sp)\n"
		"	sw	a0, 0(sp)\n"
		"	lw	t0, 0(a0)\n"
		"	lw	t1, 4(a0)\n"
		"	lw	t2, 8(a0)\n"
		"	lw	t3, 12(a0)\n"
		"	lw	a1, 16(a0)\n"
		"	lw	a2, 20(a0)\n" /* rows */
		"	sw	a2, 36(a0)\n" /* left */
		"	lw	a0, 32(a0)\n" /* sums */
		"	lw	s0, 0(a0)\n"
		"	lw	s1, 4(a0)\n"
		"	lw	s2, 8(a0)\n"
		"	lw	s3, 12(a0)\n"
		"	lw	s4, 16(a0)\n"
		"	lw	s5, 20(a0)\n"
		"	lw	s6, 24(a0)\n"
		"	lw	s7, 28(a0)\n"
		"	lw	s8, 32(a0)\n"
		"	lw	s9, 36(a0)\n"
		"	lw	s10, 40(a0)\n"
		"	lw	s11, 44(a0)\n"
		"	lw	a4, 48(a0)\n"
		"	lw	a5, 52(a0)\n"
		"	lw	a6, 56(a0)\n"
		"	lw	a7, 60(a0)\n"
		"1:	lw	t5, 0(sp)\n"
		"	lw	t5, 24(t5)\n" /* run */
		"	slli	t5, t5, 2\n"
		"	add	t4, t5, a1\n" /* the run's end in the taps */
		"	andi	t5, t5, 4\n"
		"	beqz	t5, 2f\n"
		RV32_TAP(0, 0)
		"	addi	t0, t0, 1\n"
		"	addi	t1, t1, 1\n"
		"	addi	t2, t2, 1\n"
		"	addi	t3, t3, 1\n"
		"	addi	a1, a1, 4\n"
		"	beq	a1, t4, 3f\n"
		"2:\n"
		RV32_TAP(0, 0)
		RV32_TAP(1, 4)
		"	addi	t0, t0, 2\n"
		"	addi	t1, t1, 2\n"
		"	addi	t2, t2, 2\n"
		"	addi	t3, t3, 2\n"
		"	addi	a1, a1, 8\n"
		"	bne	a1, t4, 2b\n"
		"3:	lw	a0, 0(sp)\n"
		"	lw	t5, 28(a0)\n" /* skip */
		"	add	t0, t0, t5\n"
		"	add	t1, t1, t5\n"
		"	add	t2, t2, t5\n"
		"	add	t3, t3, t5\n"
		"	lw	t5, 36(a0)\n"
		"	addi	t5, t5, -1\n"
		"	sw	t5, 36(a0)\n"
		"	bnez	t5, 1b\n"
		"	lw	a0, 32(a0)\n"
		"	sw	s0, 0(a0)\n"
		"	sw	s1, 4(a0)\n"
		"	sw	s2, 8(a0)\n"
		"	sw	s3, 12(a0)\n"
		"	sw	s4, 16(a0)\n"
		"	sw	s5, 20(a0)\n"
		"	sw	s6, 24(a0)\n"
		"	sw	s7, 28(a0)\n"
		"	sw	s8, 32(a0)\n"
		"	sw	s9, 36(a0)\n"
		"	sw	s10, 40(a0)\n"
		"	sw	s11, 44(a0)\n"
		"	sw	a4, 48(a0)\n"
		"	sw	a5, 52(a0)\n"
		"	sw	a6, 56(a0)\n"
		"	sw	a7, 60(a0)\n"
		"	lw	ra, 60(sp)\n"
		"	lw	s0, 56(sp)\n"
		"	lw	s1, 52(sp)\n"
		"	lw	s2, 48(sp)\n"
		"	lw	s3, 44(sp)\n"
		"	lw	s4, 40(sp)\n"
		"	lw	s5, 36(sp)\n"
		"	lw	s6, 32(sp)\n"
		"	lw	s7, 28(sp)\n"
		"	lw	s8, 24(sp)\n"
		"	lw	s9, 20(sp)\n"
		"	lw	s10, 16(sp)\n"
		"	lw	s11, 12(sp)\n"
		"	addi	sp, sp, 64\n"
		"	ret\n");
}
#else
__attribute__((noinline)) static void rv32_sums(const struct rv32_job *j)
{
	int32_t *const s = j->sums;
	const int8_t *x0 = j->x[0], *x1 = j->x[1], *x2 = j->x[2], *x3 = j->x[3], *w = j->w;
	int32_t rows, i, c;

	for (rows = j->rows; rows > 0; rows--, x0 += j->skip, x1 += j->skip, x2 += j->skip, x3 += j->skip) {
		for (i = j->run; i > 0; i--, w += 4) {
			const int32_t v0 = *x0++, v1 = *x1++, v2 = *x2++, v3 = *x3++;

			for (c = 0; c < 4; c++) {
				s[c] += v0 * w[c];
				s[4 + c] += v1 * w[c];
				s[8 + c] += v2 * w[c];
				s[12 + c] += v3 * w[c];
			}
		}
	}
}
#endif

/* What a call keeps while it runs, at the start of its scratch (usmp_kernels/scalar.h), not on the stack: the
 * cursor, where the block's outputs go, what the sums read and the sums. */
struct rv32_work {
	int32_t sums[16];
	struct rv32_job j;
	struct rv32_out o;
	struct cursor c;
};
SCALAR_JOB_FITS(rv32_work, RV32_JOB_BYTES);

/* Two to four pixels' windows (a missing pixel repeats the last) by one block ([tap][channel] taps after four
 * biases, then the requantization): 16 sums, requantized and stored. */
SCALAR_HOT __attribute__((noinline)) static void rv32_block(struct rv32_work *work, const int32_t *block,
							    const int32_t *k)
{
	const struct taps *const t = &work->c.t;
	struct rv32_job *const j = &work->j;
	int32_t c;

	j->x[0] = t->x;
	j->x[1] = t->x + t->step;
	j->x[2] = work->o.pixels > 2 ? j->x[1] + t->step : j->x[1];
	j->x[3] = work->o.pixels > 3 ? j->x[2] + t->step : j->x[2];
	j->w = (const int8_t *)(block + RV32_CHANNELS);
	j->rows = t->rows;
	j->run = t->run;
	j->skip = t->skip;
	j->sums = work->sums;
	for (c = 0; c < 16; c++)
		work->sums[c] = block[c & 3];
	rv32_sums(j);
	for (c = 0; c < RV32_CHANNELS; c++)
		rv32_store(&work->o, c, k, work->sums[c], work->sums[4 + c], work->sums[8 + c], work->sums[12 + c]);
}

/* One pixel's window by two blocks (eight channels; `second` NULL: the first block alone): a fully connected
 * layer's batch, a group's last pixel. */
SCALAR_INLINE void rv32_pixel(const struct taps *t, const int32_t *first, const int32_t *second, int32_t words,
				struct rv32_out *o)
{
	const int32_t *other = second != 0 ? second : first;
	int32_t a0 = first[0], a1 = first[1], a2 = first[2], a3 = first[3];
	int32_t b0 = other[0], b1 = other[1], b2 = other[2], b3 = other[3];
	const int8_t *w = (const int8_t *)(first + RV32_CHANNELS), *v = (const int8_t *)(other + RV32_CHANNELS);
	const int8_t *x = t->x;
	const int32_t run = 4 * t->run, skip = t->skip;
	int32_t rows = t->rows;

	do {
		const int8_t *const end = w + run;

		do {
			const int32_t xi = *x++;

			a0 += xi * w[0];
			a1 += xi * w[1];
			a2 += xi * w[2];
			a3 += xi * w[3];
			b0 += xi * v[0];
			b1 += xi * v[1];
			b2 += xi * v[2];
			b3 += xi * v[3];
			w += 4;
			v += 4;
		} while (w != end);
		x += skip;
	} while (--rows);
	rv32_store1(o, first + words - REQUANT_WORDS * RV32_CHANNELS, a0, a1, a2, a3);
	if (second == 0)
		return;
	o->out += RV32_CHANNELS;
	o->channels -= RV32_CHANNELS;
	rv32_store1(o, second + words - REQUANT_WORDS * RV32_CHANNELS, b0, b1, b2, b3);
}

/* A group of two to four pixels by every block of channels. */
SCALAR_INLINE void rv32_blocks(const struct usmp_scalar_conv_params *p, struct rv32_work *work,
				const uint32_t *weights)
{
	const int32_t words = block_words(RV32_CHANNELS, p->depth);
	const int32_t *block = (const int32_t *)weights;
	struct rv32_out *const o = &work->o;
	int32_t c;

	for (c = 0; c < p->out_ch; c += RV32_CHANNELS, block += words, o->out += RV32_CHANNELS) {
		o->channels = p->out_ch - c;
		rv32_block(work, block, block + words - REQUANT_WORDS * RV32_CHANNELS);
	}
}

/* One pixel by every pair of blocks. */
SCALAR_HOT __attribute__((noinline)) static void rv32_pixels(const struct usmp_scalar_conv_params *p,
							     struct rv32_work *work, const uint32_t *weights)
{
	const int32_t words = block_words(RV32_CHANNELS, p->depth);
	const int32_t *block = (const int32_t *)weights;
	struct rv32_out *const o = &work->o;
	int32_t c;

	for (c = 0; c < p->out_ch; c += 2 * RV32_CHANNELS, block += 2 * words, o->out += RV32_CHANNELS) {
		o->channels = p->out_ch - c;
		rv32_pixel(&work->c.t, block, p->out_ch - c > RV32_CHANNELS ? block + words : 0, words, o);
	}
}

/* Scratch: the job (RV32_JOB_BYTES), then the padded input rows. */
void usmp_scalar_conv_rv32_s8(const struct usmp_scalar_conv_params *p, const int8_t *input,
			      const uint32_t *weights, int8_t *scratch, int8_t *output)
{
	SCALAR_JOB(struct rv32_work, work, scratch);

	cursor_start(&work->c, input, scratch + RV32_JOB_BYTES, output);
	work->o.out_ch = p->out_ch;
	work->o.act_min = p->act_min;
	work->o.act_max = p->act_max;
	while (next_group(p, &work->c, RV32_PIXELS) > 0) {
		work->o.out = work->c.out;
		work->o.pixels = work->c.n;
		if (work->c.n == 1)
			rv32_pixels(p, work, weights);
		else
			rv32_blocks(p, work, weights);
	}
}

/* ---------------------------------------------------------------- armv7m: 2 pixels packed x 4 channels */

enum { V7M_CHANNELS = 4, V7M_LANE = 23 };

/* Two pixels' taps (the second absent: n = 1) as packed words x0 + x1 * 2^23, the window's runs one after
 * the other. */
SCALAR_HOT __attribute__((noinline)) static void v7m_pack(int32_t *packed, const struct taps *t, int32_t n)
{
	const int8_t *x0 = t->x, *x1 = x0 + t->step;
	int32_t rows, i;

	for (rows = t->rows; rows > 0; rows--, x0 += t->skip, x1 += t->skip) {
		if (n == 1) {
			for (i = t->run; i > 0; i--)
				*packed++ = *x0++;
			continue;
		}
		for (i = t->run; i > 0; i--)
			*packed++ = (int32_t)((uint32_t)(int32_t)*x0++ + ((uint32_t)(int32_t)*x1++ << V7M_LANE));
	}
}

/* The 64-bit sums of `n` packed taps by one block's four channels, added to s[4]. */
SCALAR_HOT __attribute__((noinline)) static void v7m_chunk(const int32_t *x, const int8_t *w, int32_t n,
							   int64_t s[4])
{
	int64_t a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3];
	const int32_t *const end = x + n;

	do {
		const int32_t v = *x++;

		a0 += (int64_t)v * w[0];
		a1 += (int64_t)v * w[1];
		a2 += (int64_t)v * w[2];
		a3 += (int64_t)v * w[3];
		w += 4;
	} while (x != end);
	s[0] = a0, s[1] = a1, s[2] = a2, s[3] = a3;
}

/* The two lanes of a packed sum into the pixels' sums: the low lane is within +-2^22 (the chunk sees to it). */
SCALAR_INLINE void v7m_split(int64_t packed, int32_t *first, int32_t *second)
{
	const int32_t low = (int32_t)((uint32_t)packed << (32 - V7M_LANE)) >> (32 - V7M_LANE);

	*first += low;
	*second += (int32_t)((packed - low) >> V7M_LANE);
}

/* What a call keeps while it runs, at the start of its scratch (usmp_kernels/scalar.h), not on the stack: the
 * cursor, a chunk's packed sums and the two pixels' sums of a block. */
struct v7m_job {
	int64_t s[V7M_CHANNELS];
	int32_t first[V7M_CHANNELS];
	int32_t second[V7M_CHANNELS];
	struct cursor c;
};
SCALAR_JOB_FITS(v7m_job, V7M_JOB_BYTES);

/* One block's four channels of the group's (up to) two pixels, from the packed taps, into the job's sums. */
SCALAR_HOT __attribute__((noinline)) static void v7m_block(const struct usmp_scalar_conv_params *p,
							   struct v7m_job *j, const int32_t *bias,
							   const int32_t *packed)
{
	const int8_t *const w = (const int8_t *)(bias + V7M_CHANNELS);
	int32_t c, done;

	for (c = 0; c < V7M_CHANNELS; c++)
		j->first[c] = j->second[c] = bias[c];
	for (done = 0; done < p->depth; done += p->chunk) {
		const int32_t taps = p->depth - done < p->chunk ? p->depth - done : p->chunk;

		for (c = 0; c < V7M_CHANNELS; c++)
			j->s[c] = 0;
		v7m_chunk(packed + done, w + V7M_CHANNELS * done, taps, j->s);
		for (c = 0; c < V7M_CHANNELS; c++)
			v7m_split(j->s[c], &j->first[c], &j->second[c]);
	}
}

/* The block's sums requantized into the group's outputs, channels o, o + 1, ... of its one or two pixels. */
__attribute__((noinline)) static void v7m_store(const struct usmp_scalar_conv_params *p, const struct v7m_job *j,
						const int32_t *k, int32_t o)
{
	int8_t *const out = j->c.out + o;
	int32_t c;

	for (c = 0; c < V7M_CHANNELS && o + c < p->out_ch; c++, k += REQUANT_WORDS) {
		out[c] = (int8_t)scalar_requantize(j->first[c], k, p->act_min, p->act_max);
		if (j->c.n == 2)
			out[p->out_ch + c] = (int8_t)scalar_requantize(j->second[c], k, p->act_min, p->act_max);
	}
}

/* Scratch: the job (V7M_JOB_BYTES), the packed taps (4 * depth bytes), then the padded input rows. */
void usmp_scalar_conv_armv7m_s8(const struct usmp_scalar_conv_params *p, const int8_t *input,
				const uint32_t *weights, int8_t *scratch, int8_t *output)
{
	SCALAR_JOB(struct v7m_job, j, scratch);
	int32_t *const packed = (int32_t *)(void *)(scratch + V7M_JOB_BYTES);

	cursor_start(&j->c, input, scratch + V7M_JOB_BYTES + 4 * p->depth, output);
	while (next_group(p, &j->c, 2) > 0) {
		const int32_t *block = (const int32_t *)weights;
		int32_t o;

		v7m_pack(packed, &j->c.t, j->c.n);
		for (o = 0; o < p->out_ch; o += V7M_CHANNELS) {
			v7m_block(p, j, block, packed);
			block += block_words(V7M_CHANNELS, p->depth);
			v7m_store(p, j, block - REQUANT_WORDS * V7M_CHANNELS, o);
		}
	}
}

/* ---------------------------------------------------------------- armv6m: 1 pixel x 8 channels */

enum { V6M_CHANNELS = 8 };

/* What a call keeps while it runs, at the start of its scratch (usmp_kernels/scalar.h), not on the stack: the
 * group's taps, the block's sums (started from its biases) and v6m_block's row counter. */
struct v6m_job {
	int32_t s[V6M_CHANNELS];
	int32_t rows_left; /* v6m_block's */
	struct cursor c;
};
SCALAR_JOB_FITS(v6m_job, V6M_JOB_BYTES);

/* One window by one block's eight channels of unsigned weights (w + 128), added to the job's sums, less 128 times
 * the sum of the window's taps (what the unsigned weights add too many of). */
#if defined(__ARM_ARCH_6M__)
/*
 * In assembly: GCC keeps neither the eight sums nor the loads' offsets in registers (Armv6-M loads a signed
 * byte with a register offset only). Sums in r4-r7 and r8-r11, the taps' sum in r12, the run's end in lr; a
 * tap is a byte load and sign extension, then per channel a byte load, MULS and ADD. Two taps a turn. The
 * frame is the saved registers and the job's address: the rest stays in the job.
 */
#define V6M_TAP(x, w)                              \
	"	ldrb	r2, [r0, #" #x "]\n"               \
	"	sxtb	r2, r2\n"                          \
	"	add	r12, r2\n"                         \
	"	ldrb	r3, [r1, #" #w "+0]\n"             \
	"	muls	r3, r2\n"                          \
	"	adds	r4, r4, r3\n"                      \
	"	ldrb	r3, [r1, #" #w "+1]\n"             \
	"	muls	r3, r2\n"                          \
	"	adds	r5, r5, r3\n"                      \
	"	ldrb	r3, [r1, #" #w "+2]\n"             \
	"	muls	r3, r2\n"                          \
	"	adds	r6, r6, r3\n"                      \
	"	ldrb	r3, [r1, #" #w "+3]\n"             \
	"	muls	r3, r2\n"                          \
	"	adds	r7, r7, r3\n"                      \
	"	ldrb	r3, [r1, #" #w "+4]\n"             \
	"	muls	r3, r2\n"                          \
	"	add	r8, r3\n"                          \
	"	ldrb	r3, [r1, #" #w "+5]\n"             \
	"	muls	r3, r2\n"                          \
	"	add	r9, r3\n"                          \
	"	ldrb	r3, [r1, #" #w "+6]\n"             \
	"	muls	r3, r2\n"                          \
	"	add	r10, r3\n"                         \
	"	ldrb	r3, [r1, #" #w "+7]\n"             \
	"	muls	r3, r2\n"                          \
	"	add	r11, r3\n"

/* the job's members (V6M_JOB_BYTES checks its size): s 0, rows_left 32, then the cursor's taps: x 36, rows 44,
 * run 48, skip 52 */

__attribute__((naked, noinline)) static void v6m_block(struct v6m_job *j, const uint8_t *w)
{
	(void)j;
	(void)w;
	__asm volatile(
		"	.syntax unified\n" /* GCC hands Armv6-M inline assembly over in divided syntax */
		"	push	{r0, r4, r5, r6, r7, lr}\n"
		"	mov	r4, r8\n"
		"	mov	r5, r9\n"
		"	mov	r6, r10\n"
		"	mov	r7, r11\n"
		"	push	{r4, r5, r6, r7}\n" /* [sp, #16]: the job */
		"	ldr	r3, [r0, #44]\n"
		"	str	r3, [r0, #32]\n"
		"	ldr	r3, [r0, #16]\n"
		"	mov	r8, r3\n"
		"	ldr	r3, [r0, #20]\n"
		"	mov	r9, r3\n"
		"	ldr	r3, [r0, #24]\n"
		"	mov	r10, r3\n"
		"	ldr	r3, [r0, #28]\n"
		"	mov	r11, r3\n"
		"	movs	r2, r0\n"
		"	ldm	r2!, {r4, r5, r6, r7}\n"
		"	movs	r2, r0\n" /* r2: the job, at the top of each row */
		"	ldr	r0, [r0, #36]\n"
		"	movs	r3, #0\n"
		"	mov	r12, r3\n"
		"1:	ldr	r3, [r2, #48]\n"
		"	adds	r2, r0, r3\n"
		"	mov	lr, r2\n"
		"	lsrs	r3, r3, #1\n"
		"	bcc	2f\n"
		V6M_TAP(0, 0)
		"	adds	r0, r0, #1\n"
		"	adds	r1, r1, #8\n"
		"	cmp	r0, lr\n"
		"	beq	3f\n"
		"2:\n"
		V6M_TAP(0, 0)
		V6M_TAP(1, 8)
		"	adds	r0, r0, #2\n"
		"	adds	r1, r1, #16\n"
		"	cmp	r0, lr\n"
		"	bne	2b\n"
		"3:	ldr	r2, [sp, #16]\n"
		"	ldr	r3, [r2, #52]\n"
		"	adds	r0, r0, r3\n"
		"	ldr	r3, [r2, #32]\n"
		"	subs	r3, r3, #1\n"
		"	str	r3, [r2, #32]\n"
		"	bne	1b\n"
		"	mov	r3, r12\n" /* less 128 times the window's taps */
		"	lsls	r3, r3, #7\n"
		"	subs	r4, r4, r3\n"
		"	subs	r5, r5, r3\n"
		"	subs	r6, r6, r3\n"
		"	subs	r7, r7, r3\n"
		"	stm	r2!, {r4, r5, r6, r7}\n"
		"	mov	r0, r8\n"
		"	subs	r0, r0, r3\n"
		"	str	r0, [r2]\n"
		"	mov	r0, r9\n"
		"	subs	r0, r0, r3\n"
		"	str	r0, [r2, #4]\n"
		"	mov	r0, r10\n"
		"	subs	r0, r0, r3\n"
		"	str	r0, [r2, #8]\n"
		"	mov	r0, r11\n"
		"	subs	r0, r0, r3\n"
		"	str	r0, [r2, #12]\n"
		"	pop	{r4, r5, r6, r7}\n"
		"	mov	r8, r4\n"
		"	mov	r9, r5\n"
		"	mov	r10, r6\n"
		"	mov	r11, r7\n"
		"	pop	{r1, r4, r5, r6, r7, pc}\n");
}
#else
__attribute__((noinline)) static void v6m_block(struct v6m_job *j, const uint8_t *w)
{
	const int8_t *x = j->c.t.x;
	int32_t rows, i, c, taps = 0;

	for (rows = j->c.t.rows; rows > 0; rows--, x += j->c.t.skip) {
		for (i = j->c.t.run; i > 0; i--, w += V6M_CHANNELS) {
			const int32_t v = *x++;

			taps += v;
			for (c = 0; c < V6M_CHANNELS; c++)
				j->s[c] += v * (int32_t)w[c];
		}
	}
	for (c = 0; c < V6M_CHANNELS; c++)
		j->s[c] -= 128 * taps;
}
#endif

/* The block's sums requantized into the group's outputs o, o + 1, ... (up to eight channels): apart from the
 * block's frame, so that the kernel's loop keeps few registers. */
__attribute__((noinline)) static void v6m_store(const struct usmp_scalar_conv_params *p, const struct v6m_job *j,
						const int32_t *k, int32_t o)
{
	int8_t *out = j->c.out + o;
	const int32_t *s = j->s;
	int32_t n = p->out_ch - o < V6M_CHANNELS ? p->out_ch - o : V6M_CHANNELS;

	do {
		*out++ = (int8_t)scalar_requantize(*s++, k, p->act_min, p->act_max);
		k += REQUANT_WORDS;
	} while (--n > 0);
}

/* Scratch: the job (V6M_JOB_BYTES), then the padded input rows. */
void usmp_scalar_conv_armv6m_s8(const struct usmp_scalar_conv_params *p, const int8_t *input,
				const uint32_t *weights, int8_t *scratch, int8_t *output)
{
	SCALAR_JOB(struct v6m_job, j, scratch);

	cursor_start(&j->c, input, scratch + V6M_JOB_BYTES, output);
	while (next_group(p, &j->c, 1) > 0) {
		const int32_t *block = (const int32_t *)weights;
		int32_t o, c;

		for (o = 0; o < p->out_ch; o += V6M_CHANNELS) {
			for (c = 0; c < V6M_CHANNELS; c++)
				j->s[c] = block[c];
			v6m_block(j, (const uint8_t *)(block + V6M_CHANNELS));
			block += block_words(V6M_CHANNELS, p->depth);
			v6m_store(p, j, block - REQUANT_WORDS * V6M_CHANNELS, o);
		}
	}
}
