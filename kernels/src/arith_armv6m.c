/*
 * The rounding doubling high multiply of usmp_kernels/arith.h on Armv6-M (Cortex-M0/M0+), which has no
 * 32x32->64 multiply: a 64-bit product in C is a call to libgcc's __aeabi_lmul (a 28-byte frame), and the
 * same arithmetic in C inlined into a caller takes five registers that a Thumb-1 function saves on its stack.
 * Here it is a leaf in the call-clobbered registers (r0-r3, r12): no frame under the kernel that calls it, so
 * a softmax's exp (a chain of these) stays within the M0's stack budget.
 *
 * With a = ah 2^16 + al and b = bh 2^16 + bl (ah, bh signed, al, bl unsigned):
 *   ab = ah bh 2^32 + (ah bl + al bh) 2^16 + al bl.
 * cross = (al bl >> 16) + ah bl and w1 = (cross & 0xffff) + al bh cannot overflow int32; with w2 = cross >> 16,
 * ab = (ah bh + w2) 2^32 + w1 2^16 + (al bl & 0xffff), and the low 16 bits cannot carry into
 *   floor((ab + 2^30) / 2^31) = 2 (ah bh + w2) + ((w1 + 2^14) >> 15).
 * The one product out of range, INT32_MIN x INT32_MIN, wraps to INT32_MIN, which no other product gives: it
 * saturates to INT32_MAX.
 */
#include "usmp_kernels.h"

#if USMP_ARMV6M
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
#else
typedef int usmp_arith_armv6m_unused; /* ISO C wants a translation unit to declare something */
#endif
