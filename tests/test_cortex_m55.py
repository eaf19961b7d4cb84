"""The Cortex-M55 target (QEMU MPS3 AN547, hard-float ABI for Helium) runs models bit-exact and measures them.

It builds like the other targets but with -mfloat-abi=hard, so the start-up code must enable the FPU
before anything runs: a float model checks that, the example models check bit-exactness and a steady
instruction count, and the CLI reports the target like the others.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from reference import check_on_target, reference_outputs, example_models
from usmp.cli import main as usmp_main
from usmp.runner.baremetal import run_on_target, target_named

MISSING = [t for t in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")

TARGET = "cortex-m55"
EXAMPLES = sorted(example_models())
MODELS_DIR = Path(__file__).parent / "models"
FLOAT_MODELS = [MODELS_DIR / "conv_f32.tflite", MODELS_DIR / "softmax_f32.tflite"]


@pytest.mark.parametrize("model", EXAMPLES, ids=[m.stem for m in EXAMPLES])
def test_matches_reference_with_steady_count(model):
    compiled, inputs, first = check_on_target(model, TARGET, 7, count=True)
    assert first.report["target"] == TARGET and first.report["machine"] == "mps3-an547"
    again = run_on_target(compiled, inputs, TARGET, count=True)
    assert first.report["instructions"] > 0
    assert again.report["instructions"] == first.report["instructions"]


@pytest.mark.parametrize("model", FLOAT_MODELS, ids=lambda m: m.stem)
def test_float_model_runs_with_the_fpu_enabled(model):
    """A hard-float image faults on its first FPU instruction unless start-up has enabled the FPU."""
    check_on_target(model, TARGET, 3, count=False)


def test_memory_is_the_tcms_secure_aliases():
    target = target_named(TARGET)
    assert (target.flash_origin, target.flash_size) == (0x10000000, 512 * 1024)
    assert (target.ram_origin, target.ram_size) == (0x30000000, 512 * 1024)
    assert "-mfloat-abi=hard" in target.compile_flags


def test_cli_json(tmp_path, capsys):
    model = next(m for m in EXAMPLES if m.stem == "hello_world_int8")
    np.save(tmp_path / "in.npy", np.array([[5]], np.int8))
    status = usmp_main(["run", str(model), "--target", TARGET, "--input", str(tmp_path / "in.npy"),
                        "--output-dir", str(tmp_path / "out"), "--json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    report = json.loads(captured.out)
    assert report["target"] == TARGET
    assert set(report["flash_bytes"]) == {"generated_code", "kernels", "constants", "harness"}
    assert isinstance(report["instructions"], int) and report["instructions"] > 0
    got = np.load(tmp_path / "out" / "output_0.npy")
    assert np.array_equal(got, reference_outputs(model, [np.array([[5]], np.int8)])[0])


def test_benchmark_model_fits_the_tcms():
    """DS-CNN (27 KB of constants, a depth-first workspace of 5.7 KB) runs bit-exact from the ITCM and DTCM."""
    ds_cnn = Path(__file__).parents[1] / "benchmarks" / "models" / "ds_cnn_kws.tflite"
    _, _, run = check_on_target(ds_cnn, TARGET, 11, count=False)
    assert run.report["flash_bytes"]["constants"] > 25_000 and run.report["ram_bytes"]["pools"]["workspace"] >= 5_000
