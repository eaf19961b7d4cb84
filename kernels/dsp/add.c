/*
 * ADD of two int8 tensors of one shape on the DSP extension (see usmp_kernels/dsp.h).
 *
 * TFLite's arithmetic without 64-bit products: each input, plus its offset and shifted left by 20, is
 * rescaled as (SMMLAR of it doubled with round - (sign)) >> e, the way the matrix kernels requantize; an
 * input whose rescaling is an exact halving (the larger scale of the two: multiplier 2^30, shift 0) is only
 * shifted. The two are summed doubled, requantized to the output the same way with its offset folded into
 * the rounding, saturated and clamped. The compiler lays the constants out (select/dsp.py).
 */
#include "usmp_kernels/dsp.h"

#include "dsp_ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#define DSP_HOT __attribute__((optimize("O2")))
#else
#define DSP_HOT
#endif

/* Input i's rescaled value, doubled. */
DSP_INLINE int32_t doubled_input(int8_t x, int32_t offset, int32_t multiplier, int32_t round, int32_t shift,
				 int halved)
{
	int32_t pre;

	if (halved) /* (x + offset) << 19, doubled; offset is pre-shifted by 20 */
		return (int32_t)((uint32_t)(int32_t)x << 20) + offset;
	pre = (int32_t)((uint32_t)(int32_t)x << 21) + offset; /* (x + offset) << 20, doubled */
	return (int32_t)((uint32_t)(dsp_smmlar(pre, multiplier, round + (pre >> 31)) >> shift) << 1);
}

DSP_INLINE void add_all(const struct usmp_dsp_add_params *p, const int8_t *input1, const int8_t *input2,
			int8_t *output, int halved1, int halved2)
{
	const int32_t offset1 = p->offset1, multiplier1 = p->multiplier1, round1 = p->round1, shift1 = p->shift1;
	const int32_t offset2 = p->offset2, multiplier2 = p->multiplier2, round2 = p->round2, shift2 = p->shift2;
	const int32_t multiplier = p->multiplier, round = p->round, shift = p->shift;
	int8_t *const end = output + p->size;

	while (output != end) {
		const int32_t sum = doubled_input(*input1++, offset1, multiplier1, round1, shift1, halved1) +
				    doubled_input(*input2++, offset2, multiplier2, round2, shift2, halved2);

		*output++ = (int8_t)dsp_ssat8(dsp_smmlar(sum, multiplier, round + (sum >> 31)) >> shift);
	}
}

/* A narrower activation than int8 is clamped after the loop, four outputs an instruction pair. */
DSP_HOT void usmp_dsp_add_s8(const struct usmp_dsp_add_params *p, const int8_t *input1, const int8_t *input2,
			     int8_t *output)
{
	switch (p->halved) {
	case 0:
		add_all(p, input1, input2, output, 0, 0);
		break;
	case 1:
		add_all(p, input1, input2, output, 1, 0);
		break;
	case 2:
		add_all(p, input1, input2, output, 0, 1);
		break;
	default:
		add_all(p, input1, input2, output, 1, 1);
	}
	if (p->act_min > -128 || p->act_max < 127)
		dsp_clamp_outputs(output, p->size, p->act_min, p->act_max);
}
