"""SLICE, REVERSE_V2, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE, BROADCAST_ARGS against
TFLite Micro: every element type its kernels move, constant and run-time
begin/start/ids, -1 sizes, every axis and axis range, clamped and
out-of-range starts; constants consumed at compile time; one-line refusals.
"""
from __future__ import annotations

import itertools
import subprocess

import numpy as np
import pytest
import tflite

from reference import TEST_MODELS, outputs_match, reference_outputs
from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, assert_matches_reference, call_graph, is_float_routine, reachable
from tflite_builder import Op, Sub, T, build
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.baremetal import run_on_target
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
               T("begin", (len(shape),), index_dtype,
                 data=None if "begin" in runtime else np.array(begin, index_dtype)),
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


# -- REVERSE_V2 ----------------------------------------------------------------------------------------------------

def reverse_model(tmp_path, shape, axes, dtype="int8"):
    tensors = [tensor("input", shape, dtype), T("axis", (len(axes),), "int32", data=np.array(axes, np.int32)),
               tensor("output", shape, dtype)]
    return model(tmp_path, "reverse", "REVERSE_V2", tensors, [0], [2], [0, 1], [2])


def neighbouring_axis_ranges(rank):
    return [list(range(a, b)) for a in range(rank) for b in range(a + 1, rank + 1)]


@pytest.mark.parametrize("axes", neighbouring_axis_ranges(4) + [[-1], [-4], [-2, -3], [2, 1], [-1, 2]])
def test_reverse_every_axis_range(tmp_path, axes):
    x = values((2, 3, 4, 5), "int8")
    path = reverse_model(tmp_path, x.shape, axes)
    assert_matches_reference(path, [x])
    assert not constant_buffers(path)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "float32", "bool"])
@pytest.mark.parametrize("axes", [[0], [1], [2], [0, 1, 2]])
def test_reverse_every_type(tmp_path, dtype, axes):
    x = values((3, 4, 5), dtype, seed=1)
    assert_matches_reference(reverse_model(tmp_path, x.shape, axes, dtype), [x])


def test_reverse_six_dimensions(tmp_path):
    x = values((2, 1, 3, 2, 2, 3), "float32")
    for axes in ([0], [5], [2, 3, 4]):
        assert_matches_reference(reverse_model(tmp_path, x.shape, axes, "float32"), [x])


@pytest.mark.parametrize("axes,message", [([0, 2], "not neighbouring"), ([1, 1], "not neighbouring"),
                                          ([3], "axis 3 is outside"), ([-4], "axis -4 is outside")])
def test_reverse_refusals_as_tflite_micro(tmp_path, axes, message):
    path = reverse_model(tmp_path, (2, 3, 4), axes)
    with pytest.raises(RuntimeError):
        reference_outputs(path, [values((2, 3, 4), "int8")])
    with pytest.raises(ModelError, match=message):
        compile_model(path)


def runtime_reverse_model(tmp_path, shape, axes, dtype="int8"):
    tensors = [tensor("input", shape, dtype), T("axis", (axes,), "int32"), tensor("output", shape, dtype)]
    return model(tmp_path, "reverse", "REVERSE_V2", tensors, [0, 1], [2], [0, 1], [2])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "float32", "bool"])
def test_reverse_axes_at_run_time(tmp_path, dtype):
    """Every neighbouring axis range of a 4-D input, also counted from the end, in one compiled model per count."""
    x = values((2, 3, 4, 5), dtype, seed=4)
    for n in (1, 2, 3):
        path = runtime_reverse_model(tmp_path, x.shape, n, dtype)
        compiled = compile_model(path)
        for axes in (r for r in neighbouring_axis_ranges(4) if len(r) == n):
            for signed in (axes, [a - 4 for a in axes][::-1]):
                axis = np.array(signed, np.int32)
                expected = reference_outputs(path, [x, axis])[0]
                np.testing.assert_array_equal(run_host(compiled, [x, axis])[0], expected, err_msg=str(signed))


def test_reverse_axes_at_run_time_beyond_tflite_micro(tmp_path):
    """Axes TFLite Micro stops at: those not neighbours are reversed as TensorFlow does, out-of-range ones skipped."""
    x = values((2, 3, 4), "float32")
    path = runtime_reverse_model(tmp_path, x.shape, 2, "float32")
    compiled = compile_model(path)
    for axes, flipped in (([0, 2], (0, 2)), ([2, -3], (0, 2)), ([1, 7], (1,)), ([-9, 5], ())):
        got = run_host(compiled, [x, np.array(axes, np.int32)])[0]
        np.testing.assert_array_equal(got, np.flip(x, flipped) if flipped else x)


# -- EMBEDDING_LOOKUP ----------------------------------------------------------------------------------------------

def embedding_model(tmp_path, table_shape, lookups, dtype="float32", out_dtype=None, table_q=([0.05], [0]),
                    constant_table=True, ids=None, seed=0):
    out_dtype = out_dtype or dtype
    table = values(table_shape, dtype, seed) if constant_table else None
    q = table_q if dtype == "int8" else (None, None)
    out_q = table_q if out_dtype == "int8" else (None, None)
    tensors = [T("ids", (lookups,), "int32", data=None if ids is None else np.array(ids, np.int32)),
               T("table", tuple(table_shape), dtype, data=table, scales=q[0], zero_points=q[1]),
               T("output", (lookups,) + tuple(table_shape[1:]), out_dtype, scales=out_q[0], zero_points=out_q[1])]
    inputs = ([] if ids is not None else [0]) + ([] if constant_table else [1])
    return model(tmp_path, "embedding_lookup", "EMBEDDING_LOOKUP", tensors, inputs, [2], [0, 1], [2])


@pytest.mark.parametrize("dtype,out_dtype", [("float32", "float32"), ("int8", "int8"), ("int8", "float32")])
@pytest.mark.parametrize("table_shape", [(7, 3), (5, 2, 3), (4, 1)])
def test_embedding_lookup_every_id(tmp_path, dtype, out_dtype, table_shape):
    """Every row once, repeats, and reversed order."""
    rows = table_shape[0]
    ids = np.array(list(range(rows)) + [rows - 1, 0, 0] + list(reversed(range(rows))), np.int32)
    path = embedding_model(tmp_path, table_shape, len(ids), dtype, out_dtype)
    assert_matches_reference(path, [ids])


@pytest.mark.parametrize("scale", [1e-3, 0.037, 1.0, 3.7e4])
def test_embedding_lookup_hybrid_scales(tmp_path, scale):
    """Every int8 value dequantized with the table's scale."""
    tensors = [T("ids", (3,), "int32"),
               T("table", (4, 64), "int8", data=np.arange(-128, 128, dtype=np.int8).reshape(4, 64),
                 scales=[scale], zero_points=[0]),
               T("output", (3, 64), "float32")]
    path = model(tmp_path, "hybrid", "EMBEDDING_LOOKUP", tensors, [0], [2], [0, 1], [2])
    assert_matches_reference(path, [np.array([3, 0, 2], np.int32)])


def test_embedding_lookup_table_at_run_time(tmp_path):
    path = embedding_model(tmp_path, (6, 4), 5, "int8", constant_table=False)
    assert_matches_reference(path, [np.array([5, 1, 1, 0, 3], np.int32), values((6, 4), "int8", 3)])


@pytest.mark.parametrize("ids,calls", [([2, 3, 4, 0, 1, 5], 3), ([5, 5, 1], 3), (list(range(9, -1, -1)), 0),
                                       ([1, 2, 3, 4, 5, 6, 7, 8, 9], 1)])
@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_embedding_lookup_constant_ids_are_copies(tmp_path, ids, calls, dtype):
    """Constant ids never reach the pool: one copy per run of consecutive ids (the kernel past MAX_RUNS runs)."""
    path = embedding_model(tmp_path, (10, 3), len(ids), dtype, ids=ids, constant_table=False)
    assert_matches_reference(path, [values((10, 3), dtype, 9)])
    (op,) = compile_model(path).program.ops
    functions = [call.function for call in op.calls]
    assert functions == (["usmp_embedding_lookup"] if calls == 0 else [f"usmp_slice_x{8 if dtype == 'int8' else 32}"]
                         * calls)
    assert bool(constant_buffers(path)) == (calls == 0)


def test_embedding_lookup_out_of_range_id_gives_zeros(tmp_path):
    """TFLite Micro stops with an error; the kernel writes zeros and reads nothing outside the table."""
    path = embedding_model(tmp_path, (4, 3), 4, "int8", "float32")
    ids = np.array([1, 4, -1, 3], np.int32)
    with pytest.raises(RuntimeError):
        reference_outputs(path, [ids])
    got = run_host(compile_model(path), [ids])[0]
    good = reference_outputs(path, [np.array([1, 0, 0, 3], np.int32)])[0]
    np.testing.assert_array_equal(got[[0, 3]], good[[0, 3]])
    assert not got[1:3].any()


def test_embedding_lookup_refusals(tmp_path):
    with pytest.raises(ModelError, match="id 4 is outside the table's 4 rows"):
        compile_model(embedding_model(tmp_path, (4, 3), 2, ids=[0, 4]))
    with pytest.raises(ModelError, match="zero point 2; the hybrid lookup needs 0"):
        compile_model(embedding_model(tmp_path, (4, 3), 2, "int8", "float32", table_q=([0.1], [2])))
    with pytest.raises(ModelError, match="type int16"):
        compile_model(embedding_model(tmp_path, (4, 3), 2, "int16"))


# -- DYNAMIC_UPDATE_SLICE ------------------------------------------------------------------------------------------

def update_model(tmp_path, shape, update_shape, dtype="int8", index_dtype="int32", start=None,
                 constant_operand=False):
    """operand (model input or constant), update (input), start (input unless given) -> output."""
    tensors = [tensor("operand", shape, dtype, values(shape, dtype, 7) if constant_operand else None),
               tensor("update", update_shape, dtype),
               T("start", (len(shape),), index_dtype, data=None if start is None else np.array(start, index_dtype)),
               tensor("output", shape, dtype)]
    inputs = ([] if constant_operand else [0]) + [1] + ([2] if start is None else [])
    return model(tmp_path, "dus", "DYNAMIC_UPDATE_SLICE", tensors, inputs, [3], [0, 1, 2], [3])


@pytest.mark.parametrize("dtype", ["int8", "int32", "float32"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_dynamic_update_slice_every_start(tmp_path, dtype, index_dtype):
    """Every start in [-2, dim + 1] per dimension, so clamping at both ends is covered."""
    shape, update_shape = (3, 4, 2), (2, 2, 2)
    path = update_model(tmp_path, shape, update_shape, dtype, index_dtype)
    compiled = compile_model(path)
    operand, update = values(shape, dtype, 1), values(update_shape, dtype, 2)
    for s0, s1, s2 in itertools.product(range(-2, 5), range(-2, 6), (-1, 0, 1)):
        start = np.array([s0, s1, s2], index_dtype)
        expected = reference_outputs(path, [operand, update, start])[0]
        np.testing.assert_array_equal(run_host(compiled, [operand, update, start])[0], expected, err_msg=str(start))


@pytest.mark.parametrize("start", [[0, 0], [1, 2], [-5, 9], [2, 1]])
@pytest.mark.parametrize("update_shape", [(1, 1), (2, 3), (3, 1), (1, 5), (3, 5)])
def test_dynamic_update_slice_constant_start(tmp_path, start, update_shape):
    path = update_model(tmp_path, (3, 5), update_shape, "float32", start=start)
    assert_matches_reference(path, [values((3, 5), "float32", 1), values(update_shape, "float32", 2)])
    assert not constant_buffers(path)


def test_dynamic_update_slice_constant_operand(tmp_path):
    path = update_model(tmp_path, (4, 6), (2, 3), "int8", constant_operand=True)
    update = values((2, 3), "int8", 2)
    for start in ([0, 0], [2, 3], [1, 5]):
        assert_matches_reference(path, [update, np.array(start, np.int32)])


def test_dynamic_update_slice_writes_over_a_dying_operand(tmp_path):
    """operand = x + x dies at the update: the update's output takes its buffer, the operand is not copied."""
    shape = (4, 4)
    tensors = [tensor("x", shape, "float32"), tensor("operand", shape, "float32"), tensor("update", (2, 2), "float32"),
               T("start", (2,), "int32"), tensor("updated", shape, "float32"), tensor("output", shape, "float32")]
    ops = [Op(OPS.ADD, [0, 0], [1]), Op(OPS.DYNAMIC_UPDATE_SLICE, [1, 2, 3], [4]), Op(OPS.ADD, [4, 4], [5])]
    path = tmp_path / "dus_in_place.tflite"
    path.write_bytes(build([Sub(tensors, ops, [0, 2, 3], [5])]))
    program = compile_model(path).program
    update_op = next(op for op in program.ops if op.opcode == "DYNAMIC_UPDATE_SLICE")
    assert [call.function for call in update_op.calls] == ["usmp_slice_dynamic_x32"]
    for start in ([0, 0], [1, 3], [3, 3]):
        assert_matches_reference(path, [values(shape, "float32"), values((2, 2), "float32", 1),
                                        np.array(start, np.int32)])


def test_dynamic_update_slice_refusals(tmp_path):
    with pytest.raises(ModelError, match="type int16"):
        compile_model(update_model(tmp_path, (3, 4), (1, 1), "int16"))
    with pytest.raises(ModelError, match=r"update shape \[4, 1\] does not fit"):
        compile_model(update_model(tmp_path, (3, 4), (4, 1)))


# -- BROADCAST_ARGS ------------------------------------------------------------------------------------------------

def broadcast_args_model(tmp_path, shape1, shape2, length, dtype="int32", constant=(False, False)):
    tensors = [T("s1", (len(shape1),), dtype, data=np.array(shape1, dtype) if constant[0] else None),
               T("s2", (len(shape2),), dtype, data=np.array(shape2, dtype) if constant[1] else None),
               T("output", (length,), dtype)]
    inputs = [i for i in (0, 1) if not constant[i]]
    return model(tmp_path, "broadcast_args", "BROADCAST_ARGS", tensors, inputs, [2], [0, 1], [2])


BROADCASTS = [([2, 1, 3], [4, 1], 3), ([5], [3, 1, 5], 3), ([1, 1], [1], 2), ([7, 1, 1, 4], [6, 4], 4),
              ([1], [9, 8], 2), ([2, 3], [2, 3], 2)]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("shape1,shape2,length", BROADCASTS)
def test_broadcast_args_at_run_time(tmp_path, dtype, shape1, shape2, length):
    path = broadcast_args_model(tmp_path, shape1, shape2, length, dtype)
    assert_matches_reference(path, [np.array(shape1, dtype), np.array(shape2, dtype)])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("shape1,shape2,length", BROADCASTS)
def test_broadcast_args_one_constant_shape(tmp_path, dtype, shape1, shape2, length):
    path = broadcast_args_model(tmp_path, shape1, shape2, length, dtype, constant=(True, False))
    assert_matches_reference(path, [np.array(shape2, dtype)])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_broadcast_args_of_constants_is_computed_at_compile_time(tmp_path, dtype):
    """Only the result is a constant (copied into the model output); the shapes never reach the pool."""
    data = np.array([[1]], np.int8)  # a dummy input keeps the model runnable by both
    tensors = [T("s1", (3,), dtype, data=np.array([2, 1, 3], dtype)),
               T("s2", (2,), dtype, data=np.array([4, 1], dtype)),
               T("output", (3,), dtype), tensor("x", (1, 1), "int8"), tensor("y", (1, 1), "int8")]
    ops = [Op(OPS.BROADCAST_ARGS, [0, 1], [2]), Op(OPS.ABS, [3], [4])]
    path = tmp_path / "broadcast_args_constant.tflite"
    path.write_bytes(build([Sub(tensors, ops, [3], [2, 4])]))
    assert_matches_reference(path, [data])
    program = compile_model(path).program
    constants = [b for b in program.buffers.values() if b.kind == "constant" and not b.name.startswith("op1_")]
    assert [np.frombuffer(b.data, dtype).tolist() for b in constants] == [[2, 4, 3]]
    op = next(op for op in program.ops if op.opcode == "BROADCAST_ARGS")
    assert [call.function for call in op.calls] == ["usmp_slice_x32"]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_broadcast_args_of_constants_feeding_an_operator_is_a_constant_buffer(tmp_path, dtype):
    """An inner result is no kernel at all: its reader (REVERSE_V2 here) reads the derived constant."""
    tensors = [T("s1", (2,), dtype, data=np.array([3, 1], dtype)), T("s2", (1,), dtype, data=np.array([4], dtype)),
               T("shape", (2,), dtype), T("axis", (1,), "int32", data=np.array([0], np.int32)),
               T("reversed", (2,), dtype), tensor("x", (1, 1), "int8"), tensor("y", (1, 1), "int8")]
    ops = [Op(OPS.BROADCAST_ARGS, [0, 1], [2]), Op(OPS.REVERSE_V2, [2, 3], [4]), Op(OPS.ABS, [5], [6])]
    path = tmp_path / "broadcast_args_inner.tflite"
    path.write_bytes(build([Sub(tensors, ops, [5], [4, 6])]))
    assert_matches_reference(path, [np.array([[1]], np.int8)])
    program = compile_model(path).program
    assert [op.opcode for op in program.ops] == ["REVERSE_V2", "ABS"]


def test_broadcast_args_incompatible_constants_are_refused(tmp_path):
    path = broadcast_args_model(tmp_path, [2, 3], [4, 3], 2, constant=(True, True))
    with pytest.raises(ModelError, match=r"shapes \[2, 3\] and \[4, 3\] do not broadcast"):
        compile_model(path)


# -- tests/models/slicing: models whose index inputs must be valid -------------------------------------------------

SLICING_MODELS = sorted((TEST_MODELS / "slicing").glob("*.tflite"))
VALID_INPUTS = {  # per model, a few inputs TFLite Micro accepts (random ids or shapes would stop it)
    "embedding_lookup_f32": lambda rng: [rng.integers(0, 10, 5).astype(np.int32)],
    "embedding_lookup_int8": lambda rng: [rng.integers(0, 10, 5).astype(np.int32)],
    "embedding_lookup_hybrid": lambda rng: [rng.integers(0, 10, 5).astype(np.int32)],
    "slice_begin_input_int8": lambda rng: [values((3, 6, 4), "int8", int(rng.integers(100))),
                                           np.array([rng.integers(0, 2), rng.integers(0, 4), 0], np.int32)],
    "reverse_axis_input_int16": lambda rng: [values((3, 4, 5), "int16", int(rng.integers(100))),
                                             np.array([[0, 1], [1, 2], [-1, -2], [1, 0]][rng.integers(4)], np.int32)],
    "broadcast_args_int64": lambda rng: [np.array([rng.integers(1, 4), 1, rng.integers(1, 6)], np.int64),
                                         np.array([rng.integers(1, 5), 1], np.int64)],
}


@pytest.mark.parametrize("model", SLICING_MODELS, ids=[m.stem for m in SLICING_MODELS])
def test_slicing_models_host_and_cortex_m0(model):
    compiled = compile_model(model)
    rng = np.random.default_rng(5)
    for trial in range(4):
        inputs = VALID_INPUTS[model.stem](rng)
        expected = reference_outputs(model, inputs)
        hosts = run_host(compiled, inputs)
        assert all(outputs_match(e, g) for e, g in zip(expected, hosts)), f"{model.name} trial {trial} (host)"
        if trial == 0:
            arm = run_on_target(compiled, inputs, "cortex-m0").outputs
            assert all(outputs_match(e, g) for e, g in zip(expected, arm)), f"{model.name} (cortex-m0)"


# -- the kernels on a Cortex-M0 ------------------------------------------------------------------------------------

@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source", ["slice.c", "embedding_lookup.c", "broadcast_args.c"])
def test_moving_kernels_use_no_float_and_no_64bit_division(tmp_path, source):
    """Only the hybrid lookup (int8 table, float32 output) may use float."""
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror",
                    "-ffunction-sections", f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source), "-o",
                    str(obj)], check=True)
    graph = call_graph(obj)
    kernels = [f for f in graph if f.startswith("usmp_") and not f.endswith("_s8_f32")]
    assert kernels, f"no kernels found in {source}"
    for kernel in kernels:
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod", "__aeabi_idiv", "__aeabi_idivmod"}, \
            f"{kernel} divides: {sorted(used)}"
