/*
 * usmp shared_workspace (U2): micro_speech and branchy_fc take turns in one
 * workspace pool that the build sized to the larger of their needs
 * (usmp_group_models.h). The pool is filled with garbage before every run,
 * so neither model can depend on what the other left behind; both must
 * still match TFLite Micro's outputs byte for byte.
 */
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "usmp_group_models.h"
#include "micro_speech_reference.h"
#include "branchy_fc_reference.h"

#define ROUNDS 3

static int8_t speech_scores[USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_LENGTH];
static int8_t branchy_out[USMP_BRANCHY_FC_OUTPUT_STATEFULPARTITIONEDCALL_1_0_LENGTH];

static void scribble_on_shared_pool(uint8_t value)
{
	memset(usmp_group_models_micro_speech_pools.workspace, value, USMP_GROUP_MODELS_WORKSPACE_POOL_SIZE);
}

static int run_micro_speech(void)
{
	struct usmp_micro_speech_inputs inputs = {
		.reshape_1 = usmp_micro_speech_reference_input_reshape_1,
	};
	struct usmp_micro_speech_outputs outputs = { .labels_softmax = speech_scores };

	memset(speech_scores, 0x5a, sizeof(speech_scores));
	if (usmp_micro_speech_run(&inputs, &outputs, &usmp_group_models_micro_speech_pools) != 0) {
		return 0;
	}
	return memcmp(speech_scores, usmp_micro_speech_expected_labels_softmax, sizeof(speech_scores)) == 0;
}

static int run_branchy_fc(void)
{
	struct usmp_branchy_fc_inputs inputs = {
		.serving_default_keras_tensor_0 = usmp_branchy_fc_reference_input_serving_default_keras_tensor_0,
	};
	struct usmp_branchy_fc_outputs outputs = { .statefulpartitionedcall_1_0 = branchy_out };

	memset(branchy_out, 0x5a, sizeof(branchy_out));
	if (usmp_branchy_fc_run(&inputs, &outputs, &usmp_group_models_branchy_fc_pools) != 0) {
		return 0;
	}
	return memcmp(branchy_out, usmp_branchy_fc_expected_statefulpartitionedcall_1_0,
		      sizeof(branchy_out)) == 0;
}

int main(void)
{
	int failures = 0;

	printk("usmp shared_workspace: 2 models, one workspace pool\n");
	printk("shared pool: %d B; micro_speech needs %d B, branchy_fc needs %d B (separate pools: %d B)\n",
	       USMP_GROUP_MODELS_WORKSPACE_POOL_SIZE, USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE,
	       USMP_BRANCHY_FC_WORKSPACE_POOL_SIZE,
	       USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE + USMP_BRANCHY_FC_WORKSPACE_POOL_SIZE);
	if (USMP_GROUP_MODELS_WORKSPACE_POOL_SIZE !=
	    MAX(USMP_MICRO_SPEECH_WORKSPACE_POOL_SIZE, USMP_BRANCHY_FC_WORKSPACE_POOL_SIZE) ||
	    usmp_group_models_micro_speech_pools.workspace != usmp_group_models_branchy_fc_pools.workspace) {
		printk("the models do not share one pool of the larger size\n");
		failures++;
	}

	usmp_group_models_arm_guards();
	for (int round = 0; round < ROUNDS; round++) {
		int speech_ok, branchy_ok;

		scribble_on_shared_pool(0xa5);
		speech_ok = run_micro_speech();
		scribble_on_shared_pool(0x3c);
		branchy_ok = run_branchy_fc();
		printk("round %d: micro_speech %s, branchy_fc %s\n", round, speech_ok ? "bit-exact" : "WRONG",
		       branchy_ok ? "bit-exact" : "WRONG");
		failures += !speech_ok + !branchy_ok;
	}
	if (!usmp_group_models_guards_intact()) {
		printk("a model wrote past the shared pool\n");
		failures++;
	}

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
