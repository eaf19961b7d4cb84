"""RESHAPE/SQUEEZE views, MEAN scratch, index arithmetic and rejections of the shape operators.

Bit-exactness against TFLite Micro is test_bit_exact.py's job (tests/models/
reshape_*, squeeze_*, concat_*, pad_*, mean_*, transpose_*, strided_slice_*);
these tests check the structure of what the lowering emits and the cases
TFLite Micro cannot be asked about.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import TEST_MODELS
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.ir.graph import Graph, Operator, Quantization, Tensor
from usmp.lower import lower_graph
from usmp.lower.ops.reduce import mean_multiplier
from usmp.lower.ops.nd_copy import collapse
from usmp.lower.ops.strided_slice import slice_axes
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator


def opcodes_emitted(compiled) -> list[str]:
    return [op.opcode for op in compiled.program.ops]


def calls_of(compiled, opcode: str) -> list:
    return [call for op in compiled.program.ops if op.opcode == opcode for call in op.calls]


def buffer_of(program, tensor_index: int) -> str:
    return next(name for name, b in program.buffers.items() if tensor_index in b.tensors)


# -- views -----------------------------------------------------------------------


@pytest.mark.parametrize("model, opcode", [("reshape_view", "RESHAPE"), ("reshape_flatten", "RESHAPE"),
                                           ("reshape_into_mean", "RESHAPE"), ("reshape_input_view", "RESHAPE"),
                                           ("reshape_shared_output", "RESHAPE"), ("squeeze_view", "SQUEEZE")])
def test_view_emits_no_code_and_shares_the_buffer(model, opcode):
    compiled = compile_model(TEST_MODELS / f"{model}.tflite")
    graph = compiled.program.graph
    assert opcode not in opcodes_emitted(compiled)
    view = next(op for op in graph.operators if op.opcode == opcode)
    assert buffer_of(compiled.program, view.outputs[0]) == buffer_of(compiled.program, view.inputs[0])
    assert f"op_{view.index}_" not in compiled.files[f"{compiled.program.name}.c"]
    # RESHAPE's shape operand is never read, so it is no constant buffer either.
    for shape_operand in view.inputs[1:]:
        assert not any(shape_operand in b.tensors for b in compiled.program.buffers.values())


def test_view_as_model_output_is_written_in_place():
    compiled = compile_model(TEST_MODELS / "reshape_to_output.tflite")
    program = compiled.program
    assert opcodes_emitted(compiled) == ["FULLY_CONNECTED"]
    fc = program.ops[0]
    assert program.outputs[0] in fc.buffers_written()
    assert program.buffers[program.outputs[0]].kind == "output"


def test_viewed_model_output_is_also_read_by_another_operator():
    compiled = compile_model(TEST_MODELS / "reshape_shared_output.tflite")
    program = compiled.program
    viewed = next(name for name in program.outputs if program.buffers[name].c_type == "int8_t"
                  and len(program.buffers[name].tensors) == 2)
    writers = [op for op in program.ops if viewed in op.buffers_written()]
    readers = [op for op in program.ops if viewed in op.buffers_read()]
    assert len(writers) == 1 and len(readers) == 1 and writers[0] is not readers[0]


@pytest.mark.parametrize("model", ["reshape_io", "reshape_io_f32", "squeeze_io", "squeeze_io_f32"])
def test_copy_when_input_and_output_are_both_model_io(model):
    compiled = compile_model(TEST_MODELS / f"{model}.tflite")
    program = compiled.program
    (op,) = program.ops
    (call,) = op.calls
    assert call.function in ("usmp_copy_nd_x8", "usmp_copy_nd_x32")
    n = program.graph.tensors[program.graph.inputs[0]].num_elements
    assert call.params["count"] == [1, 1, 1, 1, 1, n]
    assert program.inputs[0] != program.outputs[0]
    assert op.buffers_read() == [program.inputs[0]] and op.buffers_written() == [program.outputs[0]]


# -- MEAN scratch ------------------------------------------------------------------


@pytest.mark.parametrize("model, outputs", [("mean_hw_global_pool", 4), ("mean_channels", 12), ("mean_hw_keepdims", 3)])
def test_int8_mean_accumulators_are_planned_scratch(model, outputs):
    compiled = compile_model(TEST_MODELS / f"{model}.tflite")
    scratch = [b for b in compiled.program.buffers.values() if b.kind == "scratch"]
    assert len(scratch) == 1
    assert scratch[0].c_type == "int32_t" and scratch[0].size == 4 * outputs
    (mean,) = [op for op in compiled.program.ops if op.opcode == "MEAN"]
    assert scratch[0].name in mean.buffers_written()
    assert scratch[0].name in compiled.layout.placements
    assert "accumulators" in compiled.files[f"{compiled.program.name}.c"]


def test_float_mean_needs_no_scratch():
    compiled = compile_model(TEST_MODELS / "mean_hw_global_pool_f32.tflite")
    assert not [b for b in compiled.program.buffers.values() if b.kind == "scratch"]


def test_mean_multiplier_follows_tflite():
    # n = 1 leaves TFLite's multiplier untouched.
    assert mean_multiplier(0.5, 0.25, 1) == (1 << 30, 2)
    # n = 4: the shift moves by 2 and the multiplier is divided by 4 after shifting by 2.
    assert mean_multiplier(0.5, 0.25, 4) == (1 << 30, 0)
    # n = 3: floor(2^30 * 2 / 3), shift 2 - 1.
    assert mean_multiplier(0.5, 0.25, 3) == ((1 << 31) // 3, 1)
    # The pre-shift is capped at 31 + shift (here 31 - 28 = 3, not log2(n) = 20),
    # so the final shift never drops below -31.
    m, s = mean_multiplier(1.0, 2.0**29, 1 << 20)
    assert s == -31 and m == ((1 << 30) << 3) // (1 << 20)


# -- index arithmetic ---------------------------------------------------------------


def test_collapse_merges_only_dimensions_contiguous_in_both():
    # A channel concatenation of [1,4,4,3] into [1,4,4,8]: H and W merge, C does not.
    counts, (ins, outs) = collapse([1, 4, 4, 3], [48, 12, 3, 1], [128, 32, 8, 1])
    assert counts == [16, 3] and ins == [3, 1] and outs == [8, 1]
    counts, (ins, outs) = collapse([2, 3, 4], [12, 4, 1], [12, 4, 1])
    assert counts == [24] and ins == [1] and outs == [1]
    counts, _ = collapse([1, 1], [1, 1], [1, 1])
    assert counts == [1]


def test_strided_slice_axes_agree_with_python_slicing():
    rng = np.random.default_rng(5)
    for _ in range(2000):
        size = int(rng.integers(1, 7))
        begin, end = (int(v) for v in rng.integers(-9, 10, 2))
        stride = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        begin_masked, end_masked = bool(rng.integers(2)), bool(rng.integers(2))
        axes, out_shape = slice_axes([size], [begin], [end], [stride], int(begin_masked), int(end_masked), 0)
        start, count, _ = axes[0]
        expected = list(range(size))[slice(None if begin_masked else begin, None if end_masked else end, stride)]
        assert out_shape == [count] == [len(expected)], (size, begin, end, stride, begin_masked, end_masked)
        if expected:
            assert start == expected[0]


def test_strided_slice_shrink_takes_the_element_at_begin():
    axes, out_shape = slice_axes([5, 4], [-2, 1], [0, 3], [1, 1], 0, 0, 0b01)
    assert axes[0][:2] == (3, 1) and out_shape == [2]


# -- beyond what TFLite Micro checks: 6-D, against numpy ----------------------------


def _run_float_model(tmp_path, sub, inputs):
    path = tmp_path / "model.tflite"
    path.write_bytes(tb.build([sub]))
    return run_host(compile_model(path), inputs)


def test_six_dimensional_transpose_matches_numpy(tmp_path):
    shape, perm = (2, 1, 3, 2, 4, 2), (5, 2, 0, 4, 3, 1)
    out_shape = tuple(shape[p] for p in perm)
    sub = tb.Sub([tb.T("x", shape, "float32"), tb.T("perm", (6,), "int32", data=np.array(perm, np.int32)),
                  tb.T("y", out_shape, "float32")], [tb.Op(OP.TRANSPOSE, [0, 1], [2])], [0], [2])
    x = np.random.default_rng(1).uniform(-3, 3, shape).astype(np.float32)
    (got,) = _run_float_model(tmp_path, sub, [x])
    np.testing.assert_array_equal(got, np.transpose(x, perm))


def test_six_dimensional_pad_matches_numpy(tmp_path):
    shape, pads = (1, 2, 1, 3, 2, 2), [[0, 0], [1, 0], [0, 2], [1, 1], [0, 0], [2, 1]]
    out_shape = tuple(d + a + b for d, (a, b) in zip(shape, pads))
    sub = tb.Sub([tb.T("x", shape, "float32"), tb.T("pads", (6, 2), "int32", data=np.array(pads, np.int32)),
                  tb.T("y", out_shape, "float32")], [tb.Op(OP.PAD, [0, 1], [2])], [0], [2])
    x = np.random.default_rng(2).uniform(-3, 3, shape).astype(np.float32)
    (got,) = _run_float_model(tmp_path, sub, [x])
    np.testing.assert_array_equal(got, np.pad(x, pads))


def test_six_dimensional_strided_slice_matches_numpy(tmp_path):
    shape = (2, 3, 1, 4, 5, 3)
    begin, end, strides = [1, 0, 0, -1, 4, 0], [2, 3, 1, 0, 0, 3], [1, 2, 1, -2, -1, 2]
    x = np.random.default_rng(3).uniform(-3, 3, shape).astype(np.float32)
    expected = x[tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides))]
    sub = tb.Sub([tb.T("x", shape, "float32")]
                 + [tb.T(n, (6,), "int32", data=np.array(v, np.int32)) for n, v in
                    (("begin", begin), ("end", end), ("strides", strides))]
                 + [tb.T("y", expected.shape, "float32")],
                 [tb.Op(OP.STRIDED_SLICE, [0, 1, 2, 3], [4])], [0], [4])
    (got,) = _run_float_model(tmp_path, sub, [x])
    np.testing.assert_array_equal(got, expected)


def test_six_dimensional_mean_matches_numpy(tmp_path):
    shape, axes = (2, 3, 2, 4, 1, 3), [1, 3, -1]
    x = np.random.default_rng(4).uniform(-3, 3, shape).astype(np.float32)
    expected = x.mean(axis=tuple(axes))
    sub = tb.Sub([tb.T("x", shape, "float32"), tb.T("axes", (3,), "int32", data=np.array(axes, np.int32)),
                  tb.T("y", expected.shape, "float32")], [tb.Op(OP.MEAN, [0, 1], [2])], [0], [2])
    (got,) = _run_float_model(tmp_path, sub, [x])
    np.testing.assert_allclose(got, expected, rtol=1e-5)


# -- rejections ---------------------------------------------------------------------


def _graph(tensors, op) -> Graph:
    inputs = [t.index for t in tensors if not t.is_constant and t.index in op.inputs]
    return Graph("g", tensors, [op], inputs, op.outputs)


def _q(scale: float, zero_point: int) -> Quantization:
    return Quantization(np.array([scale], np.float32), np.array([zero_point], np.int64))


def _strided_slice_graph(**options) -> Graph:
    consts = [np.array(v, np.int32) for v in ([0, 0], [1, 2], [1, 1])]
    tensors = [Tensor(0, "x", (2, 3), "float32")]
    tensors += [Tensor(1 + k, name, (2,), "int32", data=c) for k, (name, c) in enumerate(zip(("begin", "end", "strides"), consts))]
    tensors.append(Tensor(4, "y", (1, 2), "float32"))
    return _graph(tensors, Operator(0, "STRIDED_SLICE", [0, 1, 2, 3], [4], options))


@pytest.mark.parametrize("mask", ["ellipsis_mask", "new_axis_mask"])
def test_strided_slice_rejects_ellipsis_and_new_axis_masks(mask):
    lower_graph(_strided_slice_graph())  # the same slice without the mask compiles
    with pytest.raises(ModelError) as error:
        lower_graph(_strided_slice_graph(**{mask: 1}))
    message = str(error.value)
    assert "operator 0 (STRIDED_SLICE)" in message and mask in message and "\n" not in message


def test_strided_slice_rejects_offset():
    with pytest.raises(ModelError, match="offset"):
        lower_graph(_strided_slice_graph(offset=True))


def _concat_graph(scale_b: float, activation: int = 0) -> Graph:
    tensors = [Tensor(0, "a", (1, 2), "int8", _q(0.1, 3)), Tensor(1, "b", (1, 3), "int8", _q(scale_b, 3)),
               Tensor(2, "y", (1, 5), "int8", _q(0.1, 3))]
    return _graph(tensors, Operator(0, "CONCATENATION", [0, 1], [2],
                                    {"axis": -1, "fused_activation_function": activation}))


def test_concatenation_rejects_int8_inputs_needing_requantization():
    lower_graph(_concat_graph(0.1))
    with pytest.raises(ModelError, match=r"operator 0 \(CONCATENATION\): int8 input 1 'b'.*does not requantize"):
        lower_graph(_concat_graph(0.2))


def test_concatenation_rejects_fused_activation():
    with pytest.raises(ModelError, match="fused activation RELU"):
        lower_graph(_concat_graph(0.1, activation=1))


def test_reshape_rejects_element_count_mismatch():
    tensors = [Tensor(0, "x", (2, 3), "float32"), Tensor(1, "y", (7,), "float32")]
    with pytest.raises(ModelError, match=r"operator 0 \(RESHAPE\).*different numbers of elements"):
        lower_graph(_graph(tensors, Operator(0, "RESHAPE", [0], [1])))
