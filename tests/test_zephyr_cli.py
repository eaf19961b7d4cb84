"""`usmp compile` with a Zephyr build: -d BUILD (sysbuild too), --dotconfig,
--devicetree; errors are one line with exit status 2; `west usmp` defaults."""
import importlib.util
import shutil
import sys
import types
from pathlib import Path

import pytest

from usmp.cli import main
from usmp.errors import UsmpError
from usmp.zephyr.build_dir import find_build_files
from zephyr_helpers import DTS, PINNED_CONFIG, PRJ_CONF, fc_chain_model

REPO = Path(__file__).resolve().parents[1]


def fake_build(root: Path, image: str | None = None, config: Path = PINNED_CONFIG) -> Path:
    zephyr_dir = (root / image if image else root) / "zephyr"
    zephyr_dir.mkdir(parents=True)
    shutil.copy(config, zephyr_dir / ".config")
    shutil.copy(DTS, zephyr_dir / "zephyr.dts")
    return root


def test_build_dir_lookup_single_image(tmp_path):
    files = find_build_files(fake_build(tmp_path / "build"))
    assert files.dotconfig == tmp_path / "build" / "zephyr" / ".config"
    assert files.devicetree == tmp_path / "build" / "zephyr" / "zephyr.dts"


def test_build_dir_lookup_sysbuild_picks_the_image_with_usmp(tmp_path):
    build = tmp_path / "build"
    fake_build(build, "app")
    (build / "mcuboot" / "zephyr").mkdir(parents=True)
    (build / "mcuboot" / "zephyr" / ".config").write_text("CONFIG_BOOTLOADER_MCUBOOT=y\n")
    assert find_build_files(build).dotconfig == build / "app" / "zephyr" / ".config"
    assert find_build_files(build, "mcuboot").dotconfig == build / "mcuboot" / "zephyr" / ".config"


def test_build_dir_lookup_ambiguous_sysbuild(tmp_path):
    build = tmp_path / "build"
    fake_build(build, "one")
    fake_build(build, "two")
    with pytest.raises(UsmpError, match="sysbuild with images one, two: choose one with --image NAME"):
        find_build_files(build)


def test_build_dir_lookup_errors(tmp_path):
    with pytest.raises(UsmpError, match="does not exist: build the application first"):
        find_build_files(tmp_path / "nope")
    with pytest.raises(UsmpError, match="is not a Zephyr build directory"):
        find_build_files(tmp_path)


def test_compile_with_build_dir_uses_kconfig_pools(tmp_path, capsys):
    build = fake_build(tmp_path / "build")
    model = fc_chain_model(tmp_path / "chain.tflite", 32)
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "-d", str(build)]) == 0
    printed = capsys.readouterr().out
    assert "fast " in printed and "workspace " in printed and "constants " in printed
    source = (tmp_path / "out" / "chain.c").read_text()
    assert '__attribute__((section("SRAM1"), aligned(32)))' in source


def test_explicit_pool_wins_over_kconfig(tmp_path):
    build = fake_build(tmp_path / "build")
    model = fc_chain_model(tmp_path / "chain.tflite", 32)
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "-d", str(build),
                 "--pool", "ram:workspace", "--pool", "rom:constant"]) == 0
    assert "section(" not in (tmp_path / "out" / "chain.c").read_text()


def test_prj_conf_without_devicetree(tmp_path):
    model = fc_chain_model(tmp_path / "chain.tflite", 32)
    conf = tmp_path / "prj.conf"
    conf.write_text(PRJ_CONF.read_text().replace("my_plans.fit:first_fit", "greedy_by_size"))
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "--dotconfig", str(conf)]) == 0
    assert "usmp_chain_map_inputs" in (tmp_path / "out" / "chain.h").read_text()  # CONFIG_USMP_WORKSPACE_IO=y


def test_pinned_region_without_devicetree_is_one_line_error(tmp_path, capsys):
    model = fc_chain_model(tmp_path / "chain.tflite", 32)
    status = main(["compile", str(model), "-o", str(tmp_path / "out"), "--dotconfig", str(PINNED_CONFIG)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert 'CONFIG_USMP_POOL2_REGION="usmp_pool2": a pool region needs the devicetree' in err
    assert not (tmp_path / "out").exists()


def load_west_command(monkeypatch):
    """scripts/west_commands/usmp_west.py with a stand-in for west (not installed in the test venv)."""
    west = types.ModuleType("west")
    commands = types.ModuleType("west.commands")
    commands.WestCommand = object
    if importlib.util.find_spec("west") is None:
        monkeypatch.setitem(sys.modules, "west", west)
        monkeypatch.setitem(sys.modules, "west.commands", commands)
    spec = importlib.util.spec_from_file_location("usmp_west", REPO / "scripts" / "west_commands" / "usmp_west.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_west_usmp_defaults_to_the_build_in_the_current_directory(tmp_path, monkeypatch):
    west_command = load_west_command(monkeypatch)
    argv = ["compile", "m.tflite", "-o", "out"]
    assert west_command.with_default_build_dir(argv, tmp_path) == argv  # no build, no prj.conf
    (tmp_path / "prj.conf").write_text("CONFIG_USMP=y\n")
    assert west_command.with_default_build_dir(argv, tmp_path) == argv + ["--dotconfig", str(tmp_path / "prj.conf")]
    fake_build(tmp_path / "build")
    assert west_command.with_default_build_dir(argv, tmp_path) == argv + ["-d", str(tmp_path / "build")]
    explicit = argv + ["--dotconfig", "prj.conf"]
    assert west_command.with_default_build_dir(explicit, tmp_path) == explicit
    assert west_command.with_default_build_dir(["run", "m.tflite"], tmp_path) == ["run", "m.tflite"]
    assert west_command.SCRIPTS_DIR == REPO / "scripts"


def test_west_usmp_report_plans_with_the_build_in_the_current_directory(tmp_path, monkeypatch):
    """`west usmp report MODEL -o PAGE` inside an application with a build: the build's pools."""
    west_command = load_west_command(monkeypatch)
    model = fc_chain_model(tmp_path / "chain.tflite", 64)
    fake_build(tmp_path / "build")
    page = tmp_path / "report.html"
    argv = west_command.with_default_build_dir(["report", str(model), "-o", str(page)], tmp_path)
    assert argv[-2:] == ["-d", str(tmp_path / "build")]
    assert main(argv, prog="west usmp") == 0
    assert '<tr data-pool="fast">' in page.read_text()


def test_configure_check_reports_pools(capsys):
    from usmp.zephyr import check

    assert check.main(["--dotconfig", str(PINNED_CONFIG), "--devicetree", str(DTS)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usmp: algorithm greedy_by_size; pools: fast (workspace, section SRAM1, <= 4096 B, align 32)")


def test_configure_check_names_missing_python_packages(monkeypatch, capsys):
    from usmp.zephyr import check

    real_find_spec = check.importlib.util.find_spec
    monkeypatch.setattr(check.importlib.util, "find_spec", lambda name: None if name == "tflite" else real_find_spec(name))
    assert check.main(["--dotconfig", str(PINNED_CONFIG)]) == 2
    err = capsys.readouterr().err
    assert "lacks tflite: run `" in err and "-m pip install tflite`" in err


def test_configure_check_refuses_unknown_algorithm(tmp_path, capsys):
    from usmp.zephyr import check

    conf = tmp_path / "prj.conf"
    conf.write_text('CONFIG_USMP=y\nCONFIG_USMP_ALGORITHM_CUSTOM=y\nCONFIG_USMP_ALGORITHM_CUSTOM_NAME="nonsense"\n')
    assert check.main(["--dotconfig", str(conf)]) == 2
    assert "unknown planning algorithm 'nonsense'" in capsys.readouterr().err
