"""CONFIG_USMP_* options to pools, algorithm and I/O placement."""
from pathlib import Path

import pytest

from usmp.errors import UsmpError
from usmp.zephyr.dotconfig import parse_config_text, read_config
from usmp.zephyr.kconfig_pools import settings_from_config
from zephyr_helpers import PINNED_CONFIG, PRJ_CONF


def settings(text: str, source: str = "prj.conf"):
    return settings_from_config(parse_config_text(text, source))


def test_defaults_of_a_bare_prj_conf():
    s = settings("CONFIG_USMP=y\n")
    assert [(p.name, p.kind, p.region, p.size_limit, p.alignment) for p in s.pools] == [
        ("workspace", "workspace", "", 0, 16), ("constants", "constant", "", 0, 16)]
    assert (s.algorithm, s.workspace_io, s.guard_words, s.model) == ("auto", False, 0, "")


def test_pinned_dotconfig_orders_pools_by_priority():
    s = settings_from_config(read_config(PINNED_CONFIG))
    assert [p.name for p in s.pools] == ["fast", "workspace", "constants"]
    fast = s.pools[0]
    assert (fast.slot, fast.kind, fast.region, fast.size_limit, fast.alignment) == (2, "workspace", "usmp_pool2", 4096, 32)
    assert (s.algorithm, s.guard_words) == ("greedy_by_size", 2)


def test_prj_conf_with_custom_algorithm_and_workspace_io():
    s = settings_from_config(read_config(PRJ_CONF))
    assert (s.algorithm, s.workspace_io) == ("my_plans.fit:first_fit", True)


@pytest.mark.parametrize("choice, name", [("GREEDY_BY_SIZE", "greedy_by_size"), ("OPTIMAL", "optimal"),
                                          ("HILL_CLIMB", "hill_climb"), ("GREEDY_BY_CONFLICTS", "greedy_by_conflicts")])
def test_algorithm_choice(choice, name):
    assert settings(f"CONFIG_USMP=y\nCONFIG_USMP_ALGORITHM_{choice}=y\n").algorithm == name


@pytest.mark.parametrize("text, message", [
    ("CONFIG_USMP=n\n", "CONFIG_USMP is not enabled: add CONFIG_USMP=y"),
    ("CONFIG_USMP=y\nCONFIG_USMP_ALGORITHM_CUSTOM=y\n", "CONFIG_USMP_ALGORITHM_CUSTOM_NAME is empty"),
    ('CONFIG_USMP=y\nCONFIG_USMP_POOL0_NAME="9lives"\n', r'CONFIG_USMP_POOL0_NAME="9lives" is not a C identifier'),
    ('CONFIG_USMP=y\nCONFIG_USMP_POOL2=y\nCONFIG_USMP_POOL2_NAME="workspace"\n',
     "CONFIG_USMP_POOL0_NAME and CONFIG_USMP_POOL2_NAME are both 'workspace'"),
    ("CONFIG_USMP=y\nCONFIG_USMP_POOL1=n\n", r"no constant pool is enabled: set CONFIG_USMP_POOL<n>=y with "
                                             r"CONFIG_USMP_POOL<n>_KIND_CONSTANT=y"),
    ("CONFIG_USMP=y\nCONFIG_USMP_POOL0_KIND_CONSTANT=y\n", "no workspace pool is enabled"),
    ("CONFIG_USMP=y\nCONFIG_USMP_POOL0_ALIGNMENT=24\n", "CONFIG_USMP_POOL0_ALIGNMENT=24 must be a power of two"),
])
def test_invalid_combinations_say_what_to_change(text, message):
    with pytest.raises(UsmpError, match=message):
        settings(text)


def test_dotconfig_without_usmp_is_refused():
    with pytest.raises(UsmpError, match=r"build/zephyr/.config: CONFIG_USMP is not enabled"):
        settings('CONFIG_KERNEL_BIN_NAME="zephyr"\n', "build/zephyr/.config")


@pytest.mark.parametrize("core, target", [("CONFIG_CPU_CORTEX_M0=y", "cortex-m0"),
                                          ("CONFIG_CPU_CORTEX_M0PLUS=y", "cortex-m0"),
                                          ("CONFIG_CPU_CORTEX_M4=y\nCONFIG_FPU=y", "cortex-m4"),
                                          ("CONFIG_RISCV_ISA_RV32I=y\nCONFIG_RISCV_ISA_EXT_M=y", "riscv32")])
def test_stack_bound_on_the_emulated_core_running_the_build_code(core, target):
    """CONFIG_USMP_STACK_BOUND=y bounds the stack in an image for the emulated core whose code the build's is."""
    assert settings(f"CONFIG_USMP=y\nCONFIG_USMP_STACK_BOUND=y\n{core}\n").stack_bound == target
    assert settings(f"CONFIG_USMP=y\n{core}\n").stack_bound is None


def test_stack_bound_without_such_a_core_says_what_to_change():
    with pytest.raises(UsmpError, match="CONFIG_USMP_STACK_BOUND=y: no emulated core .* set CONFIG_USMP_STACK_BOUND=n"):
        settings("CONFIG_USMP=y\nCONFIG_USMP_STACK_BOUND=y\nCONFIG_CPU_CORTEX_M33=y\n")


def test_stack_bound_without_the_cross_compiler_warns_and_builds_on(tmp_path, monkeypatch, capsys):
    """A Zephyr SDK alone (no arm-none-eabi-gcc on PATH) builds the app without the bound, and says so."""
    from usmp.cli import main as usmp_main

    conf = tmp_path / "prj.conf"
    conf.write_text("CONFIG_USMP=y\nCONFIG_USMP_STACK_BOUND=y\nCONFIG_CPU_CORTEX_M0=y\n")
    monkeypatch.setattr("usmp.stack.on_target.shutil.which", lambda tool: None)
    model = Path(__file__).parent / "models" / "tflm" / "hello_world_int8.tflite"
    assert usmp_main(["compile", str(model), "--dotconfig", str(conf), "-o", str(tmp_path / "out")]) == 0
    assert "CONFIG_USMP_STACK_BOUND=y but arm-none-eabi-gcc is not on PATH" in capsys.readouterr().err
    assert "STACK_BYTES" not in (tmp_path / "out" / "hello_world_int8.h").read_text()
