"""The twister files of the samples and ztest suites: the mistakes that make a
scenario pass without testing anything (a harness in `common:`, which turns
every scenario into a build-only one; a console regex without the PASS line)
or skip what the samples issue asks for (another algorithm per sample).
The builds themselves run with `west twister` (see .ci/run)."""
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "samples" / "usmp").glob("*/sample.yaml"))
SUITES = sorted((REPO / "tests" / "zephyr").glob("*/testcase.yaml"))
# Boards QEMU emulates, by their Zephyr 4.x names (hardware model v2).
QEMU_PLATFORMS = {"qemu_cortex_m0", "mps2/an385", "mps2/an521/cpu0", "mps3/corstone300/an547", "qemu_riscv32"}
BOARD_SPECIFIC = {"tcm_pools", "float_kernels"}  # the Corstone-300's TCMs; boards with an FPU


def test_every_sample_and_suite_is_found():
    assert {p.parent.name for p in SAMPLES} == {"hello", "shared_workspace", "io_in_workspace", "pinned_pools",
                                                "tcm_pools", "streaming", "depth_first"}
    assert len(SUITES) >= 3


@pytest.mark.parametrize("path", SAMPLES + SUITES, ids=lambda p: p.parent.name)
def test_harness_is_per_scenario_never_common(path):
    data = yaml.safe_load(path.read_text())
    assert "harness" not in data.get("common", {}), f"{path}: harness in common"
    assert data["tests"], f"{path}: no scenarios"
    for name, scenario in data["tests"].items():
        assert scenario.get("harness") in ("console", "ztest"), f"{name}: no harness"
        platforms = scenario.get("platform_allow") or data["common"].get("platform_allow")
        platforms = [platforms] if isinstance(platforms, str) else platforms
        assert set(platforms) & QEMU_PLATFORMS, f"{name}: runs on no board QEMU emulates"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.parent.name)
def test_sample_regexes_need_pass_and_sizes(path):
    for name, scenario in yaml.safe_load(path.read_text())["tests"].items():
        config = scenario["harness_config"]
        assert config["type"] == "multi_line" and config["ordered"], name
        regexes = config["regex"]
        assert regexes[-1] == "^PASS$", name
        assert any(" B" in r and "[0-9]+" in r for r in regexes), f"{name}: no printed size in the regexes"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.parent.name)
def test_sample_builds_a_second_algorithm(path):
    scenarios = yaml.safe_load(path.read_text())["tests"].values()
    algorithms = [c for s in scenarios for c in s.get("extra_configs", []) if c.startswith("CONFIG_USMP_ALGORITHM_")]
    assert algorithms, f"{path}: no scenario selects another algorithm"


@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.parent.name)
def test_suite_enables_the_new_ztest_api_from_its_kconfig(path):
    kconfig = (path.parent / "Kconfig").read_text()
    assert "config ZTEST_NEW_API\n\tbool\n" in kconfig and 'source "Kconfig.zephyr"' in kconfig  # typed: 4.x has no such symbol
    assert "ZTEST_NEW_API" not in (path.parent / "prj.conf").read_text()


@pytest.mark.parametrize("path", [p for p in SAMPLES + SUITES if p.parent.name not in BOARD_SPECIFIC],
                         ids=lambda p: p.parent.name)
def test_runs_on_riscv_too(path):
    """Every sample and suite that is not about one board's memories also runs on an RV32 core."""
    platforms = yaml.safe_load(path.read_text())["common"]["platform_allow"]
    assert "qemu_riscv32" in platforms and "qemu_cortex_m0" in platforms
    for overlay in (path.parent / "boards").glob("qemu_cortex_m0.overlay"):
        assert (overlay.parent / "qemu_riscv32.overlay").is_file(), f"{path.parent.name}: no RISC-V overlay"
