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


def test_constants_stay_in_flash_or_are_refused():
    assert place_pool(request("flash0", kind="constant"), TREE).section is None
    with pytest.raises(UsmpError, match="NOLOAD, so its values would be lost"):
        place_pool(request("sram1", kind="constant"), TREE)


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
