/*
 * Bare-metal start-up for the usmp Cortex-M test harness (ARMv6-M and up).
 *
 * The vector table gives the initial stack pointer and the reset handler;
 * the reset handler enables the FPU when the code was built for one (a
 * hard-float build, as Helium needs, may use its registers anywhere, even
 * in the C library), copies .data from flash, zeroes .bss, opens the
 * semihosting standard streams and calls main(). Every other exception
 * stops the emulator with a message, so a fault never hangs a test.
 */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t __stack_top__[];

extern int main(void);
extern void initialise_monitor_handles(void);

void usmp_reset_handler(void);
void usmp_fault_handler(void);

__attribute__((section(".vectors"), used))
void (*const usmp_vector_table[16])(void) = {
	(void (*)(void))__stack_top__,
	usmp_reset_handler,
	usmp_fault_handler, /* NMI */
	usmp_fault_handler, /* HardFault */
	usmp_fault_handler, /* MemManage (ARMv7-M) */
	usmp_fault_handler, /* BusFault (ARMv7-M) */
	usmp_fault_handler, /* UsageFault (ARMv7-M) */
	0, 0, 0, 0,
	usmp_fault_handler, /* SVCall */
	usmp_fault_handler, /* DebugMonitor (ARMv7-M) */
	0,
	usmp_fault_handler, /* PendSV */
	usmp_fault_handler, /* SysTick */
};

/* CPACR: full access to coprocessors 10 and 11, the FPU (and the MVE unit). */
#define USMP_BM_CPACR ((volatile uint32_t *)0xE000ED88u)
#define USMP_BM_CPACR_CP10_CP11_FULL (0xFu << 20)

void usmp_reset_handler(void)
{
	uint32_t *src = __data_load__;
	uint32_t *dst;

#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
	*USMP_BM_CPACR |= USMP_BM_CPACR_CP10_CP11_FULL;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
	for (dst = __data_start__; dst < __data_end__; dst++) {
		*dst = *src++;
	}
	for (dst = __bss_start__; dst < __bss_end__; dst++) {
		*dst = 0;
	}
	initialise_monitor_handles();
	exit(main());
}

/* Exit status 70 (EX_SOFTWARE): the runner reports a fault of the program. */
void usmp_fault_handler(void)
{
	static const char message[] = "usmp harness: processor fault\n";
	register uint32_t op __asm__("r0") = 0x04; /* SYS_WRITE0 */
	register const char *arg __asm__("r1") = message;

	__asm__ volatile("bkpt 0xab" : "+r"(op) : "r"(arg) : "memory");
	_Exit(70);
}
