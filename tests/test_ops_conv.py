"""CONV_2D, DEPTHWISE_CONV_2D and the pools: geometry, borders, quantization variants, rejections.

test_bit_exact.py runs every tests/models/{conv,dwconv,avgpool,maxpool}_*.tflite on random
inputs; these tests aim at what random inputs can miss.
"""
from __future__ import annotations

import numpy as np
import pytest

from reference import EXAMPLE_MODELS, TEST_MODELS, outputs_match, reference_outputs
from usmp import compiler
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.frontend import read_tflite
from usmp.lower import lower_graph
from usmp.lower.context import LowerContext
from usmp.lower.ops import lowering_for
from usmp.lower.ops.window import PADDING_SAME, PADDING_VALID, out_size, pad_before
from usmp.runner.host import run_host

PADDED_INT8 = [
    "conv_3x3_same_relu", "conv_dilation2", "conv_4x4_same_stride2_relu_n1_to_1", "conv_per_tensor", "conv_grouped",
    "dwconv_m1_same_relu", "dwconv_m2_same_stride2_relu6", "dwconv_dilation2", "dwconv_micro_speech_like",
    "dwconv_per_tensor", "avgpool_same", "avgpool_same_stride1", "maxpool_same_stride2",
]


def model(name: str):
    return TEST_MODELS / f"{name}.tflite"


def arg_buffer(ctx, name: str):
    return ctx.buffers[next(a.buffer for a in ctx.ops[0].args if a.name == name)]


def lowered_call(graph, op_index: int = 0):
    """Lower one operator alone and return its kernel call."""
    ctx = LowerContext(graph)
    op = graph.operators[op_index]
    ctx.begin(op)
    lowering_for(op.opcode)(op, ctx)
    ctx.end()
    (call,) = ctx.ops[0].calls
    return call, ctx


@pytest.mark.parametrize("size,taps,stride,dilation,padding,expected_out,expected_pad", [
    (49, 10, 2, 1, PADDING_SAME, 25, 4),  # micro_speech rows
    (40, 8, 2, 1, PADDING_SAME, 20, 3),  # micro_speech columns
    (8, 4, 2, 1, PADDING_SAME, 4, 1),  # total padding 2: one each side
    (7, 4, 2, 1, PADDING_SAME, 4, 1),  # total padding 3: the extra one goes after
    (9, 3, 1, 2, PADDING_SAME, 9, 2),  # dilation widens the filter to 5
    (9, 3, 2, 1, PADDING_VALID, 4, 0),
    (9, 3, 1, 4, PADDING_VALID, 1, 0),
])
def test_output_size_and_padding_follow_tflite(size, taps, stride, dilation, padding, expected_out, expected_pad):
    out = out_size(padding, size, taps, stride, dilation)
    assert out == expected_out
    assert pad_before(size, out, taps, stride, dilation) == expected_pad


def test_micro_speech_depthwise_geometry():
    """The real model's DEPTHWISE_CONV_2D: SAME 10x8 filter, stride 2, multiplier 8, per channel."""
    graph = read_tflite(EXAMPLE_MODELS / "micro_speech_quantized.tflite")
    index = next(op.index for op in graph.operators if op.opcode == "DEPTHWISE_CONV_2D")
    call, ctx = lowered_call(graph, index)
    p = call.params
    assert call.function == "usmp_depthwise_conv_s8"
    assert (p["in_h"], p["in_w"], p["in_ch"], p["out_h"], p["out_w"]) == (49, 40, 1, 25, 20)
    assert (p["filter_h"], p["filter_w"], p["depth_multiplier"], p["pad_top"], p["pad_left"]) == (10, 8, 8, 4, 3)
    assert p["per_channel"] == 1 and p["input_offset"] == 128
    # the filter is repacked channel-major: output channel 3's taps are contiguous
    weights = graph.tensors[graph.operators[index].inputs[1]].data
    packed = np.frombuffer(arg_buffer(ctx, "filter").data, np.int8).reshape(8, 10, 8)
    np.testing.assert_array_equal(packed[3], weights[0, :, :, 3])


def test_per_tensor_and_per_channel_requantization():
    per_channel, _ = lowered_call(read_tflite(model("conv_3x3_same_relu")))
    per_tensor, ctx = lowered_call(read_tflite(model("conv_per_tensor")))
    assert per_channel.params["per_channel"] == 1
    assert per_tensor.params["per_channel"] == 0
    assert arg_buffer(ctx, "multiplier").size == 4  # one int32 for all channels


@pytest.mark.parametrize("name", PADDED_INT8)
def test_borders_with_extreme_inputs(name):
    """Constant extreme inputs make the input zero point dominate: a wrong border term shows."""
    compiled = compile_model(model(name))
    shape = compiled.program.graph.tensors[compiled.program.graph.inputs[0]].shape
    rng = np.random.default_rng(5)
    cases = [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
             np.where(rng.random(shape) < 0.5, -128, 127).astype(np.int8)]
    for inputs in cases:
        expected = reference_outputs(model(name), [inputs])
        got = run_host(compiled, [inputs])
        assert outputs_match(expected[0], got[0]), f"{name} with input {inputs.flat[:4]}..."


def test_conv_without_bias_input(monkeypatch):
    """A CONV_2D whose optional bias is omitted equals the model with its all-zero bias."""
    path = model("conv_no_bias")
    graph = read_tflite(path)
    op = graph.operators[0]
    assert not np.any(graph.tensors[op.inputs[2]].data), "the model's bias should be all zeros"
    op.inputs[2] = None
    monkeypatch.setattr(compiler, "read_tflite", lambda *args, **kwargs: graph)
    compiled = compile_model(path)
    inputs = [np.random.default_rng(3).integers(-128, 128, (1, 8, 8, 3)).astype(np.int8)]
    assert outputs_match(reference_outputs(path, inputs)[0], run_host(compiled, inputs)[0])


def _rejected(name: str, change) -> str:
    graph = read_tflite(model(name))
    change(graph, graph.operators[0])
    with pytest.raises(ModelError) as error:
        lower_graph(graph)
    message = str(error.value)
    assert "\n" not in message and message.startswith("operator 0 (")
    return message


def test_rejects_inconsistent_depth_multiplier():
    message = _rejected("dwconv_m2_valid_stride2", lambda g, op: op.options.update(depth_multiplier=3))
    assert "depth_multiplier 3" in message


def test_rejects_unknown_padding():
    assert "padding 7" in _rejected("conv_1x1", lambda g, op: op.options.update(padding=7))


def test_rejects_unsupported_fused_activation():
    message = _rejected("conv_f32", lambda g, op: op.options.update(fused_activation_function=4))
    assert "TANH" in message


def test_rejects_int8_pool_that_rescales():
    def change(graph, op):
        graph.tensors[op.outputs[0]].quant.scales = graph.tensors[op.outputs[0]].quant.scales * 2

    assert "same scale and zero point" in _rejected("avgpool_valid", change)


def test_rejects_filter_on_wrong_quantized_axis():
    def change(graph, op):
        graph.tensors[op.inputs[1]].quant.axis = 0

    assert "axis 0" in _rejected("dwconv_m1_same_relu", change)


def test_rejects_output_shape_that_does_not_match_the_window():
    def change(graph, op):
        t = graph.tensors[op.outputs[0]]
        t.shape = (1, t.shape[1] + 1, t.shape[2], t.shape[3])

    assert "does not match the window" in _rejected("conv_valid_stride2_relu6", change)


def test_rejects_non_constant_filter():
    def change(graph, op):
        graph.tensors[op.inputs[1]].data = None

    assert "must be a constant" in _rejected("conv_3x3_same_relu", change)
