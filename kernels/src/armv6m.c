/* Armv6-M's frameless leaves (usmp_kernels/armv6m.h). */
#include "usmp_kernels.h"

#if USMP_ARMV6M
/*
 * The rounding doubling high multiply: a 64-bit product in C is a call to libgcc's __aeabi_lmul (a 28-byte
 * frame), and the same arithmetic inlined into a caller takes five registers that it saves on its stack.
 * With a = ah 2^16 + al and b = bh 2^16 + bl (ah, bh signed, al, bl unsigned):
 *   ab = ah bh 2^32 + (ah bl + al bh) 2^16 + al bl.
 * cross = (al bl >> 16) + ah bl and w1 = (cross & 0xffff) + al bh cannot overflow int32; with w2 = cross >> 16,
 * ab = (ah bh + w2) 2^32 + w1 2^16 + (al bl & 0xffff), and the low 16 bits cannot carry into
 *   floor((ab + 2^30) / 2^31) = 2 (ah bh + w2) + ((w1 + 2^14) >> 15).
 * The one product out of range, INT32_MIN x INT32_MIN, wraps to INT32_MIN, which no other product gives: it
 * saturates to INT32_MAX.
 */
__attribute__((naked, noinline)) int32_t usmp_armv6m_high_mul(int32_t a, int32_t b)
{
	(void)a;
	(void)b;
	__asm volatile(
		"	.syntax unified\n" /* GCC hands Armv6-M inline assembly over in divided syntax */
		"	uxth	r2, r0\n"   /* al */
		"	asrs	r0, r0, #16\n" /* ah */
		"	uxth	r3, r1\n"   /* bl */
		"	asrs	r1, r1, #16\n" /* bh */
		"	mov	r12, r2\n"
		"	muls	r2, r3\n"   /* al bl (unsigned: its bits are right) */
		"	lsrs	r2, r2, #16\n"
		"	muls	r3, r0\n"   /* ah bl */
		"	adds	r2, r2, r3\n" /* cross */
		"	asrs	r3, r2, #16\n" /* w2 */
		"	uxth	r2, r2\n"
		"	muls	r0, r1\n"   /* ah bh */
		"	adds	r0, r0, r3\n"
		"	mov	r3, r12\n"
		"	muls	r3, r1\n"   /* al bh */
		"	adds	r2, r2, r3\n" /* w1 */
		"	movs	r3, #1\n"
		"	lsls	r3, r3, #14\n"
		"	adds	r2, r2, r3\n"
		"	asrs	r2, r2, #15\n"
		"	lsls	r0, r0, #1\n"
		"	adds	r0, r0, r2\n"
		"	lsls	r3, r3, #17\n" /* 2^31: INT32_MIN x INT32_MIN's wrapped result */
		"	cmp	r0, r3\n"
		"	bne	1f\n"
		"	subs	r0, r0, #1\n"
		"1:	bx	lr\n");
}

/* The forward copy: r0 = dst, r1 = src, r2 the bytes left, r3 the word or byte in flight. Four words a turn where
 * both are word aligned, else four bytes (an input row after a convolution's left padding seldom is aligned); each
 * is read before it is written, so dst may start below src in the same buffer. */
__attribute__((naked, noinline)) void usmp_armv6m_copy(void *dst, const void *src, int32_t n)
{
	(void)dst;
	(void)src;
	(void)n;
	__asm volatile(
		"	.syntax unified\n" /* GCC hands Armv6-M inline assembly over in divided syntax */
		"	movs	r3, r0\n"
		"	orrs	r3, r1\n"
		"	lsls	r3, r3, #30\n"
		"	bne	3f\n"
		"1:	subs	r2, r2, #16\n" /* four words */
		"	blt	2f\n"
		"	ldr	r3, [r1, #0]\n"
		"	str	r3, [r0, #0]\n"
		"	ldr	r3, [r1, #4]\n"
		"	str	r3, [r0, #4]\n"
		"	ldr	r3, [r1, #8]\n"
		"	str	r3, [r0, #8]\n"
		"	ldr	r3, [r1, #12]\n"
		"	str	r3, [r0, #12]\n"
		"	adds	r0, r0, #16\n"
		"	adds	r1, r1, #16\n"
		"	b	1b\n"
		"2:	adds	r2, r2, #16\n"
		"3:	subs	r2, r2, #4\n" /* four bytes */
		"	blt	4f\n"
		"	ldrb	r3, [r1, #0]\n"
		"	strb	r3, [r0, #0]\n"
		"	ldrb	r3, [r1, #1]\n"
		"	strb	r3, [r0, #1]\n"
		"	ldrb	r3, [r1, #2]\n"
		"	strb	r3, [r0, #2]\n"
		"	ldrb	r3, [r1, #3]\n"
		"	strb	r3, [r0, #3]\n"
		"	adds	r0, r0, #4\n"
		"	adds	r1, r1, #4\n"
		"	b	3b\n"
		"4:	adds	r2, r2, #4\n" /* the last 0-3 */
		"	beq	6f\n"
		"5:	ldrb	r3, [r1]\n"
		"	strb	r3, [r0]\n"
		"	adds	r0, r0, #1\n"
		"	adds	r1, r1, #1\n"
		"	subs	r2, r2, #1\n"
		"	bne	5b\n"
		"6:	bx	lr\n");
}

/* The unsigned quotient n / d (d > 0), bit by bit from d's highest multiple of two not above n: r0 the remainder,
 * r1 d shifted, r2 the quotient, r3 its bit (a handful of turns for a band's row numbers). */
__attribute__((naked, noinline)) uint32_t usmp_armv6m_divide(uint32_t n, uint32_t d)
{
	(void)n;
	(void)d;
	__asm volatile(
		"	.syntax unified\n" /* GCC hands Armv6-M inline assembly over in divided syntax */
		"	movs	r2, #0\n"
		"	movs	r3, #1\n"
		"1:	cmp	r1, r0\n" /* up while d < n and d's top bit is clear */
		"	bhs	2f\n"
		"	cmp	r1, #0\n"
		"	blt	2f\n"
		"	lsls	r1, r1, #1\n"
		"	lsls	r3, r3, #1\n"
		"	b	1b\n"
		"2:	cmp	r0, r1\n" /* down: subtract where it goes */
		"	blo	3f\n"
		"	subs	r0, r0, r1\n"
		"	orrs	r2, r3\n"
		"3:	lsrs	r1, r1, #1\n"
		"	lsrs	r3, r3, #1\n"
		"	bne	2b\n"
		"	movs	r0, r2\n"
		"	bx	lr\n");
}
#else
typedef int usmp_armv6m_unused; /* ISO C wants a translation unit to declare something */
#endif
