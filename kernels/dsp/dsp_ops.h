/*
 * The DSP instructions the kernels of this directory use, as inline functions:
 * the instruction itself on cores with the DSP extension, the same result in
 * plain C elsewhere (the host tests run these kernels under the sanitizers).
 * A 32-bit word holds two int16 lanes (lane 0 in the low half) or four int8.
 */
#ifndef USMP_DSP_OPS_H
#define USMP_DSP_OPS_H

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define USMP_DSP_NATIVE 1
#include <arm_acle.h>
#else
#define USMP_DSP_NATIVE 0
#endif

#define DSP_INLINE static inline __attribute__((always_inline))

/* Four bytes from any address (the DSP cores load words unaligned). */
DSP_INLINE uint32_t dsp_read32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

DSP_INLINE void dsp_write32(void *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

DSP_INLINE int32_t dsp_lane0(uint32_t x)
{
	return (int16_t)(x & 0xFFFFu);
}

DSP_INLINE int32_t dsp_lane1(uint32_t x)
{
	return (int16_t)(x >> 16);
}

DSP_INLINE uint32_t dsp_pair(int32_t lane0, int32_t lane1)
{
	return ((uint32_t)lane0 & 0xFFFFu) | ((uint32_t)lane1 << 16);
}

/* Bytes 0 and 2 of x, sign-extended, each plus the int16 lanes of offset (SXTAB16). */
DSP_INLINE uint32_t dsp_sxtab16(uint32_t offset, uint32_t x)
{
#if USMP_DSP_NATIVE
	return (uint32_t)__sxtab16((int16x2_t)offset, (int8x4_t)x);
#else
	return dsp_pair(dsp_lane0(offset) + (int8_t)(x & 0xFF), dsp_lane1(offset) + (int8_t)((x >> 16) & 0xFF));
#endif
}

/* Bytes 1 and 3 of x, sign-extended, plus offset (SXTAB16 with ROR #8). */
DSP_INLINE uint32_t dsp_sxtab16_odd(uint32_t offset, uint32_t x)
{
#if USMP_DSP_NATIVE
	uint32_t r;

	__asm("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(offset), "r"(x));
	return r;
#else
	return dsp_sxtab16(offset, x >> 8);
#endif
}

/* Bytes 0 and 2 of x, sign-extended (SXTB16). */
DSP_INLINE uint32_t dsp_sxtb16(uint32_t x)
{
#if USMP_DSP_NATIVE
	return (uint32_t)__sxtb16((int8x4_t)x);
#else
	return dsp_sxtab16(0, x);
#endif
}

/* Bytes 1 and 3 of x, sign-extended (SXTB16 with ROR #8). */
DSP_INLINE uint32_t dsp_sxtb16_odd(uint32_t x)
{
#if USMP_DSP_NATIVE
	uint32_t r;

	__asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
	return r;
#else
	return dsp_sxtab16(0, x >> 8);
#endif
}

/* acc + x.lane0 * y.lane0 + x.lane1 * y.lane1 (SMLAD; the sums never overflow here). */
DSP_INLINE int32_t dsp_smlad(uint32_t x, uint32_t y, int32_t acc)
{
#if USMP_DSP_NATIVE
	return __smlad((int16x2_t)x, (int16x2_t)y, acc);
#else
	return acc + dsp_lane0(x) * dsp_lane0(y) + dsp_lane1(x) * dsp_lane1(y);
#endif
}

/* acc + x.lane0 * y.lane1 (SMLABT). */
DSP_INLINE int32_t dsp_smlabt(uint32_t x, uint32_t y, int32_t acc)
{
#if USMP_DSP_NATIVE
	return __smlabt((int32_t)x, (int32_t)y, acc);
#else
	return acc + dsp_lane0(x) * dsp_lane1(y);
#endif
}

/* acc + x.lane1 * y.lane0 (SMLATB). */
DSP_INLINE int32_t dsp_smlatb(uint32_t x, uint32_t y, int32_t acc)
{
#if USMP_DSP_NATIVE
	return __smlatb((int32_t)x, (int32_t)y, acc);
#else
	return acc + dsp_lane1(x) * dsp_lane0(y);
#endif
}

/* acc + x.lane0 * y.lane0 (SMLABB). */
DSP_INLINE int32_t dsp_smlabb(uint32_t x, uint32_t y, int32_t acc)
{
#if USMP_DSP_NATIVE
	return __smlabb((int32_t)x, (int32_t)y, acc);
#else
	return acc + dsp_lane0(x) * dsp_lane0(y);
#endif
}

/* acc + x.lane1 * y.lane1 (SMLATT). */
DSP_INLINE int32_t dsp_smlatt(uint32_t x, uint32_t y, int32_t acc)
{
#if USMP_DSP_NATIVE
	return __smlatt((int32_t)x, (int32_t)y, acc);
#else
	return acc + dsp_lane1(x) * dsp_lane1(y);
#endif
}

/* (a.lane0, b.lane0) (PKHBT ..., LSL #16). */
DSP_INLINE uint32_t dsp_lanes0(uint32_t a, uint32_t b)
{
#if USMP_DSP_NATIVE
	uint32_t r;

	__asm("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
	return r;
#else
	return (a & 0xFFFFu) | (b << 16);
#endif
}

/* (a.lane1, b.lane1) (PKHTB ..., ASR #16). */
DSP_INLINE uint32_t dsp_lanes1(uint32_t a, uint32_t b)
{
#if USMP_DSP_NATIVE
	uint32_t r;

	__asm("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(b), "r"(a));
	return r;
#else
	return (b & 0xFFFF0000u) | (a >> 16);
#endif
}

/* c + ((a * b + 2^31) >> 32) (SMMLAR: the rounded high word of the product, plus c). */
DSP_INLINE int32_t dsp_smmlar(int32_t a, int32_t b, int32_t c)
{
#if USMP_DSP_NATIVE
	int32_t r;

	__asm("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
#else
	return c + (int32_t)(((int64_t)a * b + ((int64_t)1 << 31)) >> 32);
#endif
}

/* c + ((a * b) >> 32) (SMMLA: the high word of the product, rounded down, plus c). */
DSP_INLINE int32_t dsp_smmla(int32_t a, int32_t b, int32_t c)
{
#if USMP_DSP_NATIVE
	int32_t r;

	__asm("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
#else
	return c + (int32_t)(((int64_t)a * b) >> 32);
#endif
}

/* x saturated to int16 (SSAT #16). */
DSP_INLINE int32_t dsp_ssat16(int32_t x)
{
#if USMP_DSP_NATIVE
	return __ssat(x, 16);
#else
	return x < -32768 ? -32768 : (x > 32767 ? 32767 : x);
#endif
}

/* x saturated to int8 (SSAT #8). */
DSP_INLINE int32_t dsp_ssat8(int32_t x)
{
#if USMP_DSP_NATIVE
	return __ssat(x, 8);
#else
	return x < -128 ? -128 : (x > 127 ? 127 : x);
#endif
}

/*
 * TFLite's requantization of a doubled sum (see usmp_kernels/dsp.h), saturated to int8. With
 * t = (doubled * multiplier + 2^31) >> 32, TFLite's result is (t - (t < 0) + round) >> shift. The sum's sign
 * stands in for t's: they differ only where t is 0 and the sum negative, and there both give
 * round >> shift (round is 2^(shift-1) modulo 2^shift). So SMMLAR adds the product's high word to
 * round - (sum < 0) in one instruction; then the shift, SSAT.
 */
DSP_INLINE int32_t dsp_requantize(int32_t doubled, int32_t multiplier, int32_t round, int32_t shift)
{
	return dsp_ssat8(dsp_smmlar(doubled, multiplier, round + (doubled >> 31)) >> shift);
}

/* Four int8 lanes of x clamped to [lo, hi] lane by lane (SSUB8 and SEL). */
DSP_INLINE uint32_t dsp_clamp8x4(uint32_t x, uint32_t lo, uint32_t hi)
{
#if USMP_DSP_NATIVE
	(void)__ssub8((int8x4_t)x, (int8x4_t)lo);
	x = __sel((uint8x4_t)x, (uint8x4_t)lo);
	(void)__ssub8((int8x4_t)hi, (int8x4_t)x);
	return __sel((uint8x4_t)x, (uint8x4_t)hi);
#else
	uint32_t r = 0;
	int lane;

	for (lane = 0; lane < 32; lane += 8) {
		int32_t v = (int8_t)(x >> lane);
		const int32_t l = (int8_t)(lo >> lane), h = (int8_t)(hi >> lane);

		v = v < l ? l : (v > h ? h : v);
		r |= ((uint32_t)v & 0xFFu) << lane;
	}
	return r;
#endif
}

/* Every byte of out[0, n) clamped to [act_min, act_max] (only layers whose activation is narrower than int8). */
static inline void dsp_clamp_outputs(int8_t *out, int32_t n, int32_t act_min, int32_t act_max)
{
	const uint32_t lo = 0x01010101u * (uint8_t)act_min, hi = 0x01010101u * (uint8_t)act_max;

	for (; n >= 4; n -= 4, out += 4)
		dsp_write32(out, dsp_clamp8x4(dsp_read32(out), lo, hi));
	for (; n > 0; n--, out++)
		*out = (int8_t)(*out < act_min ? act_min : (*out > act_max ? act_max : *out));
}

/* Two int16 lanes of x clamped to [lo, hi] lane by lane (SSUB16 and SEL). */
DSP_INLINE uint32_t dsp_clamp16x2(uint32_t x, uint32_t lo, uint32_t hi)
{
#if USMP_DSP_NATIVE
	(void)__ssub16((int16x2_t)x, (int16x2_t)lo);
	x = __sel((uint8x4_t)x, (uint8x4_t)lo);
	(void)__ssub16((int16x2_t)hi, (int16x2_t)x);
	return __sel((uint8x4_t)x, (uint8x4_t)hi);
#else
	const int32_t l = dsp_lane0(lo), h = dsp_lane0(hi);
	int32_t a = dsp_lane0(x), b = dsp_lane1(x);

	a = a < l ? l : (a > h ? h : a);
	b = b < l ? l : (b > h ? h : b);
	return dsp_pair(a, b);
#endif
}

/* Every value of out[0, n) clamped to [act_min, act_max] (only layers whose activation is narrower than int16). */
static inline void dsp_clamp_outputs16(int16_t *out, int32_t n, int32_t act_min, int32_t act_max)
{
	const uint32_t lo = dsp_pair(act_min, act_min), hi = dsp_pair(act_max, act_max);

	for (; n >= 2; n -= 2, out += 2)
		dsp_write32(out, dsp_clamp16x2(dsp_read32(out), lo, hi));
	if (n > 0)
		*out = (int16_t)(*out < act_min ? act_min : (*out > act_max ? act_max : *out));
}

#endif /* USMP_DSP_OPS_H */
