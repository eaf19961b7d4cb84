/*
 * Entry of the usmp harness on bare-metal RISC-V (RV32, machine mode).
 *
 * Sets the global pointer (with relaxation off, or the assembler would turn
 * its own load into a gp-relative one), the stack pointer and the trap
 * vector, then enters C (startup.c). No interrupts are enabled: any trap
 * is a fault of the program.
 */
	.option arch, +zicsr

	.section .text.usmp_reset, "ax", %progbits
	.global usmp_reset
	.type usmp_reset, %function
usmp_reset:
	.option push
	.option norelax
	la gp, __global_pointer$
	.option pop
	la sp, __stack_top__
	la t0, usmp_trap_handler
	csrw mtvec, t0
	call usmp_start
1:	j 1b
	.size usmp_reset, . - usmp_reset
