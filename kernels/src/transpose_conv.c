/* TRANSPOSE_CONV kernels (see usmp_kernels/transpose_conv.h for the gather and the tap tables). */
#include "usmp_kernels.h"

/* The in-image taps of one output pixel: where they start, how many rows, and columns per row. */
struct tconv_taps {
	int32_t x0; /* input element of the first tap */
	int32_t w0; /* filter element of the first tap (in output channel 0) */
	int32_t rows;
	int32_t cols;
};

static void tconv_pixel_taps(struct tconv_taps *t, const int32_t *row, const int32_t *col)
{
	t->x0 = row[0] + col[0];
	t->w0 = row[1] + col[1];
	t->rows = row[2];
	t->cols = col[2];
}

void usmp_transpose_conv_s8(const struct usmp_transpose_conv_s8_params *p, const int8_t *input,
			    const int8_t *filter, const int32_t *taps, const int32_t *bias,
			    const int32_t *multiplier, const int32_t *shift, int8_t *output)
{
	const int32_t *col_taps = taps + 3 * p->out_h;
	const int32_t x_row_step = p->in_w * p->in_ch;
	const int32_t step = p->per_channel ? 1 : 0;
	struct tconv_taps t;
	int32_t b, oy, ox, oc, r, run;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			for (ox = 0; ox < p->out_w; ox++) {
				tconv_pixel_taps(&t, taps + 3 * oy, col_taps + 3 * ox);
				run = t.cols * p->in_ch;
				for (oc = 0; oc < p->out_ch; oc++) {
					const int8_t *x_row = input + t.x0;
					const int8_t *w_row = filter + oc * p->filter_size + t.w0;
					int32_t acc = 0;

					for (r = 0; r < t.rows; r++) {
						acc += usmp_dot_offset_s8(x_row, w_row, run, p->input_offset);
						x_row += x_row_step;
						w_row += p->w_row_step;
					}
					acc = usmp_mul_by_quantized_multiplier(acc + bias[oc], multiplier[oc * step],
									       shift[oc * step]);
					*output++ = (int8_t)usmp_clamp(acc + p->output_offset, p->act_min, p->act_max);
				}
			}
		}
		input += p->in_h * x_row_step;
	}
}

void usmp_transpose_conv_s16(const struct usmp_transpose_conv_s16_params *p, const int16_t *input,
			     const int8_t *filter, const int32_t *taps, const int64_t *bias,
			     const int32_t *multiplier, const int32_t *shift, int16_t *output)
{
	const int32_t *col_taps = taps + 3 * p->out_h;
	const int32_t x_row_step = p->in_w * p->in_ch;
	const int32_t step = p->per_channel ? 1 : 0;
	struct tconv_taps t;
	int32_t b, oy, ox, oc, r, k, run;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			for (ox = 0; ox < p->out_w; ox++) {
				tconv_pixel_taps(&t, taps + 3 * oy, col_taps + 3 * ox);
				run = t.cols * p->in_ch;
				for (oc = 0; oc < p->out_ch; oc++) {
					const int16_t *x_row = input + t.x0;
					const int8_t *w_row = filter + oc * p->filter_size + t.w0;
					int64_t acc = 0;
					int32_t scaled;

					for (r = 0; r < t.rows; r++) {
						for (k = 0; k < run; k++) {
							acc += (int32_t)x_row[k] * (int32_t)w_row[k];
						}
						x_row += x_row_step;
						w_row += p->w_row_step;
					}
					scaled = usmp_requantize_s64(acc + bias[oc], multiplier[oc * step], shift[oc * step]);
					*output++ = (int16_t)usmp_clamp(scaled, p->act_min, p->act_max);
				}
			}
		}
		input += p->in_h * x_row_step;
	}
}

void usmp_transpose_conv_f32(const struct usmp_transpose_conv_f32_params *p, const float *input,
			     const float *filter, const int32_t *taps, const float *bias, float *output)
{
	const int32_t *col_taps = taps + 3 * p->out_h;
	const int32_t x_row_step = p->in_w * p->in_ch;
	struct tconv_taps t;
	int32_t b, oy, ox, oc, r, k, run;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			for (ox = 0; ox < p->out_w; ox++) {
				tconv_pixel_taps(&t, taps + 3 * oy, col_taps + 3 * ox);
				run = t.cols * p->in_ch;
				for (oc = 0; oc < p->out_ch; oc++) {
					const float *x_row = input + t.x0;
					const float *w_row = filter + oc * p->filter_size + t.w0;
					float acc = 0.0f;

					for (r = 0; r < t.rows; r++) {
						for (k = 0; k < run; k++) {
							acc += x_row[k] * w_row[k];
						}
						x_row += x_row_step;
						w_row += p->w_row_step;
					}
					*output++ = usmp_clamp_f32(acc + bias[oc], p->act_min, p->act_max);
				}
			}
		}
		input += p->in_h * x_row_step;
	}
}
