/* uint8 (asymmetric) model kernels: see usmp_kernels/asymmetric.h. */
#include "usmp_kernels.h"

/* acc * multiplier * 2^(shift - 31): halves up in both steps (ruy's x86 kernels) or as TFLite rounds. */
static int32_t rescale(int32_t acc, int32_t multiplier, int32_t shift, int32_t matrix_rounding)
{
	if (matrix_rounding) {
		const int32_t left = shift > 0 ? shift : 0;
		const int32_t right = shift > 0 ? 0 : -shift;
		const int64_t product = (int64_t)(int32_t)((uint32_t)acc << left) * multiplier;
		const int32_t high = (int32_t)((product + ((int64_t)1 << 30)) >> 31); /* floor: arithmetic shift */
		int32_t nudge;

		if (right == 0) {
			return high;
		}
		nudge = (int32_t)1 << (right - 1);
		if (high > INT32_MAX - nudge) {
			return (int32_t)1 << (31 - right);
		}
		return (high + nudge) >> right;
	}
	return usmp_mul_by_quantized_multiplier(acc, multiplier, shift);
}

static int8_t requantize(const struct usmp_asym_conv_params *p, int32_t acc)
{
	acc = rescale(acc, p->output_multiplier, p->output_shift, p->matrix_rounding) + p->output_offset;
	return (int8_t)usmp_clamp(acc, p->act_min, p->act_max);
}

void usmp_conv_asym_s8(const struct usmp_asym_conv_params *p, const int8_t *input, const int8_t *filter,
		       const int32_t *bias, int8_t *output)
{
	const int32_t filter_size = p->filter_h * p->filter_w * p->in_ch;
	int32_t b, oy, ox, oc, ky, kx, ky0, ky1, kx0, kx1, c;

	for (b = 0; b < p->batches; b++) {
		const int8_t *image = input + b * p->in_h * p->in_w * p->in_ch;

		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t y0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(y0, p->dilation_h, p->filter_h, p->in_h, &ky0, &ky1);
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t x0 = ox * p->stride_w - p->pad_left;

				usmp_window_taps(x0, p->dilation_w, p->filter_w, p->in_w, &kx0, &kx1);
				for (oc = 0; oc < p->out_ch; oc++) {
					const int8_t *w = filter + oc * filter_size;
					int32_t acc = bias[oc];

					for (ky = ky0; ky < ky1; ky++) {
						for (kx = kx0; kx < kx1; kx++) {
							const int8_t *x = image + ((y0 + ky * p->dilation_h) * p->in_w +
										   x0 + kx * p->dilation_w) * p->in_ch;
							const int8_t *wk = w + (ky * p->filter_w + kx) * p->in_ch;

							for (c = 0; c < p->in_ch; c++) {
								acc += ((int32_t)x[c] + p->input_offset) *
								       ((int32_t)wk[c] + p->filter_offset);
							}
						}
					}
					*output++ = requantize(p, acc);
				}
			}
		}
	}
}

void usmp_depthwise_conv_asym_s8(const struct usmp_asym_conv_params *p, const int8_t *input, const int8_t *filter,
				 const int32_t *bias, int8_t *output)
{
	const int32_t taps = p->filter_h * p->filter_w;
	const int32_t out_ch = p->in_ch * p->depth_multiplier;
	int32_t b, oy, ox, oc, ky, kx, ky0, ky1, kx0, kx1;

	for (b = 0; b < p->batches; b++) {
		const int8_t *image = input + b * p->in_h * p->in_w * p->in_ch;

		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t y0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(y0, p->dilation_h, p->filter_h, p->in_h, &ky0, &ky1);
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t x0 = ox * p->stride_w - p->pad_left;

				usmp_window_taps(x0, p->dilation_w, p->filter_w, p->in_w, &kx0, &kx1);
				for (oc = 0; oc < out_ch; oc++) {
					const int32_t ic = oc / p->depth_multiplier;
					const int8_t *w = filter + oc * taps;
					int32_t acc = bias[oc];

					for (ky = ky0; ky < ky1; ky++) {
						for (kx = kx0; kx < kx1; kx++) {
							const int32_t x = image[((y0 + ky * p->dilation_h) * p->in_w + x0 +
										 kx * p->dilation_w) * p->in_ch + ic];

							acc += (x + p->input_offset) *
							       ((int32_t)w[ky * p->filter_w + kx] + p->filter_offset);
						}
					}
					*output++ = requantize(p, acc);
				}
			}
		}
	}
}

void usmp_fully_connected_asym_s8(const struct usmp_fully_connected_asym_params *p, const int8_t *input,
				  const int8_t *weights, const int32_t *bias, int8_t *output)
{
	int32_t b, o, k;

	for (b = 0; b < p->batches; b++) {
		const int8_t *x = input + b * p->in_features;
		const int8_t *w = weights;

		for (o = 0; o < p->out_features; o++) {
			int32_t acc = bias[o];

			for (k = 0; k < p->in_features; k++) {
				acc += ((int32_t)x[k] + p->input_offset) * ((int32_t)w[k] + p->filter_offset);
			}
			w += p->in_features;
			acc = rescale(acc, p->output_multiplier, p->output_shift, p->matrix_rounding);
			*output++ = (int8_t)usmp_clamp(acc + p->output_offset, p->act_min, p->act_max);
		}
	}
}

void usmp_avg_pool_asym_s8(const struct usmp_pool_s8_params *p, const int8_t *input, int8_t *output)
{
	int32_t b, oy, ox, c, ky, kx, ky0, ky1, kx0, kx1;

	for (b = 0; b < p->batches; b++) {
		const int8_t *image = input + b * p->in_h * p->in_w * p->channels;

		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t y0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(y0, 1, p->filter_h, p->in_h, &ky0, &ky1);
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t x0 = ox * p->stride_w - p->pad_left;
				int32_t count;

				usmp_window_taps(x0, 1, p->filter_w, p->in_w, &kx0, &kx1);
				count = (ky1 - ky0) * (kx1 - kx0);
				for (c = 0; c < p->channels; c++) {
					int32_t sum = 0; /* of the uint8 values: never negative */
					int32_t average;

					for (ky = ky0; ky < ky1; ky++) {
						for (kx = kx0; kx < kx1; kx++) {
							sum += (int32_t)image[((y0 + ky) * p->in_w + x0 + kx) * p->channels +
									      c] + 128;
						}
					}
					average = count > 0 ? (sum + count / 2) / count - 128 : 0;
					*output++ = (int8_t)usmp_clamp(average, p->act_min, p->act_max);
				}
			}
		}
	}
}

void usmp_softmax_asym_s8(const struct usmp_softmax_asym_params *p, const int8_t *input, const float *table,
			  int8_t *output)
{
	int32_t r, j;

	for (r = 0; r < p->rows; r++) {
		const int8_t *x = input + r * p->depth;
		int8_t *y = output + r * p->depth;
		int32_t max = -128;
		float sum = 0.0f;
		float inverse;

		for (j = 0; j < p->depth; j++) {
			max = x[j] > max ? x[j] : max;
		}
		for (j = 0; j < p->depth; j++) {
			sum += table[255 - max + x[j]];
		}
		inverse = 1.0f / (sum * p->output_scale);
		for (j = 0; j < p->depth; j++) {
			const int32_t q = (int32_t)(table[255 - max + x[j]] * inverse + 0.5f);

			y[j] = (int8_t)(usmp_clamp(q, 0, 255) - 128);
		}
	}
}

void usmp_resize_bilinear_asym_s8(const struct usmp_resize_params *p, const int8_t *input, const int32_t *offsets,
				  const float *weights, int8_t *output)
{
	const int32_t *cols = offsets + 2 * p->out_h;
	const float *col_weights = weights + 2 * p->out_h;
	const int32_t image = p->in_h * p->in_w * p->depth;
	int32_t b, y, x, c;

	for (b = 0; b < p->batches; b++) {
		for (y = 0; y < p->out_h; y++) {
			const int8_t *top = input + offsets[2 * y];
			const int8_t *bottom = input + offsets[2 * y + 1];

			for (x = 0; x < p->out_w; x++) {
				const float w00 = weights[2 * y] * col_weights[2 * x];
				const float w01 = weights[2 * y] * col_weights[2 * x + 1];
				const float w10 = weights[2 * y + 1] * col_weights[2 * x];
				const float w11 = weights[2 * y + 1] * col_weights[2 * x + 1];

				for (c = 0; c < p->depth; c++) {
					const float v = (float)(top[cols[2 * x] + c] + 128) * w00 +
							(float)(top[cols[2 * x + 1] + c] + 128) * w01 +
							(float)(bottom[cols[2 * x] + c] + 128) * w10 +
							(float)(bottom[cols[2 * x + 1] + c] + 128) * w11 + 0.5f;

					*output++ = (int8_t)((int32_t)v - 128);
				}
			}
		}
		input += image;
	}
}
