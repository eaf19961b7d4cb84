/* DEPTHWISE_CONV_2D kernels (see usmp_kernels/conv.h for the padding and bias rules). */
#include "usmp_kernels.h"

/*
 * The in-image taps of one output position: `rows` x `cols` taps. In the input
 * a tap is x_col elements from its left neighbour and x_row from the one
 * above; in the channel-major filter it is 1 and w_row.
 */
struct dw_walk {
	int32_t rows;
	int32_t cols;
	int32_t x_col;
	int32_t x_row;
	int32_t w_row;
};

#if defined(__GNUC__)
#define DW_NOINLINE __attribute__((noinline))
#else
#define DW_NOINLINE
#endif

/* Sum of (x[i * step] + offset) * w[i] for i < n: a filter row when the input taps are not adjacent. */
#if defined(__riscv)
/* RISC-V loads take no register offset: both pointers advance, the loop tests at its end (8 instructions a
 * tap on RV32IMC with gcc -Os, against 10 for the indexed form below). */
static DW_NOINLINE int32_t dot_strided_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t step,
					  int32_t offset)
{
	const int8_t *const end = w + n;
	int32_t acc = 0;

	if (n > 0) {
		do {
			acc += ((int32_t)*x + offset) * (int32_t)*w++;
			x += step;
		} while (w != end);
	}
	return acc;
}
#else
static DW_NOINLINE int32_t dot_strided_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t step,
					  int32_t offset)
{
	int32_t acc = 0;
	int32_t i;

	for (i = 0; i < n; i++) {
		acc += ((int32_t)*x + offset) * (int32_t)w[i];
		x += step;
	}
	return acc;
}
#endif

/*
 * Sum of (x + offset) * w over the window. offset is 0 where the whole filter
 * is inside the input (the zero point is then folded into the bias). With one
 * input channel and no dilation (micro_speech) a filter row's input taps are
 * adjacent, and usmp_dot_s8 takes two taps per turn. Kept out of line, with
 * the choice of row loop made once, so that the per-row work stays in
 * registers.
 */
static DW_NOINLINE int32_t dw_dot_s8(const struct dw_walk *k, const int8_t *x, const int8_t *w,
				     int32_t offset)
{
	int32_t acc = 0;
	int32_t r;

	if (k->x_col == 1 && offset == 0) {
		for (r = k->rows; r > 0; r--) {
			acc = usmp_dot_s8(x, w, k->cols, acc);
			x += k->x_row;
			w += k->w_row;
		}
	} else if (k->x_col == 1) {
		for (r = k->rows; r > 0; r--) {
			acc += usmp_dot_offset_s8(x, w, k->cols, offset);
			x += k->x_row;
			w += k->w_row;
		}
	} else {
		for (r = k->rows; r > 0; r--) {
			acc += dot_strided_s8(x, w, k->cols, k->x_col, offset);
			x += k->x_row;
			w += k->w_row;
		}
	}
	return acc;
}

void usmp_depthwise_conv_s8(const struct usmp_depthwise_conv_s8_params *p, const int8_t *input,
			    const int8_t *filter, const int32_t *bias, const int32_t *folded_bias,
			    const int32_t *multiplier, const int32_t *shift, int8_t *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w;
	const int32_t step = p->per_channel ? 1 : 0;
	struct dw_walk k;
	int32_t b, oy, ox, c, m, fy0, fy1, fx0, fx1;

	k.x_col = p->dilation_w * p->in_ch;
	k.x_row = p->dilation_h * p->in_w * p->in_ch;
	k.w_row = p->filter_w;
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
				int32_t oc = 0;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				k.cols = fx1 - fx0;
				if (k.rows == p->filter_h && k.cols == p->filter_w) {
					b_oc = folded_bias;
					offset = 0;
				} else {
					b_oc = bias;
					offset = p->input_offset;
				}
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + fy0 * p->filter_w + fx0;
				for (c = 0; c < p->in_ch; c++) {
					for (m = 0; m < p->depth_multiplier; m++) {
						int32_t acc = dw_dot_s8(&k, x + c, w, offset) + b_oc[oc];

						acc = usmp_mul_by_quantized_multiplier(acc, multiplier[oc * step],
										       shift[oc * step]);
						acc = usmp_clamp(acc + p->output_offset, p->act_min, p->act_max);
						*output++ = (int8_t)acc;
						w += filter_size;
						oc++;
					}
				}
			}
		}
	}
}

/* 16x8: the sum over the window in 64 bits, a filter row's in int32 partial sums (as usmp_dot_s16). */
static int64_t dw_dot_s16(const struct dw_walk *k, const int16_t *x, const int8_t *w)
{
	int64_t acc = 0;
	int32_t r, c;

	for (r = k->rows; r > 0; r--) {
		if (k->x_col == 1) {
			acc += usmp_dot_s16(x, w, k->cols);
		} else {
			const int16_t *xi = x;
			int32_t part = 0;

			for (c = 0; c < k->cols; c++) {
				part += (int32_t)*xi * (int32_t)w[c];
				xi += k->x_col;
				if ((c & 255) == 255) {
					acc += part;
					part = 0;
				}
			}
			acc += part;
		}
		x += k->x_row;
		w += k->w_row;
	}
	return acc;
}

void usmp_depthwise_conv_s16(const struct usmp_depthwise_conv_s16_params *p, const int16_t *input,
			     const int8_t *filter, const int64_t *bias, const int32_t *multiplier,
			     const int32_t *shift, int16_t *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w;
	const int32_t step = p->per_channel ? 1 : 0;
	struct dw_walk k;
	int32_t b, oy, ox, c, m, fy0, fy1, fx0, fx1, acc;

	k.x_col = p->dilation_w * p->in_ch;
	k.x_row = p->dilation_h * p->in_w * p->in_ch;
	k.w_row = p->filter_w;
	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			k.rows = fy1 - fy0;
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const int16_t *x;
				const int8_t *w;
				int32_t oc = 0;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				k.cols = fx1 - fx0;
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + fy0 * p->filter_w + fx0;
				for (c = 0; c < p->in_ch; c++) {
					for (m = 0; m < p->depth_multiplier; m++) {
						acc = usmp_rescale_16x8(dw_dot_s16(&k, x + c, w), bias[oc], p->wide,
									multiplier[oc * step], shift[oc * step]);
						*output++ = (int16_t)usmp_clamp(acc, p->act_min, p->act_max);
						w += filter_size;
						oc++;
					}
				}
			}
		}
	}
}

/* Accumulates in TFLite's order (row, column) into one running sum. */
static float dw_dot_f32(const struct dw_walk *k, const float *x, const float *w)
{
	float acc = 0.0f;
	int32_t r, c;

	for (r = k->rows; r > 0; r--) {
		const float *xi = x;

		for (c = 0; c < k->cols; c++) {
			acc += *xi * w[c];
			xi += k->x_col;
		}
		x += k->x_row;
		w += k->w_row;
	}
	return acc;
}

void usmp_depthwise_conv_f32(const struct usmp_depthwise_conv_f32_params *p, const float *input,
			     const float *filter, const float *bias, float *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w;
	struct dw_walk k;
	int32_t b, oy, ox, c, m, fy0, fy1, fx0, fx1;

	k.x_col = p->dilation_w * p->in_ch;
	k.x_row = p->dilation_h * p->in_w * p->in_ch;
	k.w_row = p->filter_w;
	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			k.rows = fy1 - fy0;
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				const float *x;
				const float *w;
				int32_t oc = 0;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				k.cols = fx1 - fx0;
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + fy0 * p->filter_w + fx0;
				for (c = 0; c < p->in_ch; c++) {
					for (m = 0; m < p->depth_multiplier; m++) {
						*output++ = usmp_clamp_f32(dw_dot_f32(&k, x + c, w) + bias[oc],
									   p->act_min, p->act_max);
						w += filter_size;
						oc++;
					}
				}
			}
		}
	}
}
