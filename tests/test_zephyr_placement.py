"""Pools in devicetree regions: sizes, linker sections, refusals, generated C."""
import dataclasses

import pytest

from usmp.compiler import CompileOptions, compile_model
from usmp.errors import PlanError, UsmpError
from usmp.zephyr.devicetree import read_dts
from usmp.zephyr.kconfig_pools import PoolRequest
from usmp.zephyr.placement import PlacedPool, place_pool
from zephyr_helpers import DTS, fc_chain_model

TREE = read_dts(DTS)


def request(region="", kind="workspace", size=0, slot=2, name="fast", alignment=32):
    return PoolRequest(slot, name, kind, region, size, alignment, 0)


def test_pinned_pool_gets_section_and_region_size():
    pool = place_pool(request("sram1"), TREE)
    assert (pool.section, pool.size_limit, pool.region_size, pool.alignment) == ("SRAM1", 4096, 4096, 32)


def test_kconfig_limit_below_region_size_wins():
    assert place_pool(request("sram1", size=1024), TREE).size_limit == 1024


def test_limit_above_region_is_refused():
    with pytest.raises(UsmpError, match=r"CONFIG_USMP_POOL2_SIZE=8192 is larger than region 'sram1' \(4096 B\)"):
        place_pool(request("sram1", size=8192), TREE)


def test_chosen_sram_stays_plain_bss_but_bounded():
    pool = place_pool(request("chosen:zephyr,sram"), TREE)
    assert (pool.section, pool.size_limit) == (None, 12 * 1024)
    assert place_pool(request("sram0"), TREE).section is None


def test_no_region_means_plain_memory_without_limit():
    pool = place_pool(request(), None)
    assert (pool.section, pool.size_limit, pool.region) == (None, None, None)


def test_constants_stay_in_flash_or_go_to_a_region_section():
    assert place_pool(request("flash0", kind="constant"), TREE).section is None
    # A NOLOAD region (e.g. a TCM): the pool is copied there from flash by init().
    assert place_pool(request("sram1", kind="constant"), TREE).section == "SRAM1"


def test_constant_pool_in_a_region_is_copied_by_init(tmp_path):
    """Constants split between a NOLOAD region (filled by init() from a flash image) and flash;
    run() refuses to start before init() and matches the reference after it."""
    from reference import outputs_match, random_inputs, reference_outputs
    from usmp.runner.host import run_host

    model = fc_chain_model(tmp_path / "chain.tflite", 64, seed=3)
    fast = dataclasses.replace(place_pool(request("sram1", kind="constant", name="tcm"), TREE), size_limit=2048)
    pools = [place_pool(request(name="workspace", slot=0), TREE), fast,
             place_pool(request(name="flash", kind="constant", slot=1), TREE)]
    compiled = compile_model(model, CompileOptions(name="chain", pools=pools, algorithm="auto"))
    sizes = {p.spec.name: p.size for p in compiled.layout.pools}
    assert 0 < sizes["tcm"] <= 2048 and sizes["flash"] > 0  # the weights did not all fit: fallback to flash
    constants = compiled.files["chain_constants.c"]
    assert 'uint8_t usmp_chain_tcm_pool[' in constants and '__attribute__((section("SRAM1"), aligned(' in constants
    assert "const uint8_t usmp_chain_tcm_pool_image[" in constants
    assert "memcpy(usmp_chain_tcm_pool, usmp_chain_tcm_pool_image," in compiled.files["chain.c"]
    assert "int32_t usmp_chain_init(void);" in compiled.files["chain.h"]
    inputs = random_inputs(compiled.program.graph, __import__("numpy").random.default_rng(1))
    for expected, got in zip(reference_outputs(model, inputs), run_host(compiled, inputs)):
        assert outputs_match(expected, got)


def test_run_before_init_is_refused(tmp_path):
    import subprocess

    model = fc_chain_model(tmp_path / "chain.tflite", 16)
    pools = [place_pool(request(name="workspace", slot=0), TREE),
             place_pool(request("sram1", kind="constant", name="tcm"), TREE)]
    compiled = compile_model(model, CompileOptions(name="chain", pools=pools, algorithm="auto"))
    out = tmp_path / "gen"
    out.mkdir()
    for name, text in compiled.files.items():
        (out / name).write_text(text)
    (out / "main.c").write_text(
        '#include "chain.h"\nstatic int8_t in[16], o[4];\n'
        "int main(void) { struct usmp_chain_inputs i = { in }; struct usmp_chain_outputs u = { o };\n"
        "  if (usmp_chain_run(&i, &u) != -2) return 1;\n"
        "  if (usmp_chain_init() != 0) return 2;\n"
        "  return usmp_chain_run(&i, &u) == 0 ? 0 : 3; }\n")
    from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
    exe = tmp_path / "a.out"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", str(out), "-I", str(KERNELS_INCLUDE_DIR),
                    str(out / "main.c"), str(out / "chain.c"), str(out / "chain_constants.c"),
                    *map(str, sorted(KERNELS_SRC_DIR.glob("*.c"))), "-o", str(exe), "-lm"], check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_region_without_memory_region_property():
    with pytest.raises(UsmpError, match=r"node 'scratch' .* has no zephyr,memory-region property"):
        place_pool(request("scratch"), TREE)


def test_region_needs_a_devicetree():
    with pytest.raises(UsmpError, match=r'CONFIG_USMP_POOL2_REGION="sram1": a pool region needs the devicetree'):
        place_pool(request("sram1"), None)


def _pools(fast_limit=None):
    fast = dataclasses.replace(place_pool(request("sram1"), TREE), size_limit=fast_limit or 4096)
    return [fast, place_pool(request(name="constants", kind="constant", slot=1), TREE)]


def test_generated_pool_is_in_the_region_section(tmp_path):
    model = fc_chain_model(tmp_path / "chain.tflite", 64)
    compiled = compile_model(model, CompileOptions(name="chain", pools=_pools(), algorithm="auto"))
    source = compiled.files["chain.c"]
    assert 'usmp_chain_fast_pool[' in source
    assert '__attribute__((section("SRAM1"), aligned(32)))' in source
    constants = compiled.files["chain_constants.c"]
    assert "const uint8_t usmp_chain_constants_pool[" in constants and "section(" not in constants


def test_overflowing_a_region_says_by_how_much(tmp_path):
    model = fc_chain_model(tmp_path / "chain.tflite", 64)
    need = compile_model(model, CompileOptions(name="chain", pools=_pools(), algorithm="auto")).layout.pool("fast").size
    # The planner refuses first when it can (its own wording); check_pool_limits is the backstop.
    with pytest.raises(PlanError, match=r"pool 'fast' needs .*\b16 B"):
        compile_model(model, CompileOptions(name="chain", pools=_pools(16), algorithm="auto"))
    assert need > 16


def test_limit_check_says_by_how_much():
    from usmp.pool_limits import check_pool_limits

    pool = dataclasses.replace(place_pool(request("sram1"), TREE), size_limit=1000)
    with pytest.raises(PlanError, match=r"pool 'fast' needs 1234 B but its limit \(region 'sram1'\) is 1000 B: "
                                        r"over by 234 B; raise the limit \(CONFIG_USMP_POOL2_SIZE\)"):
        check_pool_limits([pool], {"fast": 1234})


def test_two_pools_in_one_region_must_fit_together():
    from usmp.pool_limits import check_pool_limits

    a = PlacedPool("a", "workspace", 4096, section="SRAM1", region_size=4096)
    b = PlacedPool("b", "workspace", 4096, section="SRAM1", region_size=4096)
    check_pool_limits([a, b], {"a": 2048, "b": 2048})
    with pytest.raises(PlanError, match=r"share region SRAM1 \(4096 B\) and overflow it by 100 B"):
        check_pool_limits([a, b], {"a": 2048, "b": 2148})
