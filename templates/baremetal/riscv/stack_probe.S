/*
 * Stack high-water probes for the usmp RISC-V harness.
 *
 * Written in assembly so that they use no stack themselves: painting and
 * scanning must not disturb the words they measure. Both are leaf functions
 * called straight from main(), so sp on entry is main's sp, the top of the
 * stack an inference may use. RV32I only.
 */
	.equ USMP_STACK_PAINT, 0x5AA5C33C

/* Fill [usmp_bm_stack_bottom, sp) with the paint word; remember sp. */
	.section .text.usmp_bm_paint_stack, "ax", %progbits
	.global usmp_bm_paint_stack
	.type usmp_bm_paint_stack, %function
usmp_bm_paint_stack:
	la a1, usmp_bm_stack_bottom
	lw a1, 0(a1)
	la a2, usmp_bm_stack_top
	sw sp, 0(a2)
	li a3, USMP_STACK_PAINT
1:	bgeu a1, sp, 2f
	sw a3, 0(a1)
	addi a1, a1, 4
	j 1b
2:	ret
	.size usmp_bm_paint_stack, . - usmp_bm_paint_stack

/* Store the lowest word below the remembered sp that is no longer paint. */
	.section .text.usmp_bm_scan_stack, "ax", %progbits
	.global usmp_bm_scan_stack
	.type usmp_bm_scan_stack, %function
usmp_bm_scan_stack:
	la a1, usmp_bm_stack_bottom
	lw a1, 0(a1)
	la a0, usmp_bm_stack_top
	lw a0, 0(a0)
	li a2, USMP_STACK_PAINT
1:	bgeu a1, a0, 2f
	lw a3, 0(a1)
	bne a3, a2, 2f
	addi a1, a1, 4
	j 1b
2:	la a0, usmp_bm_stack_low
	sw a1, 0(a0)
	ret
	.size usmp_bm_scan_stack, . - usmp_bm_scan_stack
