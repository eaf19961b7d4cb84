/*
 * USMP kernels: hybrid (dynamic-range) operators: int8 weights, float activations.
 *
 * As LiteRT computes them: each batch of the float input is quantized to int8
 * when the operator runs (usmp_hybrid_quantize), symmetrically (scale
 * max|x| / 127, values rounded half away from zero, within +-127) or
 * asymmetrically (the range [min(0, x), max(0, x)] over 255 steps in double,
 * its zero point nudged into [-128, 127]); the int8 sums are exact, and each
 * output is bias + sum * (input scale * weight scale) in float. The float
 * steps are the ones LiteRT takes, in its order, so outputs agree with it to
 * float rounding. On cores without an FPU they run in software float.
 */
#ifndef USMP_KERNELS_HYBRID_H
#define USMP_KERNELS_HYBRID_H

#include <stdint.h>

struct usmp_hybrid_quantize_params {
	int32_t batches;
	int32_t size; /* elements per batch */
	int32_t asymmetric;
};

/* quantized[batches][size], and per batch the scale and (asymmetric) the zero point. */
void usmp_hybrid_quantize(const struct usmp_hybrid_quantize_params *p, const float *input, int8_t *quantized,
			  float *scales, int32_t *offsets);

struct usmp_hybrid_fully_connected_params {
	int32_t batches;
	int32_t in_features;
	int32_t out_features;
	int32_t per_channel; /* weight_scales has one scale per output feature, else one */
	int32_t asymmetric;  /* subtract row_sums * zero point, as LiteRT does, in float */
	float act_min;
	float act_max;
};

void usmp_hybrid_fully_connected(const struct usmp_hybrid_fully_connected_params *p, const int8_t *quantized,
				 const float *scales, const int32_t *offsets, const int8_t *weights,
				 const int32_t *row_sums, const float *weight_scales, const float *bias,
				 float *output);

struct usmp_hybrid_conv_params {
	int32_t batches;
	int32_t in_h;
	int32_t in_w;
	int32_t in_ch;
	int32_t out_h;
	int32_t out_w;
	int32_t out_ch;
	int32_t filter_h;
	int32_t filter_w;
	int32_t stride_h;
	int32_t stride_w;
	int32_t dilation_h;
	int32_t dilation_w;
	int32_t pad_top;
	int32_t pad_left;
	int32_t depth_multiplier; /* DEPTHWISE_CONV_2D; 0 for CONV_2D */
	int32_t per_channel;
	float act_min;
	float act_max;
};

/*
 * CONV_2D (filter OHWI) or DEPTHWISE_CONV_2D (filter channel-major, depth_multiplier > 0) over the
 * quantized input: sum over the taps inside the input of (q - zero point) * w, times the scales, plus bias.
 */
void usmp_hybrid_conv(const struct usmp_hybrid_conv_params *p, const int8_t *quantized, const float *scales,
		      const int32_t *offsets, const int8_t *filter, const float *weight_scales, const float *bias,
		      float *output);

struct usmp_hybrid_batch_matmul_params {
	int32_t batches;     /* of the float lhs [batches][rows][depth]; each row quantized on its own */
	int32_t rows;
	int32_t depth;
	int32_t cols;
	int32_t rhs_batches; /* 1 (one rhs for every batch) or batches */
	int32_t asymmetric;
	float weight_scale;
};

/* output[b][i][j] = sum_k q[b][i][k] * rhs_t[b][j][k] (minus row_sums * zero point) * scale[b][i] * weight_scale. */
void usmp_hybrid_batch_matmul(const struct usmp_hybrid_batch_matmul_params *p, const int8_t *quantized,
			      const float *scales, const int32_t *offsets, const int8_t *rhs_t, const int32_t *row_sums,
			      float *output);

struct usmp_hybrid_svdf_params {
	int32_t batches;
	int32_t input_size;
	int32_t filters;
	int32_t rank;
	int32_t memory;
	int32_t asymmetric;
	float feature_scale; /* of the int8 feature weights */
	int32_t activation;  /* as struct usmp_svdf_f32_params */
	float act_min;
	float act_max;
};

/*
 * SVDF with int8 feature weights (the time weights dequantized at compile time): the state shifts by one
 * frame, its newest frame is the feature projection of the quantized input, the rest as usmp_svdf_f32.
 */
void usmp_hybrid_svdf(const struct usmp_hybrid_svdf_params *p, const int8_t *quantized, const float *scales,
		      const int32_t *offsets, const int8_t *feature_weights, const int32_t *row_sums,
		      const float *time_weights, const float *bias, float *state, float *output);

struct usmp_hybrid_lstm_params {
	int32_t batches;
	int32_t time_steps;
	int32_t input_size;
	int32_t state_size;
	int32_t time_major;
	int32_t asymmetric;
	float cell_clip; /* 0: none */
};

/*
 * UNIDIRECTIONAL_SEQUENCE_LSTM with int8 weights (four gates stacked as usmp_lstm_f32's, one scale per gate
 * and operand in weight_scales[0..3] for the input weights, [4..7] for the recurrent ones): every step
 * quantizes the input and the hidden state per batch, each gate is the two scaled int8 products plus the
 * bias, and the cell and hidden updates are usmp_lstm_f32's. scratch: 5 * state_size floats;
 * quantized: input_size + state_size bytes.
 */
void usmp_hybrid_lstm(const struct usmp_hybrid_lstm_params *p, const float *input, const int8_t *input_weights,
		      const int32_t *input_row_sums, const int8_t *recurrent_weights, const int32_t *recurrent_row_sums,
		      const float *weight_scales, const float *bias, float *hidden, float *cell, float *scratch,
		      int8_t *quantized, float *output);

#endif /* USMP_KERNELS_HYBRID_H */
