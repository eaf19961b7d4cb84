/*
 * Stack high-water probes for the usmp Cortex-M harness.
 *
 * Written in assembly so that they use no stack themselves: painting and
 * scanning must not disturb the words they measure. Both are leaf functions
 * called straight from main(), so sp on entry is main's sp, the top of the
 * stack an inference may use. Thumb-1 only (runs on ARMv6-M).
 */
	.syntax unified
	.thumb

	.equ USMP_STACK_PAINT, 0x5AA5C33C

/* Fill [usmp_bm_stack_bottom, sp) with the paint word; remember sp. */
	.section .text.usmp_bm_paint_stack, "ax", %progbits
	.global usmp_bm_paint_stack
	.type usmp_bm_paint_stack, %function
	.thumb_func
usmp_bm_paint_stack:
	ldr r1, =usmp_bm_stack_bottom
	ldr r1, [r1]
	mov r0, sp
	ldr r2, =usmp_bm_stack_top
	str r0, [r2]
	ldr r2, =USMP_STACK_PAINT
1:	cmp r1, r0
	bhs 2f
	str r2, [r1]
	adds r1, r1, #4
	b 1b
2:	bx lr
	.ltorg
	.size usmp_bm_paint_stack, . - usmp_bm_paint_stack

/* Store the lowest word below the remembered sp that is no longer paint. */
	.section .text.usmp_bm_scan_stack, "ax", %progbits
	.global usmp_bm_scan_stack
	.type usmp_bm_scan_stack, %function
	.thumb_func
usmp_bm_scan_stack:
	ldr r1, =usmp_bm_stack_bottom
	ldr r1, [r1]
	ldr r0, =usmp_bm_stack_top
	ldr r0, [r0]
	ldr r2, =USMP_STACK_PAINT
1:	cmp r1, r0
	bhs 2f
	ldr r3, [r1]
	cmp r3, r2
	bne 2f
	adds r1, r1, #4
	b 1b
2:	ldr r0, =usmp_bm_stack_low
	str r1, [r0]
	bx lr
	.ltorg
	.size usmp_bm_scan_stack, . - usmp_bm_scan_stack
