"""Generated code and kernels compile warning-free for a Cortex-M0."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from reference import all_models
from usmp.codegen import write_files
from usmp.compiler import compile_model
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR

ARM_GCC = shutil.which("arm-none-eabi-gcc")
FLAGS = ["-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror"]
MODELS = all_models()

pytestmark = pytest.mark.skipif(ARM_GCC is None, reason="arm-none-eabi-gcc not installed (scripts/bootstrap installs it)")


def arm_compile(source, include_dirs, out_dir):
    obj = out_dir / (source.stem + ".o")
    args = [ARM_GCC, *FLAGS, *[f"-I{d}" for d in include_dirs], "-c", str(source), "-o", str(obj)]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return obj


def test_kernels_compile_for_cortex_m0(tmp_path):
    for source in sorted(KERNELS_SRC_DIR.glob("*.c")):
        arm_compile(source, [KERNELS_INCLUDE_DIR], tmp_path)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_generated_code_compiles_for_cortex_m0(model, tmp_path):
    compiled = compile_model(model)
    write_files(compiled.files, tmp_path / "gen")
    for source in sorted((tmp_path / "gen").glob("*.c")):
        arm_compile(source, [tmp_path / "gen", KERNELS_INCLUDE_DIR], tmp_path)
