/*
 * exp(x) = 2^k * exp(r), with k = round(x / ln 2) and |r| <= ln(2) / 2:
 * ln 2 is split in two parts (the high part has few mantissa bits, so k * high
 * is exact) and exp(r) is a degree-7 Taylor polynomial, whose truncation error
 * (r^8 / 8!) is below float's half ULP on that interval.
 */
#include <stdint.h>

#include "usmp_kernels/float_math.h"

#define LN2_HI 0.693145751953125f /* 12 significant bits: k * LN2_HI is exact */
#define LN2_LO 1.428606765330187e-06f
#define LOG2E 1.44269504088896341f
#define EXP_OVERFLOW 88.7228393554688f
#define EXP_UNDERFLOW (-103.972076416015625f)
#define EXPM1_SMALL 0.3465735903f /* ln(2) / 2 */

static float from_bits(uint32_t bits)
{
	union {
		uint32_t u;
		float f;
	} v;

	v.u = bits;
	return v.f;
}

/* 2^k for -126 <= k <= 127, built from its exponent bits. */
static float power_of_two(int32_t k)
{
	return from_bits((uint32_t)(k + 127) << 23);
}

/* exp(r) - 1 for |r| <= ln(2) / 2, accurate relative to the result. */
static float expm1_small(float r)
{
	float p = 1.0f / 40320.0f;

	p = p * r + 1.0f / 5040.0f;
	p = p * r + 1.0f / 720.0f;
	p = p * r + 1.0f / 120.0f;
	p = p * r + 1.0f / 24.0f;
	p = p * r + 1.0f / 6.0f;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	return p * r;
}

float usmp_expf(float x)
{
	int32_t k;
	float r;
	float e;

	if (x != x) {
		return x; /* NaN */
	}
	if (x > EXP_OVERFLOW) {
		return from_bits(0x7f800000u); /* +inf */
	}
	if (x < EXP_UNDERFLOW) {
		return 0.0f;
	}
	k = (int32_t)(x * LOG2E + (x >= 0.0f ? 0.5f : -0.5f));
	r = (x - (float)k * LN2_HI) - (float)k * LN2_LO;
	e = 1.0f + expm1_small(r);
	if (k > 127) {
		return e * power_of_two(127) * 2.0f;
	}
	if (k < -126) {
		return e * power_of_two(k + 64) * power_of_two(-64);
	}
	return e * power_of_two(k);
}

/* tanh(x) = e / (e + 2) with e = exp(2|x|) - 1, computed without cancellation. */
float usmp_tanhf(float x)
{
	const float ax = x < 0.0f ? -x : x;
	float e;
	float t;

	if (x != x) {
		return x;
	}
	if (ax > 9.1f) { /* tanh(9.1) rounds to 1.0f */
		return x < 0.0f ? -1.0f : 1.0f;
	}
	e = 2.0f * ax <= EXPM1_SMALL ? expm1_small(2.0f * ax) : usmp_expf(2.0f * ax) - 1.0f;
	t = e / (e + 2.0f);
	return x < 0.0f ? -t : t;
}
