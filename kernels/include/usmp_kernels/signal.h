/*
 * USMP kernels: TFLite Micro's signal library (its audio front end), one
 * kernel family per custom operator, computed as TFLite Micro computes it
 * (integer only; 64-bit products and shifts, never a 64-bit division).
 *
 * Complex spectra are int16 pairs (real, imaginary). The FFT is a mixed-radix
 * decimation in time over int16 values scaled down by each stage's radix, the
 * fixed-point arithmetic TFLite Micro's FFT (kiss_fft, 16 bits) does:
 * products rounded by adding 2^14 and shifting right 15, sums wrapping in 16
 * bits; its twiddle tables and factors are computed by the compiler.
 */
#ifndef USMP_KERNELS_SIGNAL_H
#define USMP_KERNELS_SIGNAL_H

#include <stdint.h>

/* The low 16 bits of x as int16 (what assigning an int to int16_t does on every compiler USMP targets). */
static inline int16_t usmp_wrap16(int32_t x)
{
	const int32_t low = (int32_t)((uint32_t)x & 0xFFFFu);

	return (int16_t)(low >= 0x8000 ? low - 0x10000 : low);
}

/* x >> n, arithmetic (rounding toward minus infinity) whatever the compiler does with negative values. */
static inline int32_t usmp_asr32(int32_t x, int32_t n)
{
	return x >= 0 ? x >> n : -1 - ((-1 - x) >> n);
}

/* The number of bits x needs; 32 for 0, as TFLite Micro's (GCC-built) MostSignificantBit32. */
static inline int32_t usmp_msb32(uint32_t x)
{
	int32_t bits = 0;

	if (x == 0) {
		return 32;
	}
	while (x != 0) {
		x >>= 1;
		bits++;
	}
	return bits;
}

/* SignalWindow: output = clamp16((input * weight) >> shift), frame by frame. */
struct usmp_signal_window_params {
	int32_t frames;
	int32_t size; /* samples per frame (the weights' length) */
	int32_t shift;
};

void usmp_signal_window(const struct usmp_signal_window_params *p, const int16_t *input, const int16_t *weights,
			int16_t *output);

/* SignalFftAutoScale: every sample shifted left by the bits the largest magnitude leaves free. */
struct usmp_signal_fft_auto_scale_params {
	int32_t size;
};

void usmp_signal_fft_auto_scale(const struct usmp_signal_fft_auto_scale_params *p, const int16_t *input,
				int16_t *output, int32_t *scale_bits);

/*
 * SignalRfft (int16): each frame of input_length samples, zero-padded to fft_length, into fft_length / 2 + 1
 * complex bins. twiddles: fft_length / 2 complex values of the complex FFT; super_twiddles: fft_length / 4
 * of the real-to-complex split; factors: (radix, remaining length) pairs, the last remaining length 1.
 * work: fft_length int16; spectrum: fft_length int16 (fft_length / 2 complex).
 */
struct usmp_signal_rfft_params {
	int32_t frames;
	int32_t input_length;
	int32_t fft_length;
};

void usmp_signal_rfft(const struct usmp_signal_rfft_params *p, const int16_t *input, const int16_t *twiddles,
		      const int16_t *super_twiddles, const int32_t *factors, int16_t *work, int16_t *spectrum,
		      int16_t *output);

/* SignalEnergy: real^2 + imag^2 of bins [start, end); the other bins are 0. */
struct usmp_signal_energy_params {
	int32_t bins;
	int32_t start;
	int32_t end;
};

void usmp_signal_energy(const struct usmp_signal_energy_params *p, const int16_t *spectrum, uint32_t *output);

/*
 * SignalFilterBank: channel i (0..channels) sums weights * input over its band into one accumulator and
 * unweights * input into the next channel's; the first channel's sum is dropped. All tables int16.
 */
struct usmp_signal_filter_bank_params {
	int32_t channels; /* outputs; the tables describe channels + 1 */
};

void usmp_signal_filter_bank(const struct usmp_signal_filter_bank_params *p, const uint32_t *input,
			     const int16_t *weights, const int16_t *unweights, const int16_t *frequency_starts,
			     const int16_t *weight_starts, const int16_t *widths, uint64_t *output);

/* SignalFilterBankSquareRoot: the integer square root (rounded) of each 64-bit energy, >> scale_bits. */
struct usmp_signal_filter_bank_square_root_params {
	int32_t channels;
};

void usmp_signal_filter_bank_square_root(const struct usmp_signal_filter_bank_square_root_params *p,
					 const uint64_t *input, const int32_t *scale_bits, uint32_t *output);

/*
 * SignalFilterBankSpectralSubtraction: a noise estimate per channel, kept from one run to the next in the
 * state pool (noise, zero after init() and reset()), smoothed toward each new input and subtracted from it,
 * never below min_signal_remaining of the input. noise_output receives the updated estimates.
 */
struct usmp_signal_spectral_subtraction_params {
	int32_t channels;
	uint32_t smoothing;
	uint32_t one_minus_smoothing;
	uint32_t alternate_smoothing; /* odd channels */
	uint32_t alternate_one_minus_smoothing;
	uint32_t min_signal_remaining;
	int32_t smoothing_bits;
	int32_t spectral_subtraction_bits;
	int32_t clamping;
};

void usmp_signal_spectral_subtraction(const struct usmp_signal_spectral_subtraction_params *p,
				      const uint32_t *input, uint32_t *noise, uint32_t *output,
				      uint32_t *noise_output);

/* SignalPCAN: per-channel gain from the noise estimate (piecewise quadratic table), then compression. */
struct usmp_signal_pcan_params {
	int32_t channels;
	int32_t snr_shift;
};

void usmp_signal_pcan(const struct usmp_signal_pcan_params *p, const uint32_t *input, const uint32_t *noise,
		      const int16_t *gain_table, uint32_t *output);

/* SignalFilterBankLog: output_scale * ln(input << correction_bits) in fixed point, at most 32767. */
struct usmp_signal_filter_bank_log_params {
	int32_t channels;
	uint32_t output_scale;
	int32_t correction_bits;
};

void usmp_signal_filter_bank_log(const struct usmp_signal_filter_bank_log_params *p, const uint32_t *input,
				 const uint16_t *log_table, int16_t *output);

/*
 * SignalIrfft (int16): each frame's fft_length / 2 + 1 complex bins into fft_length real samples, the inverse
 * of SignalRfft's arithmetic (its tables for the inverse direction). spectrum: fft_length int16.
 */
struct usmp_signal_irfft_params {
	int32_t frames;
	int32_t input_length; /* complex bins per frame in the input */
	int32_t fft_length;
};

void usmp_signal_irfft(const struct usmp_signal_irfft_params *p, const int16_t *input, const int16_t *twiddles,
		       const int16_t *super_twiddles, const int32_t *factors, int16_t *spectrum, int16_t *output);

/* SignalDelay: each row's samples come out delay samples later (state: the last delay samples per row). */
struct usmp_signal_delay_params {
	int32_t rows;
	int32_t frame;
	int32_t delay;
};

void usmp_signal_delay(const struct usmp_signal_delay_params *p, const int16_t *input, int16_t *state,
		       int16_t *output);

/*
 * SignalFramer: each row's stream cut into frames of frame_size every frame_step samples. State per row: the
 * samples not yet framed (queue, capacity each) and their count (counts). valid is 1 when every frame of the
 * run was complete; an incomplete frame is written as zeros.
 */
struct usmp_signal_framer_params {
	int32_t rows;
	int32_t frames; /* per row and run: input samples / frame_step */
	int32_t frame_size;
	int32_t frame_step;
	int32_t capacity;
};

void usmp_signal_framer(const struct usmp_signal_framer_params *p, const int16_t *input, int16_t *queue,
			int32_t *counts, int16_t *output, uint8_t *valid);

/*
 * SignalOverlapAdd: each frame added onto the row's running sum (state: frame_size values), whose first
 * frame_step values come out; int16 sums saturate.
 */
struct usmp_signal_overlap_add_params {
	int32_t rows;
	int32_t frames;
	int32_t frame_size;
	int32_t frame_step;
};

void usmp_signal_overlap_add_s16(const struct usmp_signal_overlap_add_params *p, const int16_t *input,
				 int16_t *state, int16_t *output);
void usmp_signal_overlap_add_f32(const struct usmp_signal_overlap_add_params *p, const float *input, float *state,
				 float *output);

/*
 * SignalStacker: frames of channels stacked with left and right context (the first frame repeated as the left
 * context of the stream's start), one stack every step frames. State: the frames waiting (queue) and, in
 * status, their count and whether the first frame was seen.
 */
struct usmp_signal_stacker_params {
	int32_t channels;
	int32_t left_context;
	int32_t stack_size; /* channels * (left + right + 1) */
	int32_t step_size;  /* channels * step */
};

void usmp_signal_stacker(const struct usmp_signal_stacker_params *p, const int16_t *input, int16_t *queue,
			 int32_t *status, int16_t *output, uint8_t *valid);

#endif /* USMP_KERNELS_SIGNAL_H */
