/* AVERAGE_POOL_2D and MAX_POOL_2D kernels (see usmp_kernels/pooling.h). */
#include "usmp_kernels.h"

/* One output position's in-image taps: rows x cols. */
struct pool_window {
	int32_t rows;
	int32_t cols;
	int32_t first; /* element index of the top-left tap, channel 0 */
};

static void pool_window(int32_t b, int32_t iy0, int32_t ix0, int32_t in_h, int32_t in_w,
			int32_t filter_h, int32_t filter_w, struct pool_window *win)
{
	int32_t fy0, fy1, fx0, fx1;

	usmp_window_taps(iy0, 1, filter_h, in_h, &fy0, &fy1);
	usmp_window_taps(ix0, 1, filter_w, in_w, &fx0, &fx1);
	win->rows = fy1 - fy0;
	win->cols = fx1 - fx0;
	win->first = (b * in_h + iy0 + fy0) * in_w + ix0 + fx0;
}

/*
 * The int8 and int16 pools: the same loops on stored values (an int32 sum for the average,
 * rounded half away from zero as TFLite does), clamped to the fused activation's bounds.
 */
#define USMP_DEFINE_INT_POOLS(SUFFIX, T, LOWEST)                                                            \
	void usmp_avg_pool_##SUFFIX(const struct usmp_pool_s8_params *p, const T *input, T *output)         \
	{                                                                                                   \
		const int32_t ch = p->channels;                                                             \
		const int32_t row_step = p->in_w * ch;                                                      \
		struct pool_window win;                                                                     \
		int32_t b, oy, ox, c, r, k;                                                                 \
                                                                                                            \
		for (b = 0; b < p->batches; b++) {                                                          \
			for (oy = 0; oy < p->out_h; oy++) {                                                 \
				for (ox = 0; ox < p->out_w; ox++) {                                         \
					int32_t count;                                                      \
                                                                                                            \
					pool_window(b, oy * p->stride_h - p->pad_top,                       \
						    ox * p->stride_w - p->pad_left, p->in_h, p->in_w,       \
						    p->filter_h, p->filter_w, &win);                        \
					count = win.rows * win.cols;                                        \
					for (c = 0; c < ch; c++) {                                          \
						const T *x = input + win.first * ch + c;                    \
						int32_t acc = 0;                                            \
                                                                                                            \
						for (r = 0; r < win.rows; r++) {                            \
							for (k = 0; k < win.cols; k++) {                    \
								acc += x[k * ch];                           \
							}                                                   \
							x += row_step;                                      \
						}                                                           \
						if (count > 0) {                                            \
							acc = acc > 0 ? (acc + count / 2) / count           \
								      : (acc - count / 2) / count;          \
						}                                                           \
						*output++ = (T)usmp_clamp(acc, p->act_min, p->act_max);     \
					}                                                                   \
				}                                                                           \
			}                                                                                   \
		}                                                                                           \
	}                                                                                                   \
                                                                                                            \
	void usmp_max_pool_##SUFFIX(const struct usmp_pool_s8_params *p, const T *input, T *output)         \
	{                                                                                                   \
		const int32_t ch = p->channels;                                                             \
		const int32_t row_step = p->in_w * ch;                                                      \
		struct pool_window win;                                                                     \
		int32_t b, oy, ox, c, r, k;                                                                 \
                                                                                                            \
		for (b = 0; b < p->batches; b++) {                                                          \
			for (oy = 0; oy < p->out_h; oy++) {                                                 \
				for (ox = 0; ox < p->out_w; ox++) {                                         \
					pool_window(b, oy * p->stride_h - p->pad_top,                       \
						    ox * p->stride_w - p->pad_left, p->in_h, p->in_w,       \
						    p->filter_h, p->filter_w, &win);                        \
					for (c = 0; c < ch; c++) {                                          \
						const T *x = input + win.first * ch + c;                    \
						int32_t max = LOWEST;                                       \
                                                                                                            \
						for (r = 0; r < win.rows; r++) {                            \
							for (k = 0; k < win.cols; k++) {                    \
								max = USMP_MAX(max, (int32_t)x[k * ch]);    \
							}                                                   \
							x += row_step;                                      \
						}                                                           \
						*output++ = (T)usmp_clamp(max, p->act_min, p->act_max);     \
					}                                                                   \
				}                                                                           \
			}                                                                                   \
		}                                                                                           \
	}

USMP_DEFINE_INT_POOLS(s8, int8_t, INT8_MIN)
USMP_DEFINE_INT_POOLS(s16, int16_t, INT16_MIN)

void usmp_avg_pool_f32(const struct usmp_pool_f32_params *p, const float *input, float *output)
{
	const int32_t ch = p->channels;
	const int32_t row_step = p->in_w * ch;
	struct pool_window win;
	int32_t b, oy, ox, c, r, k;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			for (ox = 0; ox < p->out_w; ox++) {
				float count;

				pool_window(b, oy * p->stride_h - p->pad_top, ox * p->stride_w - p->pad_left,
					    p->in_h, p->in_w, p->filter_h, p->filter_w, &win);
				count = (float)(win.rows * win.cols);
				for (c = 0; c < ch; c++) {
					const float *x = input + win.first * ch + c;
					float acc = 0.0f;

					for (r = 0; r < win.rows; r++) {
						for (k = 0; k < win.cols; k++) {
							acc += x[k * ch];
						}
						x += row_step;
					}
					*output++ = usmp_clamp_f32(count > 0.0f ? acc / count : 0.0f, p->act_min,
								   p->act_max);
				}
			}
		}
	}
}

void usmp_max_pool_f32(const struct usmp_pool_f32_params *p, const float *input, float *output)
{
	const int32_t ch = p->channels;
	const int32_t row_step = p->in_w * ch;
	struct pool_window win;
	int32_t b, oy, ox, c, r, k;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			for (ox = 0; ox < p->out_w; ox++) {
				pool_window(b, oy * p->stride_h - p->pad_top, ox * p->stride_w - p->pad_left,
					    p->in_h, p->in_w, p->filter_h, p->filter_w, &win);
				for (c = 0; c < ch; c++) {
					const float *x = input + win.first * ch + c;
					float max = -3.40282347e+38f;

					for (r = 0; r < win.rows; r++) {
						for (k = 0; k < win.cols; k++) {
							max = x[k * ch] > max ? x[k * ch] : max;
						}
						x += row_step;
					}
					*output++ = usmp_clamp_f32(max, p->act_min, p->act_max);
				}
			}
		}
	}
}
