/*
 * Armv6-M (Cortex-M0/M0+) leaves in assembly (src/armv6m.c). Thumb-1 has four callee-saved low registers and
 * no tail calls to another section: every C function that calls one saves registers, and a deep call chain is
 * the M0's stack. These run in the call-clobbered registers (r0-r3, r12) with no frame of their own, so they
 * add nothing to the stack bound under the kernels that call them.
 */
#ifndef USMP_KERNELS_ARMV6M_H
#define USMP_KERNELS_ARMV6M_H

#include <stdint.h>

#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1 && !defined(__ARM_ARCH_ISA_ARM)
#define USMP_ARMV6M 1

/* usmp_sat_rounding_doubling_high_mul (arith.h) without a 32x32->64 multiply (no call to __aeabi_lmul). */
int32_t usmp_armv6m_high_mul(int32_t a, int32_t b);

/* n bytes from src to dst, forwards (dst may start below src in the same buffer): a word at a time where both
 * are word aligned, else four bytes a turn. */
void usmp_armv6m_copy(void *dst, const void *src, int32_t n);

/* n / d, unsigned (d > 0): Armv6-M has no divide instruction, and libgcc's __aeabi_idiv has a frame. */
uint32_t usmp_armv6m_divide(uint32_t n, uint32_t d);
#else
#define USMP_ARMV6M 0
#endif

#endif /* USMP_KERNELS_ARMV6M_H */
