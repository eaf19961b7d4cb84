"""The Kconfig menu itself, evaluated by the Zephyr tree's kconfiglib with the
devicetree functions: its defaults must read back as the pools the compiler
uses, and a `usmp_pool<n>` label must enable and size slot n. Skips without a
Zephyr workspace."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from usmp.zephyr.devicetree import read_dts
from usmp.zephyr.dotconfig import read_config
from usmp.zephyr.kconfig_pools import settings_from_config
from usmp.zephyr.placement import place_pools
from zephyr_helpers import DTS, require_zephyr, write_edt_pickle

REPO = Path(__file__).resolve().parents[1]

# Runs in a child process: kconfiglib and kconfigfunctions read the environment at import.
WRITE_CONFIG = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import kconfiglib
    kconf = kconfiglib.Kconfig(sys.argv[2], warn_to_stderr=False)
    kconf.load_config(sys.argv[3])
    for warning in kconf.warnings:
        print(warning, file=sys.stderr)
    kconf.write_config(sys.argv[4])
    sys.exit(1 if kconf.warnings else 0)
""")


def write_dotconfig(tmp_path: Path, fragment: str, with_region_label: bool = True) -> Path:
    base = require_zephyr()
    dts = DTS.read_text()
    if not with_region_label:
        dts = dts.replace("sram1: usmp_pool2: memory", "sram1: memory")
    (tmp_path / "board.dts").write_text(dts)
    edt = write_edt_pickle(base, tmp_path / "board.dts", tmp_path)
    top = tmp_path / "Kconfig"
    top.write_text(f'mainmenu "usmp test"\nsource "{REPO / "Kconfig"}"\n')
    conf = tmp_path / "prj.conf"
    conf.write_text(fragment)
    out = tmp_path / ".config"
    env = dict(os.environ, ZEPHYR_BASE=str(base), EDT_PICKLE=str(edt), srctree=str(base))
    result = subprocess.run([sys.executable, "-c", WRITE_CONFIG, str(base / "scripts" / "kconfig"), str(top),
                             str(conf), str(out)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    return out


def test_defaults_give_one_workspace_and_one_constant_pool(tmp_path):
    dotconfig = write_dotconfig(tmp_path, "CONFIG_USMP=y\n", with_region_label=False)
    settings = settings_from_config(read_config(dotconfig))
    assert [(p.name, p.kind, p.region, p.size_limit) for p in settings.pools] == [
        ("workspace", "workspace", "", 0), ("constants", "constant", "", 0)]
    assert settings.algorithm == "auto"


def test_region_label_enables_and_sizes_its_slot(tmp_path):
    dotconfig = write_dotconfig(tmp_path, "CONFIG_USMP=y\nCONFIG_USMP_POOL2_PRIORITY=0\n"
                                          "CONFIG_USMP_POOL0_PRIORITY=1\nCONFIG_USMP_ALGORITHM_OPTIMAL=y\n")
    text = dotconfig.read_text()
    assert 'CONFIG_USMP_POOL2_REGION="usmp_pool2"' in text and "CONFIG_USMP_POOL2_SIZE=4096" in text
    settings = settings_from_config(read_config(dotconfig))
    pools = place_pools(settings.pools, read_dts(DTS))
    assert [(p.name, p.section, p.size_limit) for p in pools] == [
        ("pool2", "SRAM1", 4096), ("workspace", None, None), ("constants", None, None)]
    assert settings.algorithm == "optimal"


def test_custom_algorithm_and_every_option_is_known(tmp_path):
    fragment = ('CONFIG_USMP=y\nCONFIG_USMP_ALGORITHM_CUSTOM=y\nCONFIG_USMP_ALGORITHM_CUSTOM_NAME="pkg.mod:fn"\n'
                'CONFIG_USMP_WORKSPACE_IO=y\nCONFIG_USMP_GUARD_WORDS=4\nCONFIG_USMP_POOL3=y\n'
                'CONFIG_USMP_POOL3_NAME="tcm"\nCONFIG_USMP_POOL3_KIND_WORKSPACE=y\nCONFIG_USMP_POOL3_REGION="sram1"\n'
                'CONFIG_USMP_POOL3_SIZE=1024\nCONFIG_USMP_POOL3_ALIGNMENT=64\nCONFIG_USMP_POOL3_PRIORITY=0\n'
                'CONFIG_USMP_MODEL="m.tflite"\nCONFIG_USMP_MODEL_NAME="m"\n')
    settings = settings_from_config(read_config(write_dotconfig(tmp_path, fragment, with_region_label=False)))
    assert (settings.algorithm, settings.workspace_io, settings.guard_words, settings.model) == (
        "pkg.mod:fn", True, 4, "m.tflite")
    assert [p.name for p in settings.pools] == ["workspace", "tcm", "constants"]  # priority ties keep slot order
    tcm = settings.pools[1]
    assert (tcm.name, tcm.region, tcm.size_limit, tcm.alignment) == ("tcm", "sram1", 1024, 64)


# The symbols of the build's core, as Zephyr's arch Kconfig defines them (with prompts here, so a
# fragment can pick the core), and the modules' presence as Kconfig.modules writes it.
CORE_STUB = textwrap.dedent("""\
    config CPU_CORTEX_M
    \tbool
    \tdefault y
    config CPU_CORTEX_M3
    \tbool "M3"
    config CPU_CORTEX_M4
    \tbool "M4"
    config CPU_CORTEX_M33
    \tbool "M33"
    config ARMV8_M_DSP
    \tbool "DSP"
    """)
MODULES_PRESENT = "config ZEPHYR_CMSIS_NN_MODULE\n\tbool\n\tdefault y\nconfig ZEPHYR_CMSIS_DSP_MODULE\n\tbool\n\tdefault y\n"


@pytest.mark.parametrize("fragment, modules, cmsis_nn", [
    ("CONFIG_CPU_CORTEX_M4=y\n", True, True),
    ("CONFIG_CPU_CORTEX_M33=y\nCONFIG_ARMV8_M_DSP=y\n", True, True),
    ("CONFIG_CPU_CORTEX_M33=y\n", True, False),  # Zephyr's AN521: an M33 without DSP
    ("CONFIG_CPU_CORTEX_M3=y\n", True, False),
    ("CONFIG_CPU_CORTEX_M4=y\n", False, False),
    ("CONFIG_CPU_CORTEX_M4=y\nCONFIG_USMP_KERNELS_PORTABLE=y\n", True, False),
    ("CONFIG_CPU_CORTEX_M4=y\nCONFIG_CMSIS_NN=n\n", True, False),
], ids=["m4", "m33_dsp", "m33_no_dsp", "m3", "m4_without_module", "m4_portable", "m4_cmsis_nn_off"])
def test_cmsis_nn_is_on_by_default_on_dsp_cores_with_the_module(tmp_path, fragment, modules, cmsis_nn):
    """With Zephyr's own cmsis-nn and cmsis-dsp Kconfig files: no warning (each would be an error) either way."""
    base = require_zephyr()
    top = tmp_path / "Kconfig"
    top.write_text(f'mainmenu "usmp test"\n{CORE_STUB}{MODULES_PRESENT if modules else ""}'
                   f'source "{base / "modules" / "cmsis-nn" / "Kconfig"}"\n'
                   f'source "{base / "modules" / "cmsis-dsp" / "Kconfig"}"\n'
                   f'source "{REPO / "Kconfig"}"\n')
    (tmp_path / "prj.conf").write_text("CONFIG_USMP=y\n" + fragment)
    env = dict(os.environ, ZEPHYR_BASE=str(base), srctree=str(base))
    result = subprocess.run([sys.executable, "-c", WRITE_CONFIG, str(base / "scripts" / "kconfig"), str(top),
                             str(tmp_path / "prj.conf"), str(tmp_path / ".config")],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    config = read_config(tmp_path / ".config")
    assert config.flag("CONFIG_CMSIS_NN") == cmsis_nn
    assert config.flag("CONFIG_CMSIS_DSP") == cmsis_nn  # selected by CMSIS_NN
    assert config.flag("CONFIG_CMSIS_NN_CONVOLUTION") == cmsis_nn  # the parts USMP calls follow
