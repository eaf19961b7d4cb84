/* Depth-first chains: the rows of each band, and reductions taken band by band (usmp_kernels/tiling.h). */
#include "usmp_kernels.h"

/* The first and one past the last input row that output rows [first, end) read. */
static int32_t first_row_read(const struct usmp_band_edge *e, int32_t first)
{
	int32_t row = first * e->stride - e->pad_top;

	return row < 0 ? 0 : (row > e->rows ? e->rows : row);
}

static int32_t end_row_read(const struct usmp_band_edge *e, int32_t end)
{
	int32_t row = (end - 1) * e->stride - e->pad_top + e->extent;

	if (end <= 0 || row < 0) {
		return 0;
	}
	return row > e->rows ? e->rows : row;
}

/* How many output rows have their whole window among the first `produced` input rows. */
static int32_t rows_ready(const struct usmp_band_edge *e, int32_t produced, int32_t limit)
{
	const int32_t reach = produced + e->pad_top - e->extent;

	if (produced >= e->rows) {
		return limit; /* every input row is there: the bottom padding too */
	}
	return reach < 0 ? 0 : reach / e->stride + 1;
}

/* sliding: each link computes its share of rows, as far as its inputs allow; producers go first */
static void plan_sliding(const struct usmp_band_chain *chain, struct usmp_band_state *state)
{
	int32_t j, e;

	for (j = 0; j < chain->links; j++) {
		const struct usmp_band_link *link = &chain->link[j];
		int32_t end = state->done[j] + link->share;

		if (end > link->rows) {
			end = link->rows;
		}
		for (e = link->first_edge; e < link->first_edge + link->inputs; e++) {
			const struct usmp_band_edge *edge = &chain->edge[e];

			if (edge->producer >= 0) {
				const int32_t ready = rows_ready(edge, state->end[edge->producer], link->rows);

				end = ready < end ? ready : end;
			}
		}
		state->end[j] = end > state->done[j] ? end : state->done[j];
		state->keep[j] = link->rows;
	}
	/* the first row each consumer will still read: rows above it may leave the producer's band buffer */
	for (j = 0; j < chain->links; j++) {
		const struct usmp_band_link *link = &chain->link[j];

		for (e = link->first_edge; e < link->first_edge + link->inputs; e++) {
			const struct usmp_band_edge *edge = &chain->edge[e];

			if (edge->producer >= 0) {
				const int32_t row = first_row_read(edge, state->done[j]);

				if (row < state->keep[edge->producer]) {
					state->keep[edge->producer] = row;
				}
			}
		}
	}
}

/* recompute: the rows band `band` of the last link reads, link by link back to the first */
static void plan_recompute(const struct usmp_band_chain *chain, int32_t band, struct usmp_band_state *state)
{
	const int32_t last = chain->links - 1;
	int32_t j, e;

	state->end[last] = (band + 1) * chain->band;
	if (state->end[last] > chain->link[last].rows) {
		state->end[last] = chain->link[last].rows;
	}
	state->done[last] = band * chain->band;
	for (j = 0; j < last; j++) {
		state->end[j] = 0;
		state->done[j] = chain->link[j].rows;
	}
	for (j = last; j >= 0; j--) {
		const struct usmp_band_link *link = &chain->link[j];

		if (state->end[j] <= state->done[j]) {
			continue;
		}
		for (e = link->first_edge; e < link->first_edge + link->inputs; e++) {
			const struct usmp_band_edge *edge = &chain->edge[e];
			int32_t row;

			if (edge->producer < 0) {
				continue;
			}
			row = end_row_read(edge, state->end[j]);
			if (row > state->end[edge->producer]) {
				state->end[edge->producer] = row;
			}
			row = first_row_read(edge, state->done[j]);
			if (row < state->done[edge->producer]) {
				state->done[edge->producer] = row;
			}
		}
	}
	for (j = 0; j < last; j++) {
		state->top[j] = state->done[j];
	}
}

void usmp_band_plan(const struct usmp_band_chain *chain, int32_t band, struct usmp_band_state *state)
{
	if (chain->recompute) {
		plan_recompute(chain, band, state);
	} else {
		plan_sliding(chain, state);
	}
}

/*
 * Rows [from, from + count) of a band buffer to its top: a forward copy (the ranges may
 * overlap; each group of words is read before it is written), four words a step where
 * the rows are word aligned, as band buffers and their rows mostly are.
 */
static void keep_rows(uint8_t *buffer, int32_t from, int32_t count, int32_t row_bytes)
{
	const int32_t bytes = count * row_bytes;
	const uint8_t *in = buffer + from * row_bytes;
	int32_t i = 0;

	if ((((uintptr_t)in | (uintptr_t)buffer | (uint32_t)bytes) & 3u) == 0) {
		const uint32_t *in32 = (const uint32_t *)(const void *)in;
		uint32_t *out32 = (uint32_t *)(void *)buffer;
		const int32_t words = bytes / 4;

		for (; i + 4 <= words; i += 4) {
			const uint32_t w0 = in32[i], w1 = in32[i + 1], w2 = in32[i + 2], w3 = in32[i + 3];

			out32[i] = w0;
			out32[i + 1] = w1;
			out32[i + 2] = w2;
			out32[i + 3] = w3;
		}
		for (; i < words; i++) {
			out32[i] = in32[i];
		}
		return;
	}
	for (; i < bytes; i++) {
		buffer[i] = in[i];
	}
}

int32_t usmp_band_next(const struct usmp_band_chain *chain, int32_t link, struct usmp_band_state *state,
		       uint8_t *buffer, struct usmp_band *b)
{
	const struct usmp_band_link *l = &chain->link[link];
	int32_t k;

	if (!chain->recompute && link < chain->links - 1) {
		const int32_t first = state->keep[link];

		if (first > state->top[link]) {
			if (state->done[link] > first) {
				keep_rows(buffer, first - state->top[link], state->done[link] - first, l->row_bytes);
			} else {
				state->done[link] = first; /* rows no consumer reads (e.g. skipped by a stride) */
			}
			state->top[link] = first;
		}
	}
	b->first = state->done[link];
	b->count = state->end[link] - b->first;
	if (b->count <= 0) {
		return 0;
	}
	b->out_row = b->first - state->top[link];
	for (k = 0; k < l->inputs; k++) {
		const struct usmp_band_edge *edge = &chain->edge[l->first_edge + k];
		const int32_t in_first = first_row_read(edge, b->first);

		b->in_row[k] = in_first - (edge->producer < 0 ? 0 : state->top[edge->producer]);
		if (k == 0) {
			b->in_count = end_row_read(edge, state->end[link]) - in_first;
			b->pad_top = edge->pad_top + in_first - b->first * edge->stride;
		}
	}
	state->done[link] = state->end[link];
	return 1;
}

void usmp_band_sum_s8(const struct usmp_band_sum_params *p, const int8_t *input, int32_t *acc)
{
	int32_t i, c;

	for (i = 0; i < p->count; i++) {
		for (c = 0; c < p->channels; c++) {
			acc[c] = (int32_t)((uint32_t)acc[c] + (uint32_t)(int32_t)*input++);
		}
	}
}

void usmp_band_sum_f32(const struct usmp_band_sum_params *p, const float *input, float *acc)
{
	int32_t i, c;

	for (i = 0; i < p->count; i++) {
		for (c = 0; c < p->channels; c++) {
			acc[c] += *input++;
		}
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
