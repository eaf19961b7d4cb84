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

/* acc + sum of x[i * step] * w[i] for i < n: taps of one filter row when step != 1. */
static DW_NOINLINE int32_t dot_strided_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t step)
{
	int32_t acc = 0;
	int32_t i;

	for (i = 0; i < n; i++) {
		acc += (int32_t)*x * (int32_t)w[i];
		x += step;
	}
	return acc;
}

/*
 * No bounds checks and no zero point here (it is folded into the bias). With
 * one input channel and no dilation (micro_speech) a filter row's taps are
 * side by side in the input too, and usmp_dot_s8 takes two per turn.
 */
static int32_t dw_dot_s8(const struct dw_walk *k, const int8_t *x, const int8_t *w)
{
	int32_t acc = 0;
	int32_t r;

	for (r = k->rows; r > 0; r--) {
		if (k->x_col == 1) {
			acc = usmp_dot_s8(x, w, k->cols, acc);
		} else {
			acc += dot_strided_s8(x, w, k->cols, k->x_col);
		}
		x += k->x_row;
		w += k->w_row;
	}
	return acc;
}

/* Sum of the filter taps inside the input: the zero-point term at the borders. */
static int32_t dw_filter_sum_s8(const struct dw_walk *k, const int8_t *w)
{
	int32_t sum = 0;
	int32_t r, c;

	for (r = k->rows; r > 0; r--) {
		for (c = 0; c < k->cols; c++) {
			sum += w[c];
		}
		w += k->w_row;
	}
	return sum;
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
				int32_t oc = 0;
				int32_t full;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				k.cols = fx1 - fx0;
				full = k.rows == p->filter_h && k.cols == p->filter_w;
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->in_ch;
				w = filter + fy0 * p->filter_w + fx0;
				for (c = 0; c < p->in_ch; c++) {
					for (m = 0; m < p->depth_multiplier; m++) {
						int32_t acc = dw_dot_s8(&k, x + c, w);

						if (full) {
							acc += folded_bias[oc];
						} else {
							acc += bias[oc] + p->input_offset * dw_filter_sum_s8(&k, w);
						}
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
