/*
 * usmp hello (U1): micro_speech compiled to C at build time, run on a fixed
 * spectrogram. The expected scores were computed at build time by TFLite
 * Micro's interpreter; PASS is printed only when every output byte matches.
 */
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "micro_speech.h"
#include "micro_speech_reference.h"

#ifdef USMP_MICRO_SPEECH_STACK_BYTES
/* CONFIG_USMP_STACK_BOUND=y: the main thread runs the model, so its stack holds the most
 * usmp_micro_speech_run() can take (the bound from the call graph) and main's own frames (printk's). */
#define MAIN_OWN_STACK_BYTES 512
BUILD_ASSERT(CONFIG_MAIN_STACK_SIZE >= USMP_MICRO_SPEECH_STACK_BYTES + MAIN_OWN_STACK_BYTES,
	     "CONFIG_MAIN_STACK_SIZE is too small for usmp_micro_speech_run(): it needs USMP_MICRO_SPEECH_STACK_BYTES "
	     "(the model's header) + 512 B for main and printk; raise CONFIG_MAIN_STACK_SIZE in prj.conf");
#endif

#define RUNS 3

static int8_t scores[USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_LENGTH];

int main(void)
{
	struct usmp_micro_speech_inputs inputs = {
		.reshape_1 = usmp_micro_speech_reference_input_reshape_1,
	};
	struct usmp_micro_speech_outputs outputs = { .labels_softmax = scores };
	int failures = 0;

	printk("usmp hello: micro_speech, %d input bytes, %d output bytes\n",
	       USMP_MICRO_SPEECH_INPUT_RESHAPE_1_SIZE, USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_SIZE);
	printk("pools: workspace %d B (planner's lower bound %d B), constants %d B\n",
	       USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE, USMP_MICRO_SPEECH_LOWER_BOUND_BYTES,
	       USMP_MICRO_SPEECH_CONSTANTS_POOL_SIZE);
	printk("kernels: %d of %d operators call CMSIS-NN\n", USMP_MICRO_SPEECH_CMSIS_NN_OPERATORS,
	       USMP_MICRO_SPEECH_OPERATORS);
	if (USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE < USMP_MICRO_SPEECH_LOWER_BOUND_BYTES) {
		printk("workspace is smaller than the lower bound: the plan is wrong\n");
		failures++;
	}

	for (int run = 0; run < RUNS; run++) {
		/* Poison the outputs so a run that writes nothing cannot pass. */
		memset(scores, 0x5a, sizeof(scores));
		if (usmp_micro_speech_run(&inputs, &outputs) != 0) {
			printk("run %d: usmp_micro_speech_run failed\n", run);
			failures++;
			continue;
		}
		if (memcmp(scores, usmp_micro_speech_expected_labels_softmax, sizeof(scores)) != 0) {
			failures++;
		}
		printk("run %d: scores", run);
		for (size_t i = 0; i < ARRAY_SIZE(scores); i++) {
			printk(" %d/%d", scores[i], usmp_micro_speech_expected_labels_softmax[i]);
		}
		printk(" (got/expected)\n");
	}

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
