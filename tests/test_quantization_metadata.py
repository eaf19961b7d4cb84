"""Quantization metadata no kernel reads never refuses a model; what a kernel reads is checked where it reads it.

TFLite Micro's person-detection model gives each bias its filter's per-channel
scales and axis 3 on a 1-D shape; converters also write missing or extra zero
points. Those models run in TFLite Micro, so they must compile here, bit-exact.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import TEST_MODELS, outputs_match, reference_outputs
from test_import_errors import compile_bytes
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.frontend import read_tflite
from usmp.ir.graph import Quantization
from usmp.lower import lower_graph
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator


def _bit_exact(tmp_path, sub, trials=20):
    model = tmp_path / "model.tflite"
    model.write_bytes(tb.build([sub]))
    compiled = compile_model(model)
    rng = np.random.default_rng(5)
    for _ in range(trials):
        inputs = [rng.integers(-128, 128, (1, 4)).astype(np.int8)]
        expected, got = reference_outputs(model, inputs), run_host(compiled, inputs)
        assert all(outputs_match(e, g) for e, g in zip(expected, got)), (inputs, expected, got)
    return compiled


@pytest.mark.parametrize("bias_quant", [
    dict(scales=[0.0005, 0.0007], zero_points=[0, 0], axis=3),  # person_detect: the filter's axis on a 1-D bias
    dict(scales=[0.0005] * 5, zero_points=[0] * 5, axis=0),  # more scales than channels
    dict(scales=[0.0005], zero_points=[0, 0, 0], axis=0),  # extra zero points
    dict(scales=[0.0], zero_points=[0], axis=0),  # a scale no kernel divides by
    dict(scales=[0.0005, float("nan"), -1.0], zero_points=[7], axis=9),  # TFLite Micro reads the first scale only
])
def test_bias_metadata_is_not_checked(tmp_path, bias_quant):
    sub = tb.fc_subgraph()
    for key, value in bias_quant.items():
        setattr(sub.tensors[2], key, value)
    _bit_exact(tmp_path, sub)


def test_per_channel_weights_still_run(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[1].scales, sub.tensors[1].zero_points = [0.01, 0.03], [0, 0]
    sub.tensors[2].scales, sub.tensors[2].zero_points = [0.0005, 0.0015], [0, 0]
    _bit_exact(tmp_path, sub)


def test_weights_with_per_channel_scales_of_the_wrong_count_are_refused(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[1].scales, sub.tensors[1].zero_points = [0.01] * 3, [0] * 3
    compile_bytes(tmp_path, tb.build([sub]), "operator 0 (FULLY_CONNECTED)", "weights tensor 'weights'",
                  "3 scales; expected axis 0 with 2")


@pytest.mark.parametrize("tensor, change, fragment", [
    (3, dict(scales=[0.0]), "tensor 3 'output' has a quantization scale that is not a positive finite number"),
    (0, dict(scales=[float("inf")]), "tensor 0 'input' has a quantization scale that is not a positive finite"),
    (1, dict(scales=[0.01, -0.01]), "tensor 1 'weights' has a quantization scale that is not a positive finite"),
    (0, dict(zero_points=[-129]), "tensor 0 'input' has zero point -129, outside the int8 range [-128, 127]"),
    (0, dict(scales=[0.1, 0.1], zero_points=[0, 0]), "tensor 0 'input' is quantized per channel"),
])
def test_metadata_a_kernel_reads_is_checked_by_that_operator(tmp_path, tensor, change, fragment):
    sub = tb.fc_subgraph()
    for key, value in change.items():
        setattr(sub.tensors[tensor], key, value)
    compile_bytes(tmp_path, tb.build([sub]), "operator 0 (FULLY_CONNECTED)", fragment)


def test_model_io_with_a_scale_c_cannot_print_has_no_scale_macro(tmp_path):
    """RESHAPE reads no scale: the model compiles and its header leaves the macro out."""
    sub = tb.Sub([
        tb.T("input", (1, 4), "int8", scales=[float("nan")]),
        tb.T("shape", (2,), "int32", data=np.array([2, 2], np.int32)),
        tb.T("output", (2, 2), "int8", scales=[float("nan")]),
    ], [tb.Op(OP.RESHAPE, [0, 1], [2])], [0], [2])
    model = tmp_path / "reshape.tflite"
    model.write_bytes(tb.build([sub]))
    compiled = compile_model(model)
    header = compiled.files[f"{compiled.program.name}.h"]
    assert "_INPUT_INPUT_LENGTH" in header and "_SCALE" not in header
    data = np.arange(-2, 2, dtype=np.int8).reshape(1, 4)
    assert np.array_equal(run_host(compiled, [data])[0], data.reshape(2, 2))


def test_an_empty_tensor_no_operator_touches_is_not_refused(tmp_path):
    """LSTM models list shape-[0] "intermediate" tensors that only carry quantization metadata."""
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("input_to_input_intermediate", (0,), "int8", scales=[0.004], zero_points=[-1]))
    _bit_exact(tmp_path, sub)


def test_an_empty_tensor_an_operator_reads_is_refused(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors += [tb.T("empty", (1, 0), "int8", scales=[0.1]), tb.T("relu_out", (1, 0), "int8", scales=[0.1])]
    sub.ops.append(tb.Op(OP.RELU, [4], [5]))
    sub.inputs, sub.outputs = [0, 4], [3, 5]
    compile_bytes(tmp_path, tb.build([sub]), "tensor 4 'empty' has an empty dimension in shape [1, 0]")


@pytest.mark.parametrize("name, axis, count, expected", [
    ("conv_3x3_same_relu", 3, 8, "filter '{}' is quantized along axis 3 with 8 scales; expected axis 0 with 8"),
    ("conv_3x3_same_relu", 0, 5, "filter '{}' is quantized along axis 0 with 5 scales; expected axis 0 with 8"),
    ("dwconv_m1_same_relu", 0, 1 + 2, "filter '{}' is quantized along axis 0 with 3 scales; expected axis 3 with"),
])
def test_convolution_filters_with_per_channel_scales_they_cannot_use_are_refused(name, axis, count, expected):
    graph = read_tflite(TEST_MODELS / f"{name}.tflite")
    op = next(op for op in graph.operators if op.opcode in ("CONV_2D", "DEPTHWISE_CONV_2D"))
    weights = graph.tensors[op.inputs[1]]
    weights.quant = Quantization(np.full(count, 0.01, np.float32), np.zeros(count, np.int64), axis)
    with pytest.raises(ModelError) as error:
        lower_graph(graph)
    assert f"operator {op.index} ({op.opcode}): " + expected.format(weights.name) in str(error.value)
