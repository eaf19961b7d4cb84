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
