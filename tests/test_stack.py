"""The stack of one inference: its bound from the image's call graph holds on every emulated core.

The bound (usmp/stack) is the deepest path under run(): GCC's frames, the disassembly's for the C library,
and the calls the disassembly shows. Measured by stack painting, an inference never takes more.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from reference import outputs_match, random_inputs, reference_outputs
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.arm import thumb_call_kind, thumb_stack_bytes
from usmp.runner.riscv import riscv_call_kind, riscv_stack_bytes
from usmp.runner.targets import TARGETS
from usmp.stack import CallGraph, stack_bound
from usmp.stack.image import CALL, INDIRECT, SAVE, TAIL, Function

TILING = Path(__file__).parent / "models" / "tiling"


@pytest.mark.parametrize("instruction, taken", [
    ("push {r4, r5, r6, r7, lr}", 20), ("push.w {r4, r5, r6, r7, r8, r9, sl, fp, lr}", 36),
    ("vpush {d8-d15}", 64), ("stmdb sp!, {r4, r5, lr}", 12), ("sub sp, #12", 12),
    ("sub.w sp, sp, #1024", 1024), ("subw sp, sp, #1100", 1100), ("str.w lr, [sp, #-4]!", 4),
    ("sub sp, r3", None), ("add sp, #12", 0), ("pop {r4, pc}", 0), ("ldr r3, [sp, #4]", 0),
    ("sub r3, sp, #4", 0)])
def test_thumb_frames(instruction, taken):
    mnemonic, _, operands = instruction.partition(" ")
    assert thumb_stack_bytes(mnemonic, operands) == taken


@pytest.mark.parametrize("instruction, kind", [
    ("bl 8c4", CALL), ("blx 8c4", CALL), ("blx r3", INDIRECT), ("b.w 8c4", TAIL), ("beq.n 8c4", TAIL),
    ("bx lr", None), ("bics r3, r2", None), ("cbz r3, 8c4", None), ("ldr r3, [r4]", None)])
def test_thumb_calls(instruction, kind):
    mnemonic, _, operands = instruction.partition(" ")
    assert thumb_call_kind(mnemonic, operands) == kind


@pytest.mark.parametrize("instruction, taken, kind", [
    ("add sp,sp,-48", 48, None), ("addi sp,sp,-16", 16, None), ("add sp,sp,16", 0, None),
    ("add sp,sp,t0", None, None), ("sw ra,12(sp)", 0, None), ("jal 80000abc", 0, CALL),
    ("jal t0,80000abc", 0, SAVE), ("j 80000abc", 0, TAIL), ("jalr a5", 0, INDIRECT), ("jr t0", 0, None),
    ("jalr ra,ra,12 # 80000abc", 0, CALL)])
def test_riscv_frames_and_calls(instruction, taken, kind):
    mnemonic, _, operands = instruction.partition(" ")
    assert riscv_stack_bytes(mnemonic, operands) == taken
    assert riscv_call_kind(mnemonic, operands) == kind


def _graph(**functions) -> CallGraph:
    return CallGraph({name: Function(name, 0, frame, dict(enumerate(calls)), list(saves), list(indirect))
                      for name, (frame, calls, saves, indirect) in functions.items()}, {})


def test_the_deepest_path_per_operator():
    graph = _graph(run=(16, ["op_1_conv", "usmp_add_s8"], [], []), op_1_conv=(8, ["k"], [], []),
                   k=(40, ["memcpy"], [], []), memcpy=(12, [], [], []), usmp_add_s8=(24, [], [], []))
    graph.frames["k"] = 48  # GCC's own frame replaces the disassembly's
    bound = stack_bound(graph, "run", {1: 0}, {"op_0_add": 0, "op_1_conv": 1}, 2)
    assert bound.bytes == 16 + 8 + 48 + 12
    assert bound.path == [("run", 16), ("op_1_conv", 8), ("k", 48), ("memcpy", 12)]
    assert bound.steps == [16 + 24, 16 + 8 + 48 + 12]


def test_a_naked_function_has_the_frame_its_assembly_pushes():
    """GCC's -fstack-usage says 0 for a naked function (its body is assembly GCC does not measure): the
    disassembly's pushes count (a Helium kernel's register-blocked loop saves 196 bytes that way)."""
    graph = _graph(run=(16, ["kernel"], [], []), kernel=(24, ["naked"], [], []), naked=(196, [], [], []))
    graph.frames.update(kernel=32, naked=0)
    assert stack_bound(graph, "run", {}, {}, 0).bytes == 16 + 32 + 196


@pytest.mark.parametrize("functions, reason", [
    (dict(run=(16, ["f"], [], []), f=(8, ["run"], [], [])), "recursion: run -> f -> run"),
    (dict(run=(16, ["f"], [], []), f=(8, [], [], [0x40])), "f calls a function through a register"),
    (dict(run=(16, ["f"], [], []), f=(None, [], [], [])), "f has a frame of no fixed size"),
    (dict(run=(16, ["g"], [], [])), "g is not in the image")])
def test_unbounded(functions, reason):
    bound = stack_bound(_graph(**functions), "run", {}, {}, 0)
    assert bound.bytes is None and reason in bound.reason


def test_register_saving_helpers_are_the_callers_frame():
    graph = _graph(run=(16, ["f"], ["__riscv_save_0"], []), f=(0, [], [], []), __riscv_save_0=(16, [], [], []))
    assert stack_bound(graph, "run", {}, {}, 0).bytes == 32


def test_a_tail_call_releases_the_callers_frame():
    """A band wrapper copies its parameters (a call under its frame) and jumps to its kernel with its frame gone."""
    def graph(params_frame: int) -> CallGraph:
        return CallGraph({"run": Function("run", 0, 16, {0: "band"}),
                          "band": Function("band", 0, 32, {4: "params", 8: "kernel"}, tails={8}),
                          "params": Function("params", 0, params_frame), "kernel": Function("kernel", 0, 64)}, {})

    bound = stack_bound(graph(8), "run", {}, {}, 0)
    assert bound.bytes == 16 + 64
    assert bound.path == [("run", 16), ("band (tail call)", 0), ("kernel", 64)]
    assert stack_bound(graph(48), "run", {}, {}, 0).bytes == 16 + 32 + 48


EMULATED = [t for t in TARGETS.values() if shutil.which(t.arch.tool("gcc")) and shutil.which(t.arch.qemu)]


@pytest.mark.parametrize("target", EMULATED, ids=[t.name for t in EMULATED])
def test_the_bound_holds_on_every_core(target):
    """A residual chain ending in a global pool, depth-first (loop state, band kernels, the reduction)."""
    model = TILING / "residual_int8.tflite"
    compiled = compile_model(model, CompileOptions(tiling="max", workspace_io=True, cpu=target.cpu))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(33))
    from usmp.runner.baremetal import run_on_target

    run = run_on_target(compiled, inputs, target.name, stack=True)
    assert all(outputs_match(e, g) for e, g in zip(reference_outputs(model, inputs), run.outputs))
    report = run.report
    measured, bound = report["ram_bytes"]["stack"], report["stack_bound"]
    assert bound is not None, report["stack_bound_reason"]
    assert measured <= bound, report["stack_bound_path"]
    assert max(report["stack_bound_steps"]) == bound


@pytest.mark.skipif(not any(t.name == "cortex-m0" for t in EMULATED), reason="no Arm cross compiler or QEMU")
def test_the_header_and_plan_state_the_bound(tmp_path, capsys):
    """`--stack-bound cortex-m0`: the header's USMP_<NAME>_STACK_BYTES and `usmp plan`'s RAM = pools + stack,
    never below the stack an inference takes on the core."""
    from usmp.cli import main as usmp_main
    from usmp.runner.baremetal import run_on_target

    model = TILING / "residual_int8.tflite"
    compiled = compile_model(model, CompileOptions(workspace_io=True, stack_bound="cortex-m0", cpu="cortex-m0"))
    header = compiled.files["residual_int8.h"]
    stated = int(re.search(r"#define USMP_RESIDUAL_INT8_STACK_BYTES (\d+)", header).group(1))
    assert stated == compiled.stack.bytes
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(5))
    run = run_on_target(compiled, inputs, "cortex-m0", stack=True)
    assert run.report["ram_bytes"]["stack"] <= stated == run.report["stack_bound"]
    assert usmp_main(["plan", str(model), "--workspace-io", "--stack-bound", "cortex-m0", "--json"]) == 0
    stack = json.loads(capsys.readouterr().out)["stack"]
    assert stack["bytes"] == stated and stack["ram_bytes"] == stack["pools_bytes"] + stated
    assert stack["pools_bytes"] == sum(p.size for p in compiled.layout.writable_pools)
    assert max(stack["operators"]) == stated


def test_the_selection_knows_cmsis_nn_frames_as_built(tmp_path):
    """select/cmsis_nn_frames.py holds what benchmarks/cmsis_nn_frames.py measures with this toolchain and
    CMSIS-NN: the stack each int8 glue call takes on the DSP cores, which the selection weighs."""
    import sys

    from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
    from usmp.select.cmsis_nn_frames import DSP

    root = cmsis_nn_dir()
    if root is None or shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip(CMSIS_NN_MISSING if root is None else "arm-none-eabi-gcc not installed")
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    from cmsis_nn_frames import measure

    measured = {name: depth for name, (depth, _) in measure(Path(root), "cortex-m4", tmp_path).items()}
    assert measured == DSP


MICRO_SPEECH = Path(__file__).parent / "models" / "tflm" / "micro_speech_quantized.tflite"


@pytest.mark.parametrize("target, budget", [("cortex-m0", 128), ("cortex-m3", 256), ("riscv32", 256)])
def test_micro_speech_stays_within_its_stack_budget(target, budget):
    """Issue 33's budgets for the bundled micro_speech's default build, from the bound alone (no run): the M0's
    128 B has no slack left (run() 48 B over the band step's 80 B), so a frame that grows anywhere on its
    paths shows here, not in a benchmark table later."""
    if not any(t.name == target for t in EMULATED):
        pytest.skip(f"no cross compiler or QEMU for the {target}")
    compiled = compile_model(MICRO_SPEECH, CompileOptions(workspace_io=True, stack_bound=target,
                                                          cpu=TARGETS[target].cpu))
    assert compiled.stack.bytes <= budget, compiled.stack.path
