/* CONV_2D kernels (see usmp_kernels/conv.h for the padding and bias rules). */
#include "usmp_kernels.h"

#if defined(__GNUC__)
#define CONV_NOINLINE __attribute__((noinline))
#else
#define CONV_NOINLINE
#endif

#if defined(__riscv)
/*
 * RISC-V loads take no register offset, so the indexed form below pays an
 * address addition a tap: here four taps a turn through advancing pointers,
 * 5 instructions per multiply-accumulate on RV32IMC (gcc -Os) against 6.5.
 */
CONV_NOINLINE int32_t usmp_dot_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
	const int8_t *const quads_end = x + (n & ~3);
	const int8_t *const end = x + n;

	if (x != quads_end) {
		do {
			acc += (int32_t)x[0] * (int32_t)w[0];
			acc += (int32_t)x[1] * (int32_t)w[1];
			acc += (int32_t)x[2] * (int32_t)w[2];
			acc += (int32_t)x[3] * (int32_t)w[3];
			x += 4;
			w += 4;
		} while (x != quads_end);
	}
	while (x != end) {
		acc += (int32_t)*x++ * (int32_t)*w++;
	}
	return acc;
}

CONV_NOINLINE int32_t usmp_dot_offset_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t offset)
{
	const int8_t *const quads_end = x + (n & ~3);
	const int8_t *const end = x + n;
	int32_t acc = 0;

	if (x != quads_end) {
		do {
			acc += ((int32_t)x[0] + offset) * (int32_t)w[0];
			acc += ((int32_t)x[1] + offset) * (int32_t)w[1];
			acc += ((int32_t)x[2] + offset) * (int32_t)w[2];
			acc += ((int32_t)x[3] + offset) * (int32_t)w[3];
			x += 4;
			w += 4;
		} while (x != quads_end);
	}
	while (x != end) {
		acc += ((int32_t)*x++ + offset) * (int32_t)*w++;
	}
	return acc;
}
#else
/* Two taps per turn: 6.5 instructions per multiply-accumulate on a Cortex-M0 (gcc -Os). */
CONV_NOINLINE int32_t usmp_dot_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
	int32_t i = 0;

	if (n & 1) {
		acc += (int32_t)x[0] * (int32_t)w[0];
		i = 1;
	}
	for (; i < n; i += 2) {
		acc += (int32_t)x[i] * (int32_t)w[i];
		acc += (int32_t)x[i + 1] * (int32_t)w[i + 1];
	}
	return acc;
}

CONV_NOINLINE int32_t usmp_dot_offset_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t offset)
{
	int32_t acc = 0;
	int32_t i;

	for (i = 0; i < n; i++) {
		acc += ((int32_t)x[i] + offset) * (int32_t)w[i];
	}
	return acc;
}
#endif

/*
 * The in-image taps of one output position: `rows` filter rows, each made of
 * `reps` runs of `run` elements that are contiguous in both input and filter.
 * With dilation_w 1 and no groups a whole filter row is one run.
 */
struct conv_walk {
	int32_t rows;
	int32_t reps;
	int32_t run;
	int32_t x_rep; /* input advance from run to run */
	int32_t x_row; /* input advance from row to row */
	int32_t w_rep;
	int32_t w_row;
};

static void conv_walk_columns(struct conv_walk *k, int32_t cols, int32_t dilation_w, int32_t in_ch,
			      int32_t filter_in_ch)
{
	if (dilation_w == 1 && filter_in_ch == in_ch) {
		k->reps = cols > 0 ? 1 : 0;
		k->run = cols * in_ch;
	} else {
		k->reps = cols;
		k->run = filter_in_ch;
	}
}

/* Sum of (x + offset) * w over the walk; offset is 0 where the zero point is folded into the bias. */
static CONV_NOINLINE int32_t walk_dot_s8(const struct conv_walk *k, const int8_t *x, const int8_t *w,
					 int32_t offset)
{
	int32_t acc = 0;
	int32_t r, i;

	for (r = 0; r < k->rows; r++) {
		const int8_t *xi = x;
		const int8_t *wi = w;

		for (i = 0; i < k->reps; i++) {
			if (offset != 0) {
				acc += usmp_dot_offset_s8(xi, wi, k->run, offset);
			} else {
				acc = usmp_dot_s8(xi, wi, k->run, acc);
			}
			xi += k->x_rep;
			wi += k->w_rep;
		}
		x += k->x_row;
		w += k->w_row;
	}
	return acc;
}

void usmp_conv_s8(const struct usmp_conv_s8_params *p, const int8_t *input, const int8_t *filter,
		  const int32_t *bias, const int32_t *folded_bias, const int32_t *multiplier,
		  const int32_t *shift, int8_t *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w * p->filter_in_ch;
	const int32_t step = p->per_channel ? 1 : 0;
	struct conv_walk k;
	int32_t b, oy, ox, oc, fy0, fy1, fx0, fx1;

	k.x_rep = p->dilation_w * p->in_ch;
	k.x_row = p->dilation_h * p->in_w * p->in_ch;
	k.w_rep = p->filter_in_ch;
	k.w_row = p->filter_w * p->filter_in_ch;
	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			k.rows = fy1 - fy0;
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const int8_t *x;
				const int8_t *w;
				const int32_t *b_oc;
				int32_t offset;
				int32_t in_group = 0;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				conv_walk_columns(&k, fx1 - fx0, p->dilation_w, p->in_ch, p->filter_in_ch);
				if (k.rows == p->filter_h && fx1 - fx0 == p->filter_w) {
					b_oc = folded_bias;
					offset = 0;
				} else {
					b_oc = bias;
					offset = p->input_offset;
				}
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + (fy0 * p->filter_w + fx0) * p->filter_in_ch;
				for (oc = 0; oc < p->out_ch; oc++) {
					int32_t acc = walk_dot_s8(&k, x, w, offset) + b_oc[oc];

					acc = usmp_mul_by_quantized_multiplier(acc, multiplier[oc * step],
									       shift[oc * step]);
					acc = usmp_clamp(acc + p->output_offset, p->act_min, p->act_max);
					*output++ = (int8_t)acc;
					w += filter_size;
					if (++in_group == p->filters_per_group) {
						in_group = 0;
						x += p->filter_in_ch;
					}
				}
			}
		}
	}
}

static int64_t walk_dot_s16(const struct conv_walk *k, const int16_t *x, const int8_t *w)
{
	int64_t acc = 0;
	int32_t r, i;

	for (r = 0; r < k->rows; r++) {
		const int16_t *xi = x;
		const int8_t *wi = w;

		for (i = 0; i < k->reps; i++) {
			acc += usmp_dot_s16(xi, wi, k->run);
			xi += k->x_rep;
			wi += k->w_rep;
		}
		x += k->x_row;
		w += k->w_row;
	}
	return acc;
}

void usmp_conv_s16(const struct usmp_conv_s16_params *p, const int16_t *input, const int8_t *filter,
		   const int64_t *bias, const int32_t *multiplier, const int32_t *shift, int16_t *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w * p->filter_in_ch;
	const int32_t step = p->per_channel ? 1 : 0;
	struct conv_walk k;
	int32_t b, oy, ox, oc, fy0, fy1, fx0, fx1, acc;

	k.x_rep = p->dilation_w * p->in_ch;
	k.x_row = p->dilation_h * p->in_w * p->in_ch;
	k.w_rep = p->filter_in_ch;
	k.w_row = p->filter_w * p->filter_in_ch;
	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			k.rows = fy1 - fy0;
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const int16_t *x;
				const int8_t *w;
				int32_t in_group = 0;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				conv_walk_columns(&k, fx1 - fx0, p->dilation_w, p->in_ch, p->filter_in_ch);
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + (fy0 * p->filter_w + fx0) * p->filter_in_ch;
				for (oc = 0; oc < p->out_ch; oc++) {
					acc = usmp_rescale_16x8(walk_dot_s16(&k, x, w), bias[oc], p->wide,
								multiplier[oc * step], shift[oc * step]);
					*output++ = (int16_t)usmp_clamp(acc, p->act_min, p->act_max);
					w += filter_size;
					if (++in_group == p->filters_per_group) {
						in_group = 0;
						x += p->filter_in_ch;
					}
				}
			}
		}
	}
}

/* Accumulates in TFLite's order (row, column, channel) into one running sum. */
static float walk_dot_f32(const struct conv_walk *k, const float *x, const float *w)
{
	float acc = 0.0f;
	int32_t r, i, j;

	for (r = 0; r < k->rows; r++) {
		const float *xi = x;
		const float *wi = w;

		for (i = 0; i < k->reps; i++) {
			for (j = 0; j < k->run; j++) {
				acc += xi[j] * wi[j];
			}
			xi += k->x_rep;
			wi += k->w_rep;
		}
		x += k->x_row;
		w += k->w_row;
	}
	return acc;
}

void usmp_conv_f32(const struct usmp_conv_f32_params *p, const float *input, const float *filter,
		   const float *bias, float *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w * p->filter_in_ch;
	struct conv_walk k;
	int32_t b, oy, ox, oc, fy0, fy1, fx0, fx1;

	k.x_rep = p->dilation_w * p->in_ch;
	k.x_row = p->dilation_h * p->in_w * p->in_ch;
	k.w_rep = p->filter_in_ch;
	k.w_row = p->filter_w * p->filter_in_ch;
	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			k.rows = fy1 - fy0;
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const float *x;
				const float *w;
				int32_t in_group = 0;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				conv_walk_columns(&k, fx1 - fx0, p->dilation_w, p->in_ch, p->filter_in_ch);
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + (fy0 * p->filter_w + fx0) * p->filter_in_ch;
				for (oc = 0; oc < p->out_ch; oc++) {
					*output++ = usmp_clamp_f32(walk_dot_f32(&k, x, w) + bias[oc], p->act_min,
								   p->act_max);
					w += filter_size;
					if (++in_group == p->filters_per_group) {
						in_group = 0;
						x += p->filter_in_ch;
					}
				}
			}
		}
	}
}
