"""Elementwise operators write over an input that dies at them: fewer bytes, same results."""
from __future__ import annotations

import numpy as np
import tflite

import tflite_builder as tb
from reference import outputs_match, reference_outputs
from usmp.compiler import compile_model
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator


def chain_model(tmp_path, second_reader: bool):
    """input -> FC -> LOGISTIC -> FC -> output; optionally the first FC's output also feeds ADD."""
    sub = tb.fc_subgraph()
    rng = np.random.default_rng(3)
    sub.tensors += [
        tb.T("sigmoid", (1, 2), "int8", scales=[1 / 256], zero_points=[-128]),
        tb.T("weights2", (2, 2), "int8", data=rng.integers(-127, 128, (2, 2)).astype(np.int8), scales=[0.02]),
        tb.T("result", (1, 2), "int8", scales=[0.05], zero_points=[1]),
    ]
    sub.ops += [tb.Op(OP.LOGISTIC, [3], [4]), tb.Op(OP.FULLY_CONNECTED, [4, 5, -1], [6])]
    sub.outputs = [6]
    if second_reader:  # the first FC's output is read again after LOGISTIC: it does not die there
        sub.tensors.append(tb.T("sum", (1, 2), "int8", scales=[0.1], zero_points=[0]))
        sub.ops.append(tb.Op(OP.ADD, [3, 6], [7]))
        sub.outputs = [7]
    path = tmp_path / f"chain_{second_reader}.tflite"
    path.write_bytes(tb.build([sub]))
    return path


def buffer_of(compiled, tensor_name):
    program = compiled.program
    index = next(t.index for t in program.graph.tensors if t.name == tensor_name)
    return next(name for name, b in program.buffers.items() if index in b.tensors)


def test_logistic_overwrites_its_dying_input(tmp_path):
    model = chain_model(tmp_path, second_reader=False)
    compiled = compile_model(model)
    assert buffer_of(compiled, "sigmoid") == buffer_of(compiled, "output")
    x = np.array([[5, -90, 33, 127]], np.int8)
    for e, g in zip(reference_outputs(model, [x]), run_host(compiled, [x])):
        assert outputs_match(e, g)


def test_no_overwrite_when_the_input_is_read_later(tmp_path):
    model = chain_model(tmp_path, second_reader=True)
    compiled = compile_model(model)
    assert buffer_of(compiled, "sigmoid") != buffer_of(compiled, "output")
    x = np.array([[5, -90, 33, 127]], np.int8)
    for e, g in zip(reference_outputs(model, [x]), run_host(compiled, [x])):
        assert outputs_match(e, g)


def test_in_place_shares_one_kernel_argument(tmp_path):
    compiled = compile_model(chain_model(tmp_path, second_reader=False))
    logistic = next(op for op in compiled.program.ops if op.opcode == "LOGISTIC")
    buffers = [a.buffer for a in logistic.args if program_kind(compiled, a.buffer) != "constant"]
    assert len(buffers) == 1 and logistic.args[0].writable


def program_kind(compiled, name):
    return compiled.program.buffers[name].kind
