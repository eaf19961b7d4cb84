"""SPLIT, SPLIT_V, PACK, UNPACK, BROADCAST_TO, FILL, EXPAND_DIMS, SHAPE, GATHER, GATHER_ND, MIRROR_PAD, the
space/depth/batch rearrangements and TILE, for every element type TFLite Micro moves, against tflite-micro.

Each model is one operator built by hand (tests/tflite_builder.py), so the element types and the quantization
are chosen freely; int16 tensors are symmetric (zero point 0) as TFLite Micro requires. TILE, which TFLite Micro
lacks, is checked against numpy.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

from reference import outputs_match, random_inputs, reference_outputs
from tflite_builder import Op, Sub, T, build, options
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
QUANT = {"int8": ([0.05], [3]), "int16": ([0.001], [0]), "uint8": ([0.05], [128])}
RUNS = 3


def data(name, shape, dtype):
    """An activation tensor; quantized types get a fixed quantization shared by every data tensor."""
    scales, zero_points = QUANT.get(dtype, (None, None))
    return T(name, tuple(shape), dtype, scales=scales, zero_points=zero_points)


def const(name, values, dtype="int32"):
    array = np.asarray(values, dtype=dtype)
    return T(name, array.shape, dtype, data=array)


def model(tmp_path, name, opcode, tensors, op_inputs, op_outputs, graph_inputs, op_options=None):
    sub = Sub(tensors, [Op(getattr(OPS, opcode), op_inputs, op_outputs, options=op_options)], graph_inputs,
              op_outputs)
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(build([sub]))
    return path


def check(path, runs=RUNS, seed=0):
    """Random inputs (and the compiled program) agree with tflite-micro."""
    compiled = compile_model(path)
    rng = np.random.default_rng(seed)
    for _ in range(runs):
        inputs = random_inputs(compiled.program.graph, rng)
        expected = reference_outputs(path, inputs)
        got = run_host(compiled, inputs)
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert outputs_match(e, g), f"{path.name}: expected {e.ravel()[:8]}, got {g.ravel()[:8]}"
    return compiled


def kernel_calls(compiled) -> list[str]:
    return [call.function for op in compiled.program.ops for call in op.calls]


MOVED = ["int8", "int16", "float32"]
TFLM_ONLY = ["int8", "float32"]  # the types TFLite Micro takes for MIRROR_PAD and the space/depth/batch operators


# -- SPLIT / SPLIT_V / UNPACK ------------------------------------------------------


@pytest.mark.parametrize("dtype", MOVED + ["int32"])
@pytest.mark.parametrize("shape, axis, parts", [((1, 6, 4), 1, 3), ((2, 3, 4), -1, 2), ((4, 5), 0, 4),
                                                ((1, 2, 3, 6), 3, 1)])
def test_split(tmp_path, dtype, shape, axis, parts):
    out_shape = list(shape)
    out_shape[axis] //= parts
    tensors = [const("axis", [axis]), data("input", shape, dtype)]
    tensors += [data(f"out{k}", out_shape, dtype) for k in range(parts)]
    outs = list(range(2, 2 + parts))
    check(model(tmp_path, "split", "SPLIT", tensors, [0, 1], outs, [1], options("Split", NumSplits=parts)))


@pytest.mark.parametrize("dtype", MOVED + ["int32"])
@pytest.mark.parametrize("shape, axis, sizes", [((1, 7, 3), 1, [2, 4, 1]), ((2, 9), -1, [3, -1, 1]),
                                                ((3, 2, 2), 0, [1, 2])])
def test_split_v(tmp_path, dtype, shape, axis, sizes):
    resolved = [s if s >= 0 else shape[axis] - (sum(sizes) + 1) for s in sizes]
    tensors = [data("input", shape, dtype), const("sizes", sizes), const("axis", [axis])]
    for k, size in enumerate(resolved):
        out_shape = list(shape)
        out_shape[axis] = size
        tensors.append(data(f"out{k}", out_shape, dtype))
    outs = list(range(3, 3 + len(sizes)))
    check(model(tmp_path, "split_v", "SPLIT_V", tensors, [0, 1, 2], outs, [0],
                options("SplitV", NumSplits=len(sizes))))


@pytest.mark.parametrize("dtype", MOVED + ["int32"])
@pytest.mark.parametrize("shape, axis", [((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), -1)])
def test_unpack(tmp_path, dtype, shape, axis):
    a = axis % len(shape)
    out_shape = [d for k, d in enumerate(shape) if k != a]
    tensors = [data("input", shape, dtype)] + [data(f"out{k}", out_shape, dtype) for k in range(shape[a])]
    outs = list(range(1, 1 + shape[a]))
    check(model(tmp_path, "unpack", "UNPACK", tensors, [0], outs, [0], options("Unpack", Num=shape[a], Axis=axis)))


@pytest.mark.parametrize("dtype", MOVED + ["int32"])
@pytest.mark.parametrize("shape, n, axis", [((3, 4), 2, 0), ((2, 3), 3, 1), ((2, 3, 4), 2, -1), ((5,), 3, 1)])
def test_pack(tmp_path, dtype, shape, n, axis):
    rank = len(shape) + 1
    a = axis % rank
    out_shape = list(shape[:a]) + [n] + list(shape[a:])
    tensors = [data(f"in{k}", shape, dtype) for k in range(n)] + [data("output", out_shape, dtype)]
    check(model(tmp_path, "pack", "PACK", tensors, list(range(n)), [n], list(range(n)),
                options("Pack", ValuesCount=n, Axis=axis)))


# -- BROADCAST_TO / FILL / TILE ------------------------------------------------------


@pytest.mark.parametrize("dtype", MOVED + ["int32"])
@pytest.mark.parametrize("in_shape, out_shape", [((1, 3), (4, 3)), ((3, 1), (2, 3, 5)), ((1,), (2, 2, 3)),
                                                 ((2, 1, 3, 1), (2, 4, 3, 2)), ((2, 3), (2, 3))])
def test_broadcast_to(tmp_path, dtype, in_shape, out_shape):
    tensors = [data("input", in_shape, dtype), const("shape", list(out_shape)), data("output", out_shape, dtype)]
    check(model(tmp_path, "broadcast_to", "BROADCAST_TO", tensors, [0, 1], [2], [0]))


@pytest.mark.parametrize("dtype", ["int8", "int32", "float32"])
def test_fill_with_a_run_time_value(tmp_path, dtype):
    tensors = [const("dims", [2, 3, 4]), data("value", (), dtype), data("output", (2, 3, 4), dtype)]
    compiled = check(model(tmp_path, "fill", "FILL", tensors, [0, 1], [2], [1]))
    assert kernel_calls(compiled) == [f"usmp_copy_nd_x{8 * np.dtype(dtype).itemsize}"]


@pytest.mark.parametrize("dtype, value", [("int8", -7), ("int32", 123456789), ("float32", -1.25)])
def test_fill_with_a_constant_value_is_a_fill(tmp_path, dtype, value):
    """The FILL's output is a model output, so it is not folded: the fill kernel writes the constant.

    (A second operator copies a model input to a second output: a model needs an input.)
    """
    tensors = [const("dims", [3, 5]), const("value", value, dtype), data("output", (3, 5), dtype),
               data("x", (2,), "int8"), const("x_shape", [2]), data("y", (2,), "int8")]
    sub = Sub(tensors, [Op(OPS.FILL, [0, 1], [2]), Op(OPS.RESHAPE, [3, 4], [5])], [3], [2, 5])
    path = tmp_path / "fill_constant.tflite"
    path.write_bytes(build([sub]))
    compiled = check(path)
    assert kernel_calls(compiled)[0] == f"usmp_fill_x{8 * np.dtype(dtype).itemsize}"


@pytest.mark.parametrize("dtype", MOVED)
@pytest.mark.parametrize("shape, multiples", [((2, 3), (3, 2)), ((1, 2, 3), (2, 1, 2)), ((2, 2, 2, 2), (2, 2, 2, 2)),
                                              ((3,), (1,))])
def test_tile_against_numpy(tmp_path, dtype, shape, multiples):
    out_shape = tuple(d * m for d, m in zip(shape, multiples))
    tensors = [data("input", shape, dtype), const("multiples", list(multiples)), data("output", out_shape, dtype)]
    compiled = compile_model(model(tmp_path, "tile", "TILE", tensors, [0, 1], [2], [0]))
    x = random_inputs(compiled.program.graph, np.random.default_rng(2))
    assert np.array_equal(run_host(compiled, x)[0], np.tile(x[0], multiples))


# -- views and SHAPE -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", MOVED)
def test_expand_dims_is_a_view(tmp_path, dtype):
    """As the only operator (model input to output) EXPAND_DIMS is one copy, whose axis is never read."""
    tensors = [data("input", (3, 4), dtype), const("axis", [1]), data("output", (3, 1, 4), dtype)]
    compiled = check(model(tmp_path, "expand_dims", "EXPAND_DIMS", tensors, [0, 1], [2], [0]))
    assert len(kernel_calls(compiled)) == 1
    assert not any(b.kind == "constant" for b in compiled.program.buffers.values())  # the axis is never read


def test_shape_as_model_output(tmp_path):
    tensors = [data("input", (2, 3, 5), "int8"), T("output", (3,), "int32")]
    path = model(tmp_path, "shape", "SHAPE", tensors, [0], [1], [0], options("Shape", OutType=2))
    compiled = check(path)
    x = random_inputs(compiled.program.graph, np.random.default_rng(0))
    assert run_host(compiled, x)[0].tolist() == [2, 3, 5]


# -- GATHER / GATHER_ND ------------------------------------------------------------------


def check_with_indices(path, make_inputs, runs=RUNS):
    """Like check(), with inputs from make_inputs(rng) (indices must stay in range for tflite-micro).

    The first run is under ASan/UBSan: the gathers compute their addresses from run-time data.
    """
    compiled = compile_model(path)
    rng = np.random.default_rng(5)
    for run in range(runs):
        inputs = make_inputs(rng)
        for e, g in zip(reference_outputs(path, inputs), run_host(compiled, inputs, sanitize=run == 0)):
            assert outputs_match(e, g), f"{path.name}: expected {e.ravel()[:8]}, got {g.ravel()[:8]}"
    return compiled


def random_data(rng, shape, dtype):
    if dtype == "float32":
        return rng.uniform(-3, 3, shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


GATHER_CASES = [  # input shape, indices shape, axis, batch_dims
    ((5, 3), (4,), 0, 0), ((2, 6, 3), (2, 2), 1, 0), ((3, 4), (), 1, 0), ((2, 5, 3), (2, 4), 1, 1),
    ((2, 3, 4), (3,), -1, 0), ((7,), (2, 3), 0, 0),
]


@pytest.mark.parametrize("dtype", ["int8", "float32"])
@pytest.mark.parametrize("in_shape, idx_shape, axis, batch_dims", GATHER_CASES)
def test_gather(tmp_path, dtype, in_shape, idx_shape, axis, batch_dims):
    a = axis % len(in_shape)
    out_shape = tuple(in_shape[:a]) + tuple(idx_shape[batch_dims:]) + tuple(in_shape[a + 1:])
    tensors = [data("input", in_shape, dtype), T("indices", idx_shape, "int32"), data("output", out_shape, dtype)]
    path = model(tmp_path, "gather", "GATHER", tensors, [0, 1], [2], [0, 1],
                 options("Gather", Axis=axis, BatchDims=batch_dims))
    check_with_indices(path, lambda rng: [random_data(rng, in_shape, dtype),
                                          rng.integers(0, in_shape[a], idx_shape).astype(np.int32)])


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_gather_with_constant_indices(tmp_path, dtype):
    """Constant indices (int32 or int64) become a constant the kernel reads; int64 ones are narrowed."""
    for index_type in ("int32", "int64"):
        tensors = [data("input", (4, 3), dtype), const("indices", [3, 0, 3, 1], index_type),
                   data("output", (4, 3), dtype)]
        compiled = compile_model(model(tmp_path, "gather_const", "GATHER", tensors, [0, 1], [2], [0],
                                       options("Gather", Axis=0)))
        x = random_data(np.random.default_rng(0), (4, 3), dtype)
        assert np.array_equal(run_host(compiled, [x])[0], x[[3, 0, 3, 1]])


@pytest.mark.parametrize("dtype", ["int16", "int32", "int8"])
def test_gather_out_of_range_indices_give_zero_slices(tmp_path, dtype):
    """TFLite Micro fails the invoke; the kernel never reads outside the input and writes zeros."""
    tensors = [data("input", (2, 4, 3), dtype), T("indices", (5,), "int32"), data("output", (2, 5, 3), dtype)]
    compiled = compile_model(model(tmp_path, "gather_oob", "GATHER", tensors, [0, 1], [2], [0, 1],
                                   options("Gather", Axis=1)))
    x = random_data(np.random.default_rng(0), (2, 4, 3), dtype)
    indices = np.array([1, -1, 4, 3, 2**31 - 1], np.int32)
    expected = np.zeros((2, 5, 3), dtype)
    for k, i in enumerate(indices):
        if 0 <= i < 4:
            expected[:, k] = x[:, i]
    assert np.array_equal(run_host(compiled, [x, indices], sanitize=True)[0], expected)


GATHER_ND_CASES = [((4, 3), (2, 1)), ((4, 3), (5, 2)), ((2, 3, 4), (2, 2, 2)), ((3, 2, 2, 2), (4, 3)), ((6,), (3, 1))]


@pytest.mark.parametrize("dtype", ["int8", "float32"])
@pytest.mark.parametrize("in_shape, idx_shape", GATHER_ND_CASES)
def test_gather_nd(tmp_path, dtype, in_shape, idx_shape):
    depth = idx_shape[-1]
    out_shape = tuple(idx_shape[:-1]) + tuple(in_shape[depth:])
    tensors = [data("input", in_shape, dtype), T("indices", idx_shape, "int32"), data("output", out_shape, dtype)]
    path = model(tmp_path, "gather_nd", "GATHER_ND", tensors, [0, 1], [2], [0, 1])

    def inputs(rng):
        tuples = np.stack([rng.integers(0, in_shape[j], idx_shape[:-1]) for j in range(depth)], axis=-1)
        return [random_data(rng, in_shape, dtype), tuples.astype(np.int32)]

    check_with_indices(path, inputs)


def test_gather_nd_out_of_range_tuple_gives_a_zero_slice(tmp_path):
    tensors = [data("input", (3, 4), "int16"), T("indices", (3, 1), "int32"), data("output", (3, 4), "int16")]
    compiled = compile_model(model(tmp_path, "gather_nd_oob", "GATHER_ND", tensors, [0, 1], [2], [0, 1]))
    x = random_data(np.random.default_rng(0), (3, 4), "int16")
    got = run_host(compiled, [x, np.array([[2], [3], [-1]], np.int32)], sanitize=True)[0]
    assert np.array_equal(got, np.stack([x[2], np.zeros(4, np.int16), np.zeros(4, np.int16)]))


# -- MIRROR_PAD and the space/depth/batch rearrangements ------------------------------------


@pytest.mark.parametrize("dtype", TFLM_ONLY)
@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("shape, pads", [((1, 4, 5, 2), [[0, 0], [2, 1], [1, 3], [0, 1]]), ((3, 4), [[2, 2], [0, 3]]),
                                         ((2, 3, 4), [[1, 0], [0, 2], [1, 1]])])
def test_mirror_pad(tmp_path, dtype, mode, shape, pads):
    if mode == 0 and any(p > d - 1 for d, pair in zip(shape, pads) for p in pair):
        pytest.skip("REFLECT pads at most size - 1")
    out_shape = tuple(d + a + b for d, (a, b) in zip(shape, pads))
    tensors = [data("input", shape, dtype), const("paddings", pads), data("output", out_shape, dtype)]
    compiled = check(model(tmp_path, "mirror_pad", "MIRROR_PAD", tensors, [0, 1], [2], [0],
                           options("MirrorPad", Mode=mode)))
    x = random_inputs(compiled.program.graph, np.random.default_rng(9))
    sanitize = dtype == "int8"  # the negative steps, under ASan/UBSan once per case
    expected = np.pad(x[0], pads, mode="reflect" if mode == 0 else "symmetric")
    assert np.array_equal(run_host(compiled, x, sanitize=sanitize)[0], expected)


@pytest.mark.parametrize("dtype", TFLM_ONLY)
@pytest.mark.parametrize("shape, block", [((1, 2, 3, 8), 2), ((2, 1, 2, 9), 3), ((1, 2, 2, 3), 1)])
def test_depth_to_space(tmp_path, dtype, shape, block):
    n, h, w, c = shape
    out_shape = (n, h * block, w * block, c // block // block)
    tensors = [data("input", shape, dtype), data("output", out_shape, dtype)]
    check(model(tmp_path, "d2s", "DEPTH_TO_SPACE", tensors, [0], [1], [0], options("DepthToSpace", BlockSize=block)))


@pytest.mark.parametrize("dtype", TFLM_ONLY)
@pytest.mark.parametrize("shape, block", [((1, 4, 6, 2), 2), ((2, 3, 6, 1), 3)])
def test_space_to_depth(tmp_path, dtype, shape, block):
    n, h, w, c = shape
    out_shape = (n, h // block, w // block, c * block * block)
    tensors = [data("input", shape, dtype), data("output", out_shape, dtype)]
    check(model(tmp_path, "s2d", "SPACE_TO_DEPTH", tensors, [0], [1], [0], options("SpaceToDepth", BlockSize=block)))


SPACE_BATCH_CASES = [  # input shape, block shape, paddings (SPACE_TO_BATCH_ND) / crops (BATCH_TO_SPACE_ND)
    ((1, 4, 4, 2), [2, 2], [[0, 0], [0, 0]]), ((2, 3, 5, 1), [2, 3], [[1, 0], [0, 1]]), ((1, 5, 3), [2], [[2, 1]]),
    ((1, 2, 2, 3), [1, 2], [[0, 1], [1, 1]]),
]


@pytest.mark.parametrize("dtype", TFLM_ONLY)
@pytest.mark.parametrize("shape, block, pads", SPACE_BATCH_CASES)
def test_space_to_batch_nd(tmp_path, dtype, shape, block, pads):
    padded = [d + a + b for d, (a, b) in zip(shape[1:-1], pads)]
    out_shape = (shape[0] * int(np.prod(block)),) + tuple(p // b for p, b in zip(padded, block)) + (shape[-1],)
    tensors = [data("input", shape, dtype), const("block", block), const("paddings", pads),
               data("output", out_shape, dtype)]
    path = model(tmp_path, "s2b", "SPACE_TO_BATCH_ND", tensors, [0, 1, 2], [3], [0])
    if not any(a or b for a, b in pads):
        check(path)
        return
    # TFLite Micro pads with an offset it never sets (whatever its arena held): compare with TFLite's
    # definition instead, padding with real 0 (the zero point for int8).
    compiled = compile_model(path)
    x = random_inputs(compiled.program.graph, np.random.default_rng(8))[0]
    zero = QUANT[dtype][1][0] if dtype in QUANT else 0
    padded = np.pad(x, [[0, 0]] + pads + [[0, 0]], constant_values=zero)
    split = [shape[0]]
    for p, b in zip(padded.shape[1:-1], block):
        split += [p // b, b]
    blocks = padded.reshape(split + [shape[-1]])
    spatial = len(block)
    order = [2 + 2 * k for k in range(spatial)] + [0] + [1 + 2 * k for k in range(spatial)] + [1 + 2 * spatial]
    expected = blocks.transpose(order).reshape(out_shape)
    assert np.array_equal(run_host(compiled, [x])[0], expected)


@pytest.mark.parametrize("dtype", TFLM_ONLY)
@pytest.mark.parametrize("shape, block, crops", SPACE_BATCH_CASES)
def test_batch_to_space_nd(tmp_path, dtype, shape, block, crops):
    blocks = int(np.prod(block))
    in_shape = (shape[0] * blocks,) + tuple(shape[1:])
    spatial = [d * b - a - c for d, b, (a, c) in zip(shape[1:-1], block, crops)]
    out_shape = (shape[0],) + tuple(spatial) + (shape[-1],)
    tensors = [data("input", in_shape, dtype), const("block", block), const("crops", crops),
               data("output", out_shape, dtype)]
    check(model(tmp_path, "b2s", "BATCH_TO_SPACE_ND", tensors, [0, 1, 2], [3], [0]))


# -- int16 (and int32) through the existing data-movement operators -----------------------


WIDE = ["int16", "int32"]


def test_transpose_int32_is_refused_as_in_tflite_micro(tmp_path):
    tensors = [data("input", (2, 3), "int32"), const("perm", [1, 0]), data("output", (3, 2), "int32")]
    with pytest.raises(ModelError, match="tensor 0 'input' has type int32"):
        compile_model(model(tmp_path, "transpose32", "TRANSPOSE", tensors, [0, 1], [2], [0]))


@pytest.mark.parametrize("dtype", ["int16"])
def test_transpose_wide_types(tmp_path, dtype):
    tensors = [data("input", (2, 3, 4), dtype), const("perm", [2, 0, 1]), data("output", (4, 2, 3), dtype)]
    check(model(tmp_path, "transpose", "TRANSPOSE", tensors, [0, 1], [2], [0]))


@pytest.mark.parametrize("dtype", WIDE)
def test_strided_slice_wide_types(tmp_path, dtype):
    tensors = [data("input", (5, 6), dtype), const("begin", [4, 1]), const("end", [0, 6]), const("strides", [-2, 2]),
               data("output", (2, 3), dtype)]
    check(model(tmp_path, "strided_slice", "STRIDED_SLICE", tensors, [0, 1, 2, 3], [4], [0],
                options("StridedSlice", BeginMask=0, EndMask=0)))


@pytest.mark.parametrize("dtype", WIDE)
def test_pad_wide_types(tmp_path, dtype):
    """int16 PAD pads with the zero point (0: TFLite Micro's int16 is symmetric); int32 with 0."""
    tensors = [data("input", (2, 3), dtype), const("paddings", [[1, 0], [2, 1]]), data("output", (3, 6), dtype)]
    compiled = check(model(tmp_path, "pad", "PAD", tensors, [0, 1], [2], [0]))
    x = random_inputs(compiled.program.graph, np.random.default_rng(3))
    assert np.array_equal(run_host(compiled, x)[0], np.pad(x[0], [[1, 0], [2, 1]]))


@pytest.mark.parametrize("dtype", MOVED + ["int32", "bool"])
@pytest.mark.parametrize("shape, begin, size", [((4, 5), [1, 2], [2, -1]), ((2, 3, 4), [1, 0, 1], [1, 3, 2]),
                                                ((6,), [0], [6])])
def test_slice(tmp_path, dtype, shape, begin, size):
    out_shape = tuple(d - b if s == -1 else s for d, b, s in zip(shape, begin, size))
    tensors = [data("input", shape, dtype), const("begin", begin), const("size", size),
               data("output", out_shape, dtype)]
    compiled = check(model(tmp_path, "slice", "SLICE", tensors, [0, 1, 2], [3], [0]))
    assert not [b for b in compiled.program.buffers.values() if b.kind == "constant"]


def test_padv2_int16_pads_with_the_constant(tmp_path):
    tensors = [data("input", (2, 3), "int16"), const("paddings", [[0, 1], [1, 1]]),
               T("value", (), "int16", data=np.array(-1234, np.int16), scales=[0.001], zero_points=[0]),
               data("output", (3, 5), "int16")]
    compiled = check(model(tmp_path, "padv2", "PADV2", tensors, [0, 1, 2], [3], [0]))
    x = random_inputs(compiled.program.graph, np.random.default_rng(4))
    assert np.array_equal(run_host(compiled, x)[0], np.pad(x[0], [[0, 1], [1, 1]], constant_values=-1234))


@pytest.mark.parametrize("dtype", WIDE)
def test_concatenation_wide_types(tmp_path, dtype):
    tensors = [data("a", (2, 3), dtype), data("b", (2, 1), dtype), data("c", (2, 2), dtype), data("out", (2, 6), dtype)]
    check(model(tmp_path, "concat", "CONCATENATION", tensors, [0, 1, 2], [3], [0, 1, 2],
                options("Concatenation", Axis=-1)))


def test_int64_moves_as_word_pairs(tmp_path):
    """CONCATENATION, PACK and a RESHAPE copy of int64 (as TFLite Micro takes them) with the 32-bit kernels."""
    tensors = [data("a", (2, 3), "int64"), data("b", (2, 1), "int64"), data("out", (2, 4), "int64")]
    path = model(tmp_path, "concat64", "CONCATENATION", tensors, [0, 1], [2], [0, 1], options("Concatenation", Axis=1))
    compiled = check_with_indices(path, lambda rng: [rng.integers(-2**62, 2**62, s, dtype=np.int64)
                                                     for s in ((2, 3), (2, 1))])  # both words carry data
    assert {call.function for op in compiled.program.ops for call in op.calls} == {"usmp_copy_nd_x32"}
    tensors = [data("a", (3,), "int64"), data("b", (3,), "int64"), data("out", (3, 2), "int64")]
    check(model(tmp_path, "pack64", "PACK", tensors, [0, 1], [2], [0, 1], options("Pack", ValuesCount=2, Axis=1)))
    tensors = [data("a", (2, 3), "int64"), const("shape", [3, 2]), data("out", (3, 2), "int64")]
    check(model(tmp_path, "reshape64", "RESHAPE", tensors, [0, 1], [2], [0]))


def test_concatenation_int16_needs_equal_scales(tmp_path):
    tensors = [data("a", (2, 3), "int16"), T("b", (2, 3), "int16", scales=[0.002], zero_points=[0]),
               data("out", (4, 3), "int16")]
    path = model(tmp_path, "concat_scales", "CONCATENATION", tensors, [0, 1], [2], [0, 1],
                 options("Concatenation", Axis=0))
    with pytest.raises(ModelError, match="int16 input 1 'b'.*does not requantize"):
        compile_model(path)


@pytest.mark.parametrize("opcode", ["RESHAPE", "SQUEEZE"])
def test_int16_views(tmp_path, opcode):
    """A view between two int16 copies: no code of its own, and the model still matches."""
    tensors = [data("input", (1, 3, 4), "int16"), const("perm", [0, 2, 1]), data("t", (1, 4, 3), "int16"),
               const("shape", [4, 3]), data("v", (4, 3), "int16"), const("perm2", [1, 0]), data("out", (3, 4), "int16")]
    view_options = options("Squeeze") if opcode == "SQUEEZE" else None  # no dims: every size-1 dimension
    ops = [Op(OPS.TRANSPOSE, [0, 1], [2]), Op(getattr(OPS, opcode), [2, 3] if opcode == "RESHAPE" else [2], [4],
                                              options=view_options),
           Op(OPS.TRANSPOSE, [4, 5], [6])]
    path = tmp_path / "view16.tflite"
    path.write_bytes(build([Sub(tensors, ops, [0], [6])]))
    compiled = check(path)
    assert [op.opcode for op in compiled.program.ops] == ["TRANSPOSE", "TRANSPOSE"]


# -- refusals: one line naming the tensor or option --------------------------------------------


def test_types_tflite_micro_refuses_are_refused(tmp_path):
    tensors = [data("input", (3, 4), "int16"), const("paddings", [[1, 1], [1, 1]]), data("output", (5, 6), "int16")]
    with pytest.raises(ModelError, match="tensor 0 'input' has type int16"):
        compile_model(model(tmp_path, "mirror16", "MIRROR_PAD", tensors, [0, 1], [2], [0],
                            options("MirrorPad", Mode=0)))


def test_split_needs_a_constant_axis(tmp_path):
    tensors = [T("axis", (1,), "int32"), data("input", (4, 2), "int8"), data("a", (2, 2), "int8"),
               data("b", (2, 2), "int8")]
    with pytest.raises(ModelError, match=r"input 0 \(tensor 0 'axis'\) must be a constant"):
        compile_model(model(tmp_path, "split_axis", "SPLIT", tensors, [0, 1], [2, 3], [0, 1],
                            options("Split", NumSplits=2)))


def test_gather_int64_indices_at_run_time_are_refused(tmp_path):
    tensors = [data("input", (4, 3), "int8"), T("indices", (2,), "int64"), data("output", (2, 3), "int8")]
    with pytest.raises(ModelError, match="index tensor 'indices' is int64"):
        compile_model(model(tmp_path, "gather64", "GATHER", tensors, [0, 1], [2], [0, 1], options("Gather", Axis=0)))


def test_mirror_pad_reflect_wider_than_the_input_is_refused(tmp_path):
    tensors = [data("input", (3, 4), "int8"), const("paddings", [[3, 0], [0, 0]]), data("output", (6, 4), "int8")]
    with pytest.raises(ModelError, match="REFLECT"):
        compile_model(model(tmp_path, "mirror_wide", "MIRROR_PAD", tensors, [0, 1], [2], [0],
                            options("MirrorPad", Mode=0)))


def test_copies_of_more_than_six_dimensions_are_unrolled(tmp_path):
    """TILE of a 4-D tensor by 2 everywhere is an 8-D walk: the two outer dimensions become four calls."""
    tensors = [data("input", (2, 3, 2, 3), "int8"), const("multiples", [2, 2, 2, 2]),
               data("output", (4, 6, 4, 6), "int8")]
    compiled = compile_model(model(tmp_path, "tile8", "TILE", tensors, [0, 1], [2], [0]))
    calls = [call for op in compiled.program.ops for call in op.calls]
    assert len(calls) == 4 and all(call.function == "usmp_copy_nd_x8" for call in calls)
    x = random_inputs(compiled.program.graph, np.random.default_rng(6))
    assert np.array_equal(run_host(compiled, x, sanitize=True)[0], np.tile(x[0], [2, 2, 2, 2]))


CONSTANT_OPERANDS = [  # opcode, tensors, op inputs, op outputs, graph inputs, options: shape/axis operands only
    ("SPLIT", [const("axis", [1]), data("input", (2, 4), "int8"), data("a", (2, 2), "int8"),
               data("b", (2, 2), "int8")], [0, 1], [2, 3], [1], options("Split", NumSplits=2)),
    ("SPLIT_V", [data("input", (2, 4), "int8"), const("sizes", [1, 3]), const("axis", [1]),
                 data("a", (2, 1), "int8"), data("b", (2, 3), "int8")], [0, 1, 2], [3, 4], [0],
     options("SplitV", NumSplits=2)),
    ("MIRROR_PAD", [data("input", (2, 4), "int8"), const("paddings", [[1, 1], [0, 2]]),
                    data("output", (4, 6), "int8")], [0, 1], [2], [0], options("MirrorPad", Mode=0)),
    ("BROADCAST_TO", [data("input", (1, 4), "int8"), const("shape", [3, 4]), data("output", (3, 4), "int8")],
     [0, 1], [2], [0], None),
    ("SPACE_TO_BATCH_ND", [data("input", (1, 2, 4, 1), "int8"), const("block", [2, 2]), const("pads", [[0, 0], [0, 0]]),
                           data("output", (4, 1, 2, 1), "int8")], [0, 1, 2], [3], [0], None),
    ("EXPAND_DIMS", [data("input", (2, 4), "int8"), const("axis", [0]), data("output", (1, 2, 4), "int8")],
     [0, 1], [2], [0], None),
]


@pytest.mark.parametrize("opcode, tensors, op_inputs, op_outputs, graph_inputs, opts", CONSTANT_OPERANDS,
                         ids=[c[0] for c in CONSTANT_OPERANDS])
def test_shape_and_axis_operands_never_reach_the_constant_pool(tmp_path, opcode, tensors, op_inputs, op_outputs,
                                                               graph_inputs, opts):
    compiled = check(model(tmp_path, opcode.lower(), opcode, tensors, op_inputs, op_outputs, graph_inputs, opts))
    assert not [b.name for b in compiled.program.buffers.values() if b.kind == "constant"]


def random_slice_case(rng):
    """A random int16 STRIDED_SLICE: shape, begin, end, strides and masks, with its output shape."""
    from usmp.lower.ops.strided_slice import slice_axes

    rank = int(rng.integers(1, 5))
    shape = [int(d) for d in rng.integers(1, 6, rank)]
    begin = [int(rng.integers(-d - 1, d + 2)) for d in shape]
    end = [int(rng.integers(-d - 1, d + 2)) for d in shape]
    strides = [int(rng.choice([-3, -2, -1, 1, 2, 3])) for _ in shape]
    begin_mask, end_mask = int(rng.integers(0, 1 << rank)), int(rng.integers(0, 1 << rank))
    axes, out_shape = slice_axes(shape, begin, end, strides, begin_mask, end_mask, 0)
    return shape, begin, end, strides, begin_mask, end_mask, out_shape


@pytest.mark.parametrize("seed", range(24))
def test_strided_slice_int16_random(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    shape, begin, end, strides, begin_mask, end_mask, out_shape = random_slice_case(rng)
    while 0 in out_shape:  # an empty output is not a model TFLite (or usmp) takes
        shape, begin, end, strides, begin_mask, end_mask, out_shape = random_slice_case(rng)
    tensors = [data("input", shape, "int16"), const("begin", begin), const("end", end), const("strides", strides),
               data("output", out_shape, "int16")]
    check(model(tmp_path, "strided_slice16", "STRIDED_SLICE", tensors, [0, 1, 2, 3], [4], [0],
                options("StridedSlice", BeginMask=begin_mask, EndMask=end_mask)), runs=1)


@pytest.mark.parametrize("seed", range(12))
def test_tile_random_against_numpy(tmp_path, seed):
    rng = np.random.default_rng(200 + seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(d) for d in rng.integers(1, 4, rank))
    multiples = [int(m) for m in rng.integers(1, 4, rank)]
    dtype = str(rng.choice(MOVED + ["int32"]))
    out_shape = tuple(d * m for d, m in zip(shape, multiples))
    tensors = [data("input", shape, dtype), const("multiples", multiples), data("output", out_shape, dtype)]
    compiled = compile_model(model(tmp_path, "tile_random", "TILE", tensors, [0, 1], [2], [0]))
    x = random_inputs(compiled.program.graph, rng)
    assert np.array_equal(run_host(compiled, x)[0], np.tile(x[0], multiples))
