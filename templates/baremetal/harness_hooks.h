/*
 * Measurement hooks for the usmp harness on bare-metal Cortex-M targets.
 *
 * Force-included (-include) into harness_main.c, they bracket the one
 * inference: paint the free stack, then call a marker function whose
 * address the runner finds in the emulator's execution trace; afterwards
 * the second marker ends the instruction count and the stack is scanned.
 * The markers do nothing, so the code between them is the inference itself.
 */
#ifndef USMP_HARNESS_HOOKS_H
#define USMP_HARNESS_HOOKS_H

void usmp_bm_prepare(void);
void usmp_bm_paint_stack(void);
void usmp_bm_scan_stack(void);
void usmp_bm_inference_begin(void);
void usmp_bm_inference_end(void);

#define USMP_HARNESS_BEFORE_INFERENCE()                                        \
	do {                                                                   \
		usmp_bm_prepare();                                             \
		usmp_bm_paint_stack();                                         \
		usmp_bm_inference_begin();                                     \
	} while (0)

#define USMP_HARNESS_AFTER_INFERENCE()                                         \
	do {                                                                   \
		usmp_bm_inference_end();                                       \
		usmp_bm_scan_stack();                                          \
	} while (0)

#endif
