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
		float f;
		uint32_t u;
	} v;

	v.f = x;
	return v.u;
}

/* A finite nonzero magnitude's bits as mantissa * 2^(exponent - 150), mantissa in [2^23, 2^24). */
static void unpack_magnitude(uint32_t bits, uint32_t *mantissa, int32_t *exponent)
{
	uint32_t m = bits & 0x7fffffu;
	int32_t e = (int32_t)(bits >> 23);

	if (e == 0) { /* subnormal: normalise */
		e = 1;
		while (!(m & 0x800000u)) {
			m <<= 1;
			e--;
		}
	} else {
		m |= 0x800000u;
	}
	*mantissa = m;
	*exponent = e;
}

/*
 * The remainder of x / y with the sign of x, computed exactly by long
 * division of the mantissas (the result is always representable).
 */
float usmp_fmodf(float x, float y)
{
	const uint32_t bx = to_bits(x);
	const uint32_t ax = bx & 0x7fffffffu;
	const uint32_t ay = to_bits(y) & 0x7fffffffu;
	uint32_t mx, my;
	int32_t ex, ey;

	if (ay == 0u || ax >= 0x7f800000u || ay > 0x7f800000u) {
		return from_bits(0x7fc00000u); /* y zero or nan, x infinite or nan */
	}
	if (ax < ay) {
		return x; /* includes x == 0 and y infinite */
	}
	unpack_magnitude(ax, &mx, &ex);
	unpack_magnitude(ay, &my, &ey);
	for (; ex > ey; ex--) {
		if (mx >= my) {
			mx -= my;
		}
		mx <<= 1;
	}
	if (mx >= my) {
		mx -= my;
	}
	if (mx == 0u) {
		return from_bits(bx & 0x80000000u);
	}
	while (!(mx & 0x800000u)) {
		mx <<= 1;
		ey--;
	}
	if (ey <= 0) { /* subnormal result: the bits shifted out are zero */
		return from_bits((bx & 0x80000000u) | (mx >> (1 - ey)));
	}
	return from_bits((bx & 0x80000000u) | ((uint32_t)ey << 23) | (mx & 0x7fffffu));
}

/* Largest integer not above x; nan, infinities, zeros and integers above 2^52 are returned as they are. */
double usmp_floor(double x)
{
	double t;

	if (!(x > -4503599627370496.0 && x < 4503599627370496.0) || x == 0.0) {
		return x;
	}
	t = (double)(int64_t)x;
	return t > x ? t - 1.0 : t;
}
