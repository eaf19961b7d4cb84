"""16x8 FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D (int16 activations, int8 weights) against TFLite Micro.

test_bit_exact.py runs the converter's models (tests/models/*_int16.tflite,
made by make_int16_conv_models.py) on random inputs; these hand-built models
aim at what random inputs miss: every int16 input value through the rescale,
both accumulators (int64 bias: 64-bit sums; int32 bias: 32-bit sums that wrap),
sums beyond int32, biases near the int64 limits, saturation, zero points
(honoured by FULLY_CONNECTED only) and the rejections. Also: a CONV_2D or
DEPTHWISE_CONV_2D without its options table is refused (TFLite Micro would run
it with stride 0, dilation 0 and depth multiplier 0).
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tflite

from reference import TEST_MODELS, outputs_match, reference_outputs
from test_cortex_m import MISSING, run_on_smallest_board
from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, call_graph, is_float_routine, reachable
from tflite_builder import Op, Sub, T, build, options
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.lower.ops import fully_connected
from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops.common import per_channel_requantization
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
EVERY_INT16 = np.arange(-32768, 32768, dtype=np.int16)
INT64_MAX, INT64_MIN = 2**63 - 1, -2**63
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3
INT32, INT64 = 2, 4  # tflite TensorType, for quantized_bias_type


def check(path, inputs, sanitize=False, cortex_m=False):
    """The compiled model's outputs equal TFLite Micro's (on the host, or on the emulated Cortex-M0)."""
    expected = reference_outputs(path, inputs)
    compiled = compile_model(path)
    got = run_on_smallest_board(compiled, inputs).outputs if cortex_m else run_host(compiled, inputs, sanitize=sanitize)
    for e, g in zip(expected, got):
        if not outputs_match(e, g):
            wrong = np.flatnonzero(e.ravel() != g.ravel())
            pytest.fail(f"{path.name}: {len(wrong)} of {e.size} differ, first at {wrong[:5]}: "
                        f"expected {e.ravel()[wrong[:5]]}, got {g.ravel()[wrong[:5]]}")
    return expected


def _bias_tensor(bias, bias_dtype, channels, in_scale, w_scales):
    """Scaled by input scale x filter scale, as TFLite Micro checks for a per-tensor filter."""
    if bias is None:
        return None
    scales = [in_scale * s for s in w_scales] if len(w_scales) == channels else [in_scale * w_scales[0]]
    return T("bias", (channels,), bias_dtype, data=np.array(bias, dtype=bias_dtype), scales=scales,
             zero_points=[0] * len(scales))


def _write(tmp_path, name, tensors, op):
    out = len(tensors) - 1
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(build([Sub(tensors, [op], [0], [out])]))
    return path


def fc_model(tmp_path, weights, bias=None, bias_dtype="int64", w_scales=(0.01,), in_q=(0.02, 0), out_q=(0.05, 0),
             batches=1, activation=ACT_NONE, quantized_bias_type=None, with_options=True, name="fc"):
    weights = np.asarray(weights, np.int8)
    out_features, in_features = weights.shape
    tensors = [T("input", (batches, in_features), "int16", scales=[in_q[0]], zero_points=[in_q[1]]),
               T("weights", weights.shape, "int8", data=weights, scales=list(w_scales),
                 zero_points=[0] * len(w_scales))]
    bias_t = _bias_tensor(bias, bias_dtype, out_features, in_q[0], w_scales)
    if bias_t is not None:
        tensors.append(bias_t)
    tensors.append(T("output", (batches, out_features), "int16", scales=[out_q[0]], zero_points=[out_q[1]]))
    fields = dict(FusedActivationFunction=activation)
    if quantized_bias_type is not None:
        fields["QuantizedBiasType"] = quantized_bias_type
    op = Op(OPS.FULLY_CONNECTED, [0, 1, 2 if bias_t is not None else -1], [len(tensors) - 1],
            options=options("FullyConnected", **fields) if with_options else None)
    return _write(tmp_path, name, tensors, op)


def conv_model(tmp_path, in_shape, weights, bias=None, bias_dtype="int64", w_scales=(0.01,), in_q=(0.02, 0),
               out_q=(0.05, 0), stride=(1, 1), dilation=(1, 1), padding=0, activation=ACT_NONE,
               depthwise=False, quantized_bias_type=None, with_options=True, name="conv"):
    """CONV_2D (OHWI weights) or DEPTHWISE_CONV_2D ([1, H, W, C*M] weights), int16 in and out."""
    weights = np.asarray(weights, np.int8)
    channels = weights.shape[3] if depthwise else weights.shape[0]
    filter_h, filter_w = weights.shape[1:3]

    def out_size(size, taps, s, d):
        effective = (taps - 1) * d + 1
        return (size + s - 1) // s if padding == 0 else (size + s - effective) // s

    out_shape = (in_shape[0], out_size(in_shape[1], filter_h, stride[0], dilation[0]),
                 out_size(in_shape[2], filter_w, stride[1], dilation[1]), channels)
    tensors = [T("input", in_shape, "int16", scales=[in_q[0]], zero_points=[in_q[1]]),
               T("filter", weights.shape, "int8", data=weights, scales=list(w_scales),
                 zero_points=[0] * len(w_scales), axis=3 if depthwise else 0)]
    bias_t = _bias_tensor(bias, bias_dtype, channels, in_q[0], w_scales)
    if bias_t is not None:
        tensors.append(bias_t)
    tensors.append(T("output", out_shape, "int16", scales=[out_q[0]], zero_points=[out_q[1]]))
    fields = dict(Padding=padding, StrideH=stride[0], StrideW=stride[1], DilationHFactor=dilation[0],
                  DilationWFactor=dilation[1], FusedActivationFunction=activation)
    if depthwise:
        fields["DepthMultiplier"] = channels // in_shape[3]
    elif quantized_bias_type is not None:
        fields["QuantizedBiasType"] = quantized_bias_type
    opts = options("DepthwiseConv2D" if depthwise else "Conv2D", **fields) if with_options else None
    opcode = OPS.DEPTHWISE_CONV_2D if depthwise else OPS.CONV_2D
    op = Op(opcode, [0, 1, 2] if bias_t is not None else [0, 1], [len(tensors) - 1], options=opts)
    return _write(tmp_path, name, tensors, op)


def rejected(path) -> str:
    with pytest.raises(ModelError) as error:
        compile_model(path)
    message = str(error.value)
    assert "\n" not in message and message.startswith("operator 0 (")
    return message


# -- FULLY_CONNECTED ---------------------------------------------------------------------------------------------

# (input q, filter scales, output q): ratios from 2^-24 to 2^13, per tensor and per channel, with zero points
FC_QUANTIZATIONS = [
    ((0.02, 0), (0.01,), (0.05, 0)),
    ((0.5, 0), (0.9, 0.0003, 0.02, 0.07), (0.001, 0)),
    ((1e-4, 0), (1e-3,), (3.0, 0)),
    ((2.0, 0), (1.0,), (0.0003, 0)),
    ((0.013, 1234), (0.011, 0.017, 0.005, 0.2), (0.04, -321)),
    ((0.0078125, -32768), (0.25,), (0.125, 32767)),
]


@pytest.mark.parametrize("bias_dtype", ["int64", "int32"])
@pytest.mark.parametrize("in_q,w_scales,out_q", FC_QUANTIZATIONS)
def test_fc_every_int16_input(tmp_path, in_q, w_scales, out_q, bias_dtype):
    """Every int16 value times weights 1, -1, 127, -128: the rescale of 65536 sums per weight, both accumulators."""
    weights = np.array([[1], [-1], [127], [-128]], np.int8)
    bias = [0, 12345, -700000, 3] if bias_dtype == "int64" else [0, -12345, 700000, -3]
    path = fc_model(tmp_path, weights, bias, bias_dtype, w_scales, in_q, out_q, batches=65536)
    check(path, [EVERY_INT16.reshape(65536, 1)])


@pytest.mark.parametrize("quantized_bias_type", [None, INT32, INT64])
def test_fc_without_bias_picks_the_accumulator_from_the_options(tmp_path, quantized_bias_type):
    """No bias: quantized_bias_type INT32 means 32-bit sums and the int8 rescale, anything else 64-bit."""
    weights = np.array([[127] * 600, [-128] * 600], np.int8)
    x = np.full((3, 600), 32767, np.int16)
    x[1] = -32768
    x[2, ::2] = -32768
    path = fc_model(tmp_path, weights, None, w_scales=(1e-3,), in_q=(1e-3, 0), out_q=(1e-2, 0), batches=3,
                    quantized_bias_type=quantized_bias_type)
    check(path, [x])


@pytest.mark.parametrize("bias_dtype", ["int64", "int32"])
def test_fc_sums_beyond_int32(tmp_path, bias_dtype):
    """1024 products of 2^22 reach 2^32: exact in 64 bits, wrapped around with an int32 bias, as in TFLite Micro."""
    weights = np.stack([np.full(1024, -128), np.full(1024, 127), np.tile([127, -128], 512)]).astype(np.int8)
    x = np.stack([np.full(1024, -32768), np.full(1024, 32767), np.tile([-32768, 32767], 512),
                  np.full(1024, 32767)]).astype(np.int16)
    path = fc_model(tmp_path, weights, [5, -5, 0], bias_dtype, (2.0**-10,), (2.0**-12, 0), (1.0, 0), batches=4)
    check(path, [x], sanitize=True)


def test_fc_bias_near_int64_limits(tmp_path):
    """The 64-bit sum wraps around as TFLite Micro's does; no undefined behaviour on the way (UBSan)."""
    bias = [INT64_MAX, INT64_MIN, INT64_MAX - 2**40, INT64_MIN + 2**40, 2**47 - 1, -2**47]
    weights = np.tile(np.array([[127, -128]], np.int8), (6, 1))
    x = np.array([[32767, -32768], [-32768, 32767], [0, 0]], np.int16)
    for out_zp in (0, 1000):
        path = fc_model(tmp_path, weights, bias, "int64", (0.01,), (0.02, 0), (0.05, out_zp), batches=3,
                        name=f"fc_zp{out_zp}")
        check(path, [x], sanitize=True)


@pytest.mark.parametrize("activation", [ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6])
@pytest.mark.parametrize("out_q", [(1e-4, 0), (6.0 / 32767, 0), (0.01, 500)])
def test_fc_saturation_and_fused_activations(tmp_path, activation, out_q):
    weights = np.array([[127], [-128]], np.int8)
    path = fc_model(tmp_path, weights, [2**40, -2**20], "int64", (0.01,), (0.03, 0), out_q, batches=65536,
                    activation=activation)
    check(path, [EVERY_INT16.reshape(65536, 1)])


def test_fc_without_options_table(tmp_path):
    """FULLY_CONNECTED's all-zero defaults are its schema defaults: no activation, int64 sums."""
    path = fc_model(tmp_path, np.array([[3, -7, 127]], np.int8), [99], with_options=False)
    check(path, [np.array([[32767, -32768, 1234]], np.int16)])


def _rescale_int8(x: np.ndarray, multiplier: int, shift: int) -> np.ndarray:
    """TFLite's int8 rescale, to find sums at a rounding edge (TFLite Micro is the judge of the result)."""
    x = x << max(shift, 0)
    ab = x * multiplier
    nudged = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    high = np.where(nudged < 0, -((-nudged) >> 31), nudged >> 31)
    right = max(-shift, 0)
    mask = (1 << right) - 1
    return (high >> right) + ((high & mask) > (mask >> 1) + (high < 0))


def _rescale_wide(x: np.ndarray, multiplier: int, shift: int) -> np.ndarray:
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    return (x * reduced + (1 << (14 - shift))) >> (15 - shift)


def _float_product_requantization(input_scale, filter_scales, output_scale):
    """float(input_scale * filter_scale) / output_scale: what TFLite's GetQuantizedConvolutionMultipler reads as."""
    product = np.float32(input_scale) * np.float32(filter_scales[0])
    m, s = quantize_multiplier(float(np.float64(product) / np.float64(np.float32(output_scale))))
    return np.array([m], np.int32), np.array([s], np.int32)


def _edge_case(rescale, reach: int, limit: int):
    """Scales whose per-tensor multiplier differs between float and double products, and sums it changes.

    The scales map sums in [-reach, reach) onto about [-limit, limit], so that no output saturates.
    """
    rng = np.random.default_rng(11)
    accs = np.arange(-reach, reach, dtype=np.int64)
    for _ in range(5000):
        in_scale, w_scale = (float(np.float32(v)) for v in rng.uniform(1e-3, 1e-1, 2))
        out_scale = float(np.float32(in_scale * w_scale * reach / limit * rng.uniform(1.0, 1.2)))
        (m_new,), (s_new,) = _float_product_requantization(in_scale, np.array([w_scale], np.float32), out_scale)
        (m_old,), (s_old,) = per_channel_requantization(in_scale, np.array([w_scale], np.float32), out_scale)
        if (m_new, s_new) == (m_old, s_old):
            continue
        differ = accs[rescale(accs, int(m_new), int(s_new)) != rescale(accs, int(m_old), int(s_old))]
        if len(differ):
            return in_scale, w_scale, out_scale, [int(a) for a in differ[:64]]
    pytest.fail("no edge case found")


@pytest.mark.parametrize("dtype", ["int16", "int8"])
def test_fc_per_tensor_rescale_uses_the_double_product_of_scales(tmp_path, monkeypatch, dtype):
    """TFLite Micro rescales a per-tensor FULLY_CONNECTED by in_scale * filter_scale / out_scale in double.

    (Its GetQuantizedConvolutionMultipler reads as if the product were rounded to float first.)
    Sums where the two differ are put in the bias (input 0), so that each output is one
    rescaled sum; the float product is shown to fail them.
    """
    if dtype == "int16":
        in_scale, w_scale, out_scale, accs = _edge_case(_rescale_wide, 300000, 32000)
        path = fc_model(tmp_path, np.ones((len(accs), 1), np.int8), accs, "int64", (w_scale,), (in_scale, 0),
                        (out_scale, 0))
    else:
        in_scale, w_scale, out_scale, accs = _edge_case(_rescale_int8, 30000, 120)
        weights = np.ones((len(accs), 1), np.int8)
        tensors = [T("input", (1, 1), "int8", scales=[in_scale], zero_points=[0]),
                   T("weights", weights.shape, "int8", data=weights, scales=[w_scale], zero_points=[0]),
                   T("bias", (len(accs),), "int32", data=np.array(accs, np.int32), scales=[in_scale * w_scale]),
                   T("output", (1, len(accs)), "int8", scales=[out_scale], zero_points=[0])]
        path = _write(tmp_path, "fc_int8", tensors, Op(OPS.FULLY_CONNECTED, [0, 1, 2], [3]))
    inputs = [np.zeros((1, 1), dtype)]
    expected = check(path, inputs)
    monkeypatch.setattr(fully_connected, "per_channel_requantization", _float_product_requantization)
    assert not outputs_match(expected[0], run_host(compile_model(path), inputs)[0])


def test_fc_rejections(tmp_path):
    weights = np.array([[1, 2]], np.int8)
    assert "int64 or int32 bias" in rejected(fc_model(tmp_path, weights, [1], "int16", name="a"))
    assert "beyond the 16-bit kernels" in rejected(fc_model(tmp_path, weights, [1], w_scales=(1.0,),
                                                            in_q=(1.0, 0), out_q=(1e-5, 0), name="b"))


# -- CONV_2D -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bias_dtype", ["int64", "int32"])
def test_conv_every_int16_input(tmp_path, bias_dtype):
    """A 3x3 SAME convolution over every int16 value (borders included), per-channel filter."""
    rng = np.random.default_rng(1)
    weights = rng.integers(-128, 128, (3, 3, 3, 1)).astype(np.int8)
    weights[0] = 127
    weights[1] = -128
    x = rng.permutation(EVERY_INT16).reshape(1, 256, 256, 1)
    path = conv_model(tmp_path, (1, 256, 256, 1), weights, [17, -2**30, 2**20], bias_dtype,
                      (0.002, 0.0005, 0.03), (0.01, 0), (0.2, 0))
    check(path, [x])


@pytest.mark.parametrize("stride,dilation,padding,activation", [
    ((2, 2), (1, 1), 0, ACT_RELU), ((1, 2), (2, 1), 0, ACT_RELU6), ((2, 1), (1, 1), 1, ACT_RELU_N1_TO_1),
    ((1, 1), (3, 2), 1, ACT_NONE),
])
def test_conv_geometry_and_activations(tmp_path, stride, dilation, padding, activation):
    rng = np.random.default_rng(2)
    weights = rng.integers(-128, 128, (4, 3, 2, 2)).astype(np.int8)
    path = conv_model(tmp_path, (2, 9, 8, 2), weights, [1, 2**33, -2**33, 0], "int64", (0.01, 0.02, 0.004, 0.05),
                      (0.001, 0), (0.002, 0), stride, dilation, padding, activation)
    for seed in range(3):
        check(path, [np.random.default_rng(seed).integers(-32768, 32768, (2, 9, 8, 2)).astype(np.int16)])


@pytest.mark.parametrize("bias_dtype,quantized_bias_type", [("int64", None), ("int32", None), (None, INT32),
                                                             (None, INT64), (None, None)])
def test_conv_sums_beyond_int32(tmp_path, bias_dtype, quantized_bias_type):
    """3x3 taps x 128 channels of 2^22 reach 2^32.2: 64-bit sums with an int64 bias, 32-bit sums with int32."""
    weights = np.full((2, 3, 3, 128), -128, np.int8)
    weights[1, :, :, ::2] = 127
    x = np.full((1, 3, 3, 128), -32768, np.int16)
    x[..., 1::2] = 32767
    bias = None if bias_dtype is None else [3, -3]
    path = conv_model(tmp_path, (1, 3, 3, 128), weights, bias, bias_dtype or "int64", (2.0**-11,), (2.0**-12, 0),
                      (1.0, 0), padding=1, quantized_bias_type=quantized_bias_type)
    check(path, [x], sanitize=True)


def test_conv_bias_near_int64_limits_and_per_tensor_filter(tmp_path):
    weights = np.array([[[[127, -128]]], [[[1, 1]]], [[[-128, -128]]]], np.int8)
    path = conv_model(tmp_path, (1, 2, 2, 2), weights, [INT64_MAX, INT64_MIN, 2**46], "int64", (0.05,),
                      (0.01, 0), (0.03, 0))
    check(path, [np.array([32767, -32768, -32768, 32767, 0, 1, -1, 5], np.int16).reshape(1, 2, 2, 2)],
          sanitize=True)


def test_conv_groups(tmp_path):
    """6 input channels in 3 groups of 2, two filters per group."""
    rng = np.random.default_rng(7)
    weights = rng.integers(-128, 128, (6, 3, 3, 2)).astype(np.int8)
    path = conv_model(tmp_path, (1, 5, 6, 6), weights, list(rng.integers(-2**30, 2**30, 6)), "int64",
                      tuple(rng.uniform(0.001, 0.01, 6)), (0.01, 0), (0.05, 0), stride=(2, 1))
    for seed in range(3):
        check(path, [np.random.default_rng(seed).integers(-32768, 32768, (1, 5, 6, 6)).astype(np.int16)])


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("depthwise", [False, True])
def test_random_geometries(tmp_path, depthwise, seed):
    """Shapes, filters, strides, dilations, padding, depth multipliers, biases and scales drawn at random."""
    rng = np.random.default_rng(100 + seed)
    in_shape = (int(rng.integers(1, 3)), int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 5)))
    filter_hw = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    padding = 0 if any((f - 1) * d + 1 > n for f, d, n in zip(filter_hw, dilation, in_shape[1:3])) \
        else int(rng.integers(0, 2))
    channels = in_shape[3] * int(rng.integers(1, 4)) if depthwise else int(rng.integers(1, 6))
    w_shape = (1, *filter_hw, channels) if depthwise else (channels, *filter_hw, in_shape[3])
    weights = rng.integers(-128, 128, w_shape).astype(np.int8)
    bias = None if rng.random() < 0.25 else list(rng.integers(-2**40, 2**40, channels))
    bias_dtype = "int64" if depthwise or rng.random() < 0.5 else "int32"
    if bias is not None and bias_dtype == "int32":
        bias = [int(b) >> 10 for b in bias]
    w_scales = tuple(rng.uniform(1e-3, 2e-2, channels if rng.random() < 0.7 else 1))
    path = conv_model(tmp_path, in_shape, weights, bias, bias_dtype, w_scales, (float(rng.uniform(1e-4, 1e-2)), 0),
                      (float(rng.uniform(1e-3, 1e-1)), 0), stride, dilation, padding, int(rng.integers(0, 4)),
                      depthwise)
    for trial in range(2):
        check(path, [rng.integers(-32768, 32768, in_shape).astype(np.int16)])


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
def test_extremes_on_cortex_m0(tmp_path):
    """The 64-bit sums, wrap-arounds and rescales on the Cortex-M0's runtime helpers."""
    weights = np.tile(np.array([[127, -128] * 300], np.int8), (4, 1))
    x = np.array([[32767, -32768] * 300, [-32768, 32767] * 300], np.int16)
    bias = [INT64_MAX, INT64_MIN, 2**46, -5]
    check(fc_model(tmp_path, weights, bias, w_scales=(2.0**-10,), in_q=(2.0**-12, 0), out_q=(1.0, 0), batches=2,
                   name="fc64"), [x], cortex_m=True)
    check(fc_model(tmp_path, weights, [2**31 - 1, -2**31, 7, -7], "int32", (2.0**-10,), (2.0**-12, 0), (1.0, 0),
                   batches=2, name="fc32"), [x], cortex_m=True)
    dw = np.full((1, 2, 300, 2), -128, np.int8)
    check(conv_model(tmp_path, (1, 2, 300, 2), dw, [INT64_MIN, 2**40], "int64", (2.0**-11,), (2.0**-12, 0),
                     (1.0, 0), padding=1, depthwise=True, name="dw"),
          [np.full((1, 2, 300, 2), -32768, np.int16)], cortex_m=True)


def test_conv_rejections(tmp_path):
    weights = np.ones((1, 1, 1, 1), np.int8)
    shape = (1, 2, 2, 1)
    assert "zero point 5" in rejected(conv_model(tmp_path, shape, weights, [0], in_q=(0.1, 5), name="a"))
    assert "zero point -1" in rejected(conv_model(tmp_path, shape, weights, [0], out_q=(0.1, -1), name="b"))
    assert "int64 or int32 bias" in rejected(conv_model(tmp_path, shape, weights, [0], "int16", name="c"))
    message = rejected(conv_model(tmp_path, shape, weights, [0], with_options=False, name="d"))
    assert "Conv2DOptions table is missing" in message and "stride 0" in message


# -- DEPTHWISE_CONV_2D -------------------------------------------------------------------------------------------

def test_dwconv_every_int16_input(tmp_path):
    """Depth multiplier 3 over every int16 value, 3x3 SAME, per-channel filter."""
    rng = np.random.default_rng(3)
    weights = rng.integers(-128, 128, (1, 3, 3, 6)).astype(np.int8)
    weights[..., 0] = 127
    weights[..., 5] = -128
    x = rng.permutation(EVERY_INT16).reshape(1, 128, 256, 2)
    path = conv_model(tmp_path, (1, 128, 256, 2), weights, [0, 5, -5, 2**35, -2**35, 7], "int64",
                      (0.01, 0.02, 0.03, 0.001, 0.002, 0.5), (0.01, 0), (0.3, 0), depthwise=True)
    check(path, [x])


@pytest.mark.parametrize("stride,dilation,padding,activation", [
    ((2, 2), (1, 1), 0, ACT_RELU), ((1, 2), (2, 1), 1, ACT_RELU6), ((3, 1), (1, 3), 0, ACT_RELU_N1_TO_1),
])
def test_dwconv_geometry_and_activations(tmp_path, stride, dilation, padding, activation):
    rng = np.random.default_rng(4)
    weights = rng.integers(-128, 128, (1, 3, 2, 4)).astype(np.int8)
    path = conv_model(tmp_path, (2, 9, 8, 2), weights, None, w_scales=(0.01,), in_q=(0.001, 0), out_q=(0.002, 0),
                      stride=stride, dilation=dilation, padding=padding, activation=activation, depthwise=True)
    for seed in range(3):
        check(path, [np.random.default_rng(seed).integers(-32768, 32768, (2, 9, 8, 2)).astype(np.int16)])


@pytest.mark.parametrize("in_shape,filter_shape", [((1, 32, 32, 1), (1, 32, 32, 1)), ((1, 2, 300, 2), (1, 2, 300, 2))])
def test_dwconv_sums_beyond_int32(tmp_path, in_shape, filter_shape):
    """1024 and 600 taps of 2^22: the sum needs 64 bits (one channel, and rows of 300 strided taps)."""
    weights = np.full(filter_shape, -128, np.int8)
    x = np.full(in_shape, -32768, np.int16)
    x[..., 1::2, :] = 32767
    weights[..., 1::4, :] = 127
    path = conv_model(tmp_path, in_shape, weights, [1] * filter_shape[3], "int64", (2.0**-11,), (2.0**-12, 0),
                      (1.0, 0), padding=1, depthwise=True)
    check(path, [x], sanitize=True)


def test_dwconv_bias_near_int64_limits(tmp_path):
    weights = np.array([127, -128, 3, -1], np.int8).reshape(1, 1, 1, 4)
    path = conv_model(tmp_path, (1, 2, 2, 2), weights, [INT64_MAX, INT64_MIN, -2**47, 2**47 - 1], "int64",
                      (0.05, 0.01, 0.02, 0.5), (0.01, 0), (0.03, 0), depthwise=True)
    check(path, [np.array([32767, -32768, -32768, 32767, 0, 1, -1, 5], np.int16).reshape(1, 2, 2, 2)],
          sanitize=True)


def test_dwconv_rejections(tmp_path):
    weights = np.ones((1, 1, 1, 2), np.int8)
    shape = (1, 2, 2, 1)
    message = rejected(conv_model(tmp_path, shape, weights, [0, 0], "int32", depthwise=True, name="a"))
    assert "takes an int64 bias" in message
    assert "zero point 2" in rejected(conv_model(tmp_path, shape, weights, [0, 0], in_q=(0.1, 2), depthwise=True,
                                                 name="b"))
    message = rejected(conv_model(tmp_path, shape, weights, [0, 0], depthwise=True, with_options=False, name="c"))
    assert "DepthwiseConv2DOptions table is missing" in message


def test_tflite_micro_runs_a_convolution_without_options_degenerately(tmp_path):
    """Why a missing options table is refused: TFLite Micro (stride 0, dilation 0) gives every output the same value."""
    weights = np.random.default_rng(5).integers(-127, 128, (2, 3, 3, 1)).astype(np.int8)
    path = conv_model(tmp_path, (1, 4, 4, 1), weights, [0, 0], with_options=False)
    x = np.random.default_rng(6).integers(-32768, 32768, (1, 4, 4, 1)).astype(np.int16)
    y = reference_outputs(path, [x])[0]
    assert np.all(y == y[:, :1, :1, :]) and np.any(y)


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source,roots", [
    ("fully_connected.c", ["usmp_fully_connected_s16"]), ("conv.c", ["usmp_conv_s16"]),
    ("depthwise_conv.c", ["usmp_depthwise_conv_s16"]), ("sums16x8.c", ["usmp_dot_s16", "usmp_rescale_16x8"]),
])
def test_kernels_use_no_float_and_no_64bit_division(tmp_path, source, roots):
    """Cortex-M0: 64-bit multiplies and shifts are fine, 64-bit division (a runtime helper) is not."""
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror",
                    "-ffunction-sections", f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source),
                    "-o", str(obj)], check=True)
    graph = call_graph(obj)
    for root in roots:
        assert root in graph, f"{root} not found in {source}"
        used = reachable(graph, root)
        assert not [s for s in used if is_float_routine(s)], f"{root} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{root} uses 64-bit division"


# -- a real model ------------------------------------------------------------------------------------------------

SEANET = sorted((TEST_MODELS / "seanet").glob("*.tflite"))


@pytest.mark.parametrize("model", SEANET, ids=[m.stem for m in SEANET])
def test_seanet_convolutions_match_their_golden_outputs(model):
    """TFLite Micro's own 16x8 CONV_2D integration tests (tests/models/seanet/README.md)."""
    compiled = compile_model(model)
    graph = compiled.program.graph
    shape = graph.tensors[graph.inputs[0]].shape
    x = np.loadtxt(model.with_name(f"{model.stem}_input0_int16.csv"), delimiter=",", dtype=np.int16).reshape(shape)
    golden = np.loadtxt(model.with_name(f"{model.stem}_golden_int16.csv"), delimiter=",", dtype=np.int16)
    got = run_host(compiled, [x])[0]
    np.testing.assert_array_equal(got.ravel(), golden)
    rng = np.random.default_rng(12)
    check(model, [x])
    check(model, [rng.integers(-32768, 32768, shape).astype(np.int16)], sanitize=True)
