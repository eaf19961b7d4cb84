"""SHARED_WORKSPACE groups: one pool per workspace pool name, sized by the C
preprocessor to the largest member; built and run on the host."""
import subprocess

import numpy as np
import pytest

from reference import reference_outputs
from usmp.compiler import CompileOptions, compile_to_directory
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.zephyr.devicetree import read_dts
from usmp.zephyr.dotconfig import parse_config_text
from usmp.zephyr.group import group_files
from usmp.zephyr.kconfig_pools import settings_from_config
from usmp.zephyr.placement import place_pools
from zephyr_helpers import DTS, fc_chain_model

FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]

MAIN = r"""
#include <stdio.h>
#include "usmp_group_pair.h"

int main(void)
{
	int8_t small_in[16], small_out[4], big_in[48], big_out[4];
	struct usmp_small_inputs si = { .input = small_in };
	struct usmp_small_outputs so = { .output = small_out };
	struct usmp_big_inputs bi = { .input = big_in };
	struct usmp_big_outputs bo = { .output = big_out };
	int i, round;

	for (i = 0; i < 16; i++) small_in[i] = (int8_t)(i * 7 - 50);
	for (i = 0; i < 48; i++) big_in[i] = (int8_t)(i * 5 - 120);
	usmp_group_pair_arm_guards();
	for (round = 0; round < 3; round++) {
		if (usmp_small_run(&si, &so, &usmp_group_pair_small_pools) != 0) return 1;
		if (usmp_big_run(&bi, &bo, &usmp_group_pair_big_pools) != 0) return 1;
	}
	printf("%d %d %d %d %d\n", USMP_GROUP_PAIR_WORKSPACE_POOL_SIZE, USMP_GROUP_PAIR_FAST_POOL_SIZE,
	       USMP_SMALL_WORKSPACE_POOL_SIZE, USMP_BIG_WORKSPACE_POOL_SIZE, usmp_group_pair_guards_intact());
	for (i = 0; i < 4; i++) printf("%d ", small_out[i]);
	for (i = 0; i < 4; i++) printf("%d ", big_out[i]);
	printf("\n");
	return 0;
}
"""

CONFIG = ('CONFIG_USMP=y\nCONFIG_USMP_GUARD_WORDS=3\nCONFIG_USMP_POOL2=y\nCONFIG_USMP_POOL2_NAME="fast"\n'
          'CONFIG_USMP_POOL2_REGION="sram1"\nCONFIG_USMP_POOL2_PRIORITY=3\n')


def test_group_files_declare_the_pinned_pool_in_its_section():
    settings = settings_from_config(parse_config_text(CONFIG))
    files = group_files("pair", ["small", "big"], place_pools(settings.pools, read_dts(DTS)), settings.guard_words)
    source, header = files["usmp_group_pair.c"], files["usmp_group_pair.h"]
    assert '__attribute__((section("SRAM1"), aligned(USMP_GROUP_PAIR_FAST_POOL_ALIGN)))' in source
    assert ("#define USMP_GROUP_PAIR_WORKSPACE_POOL_SIZE "
            "USMP_GROUP_MAX_(USMP_SMALL_WORKSPACE_POOL_SIZE, USMP_BIG_WORKSPACE_POOL_SIZE)") in header
    assert "constants" not in source  # constant pools stay per model


def test_shared_pool_is_the_largest_need_and_both_models_stay_exact(tmp_path):
    gcc = "gcc"
    settings = settings_from_config(parse_config_text(CONFIG))
    pools = place_pools(settings.pools, read_dts(DTS))
    sizes = {}
    for name, width, seed in (("small", 16, 1), ("big", 48, 2)):
        model = fc_chain_model(tmp_path / f"{name}.tflite", width, seed)
        compiled = compile_to_directory(model, tmp_path / name, CompileOptions(name=name, pools=pools, user_pools=True))
        sizes[name] = compiled.layout.pool("workspace").size
    for file_name, text in group_files("pair", ["small", "big"], pools, settings.guard_words).items():
        (tmp_path / file_name).write_text(text)
    (tmp_path / "main.c").write_text(MAIN)
    sources = [tmp_path / "main.c", tmp_path / "usmp_group_pair.c"] + \
        [tmp_path / n / f"{n}{suffix}.c" for n in ("small", "big") for suffix in ("", "_constants")] + \
        sorted(KERNELS_SRC_DIR.glob("*.c"))
    # The section "SRAM1" is only a name on the host: the linker keeps it as a data section.
    exe = tmp_path / "group"
    try:
        subprocess.run([gcc, *FLAGS, "-I", str(tmp_path), "-I", str(tmp_path / "small"), "-I", str(tmp_path / "big"),
                        "-I", str(KERNELS_INCLUDE_DIR), *map(str, sources), "-lm", "-o", str(exe)],
                       check=True, capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("no host gcc")
    except subprocess.CalledProcessError as exc:
        pytest.fail(exc.stderr)
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")
    group_size, fast_size, small_size, big_size, guards = map(int, lines[0].split())
    assert (small_size, big_size) == (sizes["small"], sizes["big"])
    assert small_size != big_size and group_size == max(small_size, big_size)
    assert fast_size == 0 and guards == 1
    got = [int(v) for v in lines[1].split()]
    small_in = (np.arange(16) * 7 - 50).astype(np.int8).reshape(1, 16)
    big_in = (np.arange(48) * 5 - 120).astype(np.int8).reshape(1, 48)
    expected = [int(v) for v in reference_outputs(tmp_path / "small.tflite", [small_in])[0].ravel()] + \
        [int(v) for v in reference_outputs(tmp_path / "big.tflite", [big_in])[0].ravel()]
    assert got == expected
