/*
 * C side of the measurement hooks (see harness_hooks.h and stack_probe.S).
 *
 * At exit the harness prints one line the runner parses:
 *   usmp-stats: stack=<bytes> heap=<bytes> stack_overflow=<0|1>
 * stack is the deepest use below main's sp during the inference; heap is
 * what the C library took with sbrk (stdio buffers for the semihosted files).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h> /* sbrk: this file is built with -std=gnu99 */

#include "harness_hooks.h"

/* Keep this many bytes unpainted above the heap: stdio may still grow it. */
#define USMP_BM_HEAP_GUARD 64u

extern char end[];
uintptr_t usmp_bm_stack_bottom;
uintptr_t usmp_bm_stack_top;
uintptr_t usmp_bm_stack_low;

static void usmp_bm_report(void)
{
	uintptr_t heap_end = (uintptr_t)sbrk(0);
	unsigned long stack = (unsigned long)(usmp_bm_stack_top - usmp_bm_stack_low);

	printf("usmp-stats: stack=%lu heap=%lu stack_overflow=%d\n", stack,
	       (unsigned long)(heap_end - (uintptr_t)end),
	       usmp_bm_stack_low <= usmp_bm_stack_bottom ? 1 : 0);
}

void usmp_bm_prepare(void)
{
	uintptr_t bottom = (uintptr_t)sbrk(0) + USMP_BM_HEAP_GUARD;

	usmp_bm_stack_bottom = (bottom + 3u) & ~(uintptr_t)3u;
	atexit(usmp_bm_report);
}

__attribute__((noinline)) void usmp_bm_inference_begin(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void usmp_bm_inference_end(void)
{
	__asm__ volatile("" ::: "memory");
}
