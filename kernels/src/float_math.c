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

/*
 * exp(x) - 1 without cancellation near 0 (ELU): with x = k ln 2 + r as in
 * usmp_expf, it is 2^k * (exp(r) - 1) + (2^k - 1), both parts nearly exact.
 */
float usmp_expm1f(float x)
{
	int32_t k;
	float r;
	float p;
	float scale;

	if (x != x) {
		return x;
	}
	if (x < -20.0f) { /* exp(-20) is below half an ULP of 1 */
		return -1.0f;
	}
	if (x > 80.0f) { /* the - 1 no longer matters */
		return usmp_expf(x);
	}
	k = (int32_t)(x * LOG2E + (x >= 0.0f ? 0.5f : -0.5f));
	r = (x - (float)k * LN2_HI) - (float)k * LN2_LO;
	p = expm1_small(r);
	if (k == 0) {
		return p;
	}
	scale = power_of_two(k);
	return scale * p + (scale - 1.0f);
}

#define FLOAT_NAN 0x7fc00000u
#define FLOAT_INF 0x7f800000u

/*
 * Correctly rounded square root, one result bit at a time on the integer
 * mantissa (shifts, adds and compares only: no division, no 64-bit words).
 */
float usmp_sqrtf(float x)
{
	uint32_t bits = to_bits(x);
	int32_t exponent = (int32_t)((bits >> 23) & 0xffu);
	uint32_t mantissa = bits & 0x7fffffu;
	uint32_t root = 0;
	uint32_t bit;
	uint32_t rest;

	if ((bits & 0x7fffffffu) == 0) {
		return x; /* +0 or -0 */
	}
	if (bits & 0x80000000u) {
		return from_bits(FLOAT_NAN); /* negative, or -NaN */
	}
	if (exponent == 0xff) {
		return x; /* +inf or NaN */
	}
	if (exponent == 0) { /* subnormal: normalize */
		exponent = 1;
		while ((mantissa & 0x800000u) == 0) {
			mantissa <<= 1;
			exponent--;
		}
	} else {
		mantissa |= 0x800000u;
	}
	exponent -= 127;
	if (exponent & 1) { /* make the exponent even: value = mantissa * 2^(exponent - 23) */
		mantissa <<= 1;
		exponent--;
	}
	/* rest holds mantissa * 2 so that the root comes out with 25 bits (24 plus a rounding bit) */
	rest = mantissa << 1;
	for (bit = 1u << 24; bit != 0; bit >>= 1) {
		const uint32_t trial = root + bit;

		if (rest >= trial) {
			rest -= trial;
			root = trial + bit;
		}
		rest <<= 1;
	}
	/* root is twice the 25-bit root; its last bit is the rounding bit */
	root >>= 1;
	if ((root & 1u) && (rest != 0 || (root & 2u))) {
		root += 2u; /* above the half way point, or exactly on it with an odd result */
	}
	root >>= 1;
	return from_bits((uint32_t)((exponent / 2 + 126) << 23) + root);
}

#define SQRT_HALF 0.70710678118654752f

/* log(x) = k ln 2 + log(m) with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh((m - 1) / (m + 1)). */
float usmp_logf(float x)
{
	uint32_t bits = to_bits(x);
	int32_t k = 0;
	float m;
	float s;
	float z;
	float series;

	if (x != x) {
		return x;
	}
	if (x < 0.0f) {
		return from_bits(FLOAT_NAN);
	}
	if (x == 0.0f) {
		return -from_bits(FLOAT_INF);
	}
	if (bits == FLOAT_INF) {
		return x;
	}
	if ((bits >> 23) == 0) { /* subnormal: scale up by 2^25 */
		bits = to_bits(x * 33554432.0f);
		k = -25;
	}
	k += (int32_t)(bits >> 23) - 127;
	m = from_bits((bits & 0x7fffffu) | 0x3f800000u); /* [1, 2) */
	if (m > 2.0f * SQRT_HALF) {
		m *= 0.5f;
		k++;
	}
	s = (m - 1.0f) / (m + 1.0f);
	z = s * s;
	series = z * (1.0f / 3.0f + z * (1.0f / 5.0f + z * (1.0f / 7.0f + z * (1.0f / 9.0f + z * (1.0f / 11.0f)))));
	return (float)k * LN2_HI + ((float)k * LN2_LO + (2.0f * s + 2.0f * s * series));
}

/*
 * pi/2 in four parts (Cody-Waite): the first three have 8 significant bits, so k times each
 * is exact for |k| < 2^16, and x - k pi/2 loses nothing up to |x| = 2^16 pi/2
 * (about 1e5).
 */
#define PIO2_1 1.5703125f
#define PIO2_2 4.825592041015625e-04f
#define PIO2_3 1.2665987014770508e-06f
#define PIO2_4 9.92093629470503e-10f
#define TWO_OVER_PI 0.636619772367581343f

/* sin(r) and cos(r) for |r| <= pi/4 (a little beyond is fine): Taylor polynomials. */
static float sin_small(float r)
{
	const float z = r * r;

	return r + r * z * (-1.0f / 6.0f + z * (1.0f / 120.0f + z * (-1.0f / 5040.0f + z * (1.0f / 362880.0f))));
}

static float cos_small(float r)
{
	const float z = r * r;

	return 1.0f + z * (-0.5f + z * (1.0f / 24.0f + z * (-1.0f / 720.0f + z * (1.0f / 40320.0f +
										  z * (-1.0f / 3628800.0f)))));
}

/* 2/pi in binary, 32 bits a word: 2/pi = 0.a2f9836e 4e441529 ... (hexadecimal fraction). */
static const uint32_t TWO_OVER_PI_BITS[7] = {
	0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu,
};

#define LARGE_ARGUMENT 65536.0f /* from here on, x * 2/pi can reach 2^16: Cody-Waite is no longer exact */
#define PIO2 1.57079632679489662f

/* 32 bits of the 160-bit number p (p[0] most significant word) starting at bit `low`. */
static uint32_t bits_at(const uint32_t p[5], int32_t low)
{
	const int32_t word = low / 32;
	const int32_t offset = low % 32;
	const uint32_t lower = p[4 - word];
	const uint32_t upper = word < 4 ? p[3 - word] : 0u;

	return offset == 0 ? lower : (lower >> offset) | (upper << (32 - offset));
}

/*
 * Payne-Hanek reduction of a finite |x| >= 2^16: x = m 2^e with an integer
 * mantissa m, and m times the 128 bits of 2/pi that matter at this exponent
 * (the earlier ones only add multiples of 4, the later ones less than 2^-70)
 * gives x * 2/pi mod 4 exactly: its integer part is the quadrant, its fraction
 * times pi/2 is r, in [-pi/4, pi/4].
 */
static float reduce_large(uint32_t bits, int32_t *quadrant)
{
	const uint32_t m = (bits & 0x7fffffu) | 0x800000u;
	const int32_t e = (int32_t)((bits >> 23) & 0xffu) - 150;
	const int32_t first = e < 34 ? 0 : (e - 2) / 32;
	const int32_t point = 32 * first + 128 - e; /* bits below the binary point of the product */
	uint32_t p[5];
	uint64_t carry = 0;
	uint64_t fraction;
	int32_t t;
	int32_t zeros = 0;
	int negative = 0;
	float r;

	for (t = 3; t >= 0; t--) {
		const uint64_t product = (uint64_t)m * TWO_OVER_PI_BITS[first + t] + carry;

		p[t + 1] = (uint32_t)product;
		carry = product >> 32;
	}
	p[0] = (uint32_t)carry;
	*quadrant = (int32_t)(bits_at(p, point) & 3u);
	fraction = ((uint64_t)bits_at(p, point - 32) << 32) | bits_at(p, point - 64);
	if (fraction >> 63) { /* above one half: the next quadrant, minus the rest */
		*quadrant = (*quadrant + 1) & 3;
		fraction = ~fraction + 1u;
		negative = 1;
	}
	if (fraction == 0u) {
		return 0.0f;
	}
	while (!(fraction >> 63)) {
		fraction <<= 1;
		zeros++;
	}
	r = (float)(uint32_t)(fraction >> 32) * power_of_two(-32) * power_of_two(-zeros) * PIO2;
	return negative ? -r : r;
}

/* sin(x + quadrant pi/2), with x reduced to r in [-pi/4, pi/4] first. */
static float sin_quadrant(float x, int32_t quadrant)
{
	const uint32_t magnitude_bits = to_bits(x) & 0x7fffffffu;
	float r;
	int32_t q;

	if (magnitude_bits >= FLOAT_INF) {
		return from_bits(FLOAT_NAN); /* inf or NaN */
	}
	if (from_bits(magnitude_bits) < LARGE_ARGUMENT) {
		const float quotient = x * TWO_OVER_PI;
		const int32_t nearest = (int32_t)(quotient + (quotient >= 0.0f ? 0.5f : -0.5f));
		const float k = (float)nearest;

		r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
		r -= k * PIO2_4;
		q = (int32_t)(((uint32_t)nearest + (uint32_t)quadrant) & 3u);
	} else {
		/* reduce |x|; for negative x, sin(x + a) = -sin(|x| - a) and cos is even */
		int32_t k;

		r = reduce_large(magnitude_bits, &k);
		if (x < 0.0f) {
			r = -r;
			k = -k;
		}
		q = (int32_t)(((uint32_t)k + (uint32_t)quadrant) & 3u);
	}
	switch (q) {
	case 0:
		return sin_small(r);
	case 1:
		return cos_small(r);
	case 2:
		return -sin_small(r);
	default:
		return -cos_small(r);
	}
}

float usmp_sinf(float x)
{
	return sin_quadrant(x, 0);
}

float usmp_cosf(float x)
{
	return sin_quadrant(x, 1);
}
