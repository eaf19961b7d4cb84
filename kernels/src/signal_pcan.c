/* SignalPCAN: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

#define PCAN_SNR_BITS 12
#define PCAN_OUTPUT_BITS 6

/* The gain for a noise estimate: a quadratic per octave, from a table of 3 coefficients each (+ 3 for 0..2). */
static int16_t pcan_gain(uint32_t x, const int16_t *table)
{
	int32_t octave, position, result;

	if (x <= 2) {
		return table[x];
	}
	octave = usmp_msb32(x);
	table += 4 * octave - 6;
	position = (int32_t)((octave < 11 ? x << (11 - octave) : x >> (octave - 11)) & 0x3FF);
	result = usmp_asr32((int32_t)table[2] * position, 5);
	result = (int32_t)((uint32_t)result + ((uint32_t)(int32_t)table[1] << 5));
	result = (int32_t)((uint32_t)result * (uint32_t)position);
	result = usmp_asr32((int32_t)((uint32_t)result + (1u << 14)), 15);
	return usmp_wrap16(result + table[0]);
}

/* Compression of the signal-to-noise ratio: quadratic below 2 (in 12 fractional bits), linear above. */
static uint32_t pcan_shrink(uint32_t snr)
{
	if (snr < (2u << PCAN_SNR_BITS)) {
		return (snr * snr) >> (2 + 2 * PCAN_SNR_BITS - PCAN_OUTPUT_BITS);
	}
	return (snr >> (PCAN_SNR_BITS - PCAN_OUTPUT_BITS)) - (1u << PCAN_OUTPUT_BITS);
}

void usmp_signal_pcan(const struct usmp_signal_pcan_params *p, const uint32_t *input, const uint32_t *noise,
		      const int16_t *gain_table, uint32_t *output)
{
	int32_t i;

	for (i = 0; i < p->channels; i++) {
		const uint32_t gain = (uint32_t)(int32_t)pcan_gain(noise[i], gain_table);
		const uint32_t snr = (uint32_t)(((uint64_t)input[i] * gain) >> p->snr_shift);

		output[i] = pcan_shrink(snr);
	}
}
