"""SLICE, REVERSE_V2, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE, BROADCAST_ARGS against
TFLite Micro: every element type its kernels move, constant and run-time
begin/start/ids, -1 sizes, every axis and axis range, clamped and
out-of-range starts; constants consumed at compile time; one-line refusals.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import tflite

from reference import reference_outputs
from test_ops_elementwise import assert_matches_reference
from tflite_builder import Op, Sub, T, build
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
Q = {"int8": ([0.05], [3]), "int16": ([0.001], [0])}  # quantization the int tensors carry (moved untouched)


def tensor(name, shape, dtype, data=None):
    scales, zps = Q.get(dtype, (None, None))
    return T(name, tuple(shape), dtype, data=data, scales=scales, zero_points=zps)


def values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in ("float32",):
        return rng.uniform(-3, 3, shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -10**6), min(info.max, 10**6) + 1, shape).astype(dtype)


def model(tmp_path, name, opcode, tensors, inputs, outputs, op_inputs, op_outputs):
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(build([Sub(tensors, [Op(getattr(OPS, opcode), op_inputs, op_outputs)], inputs, outputs)]))
    return path


def constant_buffers(path):
    program = compile_model(path).program
    return {b.name for b in program.buffers.values() if b.kind == "constant"}


# -- SLICE ---------------------------------------------------------------------------------------------------------

def slice_model(tmp_path, shape, begin, size, out_shape, dtype="int8", index_dtype="int32", runtime=()):
    """input -> SLICE -> output; begin/size constant unless named in runtime."""
    tensors = [tensor("input", shape, dtype),
               T("begin", (len(shape),), index_dtype, data=None if "begin" in runtime else np.array(begin, index_dtype)),
               T("size", (len(shape),), index_dtype, data=None if "size" in runtime else np.array(size, index_dtype)),
               tensor("output", out_shape, dtype)]
    inputs = [0] + [1 + ["begin", "size"].index(r) for r in runtime]
    return model(tmp_path, "slice", "SLICE", tensors, inputs, [3], [0, 1, 2], [3])


SLICE_TYPES = ["int8", "int16", "int32", "float32", "bool"]


@pytest.mark.parametrize("dtype", SLICE_TYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_slice_every_type(tmp_path, dtype, index_dtype):
    x = values((2, 5, 6, 3), dtype)
    path = slice_model(tmp_path, x.shape, [1, 1, 2, 0], [1, 3, -1, 2], (1, 3, 4, 2), dtype, index_dtype)
    assert_matches_reference(path, [x])
    assert "begin" not in str(constant_buffers(path)) and not constant_buffers(path)


@pytest.mark.parametrize("begin,size", [([0, 0, 0], [-1, -1, -1]), ([2, 3, 4], [-1, -1, -1]), ([2, 3, 4], [1, 1, 1]),
                                        ([0, 1, 0], [3, 2, 1]), ([1, 0, 2], [1, 4, -1]), ([0, 0, 4], [-1, -1, 1])])
def test_slice_begin_and_size_edges(tmp_path, begin, size):
    shape = (3, 4, 5)
    x = values(shape, "int8")
    out = [d - b if s == -1 else s for d, b, s in zip(shape, begin, size)]
    assert_matches_reference(slice_model(tmp_path, shape, begin, size, out), [x])


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32", "bool"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_slice_begin_at_run_time(tmp_path, dtype, index_dtype):
    """Every valid begin of a 2x3 window in a 4x5x2 input (the extents come from the output shape)."""
    x = values((4, 5, 2), dtype)
    path = slice_model(tmp_path, x.shape, None, [2, 3, -1], (2, 3, 2), dtype, index_dtype, runtime=("begin",))
    compiled = compile_model(path)
    for b0, b1 in itertools.product(range(3), range(3)):
        begin = np.array([b0, b1, 0], index_dtype)
        expected = reference_outputs(path, [x, begin])[0]
        np.testing.assert_array_equal(run_host(compiled, [x, begin])[0], expected)


def test_slice_size_at_run_time(tmp_path):
    x = values((3, 4), "float32")
    path = slice_model(tmp_path, x.shape, [1, 0], None, (2, 4), "float32", runtime=("size",))
    assert_matches_reference(path, [x, np.array([2, -1], np.int32)])


def test_slice_begin_out_of_range_at_run_time_is_clamped(tmp_path):
    """TFLite Micro stops with an error; the kernel stays inside the input (begin clamped)."""
    x = values((4, 5), "int8")
    path = slice_model(tmp_path, x.shape, None, [2, 2], (2, 2), runtime=("begin",))
    got = run_host(compile_model(path), [x, np.array([-3, 9], np.int32)])[0]
    np.testing.assert_array_equal(got, x[0:2, 3:5])


@pytest.mark.parametrize("begin,size,message", [
    ([0, 6], [1, -1], "begin 6 of dimension 1 is outside"), ([-1, 0], [1, 1], "begin -1 of dimension 0"),
    ([1, 1], [3, 1], "size 3 of dimension 0 does not fit"), ([0, 0], [1, -2], "size -2 of dimension 1"),
])
def test_slice_invalid_constants_are_one_line_errors(tmp_path, begin, size, message):
    path = slice_model(tmp_path, (3, 5), begin, size, (1, 1))
    with pytest.raises(ModelError, match=message) as error:
        compile_model(path)
    assert "\n" not in str(error.value)
