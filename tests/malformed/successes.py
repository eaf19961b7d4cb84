"""Run a corpus variant that compiled: against tflite-micro, optionally under ASan and UBSan.

A damaged model the compiler accepts must still be a correct model: its
generated code runs without a sanitizer finding and matches the reference
interpreter (which runs in a subprocess, because it may crash on junk).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from malformed.corpus import variant
from reference import outputs_match, random_inputs

TESTS = Path(__file__).resolve().parents[1]
MAX_PEAK_BYTES = 1 << 20  # huge-but-valid shapes compile; running them is not worth the time

REFERENCE_SCRIPT = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from reference import reference_outputs
from pathlib import Path
inputs = np.load(sys.argv[3])
outputs = reference_outputs(Path(sys.argv[2]), [inputs[k] for k in sorted(inputs.files, key=lambda f: int(f[4:]))])
np.savez(sys.argv[4], *outputs)
"""


def reference_in_subprocess(model: Path, inputs: list[np.ndarray], work: Path) -> list[np.ndarray] | None:
    """tflite-micro's outputs, or None when it refuses (or crashes on) the model."""
    np.savez(work / "inputs.npz", *inputs)
    done = subprocess.run([sys.executable, "-c", REFERENCE_SCRIPT, str(TESTS), str(model),
                           str(work / "inputs.npz"), str(work / "outputs.npz")], capture_output=True, timeout=300)
    if done.returncode != 0:
        return None
    saved = np.load(work / "outputs.npz")
    return [saved[f"arr_{k}"] for k in range(len(saved.files))]


def same(expected: np.ndarray, got: np.ndarray) -> bool:
    """outputs_match, where NaN equals NaN (damaged float weights can be NaN on both sides)."""
    if expected.dtype == np.float32 and expected.shape == got.shape and got.dtype == expected.dtype:
        return bool(np.allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True))
    return outputs_match(expected, got)


def check_success(seed: int, index: int, work: Path, sanitize: bool = False) -> str:
    """'match', 'refused' (by tflite-micro) or 'skipped' (too big); AssertionError on a mismatch.

    A sanitizer finding makes run_host raise UsmpError naming the failure.
    """
    from usmp.compiler import CompileOptions, compile_model
    from usmp.runner.host import run_host

    v = variant(seed, index)
    model = work / f"variant_{index}.tflite"
    model.write_bytes(v.data)
    compiled = compile_model(model, CompileOptions(progress=None))
    if compiled.plan.peak_bytes > MAX_PEAK_BYTES:
        return "skipped"
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(index))
    expected = reference_in_subprocess(model, inputs, work)
    got = run_host(compiled, inputs, sanitize=sanitize)
    if expected is None:
        return "refused"
    assert len(got) == len(expected), v.label
    for e, g in zip(expected, got):
        assert same(e, g), f"{v.label}:\nexpected {e}\ngot      {g}"
    return "match"
