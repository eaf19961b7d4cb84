/* Depth-first chains: the rows of each band, and reductions taken band by band (usmp_kernels/tiling.h). */

#include "usmp_kernels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

/*
 * The step runs for every link every band, built for size like the rest (one pass over the links, the row
 * arithmetic inlined): the kernels' calls it sets up dwarf it, and its code is what a chain adds to flash.
 */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline)) /* a row move is long: its call costs nothing, its code stays small */
#define ROW_MATH static inline __attribute__((always_inline))
#else
#define OUT_OF_LINE
#define ROW_MATH static inline
#endif
/* Thumb-2 has load/store-multiple of any low and high registers (the Cortex-M0's Thumb-1 has not) */
#if defined(__thumb2__) || (defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB >= 2)
#define THUMB2 1
#else
#define THUMB2 0
#endif

#if USMP_ARMV6M
#define ARMV6M_DIVIDE(a, b) ((int32_t)usmp_armv6m_divide((uint32_t)(a), (uint32_t)(b))) /* no frame under the step */
#else
#define ARMV6M_DIVIDE(a, b) ((a) / (b))
#endif

ROW_MATH int32_t input_row(const struct usmp_band_edge *e, int32_t row)
{
	return row < 0 ? 0 : (row > e->rows ? e->rows : row);
}

/* The first and one past the last input row that output rows [first, end) read (end > 0). */
ROW_MATH int32_t first_row_read(const struct usmp_band_edge *e, int32_t first)
{
	return input_row(e, first * e->stride - e->pad_top);
}

ROW_MATH int32_t end_row_read(const struct usmp_band_edge *e, int32_t end)
{
	return input_row(e, end * e->stride + e->end_offset);
}

/* How many output rows have their whole window among the first `produced` input rows. */
ROW_MATH int32_t rows_ready(const struct usmp_band_edge *e, int32_t produced, int32_t limit)
{
	const int32_t reach = produced - e->end_offset;

	if (produced >= e->rows) {
		return limit; /* every input row is there: the bottom padding too */
	}
	if (reach < 0) {
		return 0;
	}
#if USMP_ARMV6M
	return (int32_t)usmp_armv6m_divide((uint32_t)reach, (uint32_t)e->stride); /* no frame under the step */
#else
	return reach / e->stride;
#endif
}

/* recompute: the rows band `band` of the last link reads, link by link back to the first */
static void plan_recompute(const struct usmp_band_chain *chain, int32_t band, struct usmp_band *b)
{
	const int32_t last = chain->links - 1;
	int32_t j, e;

	b[last].end = (uint16_t)((band + 1) * chain->band);
	if (b[last].end > chain->link[last].rows) {
		b[last].end = chain->link[last].rows;
	}
	b[last].done = (uint16_t)(band * chain->band);
	b[last].top = 0; /* the chain's output is whole */
	for (j = 0; j < last; j++) {
		b[j].end = 0;
		b[j].done = chain->link[j].rows;
	}
	for (j = last; j >= 0; j--) {
		const struct usmp_band_link *link = &chain->link[j];

		if (b[j].end <= b[j].done) {
			continue;
		}
		for (e = link->first_edge; e < link->first_edge + link->inputs; e++) {
			const struct usmp_band_edge *edge = &chain->edge[e];
			struct usmp_band *producer;
			int32_t row;

			if (edge->producer > last) {
				continue; /* a whole tensor */
			}
			producer = &b[edge->producer];
			row = end_row_read(edge, b[j].end);
			if (row > producer->end) {
				producer->end = (uint16_t)row;
			}
			row = first_row_read(edge, b[j].done);
			if (row < producer->done) {
				producer->done = (uint16_t)row;
			}
		}
	}
	for (j = 0; j < last; j++) {
		b[j].top = b[j].done;
	}
}

/*
 * out[0..words) = in[0..words), a forward copy: out may start below in within the same buffer, each group of
 * words is read before it is written. Row moves in band buffers are most of what a sliding loop adds, so where
 * the code may use the FPU (and Helium's registers) 64 bytes go at a time through its caller-saved registers,
 * and on Thumb-2 cores eight words in one load-multiple and one store-multiple (r7 and r9, which a platform
 * may reserve, are left alone); elsewhere four words a step in C.
 */
static void copy_words(uint32_t *out, const uint32_t *in, int32_t words)
{
#if defined(__ARM_FP) && THUMB2
	for (; words >= 16; words -= 16) {
		__asm__ volatile("vldmia %1!, {d0-d7}\n\tvstmia %0!, {d0-d7}"
				 : "+r"(out), "+r"(in)
				 :
				 : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "memory");
	}
#endif
#if THUMB2
	for (; words >= 8; words -= 8) {
		__asm__ volatile("ldmia %1!, {r3-r6, r8, r10-r12}\n\tstmia %0!, {r3-r6, r8, r10-r12}"
				 : "+r"(out), "+r"(in)
				 :
				 : "r3", "r4", "r5", "r6", "r8", "r10", "r11", "r12", "memory");
	}
#else
	for (; words >= 4; words -= 4, in += 4, out += 4) {
		const uint32_t w0 = in[0], w1 = in[1], w2 = in[2], w3 = in[3];

		out[0] = w0;
		out[1] = w1;
		out[2] = w2;
		out[3] = w3;
	}
#endif
	for (; words > 0; words--) {
		*out++ = *in++;
	}
}

/* Rows [from, from + count) of a band buffer to its top: word by word where the rows are word aligned. */
#if USMP_ARMV6M
/* the frameless copy: on the Cortex-M0 the step's call chain is the band loop's deepest path */
ROW_MATH void keep_rows(uint8_t *buffer, int32_t from, int32_t count, int32_t row_bytes)
{
	usmp_armv6m_copy(buffer, buffer + from * row_bytes, count * row_bytes);
}
#else
OUT_OF_LINE static void keep_rows(uint8_t *buffer, int32_t from, int32_t count, int32_t row_bytes)
{
	const int32_t bytes = count * row_bytes;
	const uint8_t *in = buffer + from * row_bytes;
	int32_t i;

	if ((((uintptr_t)in | (uintptr_t)buffer | (uint32_t)bytes) & 3u) == 0) {
		copy_words((uint32_t *)(void *)buffer, (const uint32_t *)(const void *)in, bytes / 4);
		return;
	}
	for (i = 0; i < bytes; i++) {
		buffer[i] = in[i];
	}
}
#endif

void usmp_band_params(void *params, const void *whole, int32_t bytes)
{
	copy_words((uint32_t *)params, (const uint32_t *)whole, (int32_t)((uint32_t)bytes >> 2));
}

/*
 * Where a link's rows [first, stop) go (out: its buffer) and the rows its inputs offer them: its band's
 * members. The inputs go last to first, so that the first one's first row is at hand for its in_h and pad_top.
 */
ROW_MATH void place_rows(const struct usmp_band_chain *chain, const struct usmp_band_link *l,
			 const struct usmp_band_edge *edges, void *const *buffers, struct usmp_band *bands,
			 struct usmp_band *b, void *out, int32_t first, int32_t stop)
{
	const int32_t last = chain->links - 1;
	int32_t k, row = 0;

	for (k = l->inputs - 1; k >= 0; k--) {
		const struct usmp_band_edge *edge = &edges[k];
		const int32_t p = edge->producer;

		row = first_row_read(edge, first);
		/* a band buffer's row `top` is at its start */
		b->in[k] = (uint8_t *)buffers[p] + (row - (p > last ? 0 : bands[p].top)) * edge->row_bytes;
	}
	b->first = (uint16_t)first;
	b->count = (uint16_t)(stop - first);
	b->out = (uint8_t *)out + (first - b->top) * l->row_bytes; /* unused by a reduction, which has no rows */
	b->in_count = (uint16_t)(end_row_read(edges, stop) - row);
	b->pad_top = (uint16_t)(edges->pad_top + row - first * edges->stride);
}

/* A link that will read input `e` from row first_row_read(stop) on next band lowers its producer's `keep` to it. */
ROW_MATH void lower_keep(const struct usmp_band_edge *e, struct usmp_band *bands, int32_t last, int32_t stop)
{
	const int32_t p = e->producer, next = stop * e->stride - e->pad_top; /* not clamped to the producer's rows */

	if (p <= last && next < bands[p].keep) {
		bands[p].keep = (uint16_t)(next < 0 ? 0 : next);
	}
}

/*
 * The steady bands. Once every link computes rows, none skipped, its buffer's top moving on by its count, a
 * producer's count `stride` times its consumer's, and no input row clipped, the next band is this one moved on:
 * every link's rows and its buffer's keep and top by its count, the same rows kept, the same addresses in band
 * buffers, a whole tensor's by its rows read. That holds until a link nears its last rows (its band clipped, a
 * consumer's producer at its end) or a band reads, or keeps, past an input's last row: how many bands until then,
 * after a band that qualifies (0 if it does not). The count lives in the last link's `keep`, which no consumer
 * lowers.
 */
ROW_MATH int32_t steady_bands(const struct usmp_band_chain *chain, const struct usmp_band *bands)
{
	const struct usmp_band_link *l = chain->link;
	const struct usmp_band_edge *e = chain->edge;
	const struct usmp_band *b = bands;
	int32_t j, k, n = 0xffff;

	for (j = 0; j < chain->links; j++, l++, b++) {
		const int32_t count = b->count; /* > 0 */
		/* bands t = 1.. while done + (t - 1) * count + share < rows */
		int32_t left = l->rows - l->share - b->done - 1;

		if (left < 0) {
			return 0;
		}
		left = 1 + ARMV6M_DIVIDE(left, count);
		n = left < n ? left : n;
		for (k = 0; k < l->inputs; k++, e++) {
			const int32_t step = count * e->stride, reach = e->end_offset > -e->pad_top ? e->end_offset : -e->pad_top;

			/* the rows it reads, and keeps for the next band, within the input's: (done + t * count) * stride
			 * + reach <= rows, none above its top */
			left = e->rows - reach - b->done * e->stride;
			if (b->first * e->stride < e->pad_top || left < 0 ||
			    (e->producer < chain->links && bands[e->producer].count != step)) {
				return 0;
			}
			left = ARMV6M_DIVIDE(left, step);
			n = left < n ? left : n;
		}
	}
	return n;
}

/* One steady band: the band before moved on. */
ROW_MATH void steady_step(const struct usmp_band_chain *chain, void *const *buffers, struct usmp_band *bands)
{
	const int32_t last = chain->links - 1;
	const struct usmp_band_link *l = chain->link;
	const struct usmp_band_edge *e = chain->edge;
	struct usmp_band *b = bands;
	int32_t j, k;

	for (j = 0; j <= last; j++, l++, b++) {
		const int32_t first = b->done, count = b->count;

		if (j < last) { /* keep > top: the rows from keep on go to the top, as the band before */
			const int32_t keep = b->keep;

			if (first > keep) {
				keep_rows((uint8_t *)buffers[j], keep - b->top, first - keep, l->row_bytes);
			}
			b->top = (uint16_t)keep;
			b->keep = (uint16_t)(keep + count);
		} else {
			b->out = (uint8_t *)b->out + count * l->row_bytes; /* the chain's output is whole */
		}
		b->first = (uint16_t)first;
		b->done = (uint16_t)(first + count);
		b->end = b->done;
		for (k = 0; k < l->inputs; k++, e++) {
			if (e->producer > last) { /* a whole tensor's rows */
				b->in[k] = (uint8_t *)b->in[k] + count * e->stride * e->row_bytes;
			}
		}
	}
}

/*
 * sliding, one pass over the links, producers first: each computes its share of rows as far as its inputs'
 * rows allow, after moving the rows its consumers still read to its buffer's top (rows above `keep` leave).
 * Then one pass over its inputs sets where it reads them and lowers their producers' `keep` to the first row it
 * will read next band.
 * A steady band (steady_bands()) is the band before moved on.
 */
void usmp_band_step(const struct usmp_band_chain *chain, int32_t band, void *const *buffers, struct usmp_band *bands)
{
	const int32_t last = chain->links - 1;
	const struct usmp_band_link *l = chain->link;
	const struct usmp_band_edge *edge = chain->edge; /* each link's row inputs follow the link before's */
	struct usmp_band *b = bands;
	int32_t j, k, steady = 1; /* this band qualifies so far for the next to be steady */

	if (band > 0 && bands[last].keep > 0) {
		bands[last].keep--;
		steady_step(chain, buffers, bands);
		return;
	}
	for (j = 0; j <= last; j++, l++, b++) {
		int32_t first, stop, top, row = 0;

		if (band == 0) { /* nothing computed yet, every buffer's top at row 0, nothing to leave */
			b->done = 0;
			b->top = 0;
			b->keep = 0;
		}
		first = b->done;
		top = b->top;
		stop = first + l->share;
		if (stop > l->rows) {
			stop = l->rows;
		}
		for (k = 0; k < l->inputs; k++) {
			const struct usmp_band_edge *e = &edge[k];
			const int32_t p = e->producer;

			if (p <= last) {
				const int32_t produced = bands[p].end;

				/* rows_ready(), once the window of row stop - 1 is known not to be there yet */
				if (produced < e->rows && stop * e->stride + e->end_offset > produced) {
					const int32_t ready = rows_ready(e, produced, l->rows);

					stop = ready < stop ? ready : stop;
				}
			}
		}
		b->end = (uint16_t)(stop > first ? stop : first);
		if (j < last) {
			if (b->keep > top) {
				if (first > b->keep) {
					keep_rows((uint8_t *)buffers[j], b->keep - top, first - b->keep, l->row_bytes);
				} else {
					first = b->keep; /* rows no consumer reads (e.g. skipped by a stride) */
				}
				b->top = b->keep;
			}
			b->keep = l->rows; /* its consumers lower it to the first row they read next band */
			if (b->top - top != stop - first || first != b->done) {
				steady = 0; /* its top moved on by other than its rows, or rows skipped */
			}
		}
		if (stop <= first) { /* no rows: only where it reads next band */
			b->count = 0;
			for (k = 0; k < l->inputs; k++) {
				lower_keep(&edge[k], bands, last, first);
			}
			steady = 0;
			stop = first;
		} else {
			for (k = l->inputs - 1; k >= 0; k--) { /* last to first: the first input's row is at hand after */
				const struct usmp_band_edge *e = &edge[k];
				const int32_t p = e->producer;

				row = first_row_read(e, first);
				/* a band buffer's row `top` is at its start */
				b->in[k] = (uint8_t *)buffers[p] + (row - (p > last ? 0 : bands[p].top)) * e->row_bytes;
				lower_keep(e, bands, last, stop);
			}
			b->first = (uint16_t)first;
			b->count = (uint16_t)(stop - first);
			b->out = (uint8_t *)buffers[j] + (first - b->top) * l->row_bytes; /* a reduction has no rows */
			b->in_count = (uint16_t)(end_row_read(edge, stop) - row);
			b->pad_top = (uint16_t)(edge->pad_top + row - first * edge->stride);
		}
		b->done = (uint16_t)stop;
		edge += l->inputs;
	}
	if (steady) {
		bands[last].keep = (uint16_t)steady_bands(chain, bands);
	}
}

void usmp_band_step_recompute(const struct usmp_band_chain *chain, int32_t band, void *const *buffers,
			      struct usmp_band *bands)
{
	const struct usmp_band_link *l = chain->link;
	struct usmp_band *b = bands;
	int32_t j;

	plan_recompute(chain, band, bands);
	for (j = 0; j < chain->links; j++, l++, b++) {
		b->count = 0;
		if (b->end > b->done) {
			place_rows(chain, l, &chain->edge[l->first_edge], buffers, bands, b, buffers[j], b->done, b->end);
		}
	}
}

/*
 * The sums and maxima run channel by channel over the band's pixels, in pixel order (the order the
 * whole-tensor kernels add in), each channel's value held in a register rather than reloaded per pixel.
 */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/* Lanes of a vector of 4 int32 that hold channels c .. c + 3 of n. */
static inline mve_pred16_t channel_lanes(int32_t n, int32_t c)
{
	return vctp32q(n > c ? (uint32_t)(n - c) : 0u);
}
#endif

void usmp_band_sum_s8(const struct usmp_band_sum_params *p, const int8_t *input, int32_t *acc)
{
	int32_t i, c;

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	/* 16 channels at once, widened into four int32 vectors: whole groups without predicates (15 instructions a
	 * pixel; predicated, GCC's -Os code reloads the four predicates from the stack for each pixel: 26) */
	for (c = 0; c + 16 <= p->channels; c += 16) {
		int32x4_t s0 = vldrwq_s32(acc + c), s1 = vldrwq_s32(acc + c + 4);
		int32x4_t s2 = vldrwq_s32(acc + c + 8), s3 = vldrwq_s32(acc + c + 12);
		const int8_t *in = input + c;

		for (i = 0; i < p->count; i++, in += p->channels) {
			s0 = vaddq_s32(s0, vldrbq_s32(in));
			s1 = vaddq_s32(s1, vldrbq_s32(in + 4));
			s2 = vaddq_s32(s2, vldrbq_s32(in + 8));
			s3 = vaddq_s32(s3, vldrbq_s32(in + 12));
		}
		vstrwq_s32(acc + c, s0);
		vstrwq_s32(acc + c + 4, s1);
		vstrwq_s32(acc + c + 8, s2);
		vstrwq_s32(acc + c + 12, s3);
	}
	for (; c < p->channels; c += 16) { /* the last channels, predicated */
		const mve_pred16_t l0 = channel_lanes(p->channels, c), l1 = channel_lanes(p->channels, c + 4);
		const mve_pred16_t l2 = channel_lanes(p->channels, c + 8), l3 = channel_lanes(p->channels, c + 12);
		int32x4_t s0 = vldrwq_z_s32(acc + c, l0), s1 = vldrwq_z_s32(acc + c + 4, l1);
		int32x4_t s2 = vldrwq_z_s32(acc + c + 8, l2), s3 = vldrwq_z_s32(acc + c + 12, l3);
		const int8_t *in = input + c;

		for (i = 0; i < p->count; i++, in += p->channels) {
			s0 = vaddq_s32(s0, vldrbq_z_s32(in, l0));
			s1 = vaddq_s32(s1, vldrbq_z_s32(in + 4, l1));
			s2 = vaddq_s32(s2, vldrbq_z_s32(in + 8, l2));
			s3 = vaddq_s32(s3, vldrbq_z_s32(in + 12, l3));
		}
		vstrwq_p_s32(acc + c, s0, l0);
		vstrwq_p_s32(acc + c + 4, s1, l1);
		vstrwq_p_s32(acc + c + 8, s2, l2);
		vstrwq_p_s32(acc + c + 12, s3, l3);
	}
#else
	const int32_t step = p->channels;

	for (c = 0; c < step; c++) {
		const int8_t *in = input + c;
		uint32_t sum = (uint32_t)acc[c]; /* wrapping, as TFLite's int32 sums */

		for (i = 0; i + 4 <= p->count; i += 4, in += 4 * step) {
			sum += (uint32_t)((int32_t)in[0] + in[step] + in[2 * step] + in[3 * step]);
		}
		for (; i < p->count; i++, in += step) {
			sum += (uint32_t)(int32_t)*in;
		}
		acc[c] = (int32_t)sum;
	}
#endif
}

void usmp_band_sum_f32(const struct usmp_band_sum_params *p, const float *input, float *acc)
{
	int32_t i, c;

	for (c = 0; c < p->channels; c++) {
		const float *in = input + c;
		float sum = acc[c];

		for (i = 0; i < p->count; i++, in += p->channels) {
			sum += *in;
		}
		acc[c] = sum;
	}
}

void usmp_band_avg_finish_s8(const struct usmp_band_avg_s8_params *p, const int32_t *acc, int8_t *output)
{
	const int32_t n = p->count;
	int32_t c;

	for (c = 0; c < p->channels; c++) {
		/* round half away from zero, as the whole-tensor average pool */
		const int32_t mean = acc[c] > 0 ? (acc[c] + n / 2) / n : (acc[c] - n / 2) / n;

		output[c] = (int8_t)usmp_clamp(mean, p->act_min, p->act_max);
	}
}

void usmp_band_avg_finish_f32(const struct usmp_band_avg_f32_params *p, const float *acc, float *output)
{
	int32_t c;

	for (c = 0; c < p->channels; c++) {
		output[c] = usmp_clamp_f32(acc[c] / p->count, p->act_min, p->act_max);
	}
}

void usmp_band_divide_f32(const struct usmp_band_divide_f32_params *p, const float *acc, float *output)
{
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = acc[k] / p->divisor;
	}
}

void usmp_band_max_s8(const struct usmp_band_sum_params *p, const int8_t *input, int8_t *acc)
{
	int32_t i, c;

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	for (c = 0; c < p->channels; c += 16) {
		const mve_pred16_t lanes = vctp8q((uint32_t)(p->channels - c));
		int8x16_t max = vldrbq_z_s8(acc + c, lanes);
		const int8_t *in = input + c;

		for (i = 0; i < p->count; i++, in += p->channels) {
			max = vmaxq_s8(max, vldrbq_z_s8(in, lanes));
		}
		vstrbq_p_s8(acc + c, max, lanes);
	}
#else
	for (c = 0; c < p->channels; c++) {
		const int8_t *in = input + c;
		int8_t max = acc[c];

		for (i = 0; i < p->count; i++, in += p->channels) {
			max = *in > max ? *in : max;
		}
		acc[c] = max;
	}
#endif
}

void usmp_band_max_f32(const struct usmp_band_sum_params *p, const float *input, float *acc)
{
	int32_t i, c;

	for (c = 0; c < p->channels; c++) {
		const float *in = input + c;
		float max = acc[c];

		for (i = 0; i < p->count; i++, in += p->channels) {
			if (*in > max) {
				max = *in;
			}
		}
		acc[c] = max;
	}
}

void usmp_band_clamp_s8(const struct usmp_band_clamp_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = (int8_t)usmp_clamp(input[k], p->act_min, p->act_max);
	}
}

void usmp_band_clamp_f32(const struct usmp_band_clamp_f32_params *p, const float *input, float *output)
{
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = usmp_clamp_f32(input[k], p->act_min, p->act_max);
	}
}

/*
 * acc[0..3] += the dot products of x with four weight rows `stride` apart, over n elements: x is loaded once
 * for the four rows. Helium: 16 elements a step (tail-predicated); the DSP extension: 4 a step, two pairs of
 * int16 products per SMLAD (unaligned 32-bit loads are fine on those cores); else one at a time.
 */
static void band_dot4_s8(const int8_t *x, const int8_t *w, int32_t stride, int32_t n, int32_t *acc)
{
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	/*
	 * The full steps in a low-overhead loop of ten instructions (0.16 a MAC; GCC's -Os code of the intrinsics
	 * kept the counter and predicate on the stack, 37 a step): a band's calls then cost what one whole-tensor
	 * call does. VMLADAVA's accumulator is an even register.
	 */
	const int8_t *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
	register int32_t a0 __asm__("r4") = acc[0];
	register int32_t a1 __asm__("r6") = acc[1];
	register int32_t a2 __asm__("r8") = acc[2];
	register int32_t a3 __asm__("r10") = acc[3];
	const int32_t steps = n >> 4, k = n & 15;

	__asm__ volatile("wls lr, %[steps], 2f\n"
			 "1:\n\t"
			 "vldrb.8 q0, [%[x]], #16\n\t"
			 "vldrb.8 q1, [%[w0]], #16\n\t"
			 "vmladava.s8 %[a0], q0, q1\n\t"
			 "vldrb.8 q2, [%[w1]], #16\n\t"
			 "vmladava.s8 %[a1], q0, q2\n\t"
			 "vldrb.8 q1, [%[w2]], #16\n\t"
			 "vmladava.s8 %[a2], q0, q1\n\t"
			 "vldrb.8 q2, [%[w3]], #16\n\t"
			 "vmladava.s8 %[a3], q0, q2\n\t"
			 "le lr, 1b\n"
			 "2:"
			 : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w),
			   [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
			 : [steps] "r"(steps)
			 : "d0", "d1", "d2", "d3", "d4", "d5", "lr", "memory");
	if (k > 0) { /* the last 1..15 elements, tail-predicated */
		const mve_pred16_t lanes = vctp8q((uint32_t)k);
		const int8x16_t v = vldrbq_z_s8(x, lanes);

		a0 = vmladavaq_p_s8(a0, v, vldrbq_z_s8(w, lanes), lanes);
		a1 = vmladavaq_p_s8(a1, v, vldrbq_z_s8(w1, lanes), lanes);
		a2 = vmladavaq_p_s8(a2, v, vldrbq_z_s8(w2, lanes), lanes);
		a3 = vmladavaq_p_s8(a3, v, vldrbq_z_s8(w3, lanes), lanes);
	}
	acc[0] = a0;
	acc[1] = a1;
	acc[2] = a2;
	acc[3] = a3;
#elif defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
	/*
	 * Four elements a step in assembly: x's even and odd bytes widened once (SXTB16, SXTB16 ROR #8), each weight
	 * word likewise, two SMLADs per row (29 instructions per 16 MACs, 1.8 a MAC; GCC's -Os code of the same
	 * intrinsics spilled the four sums to the stack: 3.1). The step's counter is LR.
	 */
	const int8_t *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
	int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
	uint32_t t = (uint32_t)n >> 2, q, xe, xo;
	const int32_t k = n & 3;

	if (t > 0) {
		__asm__ volatile("mov lr, %[t]\n"
				 "1:\n\t"
				 "ldr %[xo], [%[x]], #4\n\t"
				 "sxtb16 %[xe], %[xo]\n\t"
				 "sxtb16 %[xo], %[xo], ror #8\n\t"
				 "ldr %[q], [%[w0]], #4\n\t"
				 "sxtb16 %[t], %[q]\n\t"
				 "sxtb16 %[q], %[q], ror #8\n\t"
				 "smlad %[a0], %[xe], %[t], %[a0]\n\t"
				 "smlad %[a0], %[xo], %[q], %[a0]\n\t"
				 "ldr %[q], [%[w1]], #4\n\t"
				 "sxtb16 %[t], %[q]\n\t"
				 "sxtb16 %[q], %[q], ror #8\n\t"
				 "smlad %[a1], %[xe], %[t], %[a1]\n\t"
				 "smlad %[a1], %[xo], %[q], %[a1]\n\t"
				 "ldr %[q], [%[w2]], #4\n\t"
				 "sxtb16 %[t], %[q]\n\t"
				 "sxtb16 %[q], %[q], ror #8\n\t"
				 "smlad %[a2], %[xe], %[t], %[a2]\n\t"
				 "smlad %[a2], %[xo], %[q], %[a2]\n\t"
				 "ldr %[q], [%[w3]], #4\n\t"
				 "sxtb16 %[t], %[q]\n\t"
				 "sxtb16 %[q], %[q], ror #8\n\t"
				 "smlad %[a3], %[xe], %[t], %[a3]\n\t"
				 "smlad %[a3], %[xo], %[q], %[a3]\n\t"
				 "subs lr, lr, #1\n\t"
				 "bne 1b"
				 : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0),
				   [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [t] "+r"(t), [q] "=&r"(q), [xe] "=&r"(xe),
				   [xo] "=&r"(xo)
				 :
				 : "lr", "cc", "memory");
	}
	acc[0] = usmp_dot_s8(x, w0, k, a0);
	acc[1] = usmp_dot_s8(x, w1, k, a1);
	acc[2] = usmp_dot_s8(x, w2, k, a2);
	acc[3] = usmp_dot_s8(x, w3, k, a3);
#else
	int32_t r;

	for (r = 0; r < 4; r++) {
		acc[r] = usmp_dot_s8(x, w + r * stride, n, acc[r]);
	}
#endif
}

void usmp_band_fully_connected_s8(const struct usmp_band_fully_connected_params *p, const int8_t *input,
				  const int8_t *weights, int32_t *acc)
{
	int32_t o = 0;

	for (; o + 4 <= p->out_features; o += 4) {
		band_dot4_s8(input, weights + o * p->in_features, p->in_features, p->count, acc + o);
	}
	for (; o < p->out_features; o++) {
		acc[o] = usmp_dot_s8(input, weights + o * p->in_features, p->count, acc[o]);
	}
}

void usmp_band_fully_connected_f32(const struct usmp_band_fully_connected_params *p, const float *input,
				   const float *weights, float *acc)
{
	int32_t o, k;

	for (o = 0; o < p->out_features; o++, weights += p->in_features) {
		float sum = acc[o];

		for (k = 0; k < p->count; k++) {
			sum += input[k] * weights[k];
		}
		acc[o] = sum;
	}
}

/* Also the copies placement by demand makes (start-up, each inference): kilobytes at a time, so 64 bytes a step. */
void usmp_band_copy_words(const struct usmp_band_copy_params *p, const void *input, void *output)
{
	copy_words((uint32_t *)output, (const uint32_t *)input, p->count);
}

void usmp_band_requantize_s8(const struct usmp_band_requantize_s8_params *p, const int32_t *acc,
			     const int32_t *multiplier, const int32_t *shift, int8_t *output)
{
	const int32_t step = p->per_channel ? 1 : 0;
	int32_t o;

	for (o = 0; o < p->count; o++) {
		const int32_t v = usmp_mul_by_quantized_multiplier(acc[o], multiplier[o * step], shift[o * step]);

		output[o] = (int8_t)usmp_clamp(v + p->output_offset, p->act_min, p->act_max);
	}
}

void usmp_band_bias_clamp_f32(const struct usmp_band_clamp_f32_params *p, const float *acc, const float *bias,
			      float *output)
{
	int32_t k;

	for (k = 0; k < p->count; k++) {
		output[k] = usmp_clamp_f32(acc[k] + bias[k], p->act_min, p->act_max);
	}
}
