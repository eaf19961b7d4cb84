/*
 * usmp depth-first: a DS-CNN keyword spotter (49x10 features, 64 channels,
 * four depthwise-separable blocks) on a 16 KB Cortex-M0. Two of its 25x5x64
 * activations are alive at once, 16,000 B in all, more than Zephyr leaves
 * free; compiled depth-first, the chain runs a band of rows at a time and its
 * workspace is a few KB. The expected scores come from TFLite Micro's
 * interpreter; PASS is printed only when every output byte matches.
 */
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "ds_cnn_kws.h"
#include "ds_cnn_kws_reference.h"

#ifdef USMP_DS_CNN_KWS_STACK_BYTES
/* CONFIG_USMP_STACK_BOUND=y: the main thread runs the model, so its stack holds the most
 * usmp_ds_cnn_kws_run() can take (the bound from the call graph) and main's own frames (printk's). */
#define MAIN_OWN_STACK_BYTES 512
BUILD_ASSERT(CONFIG_MAIN_STACK_SIZE >= USMP_DS_CNN_KWS_STACK_BYTES + MAIN_OWN_STACK_BYTES,
	     "CONFIG_MAIN_STACK_SIZE is too small for usmp_ds_cnn_kws_run(): it needs USMP_DS_CNN_KWS_STACK_BYTES "
	     "(the model's header) + 512 B for main and printk; raise CONFIG_MAIN_STACK_SIZE in prj.conf");
#endif

#define RUNS 2
#define WHOLE_TENSOR_BYTES 16000 /* the workspace with CONFIG_USMP_TILING_OFF=y */

static int8_t scores[USMP_DS_CNN_KWS_OUTPUT_STATEFULPARTITIONEDCALL_1_0_LENGTH];

int main(void)
{
	struct usmp_ds_cnn_kws_inputs inputs = {
		.serving_default_keras_tensor_0 = usmp_ds_cnn_kws_reference_input_serving_default_keras_tensor_0,
	};
	struct usmp_ds_cnn_kws_outputs outputs = { .statefulpartitionedcall_1_0 = scores };
	int failures = 0;

	printk("usmp depth-first: ds_cnn_kws, workspace %d B (whole tensors: %d B), constants %d B\n",
	       USMP_DS_CNN_KWS_WORKSPACE_POOL_SIZE, WHOLE_TENSOR_BYTES, USMP_DS_CNN_KWS_CONSTANTS_POOL_SIZE);

	for (int run = 0; run < RUNS; run++) {
		/* Poison the outputs so a run that writes nothing cannot pass. */
		memset(scores, 0x5a, sizeof(scores));
		if (usmp_ds_cnn_kws_run(&inputs, &outputs) != 0) {
			printk("run %d: usmp_ds_cnn_kws_run failed\n", run);
			failures++;
			continue;
		}
		if (memcmp(scores, usmp_ds_cnn_kws_expected_statefulpartitionedcall_1_0, sizeof(scores)) != 0) {
			failures++;
		}
		printk("run %d: scores", run);
		for (size_t i = 0; i < ARRAY_SIZE(scores); i++) {
			printk(" %d/%d", scores[i], usmp_ds_cnn_kws_expected_statefulpartitionedcall_1_0[i]);
		}
		printk(" (got/expected)\n");
	}

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
