"""A real Zephyr build of an application that calls usmp_add_model(): the model
lands in the devicetree region, and a Kconfig change (an edit of .config, as
menuconfig makes) regenerates the library. Skips without a Zephyr workspace,
its Python (with the compiler's packages) or the Arm toolchain."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from zephyr_helpers import fc_chain_model, require_zephyr

REPO = Path(__file__).resolve().parents[1]

APP_CMAKE = """cmake_minimum_required(VERSION 3.20.0)
find_package(Zephyr REQUIRED HINTS $ENV{ZEPHYR_BASE})
project(usmp_build_test)
target_sources(app PRIVATE src/main.c)
usmp_add_model(app MODEL chain.tflite)
"""
APP_MAIN = """#include "chain.h"

int main(void)
{
	static int8_t in[USMP_CHAIN_INPUT_INPUT_SIZE], out[USMP_CHAIN_OUTPUT_OUTPUT_SIZE];
	struct usmp_chain_inputs inputs = { .input = in };
	struct usmp_chain_outputs outputs = { .output = out };

	return (int)usmp_chain_run(&inputs, &outputs);
}
"""
PRJ_CONF = "CONFIG_USMP=y\nCONFIG_USMP_POOL0_PRIORITY=1\nCONFIG_USMP_POOL2_PRIORITY=0\nCONFIG_USMP_POOL2_NAME=\"fast\"\n"


def workspace_python(base: Path) -> Path:
    for candidate in (base.parent / ".venv" / "bin" / "python", Path(shutil.which("python3") or "/nonexistent")):
        if candidate.is_file():
            probe = subprocess.run([str(candidate), "-c", "import west, tflite, numpy, jinja2, yaml, elftools"],
                                   capture_output=True)
            if probe.returncode == 0:
                return candidate
    pytest.skip("no Python with west, Zephyr's requirements and tflite/numpy/jinja2/pyyaml beside the workspace")


def run(command, cwd, env):
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command[:3]))} failed:\n{(result.stdout + result.stderr)[-3000:]}")
    return result.stdout


def configured_app(tmp_path: Path) -> tuple[Path, dict]:
    """An application calling usmp_add_model(), configured for qemu_cortex_m0 with SRAM1 as a pool region:
    (the build directory, the environment to build it in)."""
    base = require_zephyr()
    python = workspace_python(base)
    if shutil.which("arm-none-eabi-gcc") is None or shutil.which("ninja") is None:
        pytest.skip("no arm-none-eabi-gcc or ninja on PATH")
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "CMakeLists.txt").write_text(APP_CMAKE)
    (app / "src" / "main.c").write_text(APP_MAIN)
    (app / "prj.conf").write_text(PRJ_CONF)
    fc_chain_model(app / "chain.tflite", 64)
    env = dict(os.environ, ZEPHYR_BASE=str(base), PATH=f"{python.parent}:{os.environ['PATH']}")
    env.setdefault("ZEPHYR_TOOLCHAIN_VARIANT", "gnuarmemb")
    env.setdefault("GNUARMEMB_TOOLCHAIN_PATH", "/usr")
    build = tmp_path / "build"
    overlay = REPO / "boards" / "qemu_cortex_m0_sram1.overlay"
    run(["cmake", "-GNinja", "-S", str(app), "-B", str(build), "-DBOARD=qemu_cortex_m0", f"-DWEST_PYTHON={python}",
         f"-DEXTRA_ZEPHYR_MODULES={REPO}", f"-DEXTRA_DTC_OVERLAY_FILE={overlay}"], tmp_path, env)
    return build, env


def test_pinned_model_build_and_kconfig_regeneration(tmp_path):
    build, env = configured_app(tmp_path)
    linked = run(["cmake", "--build", str(build)], tmp_path, env)
    generated = build / "usmp" / "chain" / "chain.c"
    assert '__attribute__((section("SRAM1"), aligned(16)))' in generated.read_text()
    sram1 = next(line for line in linked.splitlines() if line.strip().startswith("SRAM1:"))
    assert int(sram1.split()[1]) >= 64  # the hidden layer's buffer at least

    dotconfig = build / "zephyr" / ".config"
    dotconfig.write_text(dotconfig.read_text().replace("CONFIG_USMP_POOL2_ALIGNMENT=16", "CONFIG_USMP_POOL2_ALIGNMENT=128"))
    rebuilt = run(["cmake", "--build", str(build)], tmp_path, env)
    assert "usmp: compiling chain" in rebuilt
    assert '__attribute__((section("SRAM1"), aligned(128)))' in generated.read_text()


def test_usmp_report_target_writes_the_page_into_the_build_directory(tmp_path):
    """`west build -t usmp_report` (here `cmake --build -t usmp_report`): the page of each model, planned
    with the build's Kconfig pools, in the build directory; the firmware itself need not be built."""
    build, env = configured_app(tmp_path)
    output = run(["cmake", "--build", str(build), "-t", "usmp_report"], tmp_path, env)
    page = build / "usmp_report_chain.html"
    assert "usmp: report page of chain" in output and page.is_file()
    text = page.read_text()
    assert "<h1>chain</h1>" in text and "code for cortex-m0" in text
    assert '<tr data-pool="fast">' in text  # the Kconfig pool in the devicetree region SRAM1
    assert not (build / "zephyr" / "zephyr.elf").exists()
