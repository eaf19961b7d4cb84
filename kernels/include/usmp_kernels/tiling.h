/*
 * USMP kernels: depth-first chains (scripts/usmp/tiling), run as a loop over bands of rows.
 *
 * A chain is a run of operators ("links") of which only the inputs and the
 * last output exist whole; every other link writes a band buffer that holds a
 * few rows of its output. Each pass of the generated loop makes the last link
 * compute `band` more rows; usmp_band_step works out, for every link, which
 * rows it computes in this band, where they go and which rows of each input
 * they read, and the loop calls each link's kernel with them. The kernels
 * themselves are the whole-tensor ones,
 * called with a pointer to the first input row, the rows available (in_h), the
 * rows to compute (out_h) and the padding above the first row (pad_top): the
 * arithmetic is unchanged, only the order of work.
 *
 * Each band, every link computes its share of rows (the last link `band`,
 * a producer what its consumers read of it in a band) as far as its inputs'
 * rows allow, producers first: the first bands fill the pipeline, so no band
 * buffer ever holds more than a band's rows beyond what its consumers read.
 *
 * A band buffer keeps the rows its consumers will read again at its top:
 * before the link computes new rows below them, rows no consumer needs any
 * more leave and the rest move up (nothing moves for 1x1 windows, which read
 * each row once). With `recompute`, nothing is kept: each band computes every
 * row it reads, the overlap (halo) again.
 */
#ifndef USMP_KERNELS_TILING_H
#define USMP_KERNELS_TILING_H

#include <stdint.h>

#define USMP_BAND_MAX_INPUTS 4

/*
 * A row input of a link: output rows [first, end) read input rows [first * stride - pad_top, end * stride +
 * end_offset), clipped to [0, rows): end_offset is (filter rows - 1) * dilation + 1 - pad_top - stride.
 * The tables are const data in flash, one entry per link and row input, so their fields are as narrow as the
 * compiler's chains allow (tiling/region.py keeps to these limits).
 */
struct usmp_band_edge {
	uint8_t producer;   /* where the rows are: buffers[producer], the producing link's band buffer or a whole tensor */
	uint8_t stride;
	uint8_t pad_top;
	int8_t end_offset;
	uint16_t rows;      /* rows of the input tensor */
	uint16_t row_bytes; /* bytes of one of its rows */
};

struct usmp_band_link {
	uint16_t rows;      /* output rows of the whole tensor */
	uint16_t share;     /* rows it computes per band, at most */
	uint8_t first_edge; /* its row inputs: edge[first_edge], ... in the kernel's argument order, after the
			     * link before's */
	uint8_t inputs;
	uint16_t row_bytes; /* bytes of one output row */
};

struct usmp_band_chain {
	uint16_t links;
	uint16_t band; /* rows of the last link per band */
	const struct usmp_band_link *link;
	const struct usmp_band_edge *edge;
};

/* What one link does in one band, and the loop's state for it (set up by the step of band 0). */
struct usmp_band {
	uint16_t done;     /* rows computed so far */
	uint16_t end;      /* rows to have computed by the end of this band */
	uint16_t top;      /* the row at the top of the link's band buffer */
	uint16_t keep;     /* the first row a consumer will still read: rows above it leave the buffer (the last
			    * link, which has no consumers: how many more bands are the band before moved on) */
	uint16_t first;    /* output rows [first, first + count); count 0: nothing this band */
	uint16_t count;
	uint16_t in_count; /* rows the first input offers from in[0]: the kernel's in_h */
	uint16_t pad_top;  /* padding above them: the kernel's pad_top */
	void *in[USMP_BAND_MAX_INPUTS]; /* per input: the address of the first row read */
	void *out;                      /* the address output row `first` goes to (none for a reduction) */
};

/*
 * Band `band` of a sliding chain: the rows each link computes
 * (bands[link]), the rows its inputs offer, and where they are, after moving
 * the rows each band buffer keeps to its top. buffers[link]: the link's band
 * buffer, for the last link the chain's output (NULL for a reduction's, which
 * is no rows); after the links, the tensors that exist whole (edge->producer -1, -2, ...).
 */
void usmp_band_step(const struct usmp_band_chain *chain, int32_t band, void *const *buffers,
		    struct usmp_band *bands);

/* The same for a chain that recomputes its halo rows: every band works out its rows from the last link's. */
void usmp_band_step_recompute(const struct usmp_band_chain *chain, int32_t band, void *const *buffers,
			      struct usmp_band *bands);

/*
 * A copy of a kernel's whole-tensor parameters (`bytes`, whole words) for the loop to set its band members
 * in: a call, so that the compiler does not rebuild the constants field by field at every call site.
 */
void usmp_band_params(void *params, const void *whole, int32_t bytes);

/*
 * A reduction over rows and columns (global AVERAGE_POOL_2D, MEAN, SUM) that
 * ends a chain takes its input band by band: acc[c] += input[i * channels + c]
 * for `count` elements per channel, in row-major order as the whole-tensor
 * kernels add them (int8: wrapping int32 sums). A finish step turns the sums
 * into outputs.
 */
struct usmp_band_sum_params {
	int32_t count;    /* elements per channel in this band: rows * width */
	int32_t channels;
};

void usmp_band_sum_s8(const struct usmp_band_sum_params *p, const int8_t *input, int32_t *acc);
void usmp_band_sum_f32(const struct usmp_band_sum_params *p, const float *input, float *acc);

/* Global average pool: round half away from zero (int8) or divide (float), then clamp. */
struct usmp_band_avg_s8_params {
	int32_t channels;
	int32_t count; /* elements averaged per channel */
	int32_t act_min;
	int32_t act_max;
};

struct usmp_band_avg_f32_params {
	int32_t channels;
	float count;
	float act_min;
	float act_max;
};

void usmp_band_avg_finish_s8(const struct usmp_band_avg_s8_params *p, const int32_t *acc, int8_t *output);
void usmp_band_avg_finish_f32(const struct usmp_band_avg_f32_params *p, const float *acc, float *output);

/* float MEAN: output[k] = acc[k] / divisor (acc may be output). */
struct usmp_band_divide_f32_params {
	int32_t count;
	float divisor;
};

void usmp_band_divide_f32(const struct usmp_band_divide_f32_params *p, const float *acc, float *output);

/*
 * A global MAX_POOL_2D or REDUCE_MAX over rows and columns: acc[c] = max(acc[c], input[i * channels + c])
 * over `count` pixels, acc starting at the type's lowest value (a NaN never replaces it, as in the
 * whole-tensor kernels); a max pool's activation clamps the result after the last band.
 */
void usmp_band_max_s8(const struct usmp_band_sum_params *p, const int8_t *input, int8_t *acc);
void usmp_band_max_f32(const struct usmp_band_sum_params *p, const float *input, float *acc);

struct usmp_band_clamp_s8_params {
	int32_t count;
	int32_t act_min;
	int32_t act_max;
};

struct usmp_band_clamp_f32_params {
	int32_t count;
	float act_min;
	float act_max;
};

void usmp_band_clamp_s8(const struct usmp_band_clamp_s8_params *p, const int8_t *input, int8_t *output);
void usmp_band_clamp_f32(const struct usmp_band_clamp_f32_params *p, const float *input, float *output);

/*
 * FULLY_CONNECTED after a chain: its input is the chain's last tensor, flattened row by row, so each band
 * adds its rows' share of every sum: acc[o] += sum over k < count of input[k] * weights[o * in_features + k],
 * the weights pointer at the band's first input element. The sums run in the whole-tensor kernel's order
 * and start where it starts (int8: the bias with the input zero point folded in; float: zero, the bias
 * added at the end), so they come out the same; the finish requantizes (int8) or adds the bias and
 * clamps (float) as the whole-tensor kernel does.
 */
struct usmp_band_fully_connected_params {
	int32_t count;       /* input elements in this band */
	int32_t in_features; /* the weights' row stride */
	int32_t out_features;
};

void usmp_band_fully_connected_s8(const struct usmp_band_fully_connected_params *p, const int8_t *input,
				  const int8_t *weights, int32_t *acc);
void usmp_band_fully_connected_f32(const struct usmp_band_fully_connected_params *p, const float *input,
				   const float *weights, float *acc);

struct usmp_band_copy_params {
	int32_t count; /* 32-bit words */
};

/* acc = bias: the sums' start. */
void usmp_band_copy_words(const struct usmp_band_copy_params *p, const void *input, void *output);

struct usmp_band_requantize_s8_params {
	int32_t count;
	int32_t output_offset;
	int32_t act_min;
	int32_t act_max;
	int32_t per_channel;
};

void usmp_band_requantize_s8(const struct usmp_band_requantize_s8_params *p, const int32_t *acc,
			     const int32_t *multiplier, const int32_t *shift, int8_t *output);
void usmp_band_bias_clamp_f32(const struct usmp_band_clamp_f32_params *p, const float *acc, const float *bias,
			      float *output);

#endif /* USMP_KERNELS_TILING_H */
