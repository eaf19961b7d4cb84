"""--reorder: a lower-peak operator order that keeps every dependency and every result."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reference import outputs_match, random_inputs, reference_outputs
from usmp.analysis.schedule import best_order, dependencies, order_peak, reorder_program
from usmp.compiler import CompileOptions, compile_model
from usmp.lower.program import Arg, Buffer, LoweredOp, Program
from usmp.runner.host import run_host

MODELS = Path(__file__).parent / "models"


def test_branchy_model_peak_drops_and_results_stay_bit_exact():
    model = MODELS / "planner_branchy_fc_f32.tflite"
    plain = compile_model(model)
    reordered = compile_model(model, CompileOptions(reorder=True))
    assert [op.op_index for op in reordered.program.ops] != [op.op_index for op in plain.program.ops]
    assert reordered.plan.pool_sizes["workspace"] == 1056 < plain.plan.pool_sizes["workspace"] == 1120
    inputs = random_inputs(plain.program.graph, np.random.default_rng(5))
    expected = reference_outputs(model, inputs)
    for got in (run_host(plain, inputs), run_host(reordered, inputs)):
        assert all(outputs_match(e, g) for e, g in zip(expected, got))


@pytest.mark.parametrize("name", ["planner_branchy_fc", "samples"])
def test_reorder_never_raises_the_peak(name):
    model = MODELS / f"{name}.tflite" if name != "samples" else (
        Path(__file__).parents[1] / "samples/usmp/hello/model/micro_speech_quantized.tflite")
    plain = compile_model(model)
    reordered = compile_model(model, CompileOptions(reorder=True))
    assert reordered.plan.pool_sizes["workspace"] <= plain.plan.pool_sizes["workspace"]


def synthetic(ops_args, sizes) -> Program:
    buffers = {name: Buffer(name, kind, size, 4, "int8_t") for name, (kind, size) in sizes.items()}
    ops = [LoweredOp(k, "X", [Arg(f"a{i}", b, w) for i, (b, w) in enumerate(args)], []) for k, args in enumerate(ops_args)]
    return Program("p", None, buffers, ops, [], [])


def test_exact_order_runs_the_big_branch_first_and_respects_dependencies():
    # x feeds two branches: big (100 B) -> r1 (4 B) and small (10 B) -> r2 (4 B); join reads r1, r2.
    sizes = {"x": ("input", 8), "big": ("tensor", 100), "small": ("tensor", 10), "r1": ("tensor", 4),
             "r2": ("tensor", 4), "y": ("output", 4)}
    program = synthetic([
        [("x", False), ("small", True)],   # 0
        [("small", False), ("r2", True)],  # 1
        [("x", False), ("big", True)],     # 2
        [("big", False), ("r1", True)],    # 3
        [("r1", False), ("r2", False), ("y", True)],  # 4
    ], sizes)
    assert order_peak(program, [0, 1, 2, 3, 4]) == 108  # r2 waits while big and r1 are live
    order = best_order(program)
    assert order_peak(program, order) == 104
    position = {k: i for i, k in enumerate(order)}
    assert position[0] < position[1] < position[4] and position[2] < position[3] < position[4]
    assert [op.op_index for op in reorder_program(program).ops] == order


def test_hazards_on_shared_buffers_become_dependencies():
    # Op 2 overwrites 'a' in place, so op 1 (which reads the old 'a') must run before it.
    sizes = {"a": ("tensor", 50), "b": ("tensor", 4), "k": ("constant", 8), "y": ("output", 4)}
    program = synthetic([
        [("k", False), ("a", True)],                 # 0 writes a
        [("a", False), ("b", True)],                 # 1 reads a
        [("a", True)],                               # 2 overwrites a (read and write)
        [("k", False), ("a", False), ("b", False), ("y", True)],  # 3
    ], sizes)
    assert dependencies(program) == [set(), {0}, {0, 1}, {1, 2}]
    assert best_order(program) == [0, 1, 2, 3]
