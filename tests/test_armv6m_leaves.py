"""The Armv6-M leaves in assembly (kernels/src/armv6m.c: the high multiply, the forward copy, the division) against
their C meaning, run on the emulated Cortex-M0.

They keep the M0's deepest stack paths short (no frame of their own); the models that run on the M0 use them
bit-exact, but seldom at their edges: INT32_MIN x INT32_MIN, every alignment and overlap of a copy, divisors with
the top bit set. One program checks them all against libgcc's 64-bit product, memmove and '/'.
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.baremetal import BAREMETAL_DIR, SUPPORT_FLAGS, linker_script, support_dir, target_named
from usmp.runner.qemu import run_qemu

TARGET = target_named("cortex-m0")
MISSING = [t for t in (TARGET.arch.tool("gcc"), TARGET.arch.qemu) if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")

CHECK = r"""
#include <stdio.h>
#include <string.h>

#include "usmp_kernels/armv6m.h"

static int32_t high_mul(int32_t a, int32_t b) /* TFLite's nudge, then a division truncating towards zero */
{
	int64_t ab, t;

	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	ab = (int64_t)a * b;
	t = ab + (ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30)));
	if (t < 0)
		t += 0x7fffffff;
	return (int32_t)(t >> 31);
}

static uint32_t state = 2463534242u;

static uint32_t next(void)
{
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	return state;
}

static const uint32_t EDGES[] = {0, 1, 2, 3, 0x4000, 0x7fff, 0x8000, 0xffff, 0x10000, 0x3fffffff, 0x40000000,
				 0x7fffffff, 0x80000000u, 0x80000001u, 0x8000ffffu, 0xc0000000u, 0xffff0000u,
				 0xffffc000u, 0xfffffffeu, 0xffffffffu};
#define N_EDGES (sizeof(EDGES) / sizeof(EDGES[0]))

static uint8_t a[96] __attribute__((aligned(4))), b[96] __attribute__((aligned(4))), want[96];

int main(void)
{
	long bad = 0;
	uint32_t i, j, d, s, n;

	for (i = 0; i < N_EDGES; i++)
		for (j = 0; j < N_EDGES; j++) {
			bad += usmp_armv6m_high_mul((int32_t)EDGES[i], (int32_t)EDGES[j]) !=
			       high_mul((int32_t)EDGES[i], (int32_t)EDGES[j]);
			if (EDGES[j] != 0)
				bad += usmp_armv6m_divide(EDGES[i], EDGES[j]) != EDGES[i] / EDGES[j];
		}
	for (i = 0; i < 20000; i++) {
		const uint32_t r = next();
		int32_t x = (int32_t)next(), y = (int32_t)next();
		uint32_t q = next() >> (r & 31), m = next() >> ((r >> 5) & 31);

		bad += usmp_armv6m_high_mul(x >> ((r >> 10) & 31), y >> ((r >> 15) & 31)) !=
		       high_mul(x >> ((r >> 10) & 31), y >> ((r >> 15) & 31));
		bad += usmp_armv6m_divide(q, m | 1u) != q / (m | 1u);
	}
	for (d = 0; d < 4; d++) /* every alignment of both sides, lengths around the word and four-byte turns */
		for (s = 0; s < 4; s++)
			for (n = 0; n < 24; n++) {
				for (i = 0; i < sizeof(a); i++) {
					a[i] = (uint8_t)(7 * i + 1);
					b[i] = (uint8_t)(13 * i + 5);
				}
				memcpy(want, b, sizeof(b));
				memcpy(want + d, a + 40 + s, n);
				usmp_armv6m_copy(b + d, a + 40 + s, (int32_t)n);
				bad += memcmp(want, b, sizeof(b)) != 0;
				memcpy(want, a, sizeof(a)); /* within one buffer, the destination below the source */
				memmove(want + d, want + d + s + 1, n);
				usmp_armv6m_copy(a + d, a + d + s + 1, (int32_t)n);
				bad += memcmp(want, a, sizeof(a)) != 0;
			}
	printf("%ld wrong\n", bad);
	return bad != 0;
}
"""


def test_leaves_match_their_c_meaning(tmp_path):
    (tmp_path / "check.c").write_text(CHECK)
    (tmp_path / "linker.ld").write_text(linker_script(TARGET))
    gcc = TARGET.arch.tool("gcc")
    sources = [tmp_path / "check.c", KERNELS_SRC_DIR / "armv6m.c"]
    sources += [support_dir(TARGET) / name for name in TARGET.arch.support_sources]
    sources.append(BAREMETAL_DIR / "harness_hooks.c")
    objects = []
    for source in sources:
        objects.append(str(tmp_path / (source.stem + ".o")))
        done = subprocess.run([gcc, *TARGET.compile_flags, *SUPPORT_FLAGS, "-I", str(KERNELS_INCLUDE_DIR),
                               "-I", str(BAREMETAL_DIR), "-c", str(source), "-o", objects[-1]],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    done = subprocess.run([gcc, *TARGET.link_flags, "-nostartfiles", "-T", str(tmp_path / "linker.ld"), *objects,
                           *TARGET.arch.link_libraries, "-o", str(tmp_path / "check.elf")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    run = run_qemu(TARGET.arch.qemu, TARGET.qemu_arguments, tmp_path / "check.elf", tmp_path, 120)
    assert run.returncode == 0 and "0 wrong" in run.stdout, run.stdout
