"""The module's metadata files: portable keys only, the west command wired up,
help text for every Kconfig option."""
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PORTABLE_MODULE_KEYS = {"name", "build", "samples", "tests"}
PORTABLE_BUILD_KEYS = {"cmake", "kconfig", "settings"}


def test_module_yml_uses_only_keys_zephyr_3_4_accepts():
    module = yaml.safe_load((REPO / "zephyr" / "module.yml").read_text())
    assert set(module) <= PORTABLE_MODULE_KEYS and set(module["build"]) <= PORTABLE_BUILD_KEYS
    assert (REPO / module["build"]["cmake"] / "CMakeLists.txt").is_file()
    assert (REPO / module["build"]["kconfig"]).is_file()


def test_west_command_is_declared_and_exists():
    manifest = yaml.safe_load((REPO / "west.yml").read_text())["manifest"]
    commands_file = manifest["self"]["west-commands"]
    declared = yaml.safe_load((REPO / commands_file).read_text())["west-commands"][0]
    source = (REPO / declared["file"]).read_text()
    assert f"class {declared['commands'][0]['class']}(WestCommand)" in source
    zephyr = next(p for p in manifest["projects"] if p["name"] == "zephyr")
    assert re.fullmatch(r"v[4-9]\.\d+\.\d+", zephyr["revision"])  # a named 4.x release
    # Cortex-M needs cmsis_6 from 4.x (cmsis was 3.x's); qemu_cortex_m0 is an nRF51; the DSP and Helium
    # cores call CMSIS-NN (Zephyr's cmsis-nn module, whose CONFIG_CMSIS_NN selects the cmsis-dsp module's).
    assert set(zephyr["import"]["name-allowlist"]) == {"cmsis_6", "cmsis-dsp", "cmsis-nn", "hal_nordic"}


def test_every_kconfig_option_has_help():
    for path in (REPO / "Kconfig", REPO / "Kconfig.pool"):
        blocks = re.split(r"^(?=(?:menuconfig|config|choice)\b)", path.read_text(), flags=re.M)[1:]
        assert blocks
        for block in blocks:
            header = block.splitlines()[0]
            assert re.search(r"^\thelp$", block, re.M), f"{path.name}: '{header}' has no help"
