"""usmp run --profile: instructions per operator from the QEMU trace, MACs and bytes on the host too."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from reference import random_inputs
from usmp.cli import main
from usmp.compiler import CompileOptions, compile_model
from usmp.ir.graph import Graph, Operator, Tensor
from usmp.report.macs import multiply_accumulates, operator_macs
from usmp.runner.cortex_m import run_cortex_m
from usmp.runner.profile import OUTSIDE, attribute, operator_functions

ROOT = Path(__file__).resolve().parents[1]
MICRO_SPEECH = ROOT / "samples/usmp/hello/model/micro_speech_quantized.tflite"
DS_CNN = ROOT / "benchmarks/models/ds_cnn_kws.tflite"
CHAIN = ROOT / "tests/models/tiling/chain_int8.tflite"


def test_blocks_are_charged_by_the_call_stack():
    """run() spans 0x100-0x120: its instructions by their owner, a callee's blocks to the operator whose
    code called it last, main's to no operator, an operator kept as a function (0x400) to itself."""
    owners = {0x100: OUTSIDE, 0x102: 0, 0x104: 0, 0x106: 1, 0x108: 1, 0x10a: 2, 0x10c: OUTSIDE}
    blocks = [
        (0x050, (0x050, 0x052)),            # main, before the call
        (0x100, (0x100, 0x102, 0x104)),     # run's prologue, then op 0's arguments and its call
        (0x800, (0x800, 0x802, 0x804)),     # a kernel: op 0
        (0x900, (0x900,)),                  # what the kernel calls: still op 0
        (0x106, (0x106, 0x108)),            # back in run: op 1 calls
        (0x800, (0x800, 0x802, 0x804)),     # the same kernel, now op 1's
        (0x10a, (0x10a,)),                  # op 2 calls its function
        (0x400, (0x400, 0x402)),            # op 2's own function
        (0x800, (0x800, 0x802, 0x804)),     # called from it: op 2
        (0x10c, (0x10c,)),                  # run's epilogue
        (0x050, (0x050,)),                  # main again
    ]
    counts, unowned = attribute(blocks, 3, (0x100, 0x120), owners, {2: (0x400, 0x410)}, [(0x040, 0x080)])
    assert counts == [2 + 3 + 1, 2 + 3, 1 + 2 + 3]
    assert unowned == 2 + 1 + 1 + 1
    assert sum(counts) + unowned == sum(len(a) for _, a in blocks)


def test_operator_functions_gcc_kept_are_found_clones_too():
    symbols = {"op_2_softmax": (0x401, 0x20), "op_16_depth_first_conv_2d_x12.constprop.0": (0x501, 0x100),
               "op_16_depth_first_conv_2d_x12_params_0": (0x9000, 0x40), "usmp_m_run": (0x41, 0x80)}
    steps = {"op_2_softmax": 1, "op_16_depth_first_conv_2d_x12": 0, "op_0_conv_2d": 2}
    assert operator_functions(symbols, steps) == {1: (0x400, 0x420), 0: (0x500, 0x600)}


def test_macs_of_convolutions_and_fully_connected():
    tensors = [Tensor(0, "in", (1, 8, 8, 4), "int8"), Tensor(1, "f", (6, 3, 3, 4), "int8"),
               Tensor(2, "out", (1, 8, 8, 6), "int8"), Tensor(3, "dw", (1, 3, 3, 6), "int8"),
               Tensor(4, "dwout", (1, 4, 4, 6), "int8"), Tensor(5, "w", (10, 96), "int8"),
               Tensor(6, "fc", (1, 10), "int8")]
    ops = [Operator(0, "CONV_2D", [0, 1], [2]), Operator(1, "DEPTHWISE_CONV_2D", [2, 3], [4]),
           Operator(2, "FULLY_CONNECTED", [4, 5], [6]), Operator(3, "SOFTMAX", [6], [6])]
    graph = Graph("g", tensors, ops, [0], [6])
    assert [operator_macs(graph, op) for op in ops] == [8 * 8 * 6 * 3 * 3 * 4, 4 * 4 * 6 * 9, 10 * 96, 0]
    assert multiply_accumulates(graph) == 8 * 8 * 6 * 36 + 4 * 4 * 6 * 9 + 960


def _profile(model, target, **options):
    compiled = compile_model(model, CompileOptions(cpu=target, **options))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(3))
    return compiled, inputs, run_cortex_m(compiled, inputs, target, profile=True).report


def test_profile_on_cortex_m0_adds_up_to_the_count():
    compiled, inputs, report = _profile(MICRO_SPEECH, "cortex-m0")
    plain = run_cortex_m(compiled, inputs, "cortex-m0", count=True).report["instructions"]
    steps = report["step_instructions"]
    assert report["instructions"] == plain  # the same image: debug information changes no instruction
    assert sum(steps) + report["outside_steps"] == plain
    assert 0.95 * plain <= sum(steps) <= plain
    assert all(n > 0 for n in steps) and steps[0] > 10 * steps[-1]  # the depthwise convolution dominates


def test_profile_counts_a_depth_first_chain_as_one_step():
    compiled, _, report = _profile(CHAIN, "cortex-m0", tiling="max")
    assert any(hasattr(op, "choice") for op in compiled.program.ops)
    assert 0.95 * report["instructions"] <= sum(report["step_instructions"]) <= report["instructions"]
    assert all(n > 0 for n in report["step_instructions"])


@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m55"])
def test_profile_with_cmsis_nn(target, monkeypatch):
    root = cmsis_nn_dir()
    if root is None:
        pytest.skip(CMSIS_NN_MISSING)
    monkeypatch.setenv("CMSIS_NN_PATH", str(root))
    compiled, _, report = _profile(DS_CNN, target)
    steps, total = report["step_instructions"], report["instructions"]
    assert 0.95 * total <= sum(steps) <= total
    assert all(n > 0 for n in steps)
    assert compiled.program.external_kernels is not None  # the CMSIS-NN glue ran, and was charged to its operators


def test_run_profile_json_lists_the_operators(tmp_path, capsys):
    x = tmp_path / "in.npy"
    np.save(x, np.zeros((1, 1960), np.int8))
    assert main(["run", str(MICRO_SPEECH), "--input", str(x), "--output-dir", str(tmp_path / "out"),
                 "--target", "cortex-m0", "--profile", "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    operators = report["operators"]
    # auto runs the depthwise convolution and the fully connected layer as one depth-first loop
    assert [op for o in operators for op in (o["chain"] or [o["op"]])] == ["DEPTHWISE_CONV_2D", "FULLY_CONNECTED",
                                                                        "SOFTMAX"]
    assert all({"index", "op", "kernel", "macs", "instructions"} <= set(o) for o in operators)
    assert operators[0]["macs"] == 25 * 20 * 8 * 10 * 8 + 4000 * 4 and operators[0]["kernel_family"] == "depth-first"
    assert 0.95 * report["instructions"] <= sum(o["instructions"] for o in operators) <= report["instructions"]
    assert "instr/MAC" in captured.err and "DEPTHWISE_CONV_2D" in captured.err  # the table, on stderr


def test_host_profile_has_macs_and_bytes_but_no_instructions(tmp_path, capsys):
    x = tmp_path / "in.npy"
    np.save(x, np.zeros((1, 1960), np.int8))
    assert main(["run", str(MICRO_SPEECH), "--input", str(x), "--output-dir", str(tmp_path / "out"),
                 "--profile"]) == 0
    out = capsys.readouterr().out
    assert "B live" in out and "MACs" in out and "instr/MAC" not in out
    assert "336,000" in out  # the depth-first loop's MACs: the depthwise convolution's and the fully connected's
