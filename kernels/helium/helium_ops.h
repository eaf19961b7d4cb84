/*
 * What the Helium (MVE) kernels of this directory share: whether the build has
 * Helium, and TFLite's requantization on four int32 lanes.
 *
 * The same sources build everywhere: with Helium (the Cortex-M55, GCC's
 * __ARM_FEATURE_MVE) they run vector code; elsewhere (the host, for the tests)
 * each kernel computes the same sums in plain C, from the same constants.
 */
#ifndef USMP_HELIUM_OPS_H
#define USMP_HELIUM_OPS_H

#include <stdint.h>

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define USMP_HELIUM_NATIVE 1
#include <arm_mve.h>
#else
#define USMP_HELIUM_NATIVE 0
#endif

#define HELIUM_INLINE static inline __attribute__((always_inline))

#if defined(__GNUC__) && !defined(__clang__)
/* the builds optimise for size (-Os), which spills the vector loops' registers; they are worth their bytes */
#define HELIUM_HOT __attribute__((optimize("O2")))
/* the same for code that sets up the loops: without the vectorizer's staging of scalars through the stack */
#define HELIUM_HOT_SETUP __attribute__((optimize("O2", "no-tree-slp-vectorize")))
#else
#define HELIUM_HOT
#define HELIUM_HOT_SETUP
#endif

#if USMP_HELIUM_NATIVE
/* TFLite's MultiplyByQuantizedMultiplier on four lanes: a left shift (max(shift, 0)), the saturating
 * rounding doubling high multiply (VQRDMULH is SaturatingRoundingDoublingHighMul), then a right shift
 * (min(shift, 0), as a negative count) rounding halves away from zero: VRSHL rounds them up, so negative
 * values are lowered by one first (only where there is a right shift: right & sum keeps the sign bit
 * only then). */
HELIUM_INLINE int32x4_t helium_requantize(int32x4_t sum, int32x4_t multiplier, int32x4_t left, int32x4_t right)
{
	sum = vqrdmulhq_s32(vshlq_s32(sum, left), multiplier);
	return vrshlq_s32(vqaddq_s32(sum, vshrq_n_s32(vandq_s32(sum, right), 31)), right);
}

/* helium_requantize's steps in assembly, on q registers: acc requantized by multiplier, left and right;
 * tmp is overwritten (it may be left's register, which is read first). */
#define HELIUM_REQUANTIZE_ASM(acc, multiplier, left, right, tmp)          \
	"	vshl.s32	" acc ", " acc ", " left "\n"                    \
	"	vqrdmulh.s32	" acc ", " acc ", " multiplier "\n"              \
	"	vand		" tmp ", " acc ", " right "\n"                   \
	"	vshr.s32	" tmp ", " tmp ", #31\n"                         \
	"	vqadd.s32	" acc ", " acc ", " tmp "\n"                     \
	"	vrshl.s32	" acc ", " acc ", " right "\n"

/* n bytes from src to dst, a tail-predicated vector per 16 (a low-overhead loop: WLSTP skips n = 0). */
HELIUM_INLINE void copy_bytes(int8_t *dst, const int8_t *src, int32_t n)
{
	__asm volatile("	wlstp.8	lr, %[n], 2f\n"
		       "1:	vldrb.8	q0, [%[src]], #16\n"
		       "	vstrb.8	q0, [%[dst]], #16\n"
		       "	letp	lr, 1b\n"
		       "2:\n"
		       : [dst] "+r"(dst), [src] "+r"(src)
		       : [n] "r"(n)
		       : "q0", "lr", "memory");
}
#endif

/* The taps [first, end) of a window starting at x0 (dilation 1) that fall inside [0, size). */
HELIUM_INLINE void helium_window_span(int32_t x0, int32_t size, int32_t filter, int32_t *first, int32_t *end)
{
	*first = x0 < 0 ? -x0 : 0;
	*end = x0 + filter > size ? size - x0 : filter;
}

#endif /* USMP_HELIUM_OPS_H */
