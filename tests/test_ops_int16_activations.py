"""int16 ("16x8") RELU, RELU6, LEAKY_RELU, MAX_POOL_2D, AVERAGE_POOL_2D, LOGISTIC, TANH, SOFTMAX (and int8 -> int16
SOFTMAX) against TFLite Micro: every int16 input value for the elementwise ones, for several quantizations
(including the converter's); pools over edges, padding and fused activations; rejections;
no float and no 64-bit division in the int16 kernels.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from reference import TEST_MODELS
from test_ops_elementwise import (
    ARM_GCC, ARM_OBJDUMP, OPS, assert_matches_reference, call_graph, is_float_routine, reachable, tensor, unary_model,
)
from tflite_builder import Op, Sub, build, options
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.frontend.tflite_reader import read_tflite
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

EVERY_INT16 = np.arange(-32768, 32768, dtype=np.int16).reshape(1, -1)


def every_int16_model(tmp_path, opcode, in_q, out_q, op_options=None):
    return unary_model(tmp_path, opcode, in_q, out_q, "int16", "int16", shape=EVERY_INT16.shape,
                       op_options=op_options)


@pytest.mark.parametrize("in_q,out_q", [((1e-3, 0), (1e-3, 0)), ((9.155e-05, 0), (4.6e-05, 0)), ((0.02, 0), (0.05, 0)),
                                        ((1.0, 0), (1e-6, 0)), ((0.0348277, 0), (0.030813294, 0))])
def test_relu_every_int16_input(tmp_path, in_q, out_q):
    assert_matches_reference(every_int16_model(tmp_path, "RELU", in_q, out_q), [EVERY_INT16])


# RELU6 ignores the output quantization; six lands inside, on and beyond the int16 range.
@pytest.mark.parametrize("in_q", [(1e-3, 0), (2e-4, 0), (1.8310824e-4, 0), (1e-4, 0), (0.05, -300), (1e-5, 100)])
def test_relu6_every_int16_input(tmp_path, in_q):
    assert_matches_reference(every_int16_model(tmp_path, "RELU6", in_q, (0.5, 3)), [EVERY_INT16])


@pytest.mark.parametrize("in_q,out_q,alpha", [
    ((1e-3, 0), (1e-3, 0), 0.2),
    ((3.0517578e-05, 0), (2.4e-05, 0), 0.01),  # a converter-like scale pair
    ((0.05, 0), (0.02, 0), -0.3),
    ((1e-4, 0), (3e-4, 0), 1.5),
    ((0.01, 7), (0.013, -40), 0.45852715),  # TFLite Micro takes any zero points here
    ((1.0, 0), (1e-5, 0), 0.5),  # saturates both ways
])
def test_leaky_relu_every_int16_input(tmp_path, in_q, out_q, alpha):
    path = every_int16_model(tmp_path, "LEAKY_RELU", in_q, out_q, options("LeakyRelu", Alpha=alpha))
    assert_matches_reference(path, [EVERY_INT16])


Q15 = (1 / 32768, 0)
# Input scales: the converter's, powers of two TFLite Micro takes a shortcut on (2^-12 for both,
# 2^-11 for TANH; the others fall back to the multiplier search), one just off a power of two
# (within CheckedLog2's 1e-3), wide and narrow ones.
SIGMOID_INPUT_SCALES = [9.1555194e-05, 2.0 ** -12, 2.0 ** -11, 2.0 ** -13, 2.0 ** -10, 2.0 ** -12 * 1.0004,
                        2.0 ** -11 * 0.9996, 1e-3, 0.02, 0.3, 1e-6, 3.0517578e-05, 2.5e-4]


@pytest.mark.parametrize("opcode", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("scale", SIGMOID_INPUT_SCALES)
def test_sigmoid_every_int16_input(tmp_path, opcode, scale):
    assert_matches_reference(every_int16_model(tmp_path, opcode, (scale, 0), Q15), [EVERY_INT16])


SOFTMAX_QUANTIZATIONS = [  # (input scale, beta)
    (9.154749e-05, 1.0),  # the converter's
    (1e-3, 1.0), (1.0 / 4096, 2.0), (3e-5, 0.5), (0.01, 1.0), (0.05, 0.3), (2e-6, 1.0), (1.0, 1.0),
]


@pytest.mark.parametrize("scale,beta", SOFTMAX_QUANTIZATIONS)
def test_softmax_every_int16_difference(tmp_path, scale, beta):
    """Rows [32767, v] for every int16 v: every difference from the maximum, and the sums they make."""
    rows = np.stack([np.full(65536, 32767, np.int16), EVERY_INT16[0]], axis=1)
    path = unary_model(tmp_path, "SOFTMAX", (scale, 0), Q15, "int16", "int16", shape=rows.shape,
                       op_options=options("Softmax", Beta=beta))
    assert_matches_reference(path, [rows])
    assert_matches_reference(path, [rows[:, ::-1].copy()])


@pytest.mark.parametrize("depth", [1, 3, 40, 1000])
@pytest.mark.parametrize("scale,beta", [(9.154749e-05, 1.0), (1e-3, 0.7), (0.02, 1.0)])
def test_softmax_int16_rows(tmp_path, depth, scale, beta):
    rng = np.random.default_rng(depth)
    shape = (6, depth)
    path = unary_model(tmp_path, "SOFTMAX", (scale, 0), (1 / 32768 * 1.0005, 0), "int16", "int16", shape=shape,
                       op_options=options("Softmax", Beta=beta))
    full = rng.integers(-32768, 32768, shape).astype(np.int16)
    near = (rng.integers(-300, 300, shape) + rng.integers(-32000, 32000, (6, 1))).astype(np.int16)
    equal = np.repeat(rng.integers(-32768, 32768, (6, 1)), depth, axis=1).astype(np.int16)
    for rows in (full, near, equal):
        assert_matches_reference(path, [rows])


def test_softmax_int16_longest_row(tmp_path):
    """65536 equal values: the sum of exps just fits int32 (its top bit)."""
    path = unary_model(tmp_path, "SOFTMAX", (1e-3, 0), Q15, "int16", "int16", shape=(1, 65536),
                       op_options=options("Softmax", Beta=1.0))
    assert_matches_reference(path, [np.zeros((1, 65536), np.int16)])
    assert_matches_reference(path, [EVERY_INT16])


@pytest.mark.parametrize("in_q,beta", [((0.1, 5), 1.0), ((0.0235294, -1), 0.5), ((0.5, -128), 3.0)])
def test_softmax_int8_to_int16(tmp_path, in_q, beta):
    """TFLite Micro's int8 arithmetic with int16 outputs (scale 1/65536, zero point -32768):
    rows of every pair of int8 values, random rows and equal rows."""
    every_pair = np.stack(np.meshgrid(np.arange(-128, 128), np.arange(-128, 128)), -1).reshape(-1, 2)
    rng = np.random.default_rng(9)
    for rows in (every_pair, rng.integers(-128, 128, (64, 50)), np.full((3, 300), 7)):
        sub = Sub([tensor("input", rows.shape, "int8", in_q),
                   tensor("output", rows.shape, "int16", (1 / 65536, -32768))],
                  [Op(OPS.SOFTMAX, [0], [1], options=options("Softmax", Beta=beta))], [0], [1])
        path = tmp_path / "softmax.tflite"
        path.write_bytes(build([sub]))
        assert_matches_reference(path, [rows.astype(np.int8)])


POOL_CASES = [  # (filter h, w, stride h, w, padding 0 SAME / 1 VALID, fused activation, quantization)
    (2, 2, 2, 2, 1, 0, (1e-4, 0)),
    (3, 3, 2, 2, 0, 0, (9.155e-05, 0)),
    (3, 2, 1, 3, 0, 1, (0.01, 0)),  # RELU
    (5, 4, 2, 1, 0, 3, (3e-4, -100)),  # RELU6, a zero point
    (4, 4, 3, 3, 1, 2, (5e-5, 0)),  # RELU_N1_TO_1
    (9, 11, 1, 1, 0, 0, (1.0, 0)),  # the whole image, at every position
    (1, 1, 2, 2, 0, 0, (2e-3, 7)),
]


def pool_model(tmp_path, opcode, shape, case):
    filter_h, filter_w, stride_h, stride_w, padding, activation, q = case
    out_h = (shape[1] + stride_h - 1) // stride_h if padding == 0 else (shape[1] - filter_h) // stride_h + 1
    out_w = (shape[2] + stride_w - 1) // stride_w if padding == 0 else (shape[2] - filter_w) // stride_w + 1
    sub = Sub([tensor("input", shape, "int16", q), tensor("output", (shape[0], out_h, out_w, shape[3]), "int16", q)],
              [Op(getattr(OPS, opcode), [0], [1], options=options(
                  "Pool2D", Padding=padding, StrideW=stride_w, StrideH=stride_h, FilterWidth=filter_w,
                  FilterHeight=filter_h, FusedActivationFunction=activation))], [0], [1])
    path = tmp_path / f"{opcode.lower()}.tflite"
    path.write_bytes(build([sub]))
    return path


@pytest.mark.parametrize("opcode", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("case", POOL_CASES)
def test_int16_pools(tmp_path, opcode, case):
    """Random full-range images, and images of only the extremes (the largest sums, ties at halves)."""
    shape = (2, 9, 11, 3)
    path = pool_model(tmp_path, opcode, shape, case)
    rng = np.random.default_rng(3)
    images = [rng.integers(-32768, 32768, shape).astype(np.int16),
              rng.choice(np.array([-32768, 32767, -1, 1, 0], np.int16), shape),
              np.full(shape, -32768, np.int16), np.full(shape, 32767, np.int16)]
    for image in images:
        assert_matches_reference(path, [image])


def converted_quantization(model):
    """(input (scale, zero point), output (scale, zero point), options) of a converted one-operator model."""
    graph = read_tflite(TEST_MODELS / f"{model}.tflite")
    op = graph.operators[0]

    def q(index):
        quant = graph.tensors[index].quant
        return float(quant.scales[0]), int(quant.zero_points[0])

    return q(op.inputs[0]), q(op.outputs[0]), op.options


@pytest.mark.parametrize("model,opcode", [("relu_int16", "RELU"), ("relu6_int16", "RELU6"),
                                          ("leaky_relu_int16", "LEAKY_RELU"), ("logistic_int16", "LOGISTIC"),
                                          ("tanh_int16", "TANH")])
def test_converter_scales_every_int16_input(tmp_path, model, opcode):
    """Every int16 input through the operator with the scales and options the 16x8 converter chose."""
    in_q, out_q, op_options = converted_quantization(model)
    written = options("LeakyRelu", Alpha=op_options["alpha"]) if opcode == "LEAKY_RELU" else None
    assert_matches_reference(every_int16_model(tmp_path, opcode, in_q, out_q, written), [EVERY_INT16])


@pytest.mark.parametrize("opcode,in_q,out_q,op_options", [
    ("LEAKY_RELU", (1.0, -32768), (1e-6, 32767), options("LeakyRelu", Alpha=-3.0)),  # shifts that wrap
    ("LOGISTIC", (2.6, 0), Q15, None),  # the largest multiplier
    ("TANH", (4e-13, 0), Q15, None),  # the longest shift
    ("SOFTMAX", (50.0, 0), Q15, options("Softmax", Beta=1e3)),  # the largest difference scaling
])
def test_int16_extremes_are_sanitizer_clean(tmp_path, opcode, in_q, out_q, op_options):
    """The saturating and wrapping corners, under ASan/UBSan, and still bit-exact."""
    inputs = [EVERY_INT16.reshape(256, 256) if opcode == "SOFTMAX" else EVERY_INT16]  # SOFTMAX: 256 rows
    path = unary_model(tmp_path, opcode, in_q, out_q, "int16", "int16", shape=inputs[0].shape, op_options=op_options)
    run_host(compile_model(path), inputs, sanitize=True)
    assert_matches_reference(path, inputs)


@pytest.mark.parametrize("opcode,in_q,out_q,message", [
    ("RELU", (1e-3, 0), (1e-3, 4), r"int16 tensor 'output' has zero point 4; TFLite Micro requires 0"),
    ("LOGISTIC", (1e-3, 3), Q15, r"int16 tensor 'input' has zero point 3; TFLite Micro requires 0"),
    ("TANH", (1e-3, 0), (1 / 32768, 5), r"int16 tensor 'output' has zero point 5; TFLite Micro requires 0"),
    ("LOGISTIC", (1e-3, 0), (1 / 16384, 0), r"int16 output 'output' must have scale 2\^-15, not 6.10352e-05"),
    ("TANH", (1e-3, 0), (3.1e-5, 0), r"must have scale 2\^-15"),
    ("TANH", (4.0, 0), Q15, r"int16 input scale 4 is outside the range TFLite Micro's int16 TANH supports"),
    ("SOFTMAX", (1e-3, 2), Q15, r"int16 tensor 'input' has zero point 2; TFLite Micro requires 0"),
    ("SOFTMAX", (1e-3, 0), (1 / 32768, -1), r"int16 tensor 'output' has zero point -1; TFLite Micro requires 0"),
    ("SOFTMAX", (1e-3, 0), (1 / 32768 * 1.002, 0), r"int16 output 'output' must have scale 2\^-15 \(within 0.1%\)"),
])
def test_unsupported_cases_are_one_line_errors(tmp_path, opcode, in_q, out_q, message):
    path = unary_model(tmp_path, opcode, in_q, out_q, "int16", "int16", shape=(1, 4))
    with pytest.raises(ModelError, match=message) as caught:
        compile_model(path)
    assert "\n" not in str(caught.value)


def test_softmax_int16_rows_longer_than_the_sum_holds(tmp_path):
    path = unary_model(tmp_path, "SOFTMAX", (1e-3, 0), Q15, "int16", "int16", shape=(1, 65537))
    with pytest.raises(ModelError, match=r"rows of 65537 values are longer than the 65536 the int16 kernel sums"):
        compile_model(path)


@pytest.mark.parametrize("out_q,message", [
    ((1 / 65536, 0), r"int16 output of an int8 input must have scale 1/65536 \(within 0.1%\) and zero point -32768, "
                     r"not 1.52588e-05 and 0"),
    ((1 / 32768, -32768), r"must have scale 1/65536 \(within 0.1%\) and zero point -32768, not 3.05176e-05"),
])
def test_softmax_int8_to_int16_output_quantization(tmp_path, out_q, message):
    sub = Sub([tensor("input", (2, 8), "int8", (0.1, 0)), tensor("output", (2, 8), "int16", out_q)],
              [Op(OPS.SOFTMAX, [0], [1], options=options("Softmax", Beta=1.0))], [0], [1])
    path = tmp_path / "softmax.tflite"
    path.write_bytes(build([sub]))
    with pytest.raises(ModelError, match=message):
        compile_model(path)


def test_int16_pool_needs_matching_quantization(tmp_path):
    sub = Sub([tensor("input", (1, 4, 4, 2), "int16", (1e-3, 0)), tensor("output", (1, 2, 2, 2), "int16", (2e-3, 0))],
              [Op(OPS.MAX_POOL_2D, [0], [1], options=options("Pool2D", Padding=1, StrideW=2, StrideH=2,
                                                              FilterWidth=2, FilterHeight=2))], [0], [1])
    path = tmp_path / "pool.tflite"
    path.write_bytes(build([sub]))
    with pytest.raises(ModelError, match=r"int16 pooling needs the same scale and zero point on input and output"):
        compile_model(path)


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source,kernels", [
    ("activations.c", ["usmp_relu_s16", "usmp_relu6_s16", "usmp_leaky_relu_s16", "usmp_logistic_s16", "usmp_tanh_s16"]),
    ("softmax.c", ["usmp_softmax_s16", "usmp_softmax_s8_s16"]),
    ("pooling.c", ["usmp_avg_pool_s16", "usmp_max_pool_s16"]),
])
def test_int16_kernels_use_no_float_and_no_64bit_division(tmp_path, source, kernels):
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source), "-o", str(obj)], check=True)
    graph = call_graph(obj)
    for kernel in kernels:
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"
