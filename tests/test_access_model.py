"""The access model (usmp/placement/access.py and kernels/<family>/access.yaml): its expressions, the
families' data against the kernels' declarations, the default for a kernel no family describes, and the
estimates against the traffic QEMU's memory plugin counts per buffer."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from usmp.compiler import CompileOptions, compile_model
from usmp.errors import UsmpError
from usmp.paths import KERNELS_INCLUDE_DIR
from usmp.placement import access
from usmp.placement.access import evaluate, kernel_models
from usmp.placement.estimate import program_accesses
from usmp.pools import parse_pool
from usmp.select.cpus import cpu_extension

MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cc") if shutil.which(t) is None]
BENCHMARK_MODELS = Path(__file__).resolve().parents[1] / "benchmarks" / "models"


def test_expressions():
    names = {"in_h": 25, "shape": [4, 5, 6], "conv": [0, 1, [2, 3]]}
    assert evaluate("ceil(in_h / 4) * prod(shape)", names) == 7 * 120
    assert evaluate("conv[2][1] if in_h > 20 else 0", names) == 3
    assert evaluate("window(5, 3, 1, 1, 5) + inside(5, 3, 1, 1, 5)", names) == 13 + 3
    assert evaluate(12, names) == 12


@pytest.mark.parametrize("text, message", [
    ("in_w * 2", "uses 'in_w', which the call does not have"),
    ("__import__('os')", "uses something other than arithmetic"),
    ("in_h +", "is not an expression"),
])
def test_expression_mistakes_are_one_line_errors(text, message):
    with pytest.raises(UsmpError, match=re.escape(message)):
        evaluate(text, {"in_h": 1})


def _declared_pointers() -> dict[str, int]:
    """Kernel function -> its pointer parameters after the parameter block, from the kernel headers."""
    pointers = {}
    for header in KERNELS_INCLUDE_DIR.rglob("*.h"):
        text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
        for name, parameters in re.findall(r"\bvoid\s+(usmp_\w+)\s*\(([^;{]*)\)\s*;", text):
            parts = [p for p in parameters.split(",") if p.strip()]
            pointers[name] = sum(1 for p in parts[1:] if "*" in p)
    return pointers


def test_every_model_names_its_kernels_pointer_parameters():
    """Each access.yaml entry lists as many pointer parameters as the kernel has after its parameter block (so
    positions map to the right buffers), and describes only those."""
    declared = _declared_pointers()
    for name, entry in kernel_models().items():
        assert name in declared, f"{name}: no declaration in the kernel headers"
        assert len(entry["args"]) == declared[name], f"{name}: {entry['args']} against {declared[name]} pointers"
        extra = set(entry) - set(entry["args"]) - {"args", "let"}
        assert not extra, f"{name}: {extra} are not among its args"


def test_a_kernel_no_family_describes_gets_the_default_and_is_reported(monkeypatch):
    """Without its entry, a kernel's buffers count once an element (read) or written once, and the plan lists the
    kernel; the ranking still runs."""
    models = dict(kernel_models())
    del models["usmp_conv_s8"]
    monkeypatch.setattr(access, "kernel_models", lambda: models)
    pools = [parse_pool(p) for p in ("fast:workspace:size=1k", "slow:workspace:wait=2", "flash:constant")]
    compiled = compile_model(Path(__file__).parent / "models" / "conv_3x3_same_relu.tflite",
                             CompileOptions(pools=pools, kernels="portable", workspace_io=True))
    placement = json.loads(compiled.files[f"{compiled.program.name}_plan.json"])["placement"]
    assert placement["ranked"] and placement["unmodelled_kernels"] == ["usmp_conv_s8"]
    estimate = program_accesses(compiled.program)
    conv = compiled.program.ops[0]
    filter_buffer = next(a.buffer for a in conv.args if a.name == "filter")
    assert estimate.of(filter_buffer).loads == compiled.program.buffers[filter_buffer].size


def _compare(model: Path, cpu: str, **options) -> list[str]:
    """Buffers carrying at least 1 % of the measured traffic whose estimate is off by more than a third."""
    from usmp.runner.baremetal import run_on_target

    compiled = compile_model(model, CompileOptions(cpu=cpu, **options))
    graph = compiled.program.graph
    rng = np.random.default_rng(0)
    inputs = [rng.integers(-128, 128, size=graph.tensors[i].shape).astype(np.int8) for i in graph.inputs]
    measured = run_on_target(compiled, inputs, cpu, traffic="buffers").report["buffer_traffic"]
    estimate = program_accesses(compiled.program, cpu_extension(cpu))
    planned = {n: m["loads"] + m["stores"] for n, m in measured.items() if n in compiled.layout.placements}
    total = sum(planned.values())
    off = [f"{n}: measured {planned[n]}, estimated {estimate.of(n).total:.0f}" for n in planned
           if planned[n] >= total / 100 and not 0.75 <= estimate.of(n).total / planned[n] <= 1.33
           and n not in estimate.guessed]
    off += [f"{n}: guessed {estimate.of(n).total:.0f} above the {planned[n]} measured" for n in estimate.guessed
            if n in planned and estimate.of(n).total > planned[n]]  # a lower bound
    estimated_total = sum(estimate.of(n).total for n in planned)
    if not 0.9 <= estimated_total / total <= 1.1:
        off.append(f"all planned buffers: measured {total}, estimated {estimated_total:.0f}")
    return off


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap)")
def test_estimates_follow_the_dsp_kernels_loops():
    """DS-CNN on the Cortex-M4 with USMP's DSP kernels: every buffer within a third of what QEMU counts."""
    assert _compare(BENCHMARK_MODELS / "ds_cnn_kws.tflite", "cortex-m4", kernels="usmp") == []


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap)")
@pytest.mark.skipif(cmsis_nn_dir() is None, reason=CMSIS_NN_MISSING)
def test_estimates_follow_the_helium_and_cmsis_nn_kernels_loops():
    """DS-CNN on the Cortex-M55 (Helium: CMSIS-NN and USMP's own vector kernels, depth-first loops)."""
    assert _compare(BENCHMARK_MODELS / "ds_cnn_kws.tflite", "cortex-m55", cmsis_nn=str(cmsis_nn_dir())) == []
