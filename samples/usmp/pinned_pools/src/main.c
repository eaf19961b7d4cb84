/*
 * usmp pinned_pools (U3): micro_speech's workspace is split over two
 * devicetree memory regions: SRAM1 (a NOLOAD linker section of its own) and
 * sram0 (the kernel's RAM). At run time each pool is checked against the
 * linker's symbols for its region and against the devicetree, and the
 * outputs against TFLite Micro's, byte for byte. Constants stay in flash.
 */
#include <string.h>

#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/linker/linker-defs.h>
#include <zephyr/sys/printk.h>

#include "micro_speech.h"
#include "micro_speech_reference.h"

#define RUNS 3

/* From Zephyr's linker script: SRAM1's section (the image's RAM in sram0,
 * _image_ram_start/_end, comes from linker-defs.h). */
extern uint8_t __SRAM1_start[];
extern uint8_t __SRAM1_end[];

#define SRAM0_NODE DT_NODELABEL(sram0)
#define SRAM1_NODE DT_NODELABEL(sram1)

static int pool_inside(const char *pool, const uint8_t *base, uint32_t size, uint32_t align,
		       const char *region, const uint8_t *start, const uint8_t *end, uintptr_t dt_addr,
		       uint32_t dt_size)
{
	int inside = base >= start && base + size <= end && (uintptr_t)base >= dt_addr &&
		     (uintptr_t)base + size <= dt_addr + dt_size;
	int aligned = (uintptr_t)base % align == 0;

	printk("pool %s: %u B at %p, %s region %s [%p, %p), %s %u\n", pool, size, base,
	       inside ? "inside" : "OUTSIDE", region, start, end, aligned ? "aligned to" : "NOT aligned to",
	       align);
	return inside && aligned;
}

static int run_once(struct usmp_micro_speech_workspace_pools *pools)
{
	struct usmp_micro_speech_inputs in = usmp_micro_speech_map_inputs(pools);
	struct usmp_micro_speech_outputs out;

	memcpy(in.reshape_1, usmp_micro_speech_reference_input_reshape_1, USMP_MICRO_SPEECH_INPUT_RESHAPE_1_SIZE);
	if (usmp_micro_speech_run(pools) != 0) {
		return 0;
	}
	out = usmp_micro_speech_map_outputs(pools);
	return memcmp(out.labels_softmax, usmp_micro_speech_expected_labels_softmax,
		      USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_SIZE) == 0;
}

int main(void)
{
	struct usmp_micro_speech_workspace_pools *pools = &usmp_micro_speech_pools;
	int failures = 0;

	printk("usmp pinned_pools: micro_speech over SRAM1 and sram0, constants %d B in flash\n",
	       USMP_MICRO_SPEECH_CONSTANTS_POOL_SIZE);
	/* Both pools are used: otherwise this sample shows nothing. */
	if (USMP_MICRO_SPEECH_SRAM1_POOL_SIZE == 0 || USMP_MICRO_SPEECH_SRAM0_POOL_SIZE == 0) {
		printk("a pool is empty\n");
		failures++;
	}
	failures += !pool_inside("sram1", pools->sram1, USMP_MICRO_SPEECH_SRAM1_POOL_SIZE,
				 USMP_MICRO_SPEECH_SRAM1_POOL_ALIGN, "SRAM1", __SRAM1_start, __SRAM1_end,
				 DT_REG_ADDR(SRAM1_NODE), DT_REG_SIZE(SRAM1_NODE));
	failures += !pool_inside("sram0", pools->sram0, USMP_MICRO_SPEECH_SRAM0_POOL_SIZE,
				 USMP_MICRO_SPEECH_SRAM0_POOL_ALIGN, "sram0", (uint8_t *)_image_ram_start,
				 (uint8_t *)_image_ram_end, DT_REG_ADDR(SRAM0_NODE), DT_REG_SIZE(SRAM0_NODE));

	for (int run = 0; run < RUNS; run++) {
		int same = run_once(pools);

		printk("run %d: %s\n", run, same ? "bit-exact" : "WRONG");
		failures += !same;
	}

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
