/*
 * DEPTHWISE_CONV_2D on cores without SIMD (usmp_kernels/scalar.h): one output channel at a time along an
 * output row, its taps in registers, its windows read where they lie (or in the output row's padded copy of
 * its input rows, rows.c), every output requantized as it is summed.
 */
#include "usmp_kernels/scalar.h"

#include "scalar_ops.h"
#include "scalar_rows.h"

enum { CHANNEL_WORDS = 4 }; /* bias, multiplier, rounding, shift */

/* What one channel's row of outputs reads and writes. */
struct channel_row {
	const int8_t *x;  /* the first window's first tap */
	int32_t pitch;    /* from a filter row to the next */
	int32_t col;      /* from a filter column to the next */
	int32_t step;     /* from a window to the next */
	int32_t out_step; /* from an output to the next */
	int32_t act_min;
	int32_t act_max;
};

/*
 * 3x3 windows, undilated: the nine taps stay in registers and each input column is read once. A column's
 * three taps times the filter's three columns give its share of three outputs (stride 1: this one, the one
 * before and the one before that; stride 2: the next and this one, every other column only the middle):
 * two running sums carry the outputs not yet complete.
 */
SCALAR_INLINE void channel_3x3(const struct channel_row *r, const int8_t *x, const int32_t *k, int32_t n,
				int8_t *out)
{
	const int8_t *t = (const int8_t *)(k + CHANNEL_WORDS);
	const int32_t w0 = t[0], w1 = t[1], w2 = t[2], w3 = t[3], w4 = t[4], w5 = t[5], w6 = t[6], w7 = t[7];
	const int32_t w8 = t[8], bias = k[0], pitch = r->pitch, col = r->col;
	int32_t a, b, c, first, second;

	/* column 0 starts output 0 */
	a = x[0], b = x[pitch], c = x[2 * pitch];
	first = bias + a * w0 + b * w3 + c * w6;
	x += col;
	if (r->step == col) { /* stride 1: first = output j's sum so far, second = output j-1's */
		a = x[0], b = x[pitch], c = x[2 * pitch];
		second = first + a * w1 + b * w4 + c * w7;
		first = bias + a * w0 + b * w3 + c * w6;
		for (x += col; n > 0; n--, x += col, out += r->out_step) {
			a = x[0], b = x[pitch], c = x[2 * pitch];
			*out = (int8_t)scalar_requantize(second + a * w2 + b * w5 + c * w8, k + 1, r->act_min, r->act_max);
			second = first + a * w1 + b * w4 + c * w7;
			first = bias + a * w0 + b * w3 + c * w6;
		}
		return;
	}
	for (; n > 0; n--, out += r->out_step) { /* stride 2: columns 2j + 1 and 2j + 2 complete output j */
		a = x[0], b = x[pitch], c = x[2 * pitch];
		second = first + a * w1 + b * w4 + c * w7;
		x += col;
		a = x[0], b = x[pitch], c = x[2 * pitch];
		*out = (int8_t)scalar_requantize(second + a * w2 + b * w5 + c * w8, k + 1, r->act_min, r->act_max);
		first = bias + a * w0 + b * w3 + c * w6;
		x += col;
	}
}

/* `channels` neighbouring channels (multiplier 1; else one) of one output row, 3x3. */
SCALAR_HOT __attribute__((noinline)) static void row_3x3(const struct channel_row *r, const int32_t *k, int32_t words,
							 int32_t channels, int32_t n, int8_t *out)
{
	int32_t c;

	for (c = 0; c < channels; c++, k += words)
		channel_3x3(r, r->x + c, k, n, out + c);
}

/* Any window: filter_h x filter_w taps from memory. */
SCALAR_HOT __attribute__((noinline)) static void row_any(const struct channel_row *r, const int32_t *k, int32_t n,
							 int32_t filter_h, int32_t filter_w, int8_t *out)
{
	const int8_t *x = r->x;
	int32_t ky, kx;

	for (; n > 0; n--, x += r->step, out += r->out_step) {
		const int8_t *t = (const int8_t *)(k + CHANNEL_WORDS), *row = x;
		int32_t acc = k[0];

		for (ky = 0; ky < filter_h; ky++, row += r->pitch) {
			const int8_t *tap = row;

			for (kx = 0; kx < filter_w; kx++, tap += r->col)
				acc += *tap * *t++;
		}
		*out = (int8_t)scalar_requantize(acc, k + 1, r->act_min, r->act_max);
	}
}

/* What a call keeps while it runs, its job (scalar_ops.h): the channel row the row routines read, and where the
 * call is. */
struct dw_job {
	struct channel_row r;
	const int8_t *image; /* the batch's input */
	int8_t *out;         /* the output row's first output */
	int8_t *rows;        /* scratch for an output row's padded input rows */
	int32_t b, oy;
};
#define DW_JOB_BYTES 48
SCALAR_JOB_FITS(dw_job, DW_JOB_BYTES);

/* The next output row: its first window (in place, or in its padded copy of its input rows) in the job's channel
 * row; 0 past the last. */
__attribute__((noinline)) static int next_row(const struct usmp_scalar_conv_params *p, struct dw_job *j)
{
	const int32_t in_ch = p->in_ch;

	if (j->oy >= 0)
		j->out += p->out_w * p->out_ch;
	if (++j->oy >= p->out_h) {
		j->oy = 0;
		j->image += p->in_h * p->in_w * in_ch;
		if (++j->b >= p->batches || p->out_h <= 0)
			return 0;
	}
	if (usmp_scalar_row_padded(p, j->oy)) {
		usmp_scalar_padded_rows(p, j->image, j->oy, j->rows);
		j->r.x = j->rows;
		j->r.pitch = usmp_scalar_row_span(p) * in_ch;
	} else {
		j->r.x = j->image + (j->oy * p->stride_h - p->pad_top) * p->in_w * in_ch;
		j->r.pitch = p->dilation_h * p->in_w * in_ch;
	}
	return 1;
}

/* Scratch: the job (DW_JOB_BYTES), then the padded input rows. */
void usmp_scalar_depthwise_s8(const struct usmp_scalar_conv_params *p, const int8_t *input, const uint32_t *weights,
			      int8_t *scratch, int8_t *output)
{
	SCALAR_JOB(struct dw_job, j, scratch);
	const int32_t words = CHANNEL_WORDS + (int32_t)(((uint32_t)(p->filter_h * p->filter_w) + 3u) >> 2);
	const int three = p->filter_h == 3 && p->filter_w == 3 && p->dilation_w == 1 &&
			  (p->stride_w == 1 || p->stride_w == 2);

	j->r.col = p->dilation_w * p->in_ch;
	j->r.step = p->stride_w * p->in_ch;
	j->r.out_step = p->out_ch;
	j->r.act_min = p->act_min;
	j->r.act_max = p->act_max;
	j->image = input;
	j->out = output;
	j->rows = scratch + DW_JOB_BYTES;
	j->b = 0;
	j->oy = -1;
	while (next_row(p, j)) {
		const int8_t *const row = j->r.x;
		const uint32_t *k = weights;
		int32_t c, m;

		if (three && p->depth_multiplier == 1) {
			row_3x3(&j->r, (const int32_t *)weights, words, p->in_ch, p->out_w, j->out);
			continue;
		}
		for (c = 0; c < p->in_ch; c++) {
			for (m = 0; m < p->depth_multiplier; m++, k += words) {
				j->r.x = row + c;
				if (three)
					row_3x3(&j->r, (const int32_t *)k, words, 1, p->out_w, j->out + c * p->depth_multiplier + m);
				else
					row_any(&j->r, (const int32_t *)k, p->out_w, p->filter_h, p->filter_w,
						j->out + c * p->depth_multiplier + m);
			}
		}
	}
}
