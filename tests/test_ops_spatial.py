"""RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR, TRANSPOSE_CONV, BATCH_MATMUL against TFLite Micro.

Hand-built one-operator models sweep the options and shapes the converter
rarely emits (align_corners, half_pixel_centers, shrinking, odd strides,
VALID transposed convolutions with outputs cut short, broadcast batches);
tests/models/make_spatial_models.py makes the converter's versions.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tflite

from reference import outputs_match, reference_outputs
from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, call_graph, is_float_routine, reachable
from tflite_builder import Op, Sub, T, build, options
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
RNG = np.random.default_rng(2024)


def assert_matches_reference(path, inputs, sanitize=False):
    expected = reference_outputs(path, inputs)
    got = run_host(compile_model(path), inputs, sanitize=sanitize)
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        if not outputs_match(e, g):
            wrong = np.flatnonzero(e.ravel() != g.ravel())
            pytest.fail(f"{path.name}: {len(wrong)} of {e.size} differ, first at {wrong[:5]}: "
                        f"expected {e.ravel()[wrong[:5]]}, got {g.ravel()[wrong[:5]]}")


def random_values(dtype, shape):
    if dtype == "float32":
        return RNG.uniform(-3, 3, shape).astype(np.float32)
    info = np.iinfo(dtype)
    return RNG.integers(int(info.min), int(info.max) + 1, shape).astype(dtype)


QUANT = {"int8": ([0.05], [3]), "int16": ([0.001], [0]), "float32": (None, None)}


# -- RESIZE ----------------------------------------------------------------------------------

def resize_model(tmp_path, opcode, dtype, in_shape, size, align=False, half=False, out_q=None):
    scales, zps = QUANT[dtype]
    out_scales, out_zps = out_q if out_q else (scales, zps)
    kind = "ResizeBilinear" if opcode == "RESIZE_BILINEAR" else "ResizeNearestNeighbor"
    out_shape = (in_shape[0], size[0], size[1], in_shape[3])
    sub = Sub([T("input", in_shape, dtype, scales=scales, zero_points=zps),
               T("size", (2,), "int32", data=np.array(size, np.int32)),
               T("output", out_shape, dtype, scales=out_scales, zero_points=out_zps)],
              [Op(getattr(OPS, opcode), [0, 1], [2],
                  options=options(kind, AlignCorners=align, HalfPixelCenters=half))], [0], [2])
    path = tmp_path / f"{opcode.lower()}_{dtype}.tflite"
    path.write_bytes(build([sub]))
    return path


RESIZE_SHAPES = [((1, 3, 4, 2), (7, 9)), ((2, 5, 3, 3), (2, 8)), ((1, 4, 4, 1), (4, 4)), ((1, 6, 7, 2), (3, 2)),
                 ((1, 1, 5, 2), (3, 1)), ((1, 2, 2, 3), (1, 5))]
RESIZE_FLAGS = [(False, False), (True, False), (False, True)]


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("align,half", RESIZE_FLAGS + [(True, True)])
@pytest.mark.parametrize("in_shape,size", RESIZE_SHAPES)
def test_resize_nearest(tmp_path, dtype, align, half, in_shape, size):
    path = resize_model(tmp_path, "RESIZE_NEAREST_NEIGHBOR", dtype, in_shape, size, align, half)
    assert_matches_reference(path, [random_values(dtype, in_shape)])


@pytest.mark.parametrize("dtype", ["int8", "float32"])
@pytest.mark.parametrize("align,half", RESIZE_FLAGS)
@pytest.mark.parametrize("in_shape,size", RESIZE_SHAPES)
def test_resize_bilinear(tmp_path, dtype, align, half, in_shape, size):
    path = resize_model(tmp_path, "RESIZE_BILINEAR", dtype, in_shape, size, align, half)
    assert_matches_reference(path, [random_values(dtype, in_shape)])


EVERY_PAIR = np.stack([np.broadcast_to(np.arange(-128, 128)[:, None], (256, 256)),
                       np.broadcast_to(np.arange(-128, 128)[None, :], (256, 256))], axis=1)  # [a, side, b]


@pytest.mark.parametrize("align,half,width", [(True, False, 3), (False, False, 5), (False, True, 4),
                                              (False, True, 7)])
def test_resize_bilinear_int8_every_pair(tmp_path, align, half, width):
    """Every pair of int8 neighbours blended at several fractions (exact halves among them)."""
    values = EVERY_PAIR.reshape(1, 256, 2, 256).astype(np.int8)
    path = resize_model(tmp_path, "RESIZE_BILINEAR", "int8", values.shape, (256, width), align, half)
    assert_matches_reference(path, [values])


@pytest.mark.parametrize("opcode", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_resize_sanitizers_clean(tmp_path, opcode):
    path = resize_model(tmp_path, opcode, "int8", (2, 5, 3, 3), (7, 4), half=True)
    assert_matches_reference(path, [random_values("int8", (2, 5, 3, 3))], sanitize=True)


def test_resize_requantizing_is_a_one_line_error(tmp_path):
    path = resize_model(tmp_path, "RESIZE_BILINEAR", "int8", (1, 2, 2, 1), (4, 4), out_q=([0.1], [3]))
    with pytest.raises(ModelError, match=r"operator 0 \(RESIZE_BILINEAR\): int8 resizing needs the same scale"):
        compile_model(path)


def test_resize_bilinear_align_and_half_is_a_one_line_error(tmp_path):
    path = resize_model(tmp_path, "RESIZE_BILINEAR", "float32", (1, 2, 2, 1), (4, 4), align=True, half=True)
    with pytest.raises(ModelError, match=r"align_corners and half_pixel_centers cannot both be set"):
        compile_model(path)


def test_resize_size_must_be_constant(tmp_path):
    sub = Sub([T("input", (1, 2, 2, 1), "float32"), T("size", (2,), "int32"), T("output", (1, 4, 4, 1), "float32")],
              [Op(OPS.RESIZE_NEAREST_NEIGHBOR, [0, 1], [2])], [0, 1], [2])
    path = tmp_path / "dynamic_size.tflite"
    path.write_bytes(build([sub]))
    with pytest.raises(ModelError, match=r"operator 0 \(RESIZE_NEAREST_NEIGHBOR\): input 1 .* must be a constant"):
        compile_model(path)


# -- TRANSPOSE_CONV ---------------------------------------------------------------------------

SAME, VALID = 0, 1


def transpose_conv_model(tmp_path, dtype, in_shape, out_hw, filter_hw, out_ch, strides, padding, bias=True,
                         activation=0, per_channel=True, in_q=None, out_q=None, bias_dtype=None):
    """input -> TRANSPOSE_CONV -> output, random filter and bias from a fixed seed."""
    rng = np.random.default_rng(sum(in_shape) * 31 + out_ch)
    batches, _, _, in_ch = in_shape
    filter_shape = (out_ch, *filter_hw, in_ch)
    out_shape = (batches, *out_hw, out_ch)
    if dtype == "float32":
        filt = T("filter", filter_shape, "float32", data=rng.uniform(-1, 1, filter_shape).astype(np.float32))
        bias_t = T("bias", (out_ch,), "float32", data=rng.uniform(-1, 1, out_ch).astype(np.float32))
        in_t, out_t = T("input", in_shape, "float32"), T("output", out_shape, "float32")
    else:
        w_scales = list(rng.uniform(0.002, 0.02, out_ch)) if per_channel else [0.01]
        filt = T("filter", filter_shape, "int8", data=rng.integers(-127, 128, filter_shape).astype(np.int8),
                 scales=w_scales, zero_points=[0] * len(w_scales), axis=0)
        in_scale, in_zp = in_q or ((0.05, -7) if dtype == "int8" else (0.0005, 0))
        out_scale, out_zp = out_q or ((0.1, 5) if dtype == "int8" else (0.002, 0))
        bias_dtype = bias_dtype or ("int32" if dtype == "int8" else "int64")
        bias_scales = [in_scale * s for s in w_scales]
        bias_t = T("bias", (out_ch,), bias_dtype, data=rng.integers(-3000, 3000, out_ch).astype(bias_dtype),
                   scales=bias_scales, zero_points=[0] * len(bias_scales))
        in_t = T("input", in_shape, dtype, scales=[in_scale], zero_points=[in_zp])
        out_t = T("output", out_shape, dtype, scales=[out_scale], zero_points=[out_zp])
    tensors = [T("output_shape", (4,), "int32", data=np.array(out_shape, np.int32)), filt, in_t, out_t]
    inputs = [0, 1, 2]
    if bias:
        tensors.append(bias_t)
        inputs.append(4)
    op = Op(OPS.TRANSPOSE_CONV, inputs, [3], options=options(
        "TransposeConv", Padding=padding, StrideW=strides[1], StrideH=strides[0], FusedActivationFunction=activation))
    path = tmp_path / f"transpose_conv_{dtype}.tflite"
    path.write_bytes(build([Sub(tensors, [op], [2], [3])]))
    return path


def same_out(size, stride):
    return size * stride


def valid_out(size, stride, taps):
    return (size - 1) * stride + taps


TCONV_CASES = [  # in_shape, out_hw, filter_hw, out_ch, strides, padding
    ((1, 3, 4, 2), (6, 8), (3, 3), 3, (2, 2), SAME),
    ((1, 3, 4, 2), (7, 9), (3, 3), 3, (2, 2), VALID),
    ((2, 4, 3, 3), (4, 3), (3, 2), 2, (1, 1), SAME),
    ((1, 4, 3, 3), (6, 5), (3, 3), 4, (1, 1), VALID),
    ((1, 2, 3, 4), (6, 9), (2, 4), 2, (3, 3), SAME),
    ((1, 2, 3, 4), (7, 8), (4, 2), 3, (3, 2), VALID),
    ((1, 3, 3, 1), (5, 5), (5, 5), 2, (2, 2), SAME),  # SAME padding larger than the stride
    ((1, 3, 3, 2), (4, 5), (3, 3), 2, (2, 2), VALID),  # output shorter than VALID would make it
    ((1, 2, 2, 2), (2, 2), (3, 3), 1, (1, 1), VALID),  # filter taller than the output
    ((1, 3, 3, 2), (9, 9), (2, 2), 2, (3, 3), SAME),  # stride beyond the filter: some outputs get no taps
    ((1, 3, 2, 3), (6, 4), (1, 1), 2, (2, 2), VALID),
]


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("case", TCONV_CASES, ids=lambda c: "x".join(map(str, c[0])) + f"_s{c[4][0]}{c[4][1]}_p{c[5]}")
def test_transpose_conv(tmp_path, dtype, case):
    in_shape, out_hw, filter_hw, out_ch, strides, padding = case
    path = transpose_conv_model(tmp_path, dtype, in_shape, out_hw, filter_hw, out_ch, strides, padding)
    for _ in range(3):
        assert_matches_reference(path, [random_values(dtype, in_shape)])


@pytest.mark.parametrize("out_size,in_size,stride,taps,pad", [
    (8, 4, 2, 3, 0), (7, 3, 2, 3, 0), (9, 3, 3, 2, 0), (5, 3, 2, 5, 2), (2, 2, 1, 3, 0), (6, 3, 3, 1, 0),
    (4, 4, 1, 2, 1),
])
def test_tap_runs_and_column_order_match_a_plain_scatter(out_size, in_size, stride, taps, pad):
    from usmp.lower.ops.transpose_conv import column_order, tap_runs

    order = column_order(taps, stride)
    assert sorted(order) == list(range(taps))
    for o, (first, tap, count) in enumerate(tap_runs(out_size, in_size, stride, taps, pad)):
        reaching = [(i, o + pad - i * stride) for i in range(in_size) if 0 <= o + pad - i * stride < taps]
        assert count == len(reaching)
        if reaching:
            assert (first, tap) == reaching[0]
            start = order.index(tap)
            assert order[start:start + count] == [t for _, t in reaching]


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("activation", [0, 1, 2, 3])
@pytest.mark.parametrize("bias,per_channel", [(True, True), (False, True), (True, False)])
def test_transpose_conv_options(tmp_path, dtype, activation, bias, per_channel):
    path = transpose_conv_model(tmp_path, dtype, (1, 3, 3, 2), (6, 6), (3, 3), 3, (2, 2), SAME, bias=bias,
                                activation=activation, per_channel=per_channel)
    assert_matches_reference(path, [random_values(dtype, (1, 3, 3, 2))])


@pytest.mark.parametrize("in_q,out_q", [((0.05, -128), (0.1, 127)), ((0.02, 127), (0.3, -128)),
                                        ((0.004, 0), (0.5, 0))])
def test_transpose_conv_int8_zero_points(tmp_path, in_q, out_q):
    path = transpose_conv_model(tmp_path, "int8", (1, 3, 3, 4), (7, 7), (3, 3), 3, (2, 2), VALID, in_q=in_q,
                                out_q=out_q, per_channel=False)
    for _ in range(3):
        assert_matches_reference(path, [random_values("int8", (1, 3, 3, 4))])


def test_transpose_conv_16x8_with_int16_bias(tmp_path):
    """TFLite Micro widens an int16 bias to int64 for the 16x8 kernel; so does the compiler."""
    path = transpose_conv_model(tmp_path, "int16", (1, 3, 3, 2), (6, 6), (3, 3), 3, (2, 2), SAME, bias_dtype="int16")
    for _ in range(3):
        assert_matches_reference(path, [random_values("int16", (1, 3, 3, 2))])


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_transpose_conv_sanitizers_clean(tmp_path, dtype):
    path = transpose_conv_model(tmp_path, dtype, (2, 3, 2, 3), (7, 5), (3, 3), 2, (2, 2), VALID)
    assert_matches_reference(path, [random_values(dtype, (2, 3, 2, 3))], sanitize=True)


# -- BATCH_MATMUL -----------------------------------------------------------------------------

MATMUL_Q = {"int8": (([0.05], [-3]), ([0.02], [4]), ([0.3], [-2])),
            "int16": (([0.001], [0]), ([0.002], [0]), ([0.01], [0]))}


def batch_matmul_model(tmp_path, dtype, lhs_shape, rhs_shape, out_shape, adj_x=False, adj_y=False,
                       constant_rhs=False, constant_lhs=False, quant=None):
    rng = np.random.default_rng(len(lhs_shape) * 97 + sum(rhs_shape))
    q = quant or MATMUL_Q.get(dtype, ((None, None),) * 3)
    names = ("lhs", "rhs", "output")
    tensors = []
    for name, shape, (scales, zps), constant in zip(names, (lhs_shape, rhs_shape, out_shape), q,
                                                    (constant_lhs, constant_rhs, False)):
        data = random_values(dtype, shape) if constant else None
        if constant and dtype != "float32":
            info = np.iinfo(dtype)
            data = rng.integers(int(info.min), int(info.max) + 1, shape).astype(dtype)
        tensors.append(T(name, shape, dtype, data=data, scales=scales, zero_points=zps))
    inputs = [i for i, c in enumerate((constant_lhs, constant_rhs)) if not c]
    op = Op(OPS.BATCH_MATMUL, [0, 1], [2], options=options("BatchMatMul", AdjX=adj_x, AdjY=adj_y))
    path = tmp_path / f"batch_matmul_{dtype}.tflite"
    path.write_bytes(build([Sub(tensors, [op], inputs, [2])]))
    return path, [(lhs_shape, rhs_shape)[i] for i in inputs]


MATMUL_CASES = [  # lhs, rhs, out, adj_x, adj_y
    ((3, 4), (4, 5), (3, 5), False, False),
    ((2, 3, 4), (2, 4, 5), (2, 3, 5), False, False),
    ((2, 4, 3), (2, 4, 5), (2, 3, 5), True, False),
    ((2, 3, 4), (2, 5, 4), (2, 3, 5), False, True),
    ((2, 4, 3), (2, 5, 4), (2, 3, 5), True, True),
    ((2, 1, 3, 4), (1, 3, 4, 2), (2, 3, 3, 2), False, False),  # both operands broadcast
    ((3, 2, 6), (6, 3), (3, 2, 3), False, False),  # rank-2 rhs against batches
    ((1, 2, 2, 3, 4), (2, 1, 4, 3), (1, 2, 2, 3, 3), False, False),  # rank 5
    ((2, 2, 1, 5), (5, 1), (2, 2, 1, 1), False, False),
    ((4, 3), (2, 4, 5), (2, 3, 5), True, False),  # rank-2 lhs against batches
]


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("case", MATMUL_CASES, ids=lambda c: f"{c[0]}x{c[1]}_{int(c[3])}{int(c[4])}")
@pytest.mark.parametrize("constant", ["none", "rhs", "lhs"])
def test_batch_matmul(tmp_path, dtype, case, constant):
    lhs, rhs, out, adj_x, adj_y = case
    path, input_shapes = batch_matmul_model(tmp_path, dtype, lhs, rhs, out, adj_x, adj_y,
                                            constant_rhs=constant == "rhs", constant_lhs=constant == "lhs")
    for _ in range(3):
        assert_matches_reference(path, [random_values(dtype, s) for s in input_shapes])


def test_batch_matmul_int8_every_pair(tmp_path):
    """[256, 1] x [1, 256]: every pair of int8 values, rescaled with zero points on both sides."""
    path, _ = batch_matmul_model(tmp_path, "int8", (256, 1), (1, 256), (256, 256),
                                 quant=(([0.05], [-3]), ([0.02], [4]), ([0.06], [-2])))
    every = np.arange(-128, 128, dtype=np.int8)
    assert_matches_reference(path, [every.reshape(256, 1), every.reshape(1, 256)])


@pytest.mark.parametrize("zero_points", [(-128, 127, -128), (127, -128, 127), (0, -128, 5)])
def test_batch_matmul_int8_zero_points(tmp_path, zero_points):
    zl, zr, zo = zero_points
    path, shapes = batch_matmul_model(tmp_path, "int8", (2, 3, 7), (2, 7, 4), (2, 3, 4),
                                      quant=(([0.05], [zl]), ([0.02], [zr]), ([0.9], [zo])))
    for _ in range(3):
        assert_matches_reference(path, [random_values("int8", s) for s in shapes])


def test_batch_matmul_int16_extremes(tmp_path):
    """Long int16 sums of extreme values: past 32 bits before the 64-bit rescale."""
    path, _ = batch_matmul_model(tmp_path, "int16", (2, 3, 64), (2, 64, 2), (2, 3, 2),
                                 quant=(([0.001], [0]), ([0.002], [0]), ([40.0], [0])))
    lhs = np.full((2, 3, 64), -32768, np.int16)
    lhs[1] = 32767
    rhs = np.full((2, 64, 2), -32768, np.int16)
    rhs[:, :, 1] = 32767
    assert_matches_reference(path, [lhs, rhs])
    assert_matches_reference(path, [random_values("int16", (2, 3, 64)), random_values("int16", (2, 64, 2))])


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_batch_matmul_sanitizers_clean(tmp_path, dtype):
    path, shapes = batch_matmul_model(tmp_path, dtype, (2, 1, 3, 4), (1, 3, 4, 2), (2, 3, 3, 2), adj_x=False,
                                      adj_y=False, constant_rhs=True)
    assert_matches_reference(path, [random_values(dtype, s) for s in shapes], sanitize=True)


def test_batch_matmul_int16_zero_point_is_a_one_line_error(tmp_path):
    path, _ = batch_matmul_model(tmp_path, "int16", (3, 4), (4, 5), (3, 5),
                                 quant=(([0.001], [1]), ([0.002], [0]), ([0.01], [0])))
    with pytest.raises(ModelError, match=r"operator 0 \(BATCH_MATMUL\): int16 tensor 'lhs' has zero point 1"):
        compile_model(path)


def test_batch_matmul_depth_mismatch_is_a_one_line_error(tmp_path):
    path, _ = batch_matmul_model(tmp_path, "float32", (3, 4), (5, 5), (3, 5))
    with pytest.raises(ModelError, match=r"operator 0 \(BATCH_MATMUL\): lhs \[3, 4\] .* disagree on the summed"):
        compile_model(path)


# -- Cortex-M0 safety ----------------------------------------------------------------------

@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source", ["resize.c", "transpose_conv.c", "batch_matmul.c"])
def test_integer_kernels_use_no_float_and_no_64bit_division(tmp_path, source):
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror",
                    "-ffunction-sections", f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source),
                    "-o", str(obj)], check=True)
    graph = call_graph(obj)
    kernels = [f for f in graph if f.startswith("usmp_") and f.endswith(("_s8", "_s16"))]
    assert kernels, f"no integer kernels found in {source}"
    for kernel in kernels:
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"


@pytest.mark.parametrize("in_q,out_q,message", [
    ((0.0005, 2), None, r"int16 tensor 'input' has zero point 2; 16x8 needs 0"),
    (None, (0.002, -1), r"int16 tensor 'output' has zero point -1; 16x8 needs 0"),
])
def test_transpose_conv_int16_zero_point_is_a_one_line_error(tmp_path, in_q, out_q, message):
    path = transpose_conv_model(tmp_path, "int16", (1, 2, 2, 1), (4, 4), (3, 3), 1, (2, 2), SAME, in_q=in_q,
                                out_q=out_q)
    with pytest.raises(ModelError, match=r"operator 0 \(TRANSPOSE_CONV\): " + message) as info:
        compile_model(path)
    assert "\n" not in str(info.value)


def test_transpose_conv_channel_mismatch_is_a_one_line_error(tmp_path):
    sub = Sub([T("output_shape", (4,), "int32", data=np.array([1, 4, 4, 5], np.int32)),
               T("filter", (2, 3, 3, 3), "float32", data=np.zeros((2, 3, 3, 3), np.float32)),
               T("input", (1, 2, 2, 3), "float32"), T("output", (1, 4, 4, 5), "float32")],
              [Op(OPS.TRANSPOSE_CONV, [0, 1, 2], [3], options=options("TransposeConv", Padding=SAME, StrideW=2,
                                                                       StrideH=2))], [2], [3])
    path = tmp_path / "mismatch.tflite"
    path.write_bytes(build([sub]))
    with pytest.raises(ModelError, match=r"operator 0 \(TRANSPOSE_CONV\): input \[1, 2, 2, 3\], filter "
                                         r"\[2, 3, 3, 3\] and output \[1, 4, 4, 5\] do not agree"):
        compile_model(path)


def test_resize_bilinear_int8_past_the_edge(tmp_path):
    """2x1 -> 65x55 without flags: TFLite's rounded 10-bit scales put output row 64 and column 54
    past the input (TFLite reads outside it there); here they repeat the edge, the rest is TFLite's."""
    scale_h, scale_w = (1024 * 2 + 65 // 2) // 65, (1024 * 1 + 55 // 2) // 55
    assert 64 * scale_h >= 1024 * 2 and 54 * scale_w >= 1024 and 63 * scale_h < 1024 * 2 and 53 * scale_w < 1024
    path = resize_model(tmp_path, "RESIZE_BILINEAR", "int8", (1, 2, 1, 4), (65, 55))
    values = random_values("int8", (1, 2, 1, 4))
    got = run_host(compile_model(path), [values], sanitize=True)[0]
    expected = reference_outputs(path, [values])[0]
    assert np.array_equal(got[0, :64, :54], expected[0, :64, :54])
    assert np.array_equal(got[0, 64], np.broadcast_to(values[0, 1, 0], (55, 4)))
    assert np.array_equal(got[0, :, 54], got[0, :, 53])
