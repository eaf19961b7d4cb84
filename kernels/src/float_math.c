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

static uint32_t to_bits(float x)
{
	union {
		uint32_t u;
		float f;
	} v;

	v.f = x;
	return v.u;
}

/*
 * sqrt(x) correctly rounded, as IEEE's sqrtf is: x = m * 2^(2e) with an
 * integer m, the integer square root of m (scaled to 48 bits) gives 24 bits,
 * and the remainder decides the rounding (a tie cannot happen).
 */
float usmp_sqrtf(float x)
{
	uint32_t bits = to_bits(x);
	int32_t e = (int32_t)((bits >> 23) & 0xffu);
	uint32_t m = bits & 0x7fffffu;
	uint64_t n, q = 0, rem = 0;
	int32_t i;

	if (x != x || x == 0.0f || bits == 0x7f800000u) {
		return x; /* NaN, +-0 and +inf are their own roots */
	}
	if (bits >> 31) {
		return from_bits(0x7fc00000u); /* negative: NaN */
	}
	if (e == 0) { /* subnormal: normalise */
		e = 1;
		while (!(m & 0x800000u)) {
			m <<= 1;
			e--;
		}
	} else {
		m |= 0x800000u;
	}
	e -= 127; /* x = m * 2^(e - 23) */
	if (e & 1) {
		m <<= 1;
		e--;
	}
	/* sqrt(m * 2^23) has 24 integer bits: take them two input bits at a time. */
	n = (uint64_t)m << 23;
	for (i = 23; i >= 0; i--) {
		rem = (rem << 2) | ((n >> (2 * i)) & 3u);
		q <<= 1;
		if (rem >= 2 * q + 1) {
			rem -= 2 * q + 1;
			q++;
		}
	}
	/* sqrt > q + 1/2 exactly when rem > q. */
	q += rem > q ? 1u : 0u;
	return from_bits((uint32_t)((e / 2 + 126) << 23) + (uint32_t)q);
}

#define SQRT_HALF 0.70710678118654752f

/*
 * log(x) = k * ln 2 + log(1 + f) with 1 + f in [sqrt(1/2), sqrt(2)): writing
 * s = f / (2 + f), log(1 + f) = 2s + s * R(s^2), R an odd series that
 * converges fast for |s| < 0.172.
 */
float usmp_logf(float x)
{
	uint32_t bits = to_bits(x);
	int32_t k = 0;
	float m, f, s, z, r;

	if (x != x || bits == 0x7f800000u) {
		return x; /* NaN, +inf */
	}
	if (x == 0.0f) {
		return -from_bits(0x7f800000u);
	}
	if (bits >> 31) {
		return from_bits(0x7fc00000u);
	}
	if (bits < 0x800000u) { /* subnormal: scale by 2^25 */
		bits = to_bits(x * 33554432.0f);
		k = -25;
	}
	k += (int32_t)(bits >> 23) - 127;
	m = from_bits((bits & 0x7fffffu) | 0x3f800000u); /* [1, 2) */
	if (m > 2.0f * SQRT_HALF) {
		m *= 0.5f; /* exact */
		k++;
	}
	f = m - 1.0f; /* exact */
	s = f / (2.0f + f);
	z = s * s;
	r = z * (2.0f / 3.0f + z * (2.0f / 5.0f + z * (2.0f / 7.0f + z * (2.0f / 9.0f + z * (2.0f / 11.0f)))));
	/* 2s = f - s * f: keeps f's exact leading bits. */
	return ((float)k * LN2_LO + (s * r - s * f + f)) + (float)k * LN2_HI;
}
