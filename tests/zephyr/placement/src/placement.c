/*
 * Each model's pool "sram1" must lie in the linker section of the devicetree
 * region SRAM1 and its pool "ram" in the kernel's RAM (sram0), outside SRAM1;
 * each base must have its pool's alignment. Both pools must be used by some
 * model, or the test would prove nothing.
 */
#include <stdint.h>

#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/linker/linker-defs.h>
#include <zephyr/ztest.h>

#include "usmp_test_cases.h"

struct model_pools {
	const char *name;
	uint8_t *const *sram1;
	uint32_t sram1_size;
	uint32_t sram1_align;
	uint8_t *const *ram;
	uint32_t ram_size;
	uint32_t ram_align;
};

#include "usmp_test_pools.h"

extern uint8_t __SRAM1_start[];
extern uint8_t __SRAM1_end[];

#define SRAM0_START ((uintptr_t)DT_REG_ADDR(DT_NODELABEL(sram0)))
#define SRAM0_END (SRAM0_START + DT_REG_SIZE(DT_NODELABEL(sram0)))
#define SRAM1_START ((uintptr_t)DT_REG_ADDR(DT_NODELABEL(sram1)))
#define SRAM1_END (SRAM1_START + DT_REG_SIZE(DT_NODELABEL(sram1)))

static int within(const uint8_t *base, uint32_t size, uintptr_t start, uintptr_t end)
{
	return (uintptr_t)base >= start && (uintptr_t)base + size <= end;
}

ZTEST(usmp_placement, test_linker_section_is_the_devicetree_region)
{
	zassert_equal((uintptr_t)__SRAM1_start, SRAM1_START, "SRAM1 section at %p", __SRAM1_start);
	zassert_true((uintptr_t)__SRAM1_end <= SRAM1_END, "SRAM1 section ends at %p", __SRAM1_end);
}

ZTEST(usmp_placement, test_pools_in_their_regions_and_aligned)
{
	uint32_t sram1_used = 0, ram_used = 0;

	for (size_t i = 0; i < ARRAY_SIZE(usmp_test_pools); i++) {
		const struct model_pools *m = &usmp_test_pools[i];
		const uint8_t *sram1 = *m->sram1, *ram = *m->ram;

		TC_PRINT("%s: sram1 %u B at %p, ram %u B at %p\n", m->name, m->sram1_size, sram1, m->ram_size,
			 ram);
		zassert_equal((uintptr_t)sram1 % m->sram1_align, 0, "%s: sram1 pool misaligned", m->name);
		zassert_equal((uintptr_t)ram % m->ram_align, 0, "%s: ram pool misaligned", m->name);
		zassert_equal(m->ram_align, 64, "%s: ram pool alignment %u", m->name, m->ram_align);
		zassert_true(m->sram1_size <= 256, "%s: sram1 pool over its 256 B limit", m->name);
		if (m->sram1_size > 0) {
			zassert_true(within(sram1, m->sram1_size, (uintptr_t)__SRAM1_start, (uintptr_t)__SRAM1_end),
				     "%s: sram1 pool outside section SRAM1", m->name);
			zassert_true(within(sram1, m->sram1_size, SRAM1_START, SRAM1_END),
				     "%s: sram1 pool outside region sram1", m->name);
		}
		if (m->ram_size > 0) {
			zassert_true(within(ram, m->ram_size, (uintptr_t)_image_ram_start,
					    (uintptr_t)_image_ram_end),
				     "%s: ram pool outside the image's RAM", m->name);
			zassert_true(within(ram, m->ram_size, SRAM0_START, SRAM0_END),
				     "%s: ram pool outside region sram0", m->name);
		}
		sram1_used += m->sram1_size;
		ram_used += m->ram_size;
	}
	zassert_true(sram1_used > 0 && ram_used > 0, "a pool is never used: sram1 %u B, ram %u B", sram1_used,
		     ram_used);
}

ZTEST_SUITE(usmp_placement, NULL, NULL, NULL, NULL, NULL);
