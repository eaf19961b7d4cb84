/*
 * usmp io_in_workspace (U4): micro_speech compiled with --workspace-io. Its
 * input and output are buffers of the workspace pool like any tensor, so the
 * planner overlaps them with intermediate tensors and the application has no
 * input or output array of its own: it writes the input through
 * usmp_micro_speech_map_inputs() and reads the scores through
 * usmp_micro_speech_map_outputs(). The input is overwritten by the inference,
 * so it is written again before every run.
 */
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "micro_speech.h"
#include "micro_speech_reference.h"
#include "micro_speech_separate_io.h"

#define RUNS 3

#define SEPARATE_IO_BYTES                                                                  \
	(USMP_MICRO_SPEECH_SEPARATE_IO_WORKSPACE_POOL_SIZE +                               \
	 USMP_MICRO_SPEECH_SEPARATE_IO_INPUT_RESHAPE_1_SIZE +                              \
	 USMP_MICRO_SPEECH_SEPARATE_IO_OUTPUT_LABELS_SOFTMAX_SIZE)

int main(void)
{
	struct usmp_micro_speech_workspace_pools *pools = &usmp_micro_speech_pools;
	int failures = 0;

	printk("usmp io_in_workspace: micro_speech with its input and output in the workspace\n");
	printk("RAM: workspace %d B (input and output inside); separate I/O: workspace %d B + input %d B"
	       " + output %d B = %d B; saved %d B\n",
	       USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE, USMP_MICRO_SPEECH_SEPARATE_IO_WORKSPACE_POOL_SIZE,
	       USMP_MICRO_SPEECH_SEPARATE_IO_INPUT_RESHAPE_1_SIZE,
	       USMP_MICRO_SPEECH_SEPARATE_IO_OUTPUT_LABELS_SOFTMAX_SIZE, SEPARATE_IO_BYTES,
	       SEPARATE_IO_BYTES - USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE);

	for (int run = 0; run < RUNS; run++) {
		struct usmp_micro_speech_inputs in = usmp_micro_speech_map_inputs(pools);
		struct usmp_micro_speech_outputs out;
		int same;

		/* Garbage everywhere first: nothing may survive from the last run. */
		memset(pools->workspace, 0xa5, USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE);
		memcpy(in.reshape_1, usmp_micro_speech_reference_input_reshape_1,
		       USMP_MICRO_SPEECH_INPUT_RESHAPE_1_SIZE);
		if (usmp_micro_speech_run(pools) != 0) {
			printk("run %d: usmp_micro_speech_run failed\n", run);
			failures++;
			continue;
		}
		out = usmp_micro_speech_map_outputs(pools);
		same = memcmp(out.labels_softmax, usmp_micro_speech_expected_labels_softmax,
			      USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_SIZE) == 0;
		failures += !same;
		printk("run %d: scores", run);
		for (int i = 0; i < USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_LENGTH; i++) {
			printk(" %d/%d", out.labels_softmax[i], usmp_micro_speech_expected_labels_softmax[i]);
		}
		printk(" (got/expected, input at workspace+%d, output at workspace+%d)\n",
		       (int)((uint8_t *)in.reshape_1 - pools->workspace),
		       (int)((uint8_t *)out.labels_softmax - pools->workspace));
	}

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
