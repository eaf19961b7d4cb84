"""Inputs the fuzzer and the malformed corpus once crashed the compiler on: now one clean line each.

The files in tests/fuzz/regressions/ are kept byte for byte as found; the
small hand-made cases below pin down each fix with a readable model.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from malformed.worker import compile_variant

REGRESSIONS = Path(__file__).parent / "fuzz" / "regressions"
OP = tflite.BuiltinOperator

# file stem -> a fragment the one-line error must contain
EXPECTED = {
    "omitted_required_input": "operator 0 (STRIDED_SLICE) has 4 inputs",
    "avgpool_without_inputs": "first input and output are required",
    "micro_speech_op_without_inputs": "first input and output are required",
    "sub_without_outputs": "first input and output are required",
    "conv_without_outputs": "first input and output are required",
    "softmax_beta_nan": "option beta = nan",
    "fc_bias_length": "operator 2 (FULLY_CONNECTED): bias",
    "relu6_reads_its_own_output": "operator 0 (RELU6) reads tensor 1, which it also writes",
    "model_input_written_by_operator": "is both a model input and a model output",
    "model_input_is_output": "tensor 0 'serving_default_keras_tensor_150:0' is both a model input and a model output",
    "concat_scalar_output": "tensor 2 'tensor_2' is written by operators 0 and 1",  # fixed cause: below
    "model_output_is_a_constant": "model output tensor 1 'functional_1/dense_1/Tensordot/MatMul1' is a constant",
    "mean_float_axes": "is written by operators 1 and 3",  # the float axes it first exposed: see below
    "dwconv_huge_dilation": "operator 1 (DEPTHWISE_CONV_2D): kernel parameter pad_top = 9663676411 does not fit",
    "strided_slice_float_strides": "operator 0 (STRIDED_SLICE): tensor 3",
    "micro_speech_tensor_written_twice": "is written by operators",
    "relu6_denormal_scale": "is inf, not a finite number",
    "rank_9_broadcast": "has 9 dimensions; at most 6 are supported",
    "zero_point_out_of_range": "has zero point 1099511627776, outside the int8 range [-128, 127]",
    "tensor_name_control_chars": "tensor 1 '",
    "tensor_name_control_chars_2": "tensor 5 '",
}


def test_every_saved_input_has_an_expectation():
    assert sorted(p.stem for p in REGRESSIONS.glob("*.tflite")) == sorted(EXPECTED)


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_saved_input_is_a_clean_one_line_error(stem, tmp_path):
    outcome = compile_variant((REGRESSIONS / f"{stem}.tflite").read_bytes(), tmp_path, existing_output=True)
    assert outcome.status == "error", outcome.message
    assert EXPECTED[stem] in outcome.message
    assert outcome.message.isprintable()


def _compile(tmp_path, sub) -> str:
    tmp_path.mkdir(exist_ok=True)
    outcome = compile_variant(tb.build([sub]), tmp_path, existing_output=False)
    assert outcome.status == "error", outcome.message
    return outcome.message


def test_control_characters_in_names_are_replaced(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[0].name = "in\nput\r\x1b[31m"
    sub.tensors[0].variable = True  # makes the import fail with a message naming the tensor
    message = _compile(tmp_path, sub)
    assert "in?put??[31m" in message and message.isprintable()


def test_omitted_first_input_is_named(tmp_path):
    sub = tb.fc_subgraph()
    sub.ops.append(tb.Op(OP.RELU, [-1], [4]))
    sub.tensors.append(tb.T("relu_out", (1, 2), "int8", scales=[0.1]))
    sub.outputs = [4]
    assert "operator 1 (RELU)" in _compile(tmp_path, sub)


def test_omitted_later_required_input_is_named(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("sum", (1, 2), "int8", scales=[0.1]))
    sub.ops.append(tb.Op(OP.ADD, [3, -1], [4]))
    sub.outputs = [4]
    assert "operator 1 (ADD)" in _compile(tmp_path, sub)


def test_operator_without_outputs(tmp_path):
    sub = tb.fc_subgraph()
    sub.ops[0].outputs = []
    assert "operator 0 (FULLY_CONNECTED) has 3 inputs and 0 outputs" in _compile(tmp_path, sub)


def test_non_finite_option_is_named(tmp_path):
    def softmax_options(b):
        tflite.SoftmaxOptionsStart(b)
        tflite.SoftmaxOptionsAddBeta(b, float("inf"))
        return tflite.SoftmaxOptionsEnd(b)

    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("probs", (1, 2), "int8", scales=[1 / 256], zero_points=[-128]))
    sub.ops.append(tb.Op(OP.SOFTMAX, [3], [4], options=(tflite.BuiltinOptions.SoftmaxOptions, softmax_options)))
    sub.outputs = [4]
    assert "operator 1 (SOFTMAX) has option beta = inf" in _compile(tmp_path, sub)


def test_scales_whose_rescale_overflows_are_a_model_error(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[0].scales = [3e38]
    sub.tensors[1].scales = [3e38]
    sub.tensors[3].scales = [1e-38]
    assert "above the 2^31 the int8 kernels support" in _compile(tmp_path, sub)


def test_rescale_factors_the_kernels_cannot_shift_are_refused():
    from usmp.errors import ModelError
    from usmp.lower.fixed_point import quantize_multiplier

    assert quantize_multiplier(2.0 ** 30) == (1 << 30, 31)  # the largest the kernels take
    for real in (2.0 ** 31, 1e100, float("inf"), float("nan")):
        with pytest.raises(ModelError):
            quantize_multiplier(real)


def test_fully_connected_bias_of_the_wrong_length(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[2] = tb.T("bias", (3,), "int32", data=np.array([1, 2, 3], np.int32), scales=[0.0005])
    assert "bias 'bias' has 3 elements, not 2" in _compile(tmp_path, sub)


def test_fully_connected_float_bias_must_be_float_and_one_per_feature(tmp_path):
    rng = np.random.default_rng(0)
    def float_fc(bias):
        tensors = [tb.T("input", (1, 4), "float32"),
                   tb.T("weights", (2, 4), "float32", data=rng.normal(size=(2, 4)).astype(np.float32)),
                   bias, tb.T("output", (1, 2), "float32")]
        return tb.Sub(tensors, [tb.Op(OP.FULLY_CONNECTED, [0, 1, 2], [3])], [0], [3])
    short = tb.T("bias", (1,), "float32", data=np.array([0.5], np.float32))
    assert "bias 'bias' has 1 elements, not 2" in _compile(tmp_path / "a", float_fc(short))
    ints = tb.T("bias", (2,), "int32", data=np.array([1, 2], np.int32))
    assert "int32" in _compile(tmp_path / "b", float_fc(ints))


def test_fully_connected_per_channel_scales_along_the_input_axis(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[1].scales, sub.tensors[1].zero_points, sub.tensors[1].axis = [0.01] * 4, [0] * 4, 1
    assert "quantized along axis 1 with 4 scales; expected axis 0 with 2" in _compile(tmp_path, sub)


def test_zero_points_outside_the_type_range(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[3].zero_points = [128]
    assert "tensor 3 'output' has zero point 128, outside the int8 range [-128, 127]" in _compile(tmp_path, sub)


def test_operator_reading_its_own_output(tmp_path):
    sub = tb.fc_subgraph()
    sub.ops[0].inputs = [3, 1, 2]
    assert "operator 0 (FULLY_CONNECTED) reads tensor 3, which it also writes" in _compile(tmp_path, sub)


def test_operator_writing_a_model_input(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("extra", (1, 2), "int8", scales=[0.1]))
    sub.inputs = [0, 4]
    sub.ops.append(tb.Op(OP.RELU, [3], [4]))
    assert "operator 1 (RELU) writes model input tensor 4 'extra'" in _compile(tmp_path, sub)


def test_repeated_model_inputs(tmp_path):
    sub = tb.fc_subgraph()
    sub.inputs = [0, 0]
    assert "model inputs list tensor 0 more than once" in _compile(tmp_path, sub)


def test_more_than_six_dimensions(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors[0].shape = (1, 1, 1, 1, 1, 1, 4)
    assert "tensor 0 'input' has 7 dimensions; at most 6 are supported" in _compile(tmp_path, sub)


def test_fuzz_target_accepts_and_rejects_without_raising():
    from fuzz.target import compile_bytes

    assert compile_bytes((REGRESSIONS.parent.parent / "models" / "relu_int8.tflite").read_bytes()) == "ok"
    assert compile_bytes(b"\x00" * 40) == "rejected"
    assert compile_bytes((REGRESSIONS / "softmax_beta_nan.tflite").read_bytes()) == "rejected"


def test_random_engine_saves_what_crashes_the_target(tmp_path, monkeypatch):
    import fuzz.run_fuzz as run_fuzz
    import fuzz.target as target

    calls = []

    def crashing(data, workspace_io=False):
        calls.append(len(data))
        if len(calls) == 3:
            raise KeyError("boom")
        return "rejected"

    monkeypatch.setattr(target, "compile_bytes", crashing)
    summary = run_fuzz.run_random(0.5, tmp_path, seed=1)  # half a second of the seeded mutator
    assert summary["executions"] == len(calls) >= 3
    assert summary["findings"] == ["crash-3.tflite"]
    assert "KeyError: 'boom'" in (tmp_path / "crashes" / "crash-3.tflite.txt").read_text()


def test_tensor_names_that_end_c_comments_still_build(tmp_path):
    """Constant names appear in comments of the generated C: '*/' in a name used to end the comment."""
    from reference import random_inputs
    from usmp.compiler import compile_model
    from usmp.runner.host import run_host

    sub = tb.fc_subgraph()
    sub.tensors[1].name = "w*/ oops /* ??= \\ \""
    sub.tensors[2].name = "bias/*"
    model = tmp_path / "names.tflite"
    model.write_bytes(tb.build([sub]))
    compiled = compile_model(model)
    constants = compiled.files["names_constants.c"]
    assert "oops" in constants and "*/ oops" not in constants
    run_host(compiled, random_inputs(compiled.program.graph, np.random.default_rng(0)))  # -Werror build


@pytest.mark.parametrize("opcode, index_data", [
    (OP.TRANSPOSE, np.array([1.0, float("nan")], np.float32)),
    (OP.PAD, np.array([[0.0, 1.0], [1.5, 0.0]], np.float32)),
])
def test_float_index_constants_are_refused(tmp_path, opcode, index_data):
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("indices", index_data.shape, "float32", data=index_data))
    sub.tensors.append(tb.T("result", (2, 1) if opcode == OP.TRANSPOSE else (2, 4), "int8", scales=[0.1], zero_points=[2]))
    sub.ops.append(tb.Op(opcode, [3, 4], [5]))
    sub.outputs = [5]
    assert "tensor 4 'indices' has type float32; supported here: int32, int64" in _compile(tmp_path, sub)


def test_tensor_written_by_two_operators(tmp_path):
    sub = tb.fc_subgraph()
    sub.ops.append(tb.Op(OP.RELU, [0], [3]))
    assert "tensor 3 'output' is written by operators 0 and 1" in _compile(tmp_path, sub)


def test_mean_axes_must_be_integers(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("axes", (1,), "float32", data=np.array([1.0], np.float32)))
    sub.tensors.append(tb.T("mean", (1,), "int8", scales=[0.1], zero_points=[2]))
    sub.ops.append(tb.Op(OP.MEAN, [3, 4], [5]))
    sub.outputs = [5]
    assert "operator 1 (MEAN): tensor 4 'axes' has type float32; supported here: int32, int64" in _compile(tmp_path, sub)


def test_concatenation_of_scalars(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("s", (), "int8", scales=[0.1], zero_points=[2]))
    sub.tensors.append(tb.T("joined", (), "int8", scales=[0.1], zero_points=[2]))
    sub.inputs = [0, 4]
    sub.ops.append(tb.Op(OP.CONCATENATION, [4], [5]))
    sub.outputs = [3, 5]
    assert "(CONCATENATION): axis 0 is out of range for a 0-D output" in _compile(tmp_path, sub)


def test_relu6_with_a_denormal_scale(tmp_path):
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("tiny", (1, 2), "int8", scales=[1e-45]))
    sub.tensors.append(tb.T("relu6", (1, 2), "int8", scales=[1e-45]))
    sub.inputs = [0, 4]
    sub.ops.append(tb.Op(OP.RELU6, [4], [5]))
    sub.outputs = [3, 5]
    assert "a value derived from the model's quantization scales is inf" in _compile(tmp_path, sub)
