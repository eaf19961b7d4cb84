/*
 * What the float kernels of this directory share: the fused multiply-add
 * (one VFMA.F32 on cores with a single-precision FPU, a multiply and an add
 * elsewhere: the host tests), the clamp of a fused activation (VMAXNM and
 * VMINNM where the FPU has them, FPv5; compares on the M4's FPv4), and the
 * copy of one window into a column.
 */
#ifndef USMP_FPU_OPS_H
#define USMP_FPU_OPS_H

#include <stdint.h>

#include "usmp_kernels/fpu.h"

#if defined(__ARM_FP) && (__ARM_FP & 4) && defined(__ARM_FEATURE_FMA)
#define USMP_FPU_NATIVE 1
#else
#define USMP_FPU_NATIVE 0
#endif

/* FPv5 (the M7's, ARMv8-M's) has VMAXNM and VMINNM; GCC names no macro for it on M-profile cores, but a
 * double-precision unit there, or ARMv8-M's FP extension, is FPv5. */
#if USMP_FPU_NATIVE && (defined(__ARM_FEATURE_NUMERIC_MAXMIN) || __ARM_ARCH >= 8 || (__ARM_FP & 8))
#define USMP_FPU_V5 1
#else
#define USMP_FPU_V5 0
#endif

#define FPU_INLINE static inline __attribute__((always_inline))

/* The clamp of two sums sa, sb into core registers ra, rb (the asm kernels' stores), where act_min is +0.0
 * (RELU, RELU6, the common case) and rmax holds act_max's bits: a float's bits order as signed integers like
 * the floats when it is not negative, and a negative float's are negative, so BIC by the sign gives max(x, 0)
 * and a signed minimum with act_max's bits the rest (-0.0 becomes +0.0). Five instructions an output, against
 * eight for FPv4's compares; FPv5 has VMAXNM and VMINNM. */
#define INT_CLAMP2(sa, sb, ra, rb, rmax)                                                                    \
	"	vmov	" ra ", " rb ", " sa ", " sb "\n"                                                     \
	"	bic	" ra ", " ra ", " ra ", asr #31\n"                                                    \
	"	bic	" rb ", " rb ", " rb ", asr #31\n"                                                    \
	"	cmp	" ra ", " rmax "\n	it gt\n	movgt	" ra ", " rmax "\n"                              \
	"	cmp	" rb ", " rmax "\n	it gt\n	movgt	" rb ", " rmax "\n"

FPU_INLINE float fpu_fma(float acc, float a, float b)
{
#if USMP_FPU_NATIVE
	return __builtin_fmaf(a, b, acc);
#else
	return acc + a * b;
#endif
}

FPU_INLINE float fpu_clamp(float x, float lo, float hi)
{
#if defined(__ARM_FEATURE_NUMERIC_MAXMIN)
	return __builtin_fminf(__builtin_fmaxf(x, lo), hi);
#else
	return x < lo ? lo : (x > hi ? hi : x);
#endif
}

/* What the depthwise kernels' assembly loops read (FPU: one output pixel; Helium: one or two): the pixel's
 * window, where its weights start in each group's block, and where its outputs go. */
struct fpu_depthwise_job {
	const float *x;     /* the input at the first pixel's first tap inside the input, channel 0 */
	const float *block; /* group 0's biases */
	int32_t groups;     /* whole groups of 8 */
	int32_t rows;       /* filter rows inside the input */
	int32_t cols;       /* filter columns inside the input */
	int32_t x_col;      /* bytes from one tap of the input to the next in a row */
	int32_t x_row;      /* bytes from one filter row's first tap in the input to the next's */
	int32_t w_first;    /* bytes from a group's block to the weights of its first tap inside */
	int32_t w_skip;     /* bytes of weights a row skips at its end (the taps outside) */
	int32_t block_bytes;
	float *out;
	const float *act; /* act_min, act_max */
	int32_t x_step;   /* bytes from one pixel's input to the next's */
	int32_t out_step; /* bytes from the first pixel's output to the second's (Helium's two at once) */
	int32_t pixels;   /* pixels side by side with the same taps (the FPU's loop over a run) */
};

/* Copies and zero fills of a few floats: with load/store-multiples on the FPU (GCC would call the C library's
 * memcpy and memset, which newlib-nano runs a byte at a time), plain loops elsewhere. */
static inline void fpu_copy(float *to, const float *from, int32_t n)
{
#if USMP_FPU_NATIVE
	for (; n >= 8; n -= 8) {
		__asm__ volatile("vldmia %1!, {s0-s7}\n\tvstmia %0!, {s0-s7}"
				 : "+r"(to), "+r"(from) : : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "memory");
	}
	for (; n > 0; n--) {
		__asm__ volatile("vldmia %1!, {s0}\n\tvstmia %0!, {s0}" : "+r"(to), "+r"(from) : : "s0", "memory");
	}
#else
	int32_t i;

	for (i = 0; i < n; i++) {
		to[i] = from[i];
	}
#endif
}

static inline void fpu_zero(float *to, int32_t n)
{
#if USMP_FPU_NATIVE
	for (; n > 0; n--) {
		__asm__ volatile("str %1, [%0], #4" : "+r"(to) : "r"(0) : "memory");
	}
#else
	int32_t i;

	for (i = 0; i < n; i++) {
		to[i] = 0.0f;
	}
#endif
}

/* The window of output pixel (oy, ox) of batch b as `depth` floats (taps row-major, channels innermost; the
 * padding and the taps past filter_h * filter_w * in_ch 0): one copy a filter row when the row's taps are
 * side by side in the input (no dilation across it), else one a tap. */
static inline void fpu_window_column(const struct usmp_fpu_conv_params *p, const float *input, int32_t b,
				     int32_t oy, int32_t ox, float *column)
{
	const int32_t iy0 = oy * p->stride_h - p->pad_top;
	const int32_t ix0 = ox * p->stride_w - p->pad_left;
	const int32_t row = p->filter_w * p->in_ch;
	float *out = column;
	int32_t fy, fx;

	for (fy = 0; fy < p->filter_h; fy++) {
		const int32_t iy = iy0 + fy * p->dilation_h;
		const float *in_row = input;

		if (iy < 0 || iy >= p->in_h) {
			fpu_zero(out, row);
			out += row;
			continue;
		}
		in_row += (b * p->in_h + iy) * p->in_w * p->in_ch;
		if (p->dilation_w == 1 && ix0 >= 0 && ix0 + p->filter_w <= p->in_w) {
			fpu_copy(out, in_row + ix0 * p->in_ch, row);
		} else {
			for (fx = 0; fx < p->filter_w; fx++) {
				const int32_t ix = ix0 + fx * p->dilation_w;

				if (ix < 0 || ix >= p->in_w) {
					fpu_zero(out + fx * p->in_ch, p->in_ch);
				} else {
					fpu_copy(out + fx * p->in_ch, in_row + ix * p->in_ch, p->in_ch);
				}
			}
		}
		out += row;
	}
	fpu_zero(out, p->depth - p->filter_h * row);
}

#endif /* USMP_FPU_OPS_H */
