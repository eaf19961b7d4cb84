/* Hybrid (int8 weights, float activations) kernels: see usmp_kernels/hybrid.h. */
#include "usmp_kernels.h"

/* C's roundf (halves away from zero) without libm. */
static float round_away_f32(float x)
{
	const float big = 8388608.0f; /* 2^23: from here on every float is an integer */
	float r;

	if (!(x < big && x > -big)) {
		return x;
	}
	r = (float)(int32_t)x; /* toward zero */
	if (x - r >= 0.5f) {
		r += 1.0f;
	} else if (r - x >= 0.5f) {
		r -= 1.0f;
	}
	return r;
}

static double round_away_f64(double x)
{
	double r = (double)(int32_t)x; /* |x| is a zero point here, far inside int32 */

	if (x - r >= 0.5) {
		r += 1.0;
	} else if (r - x >= 0.5) {
		r -= 1.0;
	}
	return r;
}

static void quantize_symmetric(const float *x, int32_t n, int8_t *q, float *scale)
{
	float lo = x[0], hi = x[0], range, inverse;
	int32_t i, v;

	for (i = 1; i < n; i++) {
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
	}
	lo = lo < 0.0f ? -lo : lo;
	hi = hi < 0.0f ? -hi : hi;
	range = lo > hi ? lo : hi;
	if (range == 0.0f) {
		for (i = 0; i < n; i++) {
			q[i] = 0;
		}
		*scale = 1.0f;
		return;
	}
	*scale = range / 127.0f;
	inverse = 127.0f / range;
	for (i = 0; i < n; i++) {
		v = (int32_t)round_away_f32(x[i] * inverse);
		q[i] = (int8_t)usmp_clamp(v, -127, 127);
	}
}

static void quantize_asymmetric(const float *x, int32_t n, int8_t *q, float *scale, int32_t *offset)
{
	float lo = x[0], hi = x[0], inverse;
	double rmin, rmax, step, from_min, from_max, zero_point;
	int32_t i, v, nudged;

	for (i = 1; i < n; i++) {
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
	}
	rmin = lo < 0.0f ? (double)lo : 0.0;
	rmax = hi > 0.0f ? (double)hi : 0.0;
	if (rmin == rmax) {
		for (i = 0; i < n; i++) {
			q[i] = 0;
		}
		*scale = 1.0f;
		*offset = 0;
		return;
	}
	step = (rmax - rmin) / 255.0;
	from_min = -128.0 - rmin / step;
	from_max = 127.0 - rmax / step;
	/* the zero point whose end of the range is reached with the smaller error */
	zero_point = (128.0 + (rmin / step < 0 ? -rmin / step : rmin / step)) <
				     (127.0 + (rmax / step < 0 ? -rmax / step : rmax / step))
			     ? from_min
			     : from_max;
	if (zero_point <= -128.0) {
		nudged = -128;
	} else if (zero_point >= 127.0) {
		nudged = 127;
	} else {
		nudged = (int32_t)round_away_f64(zero_point);
	}
	*scale = (float)step;
	*offset = nudged;
	inverse = (float)(1.0 / (double)*scale);
	for (i = 0; i < n; i++) {
		v = (int32_t)round_away_f32((float)nudged + x[i] * inverse);
		q[i] = (int8_t)usmp_clamp(v, -128, 127);
	}
}

void usmp_hybrid_quantize(const struct usmp_hybrid_quantize_params *p, const float *input, int8_t *quantized,
			  float *scales, int32_t *offsets)
{
	int32_t b;

	for (b = 0; b < p->batches; b++) {
		if (p->asymmetric) {
			quantize_asymmetric(input + b * p->size, p->size, quantized + b * p->size, &scales[b], &offsets[b]);
		} else {
			quantize_symmetric(input + b * p->size, p->size, quantized + b * p->size, &scales[b]);
			offsets[b] = 0;
		}
	}
}

void usmp_hybrid_fully_connected(const struct usmp_hybrid_fully_connected_params *p, const int8_t *quantized,
				 const float *scales, const int32_t *offsets, const int8_t *weights,
				 const int32_t *row_sums, const float *weight_scales, const float *bias,
				 float *output)
{
	int32_t b, o, k;

	for (b = 0; b < p->batches; b++) {
		const int8_t *x = quantized + b * p->in_features;
		const float offset = (float)offsets[b];
		const int8_t *w = weights;

		for (o = 0; o < p->out_features; o++) {
			int32_t dot = 0;
			float value;

			for (k = 0; k < p->in_features; k++) {
				dot += (int32_t)x[k] * (int32_t)w[k];
			}
			w += p->in_features;
			if (p->asymmetric) {
				dot = (int32_t)((float)dot - (float)row_sums[o] * offset);
			}
			value = bias[o] + (float)dot * (scales[b] * weight_scales[p->per_channel ? o : 0]);
			*output++ = usmp_clamp_f32(value, p->act_min, p->act_max);
		}
	}
}

void usmp_hybrid_conv(const struct usmp_hybrid_conv_params *p, const int8_t *quantized, const float *scales,
		      const int32_t *offsets, const int8_t *filter, const float *weight_scales, const float *bias,
		      float *output)
{
	const int32_t depthwise = p->depth_multiplier > 0;
	const int32_t taps = p->filter_h * p->filter_w;
	int32_t b, oy, ox, oc, ky, kx, ky0, ky1, kx0, kx1, c;

	for (b = 0; b < p->batches; b++) {
		const int8_t *image = quantized + b * p->in_h * p->in_w * p->in_ch;
		const int32_t offset = offsets[b];

		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t y0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(y0, p->dilation_h, p->filter_h, p->in_h, &ky0, &ky1);
			for (ox = 0; ox < p->out_w; ox++) {
				const int32_t x0 = ox * p->stride_w - p->pad_left;

				usmp_window_taps(x0, p->dilation_w, p->filter_w, p->in_w, &kx0, &kx1);
				for (oc = 0; oc < p->out_ch; oc++) {
					int32_t dot = 0;
					float value;

					for (ky = ky0; ky < ky1; ky++) {
						for (kx = kx0; kx < kx1; kx++) {
							const int8_t *x = image + ((y0 + ky * p->dilation_h) * p->in_w + x0 +
										   kx * p->dilation_w) * p->in_ch;

							if (depthwise) {
								dot += ((int32_t)x[oc / p->depth_multiplier] - offset) *
								       (int32_t)filter[oc * taps + ky * p->filter_w + kx];
								continue;
							}
							for (c = 0; c < p->in_ch; c++) {
								dot += ((int32_t)x[c] - offset) *
								       (int32_t)filter[((oc * p->filter_h + ky) * p->filter_w +
											kx) * p->in_ch + c];
							}
						}
					}
					value = (float)dot * (scales[b] * weight_scales[p->per_channel ? oc : 0]) + bias[oc];
					*output++ = usmp_clamp_f32(value, p->act_min, p->act_max);
				}
			}
		}
	}
}

void usmp_hybrid_batch_matmul(const struct usmp_hybrid_batch_matmul_params *p, const int8_t *quantized,
			      const float *scales, const int32_t *offsets, const int8_t *rhs_t, const int32_t *row_sums,
			      float *output)
{
	int32_t b, i, j, k;

	for (b = 0; b < p->batches; b++) {
		const int32_t rhs_batch = p->rhs_batches > 1 ? b : 0;

		for (i = 0; i < p->rows; i++) {
			const int32_t row = b * p->rows + i;
			const int8_t *x = quantized + row * p->depth;
			const float scale = scales[row] * p->weight_scale;

			for (j = 0; j < p->cols; j++) {
				const int8_t *w = rhs_t + (rhs_batch * p->cols + j) * p->depth;
				int32_t dot = 0;

				for (k = 0; k < p->depth; k++) {
					dot += (int32_t)x[k] * (int32_t)w[k];
				}
				if (p->asymmetric) {
					dot -= row_sums[rhs_batch * p->cols + j] * offsets[row];
				}
				*output++ = (float)dot * scale;
			}
		}
	}
}

void usmp_hybrid_svdf(const struct usmp_hybrid_svdf_params *p, const int8_t *quantized, const float *scales,
		      const int32_t *offsets, const int8_t *feature_weights, const int32_t *row_sums,
		      const float *time_weights, const float *bias, float *state, float *output)
{
	const int32_t mem = p->memory;
	const int32_t units = p->filters / p->rank;
	int32_t b, f, k, u, r;

	for (b = 0; b < p->batches; b++) {
		const int8_t *x = quantized + b * p->input_size;
		const float scale = scales[b] * p->feature_scale;
		const float offset = (float)offsets[b];
		float *rows = state + b * p->filters * mem;

		for (f = 0; f < p->filters; f++) {
			float *row = rows + f * mem;
			const int8_t *w = feature_weights + f * p->input_size;
			int32_t dot = 0;

			for (k = 0; k + 1 < mem; k++) {
				row[k] = row[k + 1];
			}
			for (k = 0; k < p->input_size; k++) {
				dot += (int32_t)x[k] * (int32_t)w[k];
			}
			if (p->asymmetric) {
				dot = (int32_t)((float)dot - (float)row_sums[f] * offset);
			}
			row[mem - 1] = 0.0f + (float)dot * scale;
		}
		for (u = 0; u < units; u++) {
			float acc = bias[u];

			for (r = 0; r < p->rank; r++) {
				const int32_t at = (u * p->rank + r) * mem;
				float sum = 0.0f;

				for (k = 0; k < mem; k++) {
					sum += time_weights[at + k] * rows[at + k];
				}
				acc += sum;
			}
			*output++ = usmp_svdf_activation_f32(p->activation, acc, p->act_min, p->act_max);
		}
	}
}

/* result[r] += (sum_k w[r][k] * q[k] - row_sums[r] * zero point) * (scale * weight scale), LiteRT's float steps. */
static void accumulate_rows(const int8_t *w, const int32_t *row_sums, int32_t rows, int32_t n, const int8_t *q,
			    float scale, int32_t offset, int32_t asymmetric, float *result)
{
	int32_t r, k;

	for (r = 0; r < rows; r++) {
		int32_t dot = 0;

		for (k = 0; k < n; k++) {
			dot += (int32_t)w[r * n + k] * (int32_t)q[k];
		}
		if (asymmetric) {
			dot = (int32_t)((float)dot - (float)row_sums[r] * (float)offset);
		}
		result[r] += (float)dot * scale;
	}
}

void usmp_hybrid_lstm(const struct usmp_hybrid_lstm_params *p, const float *input, const int8_t *input_weights,
		      const int32_t *input_row_sums, const int8_t *recurrent_weights, const int32_t *recurrent_row_sums,
		      const float *weight_scales, const float *bias, float *hidden, float *cell, float *scratch,
		      int8_t *quantized, float *output)
{
	const int32_t n_in = p->input_size;
	const int32_t n = p->state_size;
	struct usmp_unary_f32_params gate_size;
	struct usmp_hybrid_quantize_params one_row;
	int8_t *qx = quantized;
	int8_t *qh = quantized + n_in;
	int32_t b, t, g, k, zx, zh;
	float sx, sh;

	gate_size.size = n;
	one_row.batches = 1;
	one_row.asymmetric = p->asymmetric;
	for (b = 0; b < p->batches; b++) {
		float *h = hidden + b * n;
		float *c = cell + b * n;

		for (t = 0; t < p->time_steps; t++) {
			const int32_t step = p->time_major ? t * p->batches + b : b * p->time_steps + t;
			float *squashed = scratch + 4 * n;

			one_row.size = n_in;
			usmp_hybrid_quantize(&one_row, input + step * n_in, qx, &sx, &zx);
			one_row.size = n;
			usmp_hybrid_quantize(&one_row, h, qh, &sh, &zh);
			for (g = 0; g < 4; g++) {
				float *gate = scratch + g * n;

				for (k = 0; k < n; k++) {
					gate[k] = 0.0f;
				}
				accumulate_rows(input_weights + g * n * n_in, input_row_sums + g * n, n, n_in, qx,
						sx * weight_scales[g], zx, p->asymmetric, gate);
				accumulate_rows(recurrent_weights + g * n * n, recurrent_row_sums + g * n, n, n, qh,
						sh * weight_scales[4 + g], zh, p->asymmetric, gate);
				for (k = 0; k < n; k++) {
					gate[k] += bias[g * n + k];
				}
				if (g == 2) {
					usmp_tanh_f32(&gate_size, gate, gate);
				} else {
					usmp_logistic_f32(&gate_size, gate, gate);
				}
			}
			for (k = 0; k < n; k++) {
				float next = scratch[k] * c[k] + scratch[n + k] * scratch[2 * n + k];

				if (p->cell_clip > 0.0f) {
					next = usmp_clamp_f32(next, -p->cell_clip, p->cell_clip);
				}
				c[k] = next;
			}
			usmp_tanh_f32(&gate_size, c, squashed);
			for (k = 0; k < n; k++) {
				h[k] = squashed[k] * scratch[3 * n + k];
				output[step * n + k] = h[k];
			}
		}
	}
}
