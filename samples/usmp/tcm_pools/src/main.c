/*
 * usmp tcm_pools (U3 on tightly coupled memories): micro_speech on the
 * Corstone-300 with its workspace over DTCM (2 KiB, tried first) and SRAM,
 * and its constants over ITCM (16 KiB, tried first) and flash, all chosen in
 * Kconfig. ITCM is linked NOLOAD, so usmp_micro_speech_init() copies the
 * ITCM pool's image from flash before the first run. Each pool is checked
 * against the linker's symbols of its region and against the devicetree;
 * the outputs against TFLite Micro's, byte for byte. The scenario with a DMA engine
 * (CONFIG_USMP_IO_TARGETS="dma") puts the input and output in SRAM, the one pool the DMA
 * reaches, and the activations in DTCM; where each lands is printed and checked too.
 */
#include <string.h>

#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/linker/linker-defs.h>
#include <zephyr/sys/printk.h>

#include "micro_speech.h"
#include "micro_speech_reference.h"

#define RUNS 3

/* Zephyr's linker script: one NOLOAD section per devicetree memory region. */
extern uint8_t __DTCM_start[], __DTCM_end[], __SRAM_start[], __SRAM_end[], __ITCM_start[], __ITCM_end[];

/* The generated library's constant pools (usmp_<model>_<pool>_pool). */
extern uint8_t usmp_micro_speech_itcm_pool[];
extern const uint8_t usmp_micro_speech_flash_pool[];

#define REGION_NODE(label) DT_NODELABEL(label)

static int pool_inside(const char *pool, const uint8_t *base, uint32_t size, uint32_t align,
		       const char *region, const uint8_t *start, const uint8_t *end, uintptr_t dt_addr,
		       uint32_t dt_size)
{
	int inside = size > 0 && base >= start && base + size <= end && (uintptr_t)base >= dt_addr &&
		     (uintptr_t)base + size <= dt_addr + dt_size;
	int aligned = (uintptr_t)base % align == 0;

	printk("pool %s: %u B at %p, %s region %s [%p, %p), %s %u\n", pool, size, base,
	       inside ? "inside" : "OUTSIDE", region, start, end, aligned ? "aligned to" : "NOT aligned to",
	       align);
	return inside && aligned;
}

/* Where an input or output buffer lives: in DTCM or SRAM (with CONFIG_USMP_IO_TARGETS="dma", in SRAM). */
static int io_buffer(const char *what, const char *name, const void *p, uint32_t size)
{
	const uint8_t *at = p;
	const char *region = at >= __DTCM_start && at + size <= __DTCM_end	? "DTCM"
			     : at >= __SRAM_start && at + size <= __SRAM_end ? "SRAM"
									      : NULL;

	printk("%s %s: %u B at %p, in region %s\n", what, name, size, p, region ? region : "none");
	return region != NULL;
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

	printk("usmp tcm_pools: micro_speech, workspace over DTCM and SRAM, constants over ITCM and flash\n");
	/* Before init() the ITCM pool holds whatever was there: run() refuses to start. */
	if (usmp_micro_speech_run(pools) != -2) {
		printk("run before init was not refused\n");
		failures++;
	}
	if (usmp_micro_speech_init(pools) != 0) {
		printk("usmp_micro_speech_init failed\n");
		failures++;
	}
	failures += !pool_inside("dtcm", pools->dtcm, USMP_MICRO_SPEECH_DTCM_POOL_SIZE,
				 USMP_MICRO_SPEECH_DTCM_POOL_ALIGN, "DTCM", __DTCM_start, __DTCM_end,
				 DT_REG_ADDR(REGION_NODE(dtcm)), DT_REG_SIZE(REGION_NODE(dtcm)));
	failures += !pool_inside("sram", pools->sram, USMP_MICRO_SPEECH_SRAM_POOL_SIZE,
				 USMP_MICRO_SPEECH_SRAM_POOL_ALIGN, "SRAM", __SRAM_start, __SRAM_end,
				 DT_REG_ADDR(REGION_NODE(sram)), DT_REG_SIZE(REGION_NODE(sram)));
	failures += !pool_inside("itcm", usmp_micro_speech_itcm_pool, USMP_MICRO_SPEECH_ITCM_POOL_SIZE,
				 USMP_MICRO_SPEECH_ITCM_POOL_ALIGN, "ITCM", __ITCM_start, __ITCM_end,
				 DT_REG_ADDR(REGION_NODE(itcm)), DT_REG_SIZE(REGION_NODE(itcm)));
	failures += !pool_inside("flash", usmp_micro_speech_flash_pool, USMP_MICRO_SPEECH_FLASH_POOL_SIZE,
				 USMP_MICRO_SPEECH_FLASH_POOL_ALIGN, "flash", (const uint8_t *)__rom_region_start,
				 (const uint8_t *)__rom_region_end, DT_REG_ADDR(DT_CHOSEN(zephyr_flash)),
				 DT_REG_SIZE(DT_CHOSEN(zephyr_flash)));
	failures += !io_buffer("input", "reshape_1", usmp_micro_speech_map_inputs(pools).reshape_1,
			       USMP_MICRO_SPEECH_INPUT_RESHAPE_1_SIZE);
	failures += !io_buffer("output", "labels_softmax", usmp_micro_speech_map_outputs(pools).labels_softmax,
			       USMP_MICRO_SPEECH_OUTPUT_LABELS_SOFTMAX_SIZE);

	for (int run = 0; run < RUNS; run++) {
		int same = run_once(pools);

		printk("run %d: %s\n", run, same ? "bit-exact" : "WRONG");
		failures += !same;
	}

	printk("%s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
