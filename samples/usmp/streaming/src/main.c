/*
 * usmp streaming: a keyword spotter fed one feature frame per inference.
 *
 * Its ring buffers are tf.Variables: usmp plans them as a state pool, here
 * pinned to the devicetree region SRAM1 (a NOLOAD section, so the loader
 * leaves it alone and usmp_kws_stream_init() gives it its initial values).
 * The whole stream is compared with TFLite Micro's outputs byte for byte,
 * then restarted with usmp_kws_stream_reset() and compared again.
 */
#include <string.h>

#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "kws_stream.h"
#include "kws_stream_vectors.h"

/* Restarted with reset(), the stream must give the first outputs again. */
#define RESTART_STEPS 10

/* From Zephyr's linker script: the extent of the section SRAM1. */
extern uint8_t __SRAM1_start[];
extern uint8_t __SRAM1_end[];

#define SRAM1_NODE DT_NODELABEL(sram1)

static int state_pool_pinned(const uint8_t *base)
{
	uintptr_t start = DT_REG_ADDR(SRAM1_NODE);
	int inside = base >= __SRAM1_start && base + USMP_KWS_STREAM_STATE_POOL_SIZE <= __SRAM1_end &&
		     (uintptr_t)base >= start &&
		     (uintptr_t)base + USMP_KWS_STREAM_STATE_POOL_SIZE <= start + DT_REG_SIZE(SRAM1_NODE);

	printk("state pool: %d B at %p, %s region SRAM1 [%p, %p)\n", USMP_KWS_STREAM_STATE_POOL_SIZE, base,
	       inside ? "inside" : "OUTSIDE", __SRAM1_start, __SRAM1_end);
	return inside;
}

/* Steps [0, steps) of the stream; returns how many matched TFLite Micro's outputs. */
static int run_stream(struct usmp_kws_stream_workspace_pools *pools, int steps)
{
	struct usmp_kws_stream_inputs in = usmp_kws_stream_map_inputs(pools);
	struct usmp_kws_stream_outputs out;
	int matched = 0;

	for (int step = 0; step < steps; step++) {
		memcpy(in.serving_default_frame_0, kws_stream_frames[step], KWS_STREAM_FRAME_LENGTH);
		if (usmp_kws_stream_run(pools) != 0) {
			printk("step %d: run failed\n", step);
			continue;
		}
		out = usmp_kws_stream_map_outputs(pools);
		matched += memcmp(out.statefulpartitionedcall_0, kws_stream_expected[step],
				  KWS_STREAM_SCORES_LENGTH) == 0;
	}
	return matched;
}

int main(void)
{
	struct usmp_kws_stream_workspace_pools *pools = &usmp_kws_stream_pools;
	int failures = 0;
	int matched;

	printk("usmp streaming: kws_stream, state %d B in SRAM1, workspace %d B, constants %d B in flash\n",
	       USMP_KWS_STREAM_STATE_POOL_SIZE, USMP_KWS_STREAM_WORKSPACE_POOL_SIZE,
	       USMP_KWS_STREAM_CONSTANTS_POOL_SIZE);
	failures += !state_pool_pinned(pools->state);

	if (usmp_kws_stream_run(pools) != -2) {
		printk("run() before init() was not refused\n");
		failures++;
	}
	if (usmp_kws_stream_init(pools) != 0) {
		printk("init failed\n");
		failures++;
	}
	matched = run_stream(pools, KWS_STREAM_STEPS);
	printk("stream: %d of %d steps bit-exact\n", matched, KWS_STREAM_STEPS);
	failures += matched != KWS_STREAM_STEPS;

	if (usmp_kws_stream_reset(pools) != 0) {
		printk("reset failed\n");
		failures++;
	}
	matched = run_stream(pools, RESTART_STEPS);
	printk("after reset: %d of %d steps bit-exact\n", matched, RESTART_STEPS);
	failures += matched != RESTART_STEPS;

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
