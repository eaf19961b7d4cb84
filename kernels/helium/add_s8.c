/*
 * ADD of two int8 tensors of one shape on Helium (see usmp_kernels/helium.h).
 *
 * TFLite's arithmetic four lanes at a time: each input offset and shifted
 * left (left_shift, then its own left shift), brought to the common scale
 * (VQRDMULH, then its rounding right shift), the two summed and the sum
 * requantized the same way, offset and clamped. Every right shift rounds
 * halves away from zero as TFLite's RoundingDivideByPOT: VRSHL rounds them up,
 * so negative values are lowered by one first where there is a shift.
 */
#include "usmp_kernels/helium.h"

#include "usmp_kernels/arith.h"

#include "helium_ops.h"

#if USMP_HELIUM_NATIVE
/* x * 2^left requantized by multiplier, then divided by 2^right (right >= 0), as TFLite rounds it; `right_only`:
 * left is 0 and right above 0 (no shift left, no mask for the rounding fix). */
HELIUM_INLINE int32x4_t add_rescale(int32x4_t x, int32_t left, int32_t multiplier, int32_t right, int right_only)
{
	if (right_only) {
		x = vqrdmulhq_n_s32(x, multiplier);
		return vrshlq_n_s32(vqaddq_s32(x, vshrq_n_s32(x, 31)), -right);
	}
	x = vqrdmulhq_n_s32(vshlq_r_s32(x, left), multiplier);
	return vrshlq_n_s32(vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, vdupq_n_s32(right ? -1 : 0)), 31)), -right);
}

/* Four elements: their sum requantized, offset and clamped. `plain`: input2 has the larger scale, so TFLite
 * rescales it by exactly one half (multiplier 2^30, shift 0: VQRDMULH of an even value halves it), and input1's
 * shift and the output's are right shifts: the common case, a shift for input2 and no masks. */
HELIUM_INLINE int32x4_t add_four(int32x4_t a, int32x4_t b, const struct usmp_helium_add_params *k, int plain)
{
	int32x4_t sum;

	if (plain) {
		a = add_rescale(vshlq_r_s32(vaddq_n_s32(a, k->input1_offset), k->left_shift), 0, k->input1_multiplier,
				-k->input1_shift, 1);
		b = vshlq_r_s32(vaddq_n_s32(b, k->input2_offset), k->left_shift - 1);
		sum = add_rescale(vaddq_s32(a, b), 0, k->output_multiplier, -k->output_shift, 1);
	} else {
		const int32_t left1 = k->left_shift + (k->input1_shift > 0 ? k->input1_shift : 0);
		const int32_t left2 = k->left_shift + (k->input2_shift > 0 ? k->input2_shift : 0);

		a = add_rescale(vaddq_n_s32(a, k->input1_offset), left1, k->input1_multiplier,
				k->input1_shift < 0 ? -k->input1_shift : 0, 0);
		b = add_rescale(vaddq_n_s32(b, k->input2_offset), left2, k->input2_multiplier,
				k->input2_shift < 0 ? -k->input2_shift : 0, 0);
		sum = add_rescale(vaddq_s32(a, b), k->output_shift > 0 ? k->output_shift : 0, k->output_multiplier,
				  k->output_shift < 0 ? -k->output_shift : 0, 0);
	}
	return vminq_s32(vmaxq_s32(vaddq_n_s32(sum, k->output_offset), vdupq_n_s32(k->act_min)), vdupq_n_s32(k->act_max));
}

/* The whole vectors, then the last few elements under a predicate. */
HELIUM_INLINE void add_all(const struct usmp_helium_add_params *k, const int8_t *input1, const int8_t *input2,
			   int8_t *output, int plain)
{
	const int32_t whole = k->size & ~3;
	int32_t i = 0;

	for (; i < whole; i += 4)
		vstrbq_s32(output + i, add_four(vldrbq_s32(input1 + i), vldrbq_s32(input2 + i), k, plain));
	if (i < k->size) {
		const mve_pred16_t lanes = vctp32q((uint32_t)(k->size - i));

		vstrbq_p_s32(output + i, add_four(vldrbq_z_s32(input1 + i, lanes), vldrbq_z_s32(input2 + i, lanes), k, plain),
			     lanes);
	}
}

HELIUM_HOT void usmp_helium_add_s8(const struct usmp_helium_add_params *p, const int8_t *input1,
				   const int8_t *input2, int8_t *output)
{
	struct usmp_helium_add_params k = *p; /* in registers: the stores may alias p */
	const int half1 = k.input1_multiplier == 1 << 30 && k.input1_shift == 0;
	const int half2 = k.input2_multiplier == 1 << 30 && k.input2_shift == 0;

	if (half1 && !half2) { /* the sum is symmetric: input2 the one with the larger scale */
		const int8_t *t = input1;

		input1 = input2;
		input2 = t;
		k.input1_offset = p->input2_offset;
		k.input2_offset = p->input1_offset;
		k.input1_multiplier = p->input2_multiplier;
		k.input1_shift = p->input2_shift;
	}
	if ((half1 || half2) && k.input1_shift < 0 && k.output_shift < 0)
		add_all(&k, input1, input2, output, 1);
	else
		add_all(&k, input1, input2, output, 0);
}
#else
/* The same a value at a time (the host tests, builds without Helium). */
void usmp_helium_add_s8(const struct usmp_helium_add_params *p, const int8_t *input1, const int8_t *input2,
			int8_t *output)
{
	const int32_t headroom = (int32_t)1 << p->left_shift;

	for (int32_t i = 0; i < p->size; i++) {
		const int32_t a = usmp_mul_by_quantized_multiplier((p->input1_offset + input1[i]) * headroom,
								   p->input1_multiplier, p->input1_shift);
		const int32_t b = usmp_mul_by_quantized_multiplier((p->input2_offset + input2[i]) * headroom,
								   p->input2_multiplier, p->input2_shift);
		const int32_t sum = usmp_mul_by_quantized_multiplier(a + b, p->output_multiplier, p->output_shift);

		output[i] = (int8_t)usmp_clamp(sum + p->output_offset, p->act_min, p->act_max);
	}
}
#endif
