/*
 * What the kernels of this directory share: requantization and the hot-loop attribute.
 */
#ifndef USMP_SCALAR_OPS_H
#define USMP_SCALAR_OPS_H

#include <stdint.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__riscv)
/* the builds optimise for size (-Os); the inner loops are worth their bytes. On RISC-V, scheduling before
 * register allocation hoists every load of a 4 x 4 block and then spills four of its sums in the loop. */
#define SCALAR_HOT __attribute__((optimize("O2", "no-schedule-insns")))
#elif defined(__GNUC__) && !defined(__clang__)
#define SCALAR_HOT __attribute__((optimize("O2")))
#else
#define SCALAR_HOT
#endif
#define SCALAR_INLINE static inline __attribute__((always_inline))
#if defined(__GNUC__) && !defined(__clang__)
/* a short fill stays a loop, not a call of memset */
#define SCALAR_NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define SCALAR_NO_LIBCALL
#endif

/*
 * What a kernel keeps during a call (its cursor, sums, row counters: a job) lives at the start of its scratch,
 * planned by the compiler for 4-byte pointers (select/scalar.py: Form.job_bytes); a build with wider ones (a
 * test on a 64-bit host) keeps it on its stack.
 */
#define SCALAR_JOB_PLANNED (UINTPTR_MAX <= 0xFFFFFFFFu)
#if SCALAR_JOB_PLANNED
#define SCALAR_JOB(type, j, scratch) type *const j = (type *)(void *)(scratch)
#else
#define SCALAR_JOB(type, j, scratch) \
	type j##_on_stack, *const j = &j##_on_stack; \
	(void)(scratch)
#endif
/* the job's planned bytes are its size with 4-byte pointers */
#define SCALAR_JOB_FITS(type, bytes) typedef char type##_fits[!SCALAR_JOB_PLANNED || sizeof(struct type) == (bytes) ? 1 : -1]

/* A word from (to) a 4-byte aligned address of int8 data (a type that may alias it). */
typedef uint32_t __attribute__((may_alias)) scalar_word;

SCALAR_INLINE uint32_t scalar_load32(const int8_t *p)
{
	return *(const scalar_word *)(const void *)p;
}

SCALAR_INLINE void scalar_store32(int8_t *p, uint32_t v)
{
	*(scalar_word *)(void *)p = v;
}

/* (s * m + 2^31) >> 32: the rounded high word of the product (m > 0). */
SCALAR_INLINE int32_t scalar_high_mul(int32_t s, int32_t m)
{
#if defined(__ARM_ARCH_6M__)
	/* No 32 x 32 -> 64 multiply: four products of 16-bit halves. With s = sh * 2^16 + sl and
	 * m = mh * 2^16 + ml (sl, ml unsigned, mh < 2^15 as m < 2^31): the product is
	 * sh * mh * 2^32 + (sh * ml + sl * mh) * 2^16 + sl * ml, each partial product within int32 or uint32,
	 * and what carries into the high word from the low parts is counted in 16-bit pieces. */
	const uint32_t sl = (uint32_t)s & 0xFFFFu, ml = (uint32_t)m & 0xFFFFu;
	const int32_t sh = s >> 16, mh = m >> 16;
	int32_t high, part;
	uint32_t low;

	/* summed in an order that keeps few values live (the M0 has eight low registers) */
	low = ((sl * ml) >> 16) + 0x8000u;
	part = sh * (int32_t)ml;
	low += (uint32_t)part & 0xFFFFu;
	high = part >> 16;
	part = (int32_t)sl * mh;
	low += (uint32_t)part & 0xFFFFu;
	high += part >> 16;
	return high + sh * mh + (int32_t)(low >> 16);
#else
	const int64_t product = (int64_t)s * m;

	return (int32_t)(product >> 32) + (int32_t)((uint32_t)product >> 31);
#endif
}

/*
 * TFLite's MultiplyByQuantizedMultiplier of acc, plus the output offset, clamped: with the doubled sum
 * s = 2 * acc and t = (s * multiplier + 2^31) >> 32, TFLite's result is (t - (s < 0) + round) >> shift
 * (round = 2^(shift-1) + output_offset * 2^shift; usmp_kernels/dsp.h says why the sum's sign stands in for
 * t's). The compiler takes these kernels only where every shift is >= 1 and 2 * acc cannot overflow.
 */
SCALAR_INLINE int32_t scalar_requant(int32_t acc, int32_t multiplier, int32_t round, int32_t shift, int32_t act_min,
				     int32_t act_max)
{
	const int32_t s = (int32_t)((uint32_t)acc << 1);
	int32_t v = (scalar_high_mul(s, multiplier) + round + (s >> 31)) >> shift;

	v = v < act_min ? act_min : v;
	return v > act_max ? act_max : v;
}

/* The same with the channel's multiplier, rounding and shift at k. */
SCALAR_INLINE int32_t scalar_requantize(int32_t acc, const int32_t *k, int32_t act_min, int32_t act_max)
{
	const int32_t s = (int32_t)((uint32_t)acc << 1);
	int32_t v = (scalar_high_mul(s, k[0]) + k[1] + (s >> 31)) >> k[2];

	v = v < act_min ? act_min : v;
	return v > act_max ? act_max : v;
}

#endif /* USMP_SCALAR_OPS_H */
