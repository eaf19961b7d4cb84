/*
 * SignalRfft and SignalIrfft (int16): see usmp_kernels/signal.h. They share the FFT.
 *
 * The complex FFT of fft_length / 2 points runs over the frame's even and odd
 * samples as real and imaginary parts; a split step then makes the spectrum of
 * the real frame (the inverse joins the spectrum first, then transforms). Each
 * stage divides its inputs by its radix first, so values stay within 16 bits;
 * every product is rounded to 15 fractional bits.
 */
#include "usmp_kernels.h"

struct cpx {
	int16_t r;
	int16_t i;
};

/* (a * b + 2^14) >> 15 in 16 bits: the rounded fixed-point product. */
static int16_t mul_q15(int32_t a, int32_t b)
{
	return usmp_wrap16(usmp_asr32((int32_t)((uint32_t)(a * b) + (1u << 14)), 15));
}

/* x / k, as the FFT scales: x times the Q15 value of 1 / k (32767 / k), rounded. */
static void divide(struct cpx *c, int32_t k)
{
	c->r = mul_q15(c->r, 32767 / k);
	c->i = mul_q15(c->i, 32767 / k);
}

static struct cpx cmul(struct cpx a, struct cpx b)
{
	struct cpx m;

	m.r = usmp_wrap16(usmp_asr32((int32_t)((uint32_t)(a.r * b.r) - (uint32_t)(a.i * b.i) + (1u << 14)), 15));
	m.i = usmp_wrap16(usmp_asr32((int32_t)((uint32_t)(a.r * b.i) + (uint32_t)(a.i * b.r) + (1u << 14)), 15));
	return m;
}

static struct cpx cadd(struct cpx a, struct cpx b)
{
	struct cpx s;

	s.r = usmp_wrap16(a.r + b.r);
	s.i = usmp_wrap16(a.i + b.i);
	return s;
}

static struct cpx csub(struct cpx a, struct cpx b)
{
	struct cpx s;

	s.r = usmp_wrap16(a.r - b.r);
	s.i = usmp_wrap16(a.i - b.i);
	return s;
}

static void radix2(struct cpx *out, const struct cpx *tw, int32_t stride, int32_t m)
{
	int32_t k;

	for (k = 0; k < m; k++) {
		struct cpx t;

		divide(&out[k], 2);
		divide(&out[k + m], 2);
		t = cmul(out[k + m], tw[k * stride]);
		out[k + m] = csub(out[k], t);
		out[k] = cadd(out[k], t);
	}
}

static void radix3(struct cpx *out, const struct cpx *tw, int32_t stride, int32_t m)
{
	const int16_t sine = tw[stride * m].i; /* sin(-2 pi / 3) */
	int32_t k;

	for (k = 0; k < m; k++) {
		struct cpx *a = out + k, *b = out + k + m, *c = out + k + 2 * m;
		struct cpx s1, s2, sum, diff;

		divide(a, 3);
		divide(b, 3);
		divide(c, 3);
		s1 = cmul(*b, tw[k * stride]);
		s2 = cmul(*c, tw[2 * k * stride]);
		sum = cadd(s1, s2);
		diff = csub(s1, s2);
		b->r = usmp_wrap16(a->r - usmp_asr32(sum.r, 1));
		b->i = usmp_wrap16(a->i - usmp_asr32(sum.i, 1));
		diff.r = mul_q15(diff.r, sine);
		diff.i = mul_q15(diff.i, sine);
		*a = cadd(*a, sum);
		c->r = usmp_wrap16(b->r + diff.i);
		c->i = usmp_wrap16(b->i - diff.r);
		b->r = usmp_wrap16(b->r - diff.i);
		b->i = usmp_wrap16(b->i + diff.r);
	}
}

static void radix4(struct cpx *out, const struct cpx *tw, int32_t stride, int32_t m, int32_t inverse)
{
	int32_t k;

	for (k = 0; k < m; k++) {
		struct cpx *a = out + k, *b = out + k + m, *c = out + k + 2 * m, *d = out + k + 3 * m;
		struct cpx tb, tc, td, ac_diff, bd_sum, bd_diff;

		divide(a, 4);
		divide(b, 4);
		divide(c, 4);
		divide(d, 4);
		tb = cmul(*b, tw[k * stride]);
		tc = cmul(*c, tw[2 * k * stride]);
		td = cmul(*d, tw[3 * k * stride]);
		ac_diff = csub(*a, tc);
		*a = cadd(*a, tc);
		bd_sum = cadd(tb, td);
		bd_diff = csub(tb, td);
		*c = csub(*a, bd_sum);
		*a = cadd(*a, bd_sum);
		if (inverse) {
			bd_diff.r = usmp_wrap16(-bd_diff.r);
			bd_diff.i = usmp_wrap16(-bd_diff.i);
		}
		b->r = usmp_wrap16(ac_diff.r + bd_diff.i);
		b->i = usmp_wrap16(ac_diff.i - bd_diff.r);
		d->r = usmp_wrap16(ac_diff.r - bd_diff.i);
		d->i = usmp_wrap16(ac_diff.i + bd_diff.r);
	}
}

static void radix5(struct cpx *out, const struct cpx *tw, int32_t stride, int32_t m)
{
	const struct cpx ya = tw[stride * m], yb = tw[2 * stride * m];
	int32_t u, q;

	for (u = 0; u < m; u++) {
		struct cpx *f[5];
		struct cpx s[13];

		for (q = 0; q < 5; q++) {
			f[q] = out + u + q * m;
			divide(f[q], 5);
		}
		s[0] = *f[0];
		for (q = 1; q < 5; q++) {
			s[q] = cmul(*f[q], tw[q * u * stride]);
		}
		s[7] = cadd(s[1], s[4]);
		s[10] = csub(s[1], s[4]);
		s[8] = cadd(s[2], s[3]);
		s[9] = csub(s[2], s[3]);
		f[0]->r = usmp_wrap16(f[0]->r + (s[7].r + s[8].r));
		f[0]->i = usmp_wrap16(f[0]->i + (s[7].i + s[8].i));
		s[5].r = usmp_wrap16(s[0].r + mul_q15(s[7].r, ya.r) + mul_q15(s[8].r, yb.r));
		s[5].i = usmp_wrap16(s[0].i + mul_q15(s[7].i, ya.r) + mul_q15(s[8].i, yb.r));
		s[6].r = usmp_wrap16(mul_q15(s[10].i, ya.i) + mul_q15(s[9].i, yb.i));
		s[6].i = usmp_wrap16(-mul_q15(s[10].r, ya.i) - mul_q15(s[9].r, yb.i));
		*f[1] = csub(s[5], s[6]);
		*f[4] = cadd(s[5], s[6]);
		s[11].r = usmp_wrap16(s[0].r + mul_q15(s[7].r, yb.r) + mul_q15(s[8].r, ya.r));
		s[11].i = usmp_wrap16(s[0].i + mul_q15(s[7].i, yb.r) + mul_q15(s[8].i, ya.r));
		s[12].r = usmp_wrap16(-mul_q15(s[10].i, yb.i) + mul_q15(s[9].i, ya.i));
		s[12].i = usmp_wrap16(mul_q15(s[10].r, yb.i) - mul_q15(s[9].r, ya.i));
		*f[2] = cadd(s[11], s[12]);
		*f[3] = csub(s[11], s[12]);
	}
}

/* One stage of the decimation in time: the sub-transforms of every radix-th sample, then the butterflies. */
static void stage(struct cpx *out, const struct cpx *in, int32_t stride, const int32_t *factors, const struct cpx *tw,
		  int32_t inverse)
{
	const int32_t p = factors[0], m = factors[1];
	int32_t k;

	for (k = 0; k < p; k++) {
		if (m == 1) {
			out[k] = in[k * stride];
		} else {
			stage(out + k * m, in + k * stride, stride * p, factors + 2, tw, inverse);
		}
	}
	switch (p) {
	case 2:
		radix2(out, tw, stride, m);
		break;
	case 3:
		radix3(out, tw, stride, m);
		break;
	case 4:
		radix4(out, tw, stride, m, inverse);
		break;
	default: /* 5: the compiler allows no other radix */
		radix5(out, tw, stride, m);
		break;
	}
}

/* The spectrum of one real frame of 2 * n samples from the complex FFT z of its sample pairs. */
static void split(const struct cpx *z, const struct cpx *super, int32_t n, struct cpx *out)
{
	struct cpx dc = z[0];
	int32_t k;

	divide(&dc, 2);
	out[0].r = usmp_wrap16(dc.r + dc.i);
	out[n].r = usmp_wrap16(dc.r - dc.i);
	out[0].i = out[n].i = 0;
	for (k = 1; k <= n / 2; k++) {
		struct cpx a = z[k], b, sum, diff, t;

		b.r = z[n - k].r;
		b.i = usmp_wrap16(-z[n - k].i);
		divide(&a, 2);
		divide(&b, 2);
		sum = cadd(a, b);
		diff = csub(a, b);
		t = cmul(diff, super[k - 1]);
		out[k].r = usmp_wrap16(usmp_asr32(sum.r + t.r, 1));
		out[k].i = usmp_wrap16(usmp_asr32(sum.i + t.i, 1));
		out[n - k].r = usmp_wrap16(usmp_asr32(sum.r - t.r, 1));
		out[n - k].i = usmp_wrap16(usmp_asr32(t.i - sum.i, 1));
	}
}

void usmp_signal_rfft(const struct usmp_signal_rfft_params *p, const int16_t *input, const int16_t *twiddles,
		      const int16_t *super_twiddles, const int32_t *factors, int16_t *work, int16_t *spectrum,
		      int16_t *output)
{
	const int32_t n = p->fft_length / 2;
	int32_t f, i;

	for (f = 0; f < p->frames; f++) {
		for (i = 0; i < p->fft_length; i++) {
			work[i] = i < p->input_length ? input[i] : 0;
		}
		stage((struct cpx *)spectrum, (const struct cpx *)work, 1, factors, (const struct cpx *)twiddles, 0);
		split((const struct cpx *)spectrum, (const struct cpx *)super_twiddles, n, (struct cpx *)output);
		input += p->input_length;
		output += 2 * (n + 1);
	}
}

/* The complex sequence whose FFT is the real frame of the spectrum x (n + 1 bins): the split undone. */
static void join(const struct cpx *x, const struct cpx *super, int32_t n, struct cpx *z)
{
	int32_t k;

	z[0].r = usmp_wrap16(x[0].r + x[n].r);
	z[0].i = usmp_wrap16(x[0].r - x[n].r);
	divide(&z[0], 2);
	for (k = 1; k <= n / 2; k++) {
		struct cpx a = x[k], b, even, diff, odd;

		b.r = x[n - k].r;
		b.i = usmp_wrap16(-x[n - k].i);
		divide(&a, 2);
		divide(&b, 2);
		even = cadd(a, b);
		diff = csub(a, b);
		odd = cmul(diff, super[k - 1]);
		z[k] = cadd(even, odd);
		z[n - k] = csub(even, odd);
		z[n - k].i = usmp_wrap16(-z[n - k].i);
	}
}

void usmp_signal_irfft(const struct usmp_signal_irfft_params *p, const int16_t *input, const int16_t *twiddles,
		       const int16_t *super_twiddles, const int32_t *factors, int16_t *spectrum, int16_t *output)
{
	const int32_t n = p->fft_length / 2;
	int32_t f;

	for (f = 0; f < p->frames; f++) {
		join((const struct cpx *)input, (const struct cpx *)super_twiddles, n, (struct cpx *)spectrum);
		stage((struct cpx *)output, (const struct cpx *)spectrum, 1, factors, (const struct cpx *)twiddles, 1);
		input += 2 * p->input_length;
		output += p->fft_length;
	}
}
