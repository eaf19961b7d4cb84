"""Instructions per kernel call on the emulated Cortex-M (run_on_target(profile=True)), which
benchmarks/dsp_kernels.py --layers reports operator by operator."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from reference import EXAMPLE_MODELS, random_inputs
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.qemu import instructions_per_call

MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]


def test_calls_split_where_the_caller_enters_a_function():
    """The caller's own instructions go with the call that follows them, the last ones with the last call; a
    jump inside a callee (not at an entry) or a call made by a callee starts no new call."""
    caller = [(0x100, 0x140)]
    entries = {0x200, 0x300, 0x400}
    sizes = [(0x100, 3), (0x200, 10), (0x210, 5), (0x400, 7), (0x120, 2), (0x300, 4), (0x130, 1)]
    blocks = [(pc, tuple(range(pc, pc + 2 * n, 2))) for pc, n in sizes]
    assert instructions_per_call(blocks, caller, entries) == [3 + 10 + 5 + 7, 2 + 4 + 1]


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
def test_calls_add_up_to_the_inference():
    from usmp.runner.baremetal import run_on_target

    compiled = compile_model(EXAMPLE_MODELS / "micro_speech_quantized.tflite",
                             CompileOptions(cpu="cortex-m4", kernels="usmp", tiling="off"))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(1))
    report = run_on_target(compiled, inputs, "cortex-m4", profile=True).report
    assert len(report["calls"]) == sum(len(op.calls) for op in compiled.program.ops)
    assert sum(report["calls"]) == report["instructions"] == sum(report["step_instructions"]) + report["outside_steps"]
    assert min(report["calls"]) > 0
