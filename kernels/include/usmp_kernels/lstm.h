/*
 * USMP kernels: UNIDIRECTIONAL_SEQUENCE_LSTM (no peephole, projection or layer norm).
 *
 * Every time step of every batch: four gates from the input frame and the
 * previous hidden state, then the cell state (in place) and the hidden
 * state (in place), which is also that step's output. The weights of the
 * four gates arrive stacked in the order forget, input, cell, output.
 */
#ifndef USMP_KERNELS_LSTM_H
#define USMP_KERNELS_LSTM_H

#include <stdint.h>

struct usmp_lstm_s8_params {
	int32_t batches;
	int32_t time_steps;
	int32_t input_size;
	int32_t state_size;
	int32_t time_major; /* input/output [time, batch, n] instead of [batch, time, n] */
	int32_t forget_multiplier; /* forget gate (Q0.15) * cell -> cell */
	int32_t forget_shift;
	int32_t update_multiplier; /* input gate * cell gate (Q0.15 each) -> cell */
	int32_t update_shift;
	int32_t hidden_multiplier; /* tanh(cell) * output gate (Q0.15 each) -> hidden */
	int32_t hidden_shift;
	int32_t hidden_offset;
	int32_t cell_clip;      /* in cell units; 0: none */
	int32_t tanh_multiplier; /* cell (2^cell_power) -> the Q3.12 input of the tanh table */
	int32_t tanh_shift;
};

/*
 * gate_scales: per gate (forget, input, cell, output) the multiplier and
 * shift of the input product, then of the recurrent product, into Q3.12.
 * input_bias has the gate bias and the input zero point folded in,
 * recurrent_bias the hidden state's zero point. sigmoid_table: 256 samples
 * of sigmoid(i / 24) in 0.16. scratch: 4 * state_size values.
 */
void usmp_lstm_s8(const struct usmp_lstm_s8_params *p, const int8_t *input, const int8_t *input_weights,
		  const int32_t *input_bias, const int8_t *recurrent_weights, const int32_t *recurrent_bias,
		  const int32_t *gate_scales, const uint16_t *sigmoid_table, int8_t *hidden, int16_t *cell,
		  int16_t *scratch, int8_t *output);

/* int16 activations (zero points 0) with int8 weights and int64 biases: TFLite Micro's 16x8 LSTM. */
void usmp_lstm_s16(const struct usmp_lstm_s8_params *p, const int16_t *input, const int8_t *input_weights,
		   const int64_t *input_bias, const int8_t *recurrent_weights, const int64_t *recurrent_bias,
		   const int32_t *gate_scales, const uint16_t *sigmoid_table, int16_t *hidden, int16_t *cell,
		   int16_t *scratch, int16_t *output);

struct usmp_lstm_f32_params {
	int32_t batches;
	int32_t time_steps;
	int32_t input_size;
	int32_t state_size;
	int32_t time_major;
	float cell_clip; /* 0: none */
};

/* bias: the four gate biases stacked; scratch: 5 * state_size values. */
void usmp_lstm_f32(const struct usmp_lstm_f32_params *p, const float *input, const float *input_weights,
		   const float *bias, const float *recurrent_weights, float *hidden, float *cell, float *scratch,
		   float *output);

#endif /* USMP_KERNELS_LSTM_H */
