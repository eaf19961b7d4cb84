/* SignalFilterBankLog: see usmp_kernels/signal.h. */
#include "usmp_kernels.h"

#define LOG_SEGMENT_BITS 7 /* the table has 2^7 segments (+ 2 entries) over one octave */
#define LOG_SCALE_BITS 16
#define LN2_Q16 45426u /* ln(2) * 2^16 */

/* log2(x) in 16 fractional bits: the octave, plus the mantissa corrected by the interpolated table. */
static uint32_t log2_q16(uint32_t x, const uint16_t *table)
{
	const int32_t octave = usmp_msb32(x) - 1;
	int32_t fraction = (int32_t)(x - ((uint32_t)1 << octave));
	int32_t segment, c0, c1, within;

	if (octave < LOG_SCALE_BITS) {
		fraction = (int32_t)((uint32_t)fraction << (LOG_SCALE_BITS - octave));
	} else {
		fraction >>= octave - LOG_SCALE_BITS;
	}
	segment = fraction >> (LOG_SCALE_BITS - LOG_SEGMENT_BITS);
	c0 = table[segment];
	c1 = table[segment + 1];
	within = usmp_asr32((c1 - c0) * (fraction - (segment << (LOG_SCALE_BITS - LOG_SEGMENT_BITS))), LOG_SCALE_BITS);
	return ((uint32_t)octave << LOG_SCALE_BITS) + (uint32_t)(fraction + c0 + within);
}

void usmp_signal_filter_bank_log(const struct usmp_signal_filter_bank_log_params *p, const uint32_t *input,
				 const uint16_t *log_table, int16_t *output)
{
	const uint32_t half = 1u << (LOG_SCALE_BITS - 1);
	int32_t i;

	for (i = 0; i < p->channels; i++) {
		const uint32_t scaled = input[i] << p->correction_bits;
		uint32_t ln, value;

		if (scaled <= 1) {
			output[i] = 0;
			continue;
		}
		ln = (uint32_t)(((uint64_t)LN2_Q16 * log2_q16(scaled, log_table) + half) >> LOG_SCALE_BITS);
		value = (p->output_scale * ln + half) >> LOG_SCALE_BITS;
		output[i] = (int16_t)(value < (uint32_t)INT16_MAX ? value : (uint32_t)INT16_MAX);
	}
}
