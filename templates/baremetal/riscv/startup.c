/*
 * Bare-metal start-up for the usmp RISC-V test harness (picolibc with semihosting).
 *
 * reset.S sets gp, sp and the trap vector; usmp_start copies .data and
 * .tdata from flash, zeroes .tbss and .bss, points tp at the one thread's
 * TLS block (picolibc keeps errno there; RISC-V's tp addresses the block's
 * first byte) and calls main(). A trap stops the emulator with a message,
 * so a fault never hangs a test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __tdata_load__[], __tdata_start__[], __tdata_end__[];
extern uint32_t __bss_start__[], __bss_end__[]; /* .tbss and .bss */

extern int main(void);

void usmp_start(void);
void usmp_trap_handler(void);

static void copy_words(uint32_t *dst, const uint32_t *src, const uint32_t *end)
{
	while (dst < end) {
		*dst++ = *src++;
	}
}

void usmp_start(void)
{
	uint32_t *dst;

	copy_words(__data_start__, __data_load__, __data_end__);
	copy_words(__tdata_start__, __tdata_load__, __tdata_end__);
	for (dst = __bss_start__; dst < __bss_end__; dst++) {
		*dst = 0;
	}
	__asm__ volatile("mv tp, %0" : : "r"(__tdata_start__) : "memory");
	exit(main());
}

/*
 * mtvec needs a 4-byte aligned handler. picolibc's semihosted stderr is
 * unbuffered, one host call a character. Exit status 70 (EX_SOFTWARE): the
 * runner reports a fault of the program.
 */
__attribute__((aligned(4))) void usmp_trap_handler(void)
{
	fputs("usmp harness: processor fault\n", stderr);
	_Exit(70);
}
