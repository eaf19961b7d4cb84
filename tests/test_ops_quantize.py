"""QUANTIZE between int8 and uint8: every input value against TFLite Micro, for the
equal-scale shortcut TFLite Micro takes (zero points 128 apart) and real rescales."""
from __future__ import annotations

import numpy as np
import pytest

from test_ops_elementwise import assert_matches_reference, unary_model

EVERY_INT8 = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
EVERY_UINT8 = np.arange(0, 256, dtype=np.uint8).reshape(1, 256)

# (input scale, zero point), (output scale, zero point)
INT8_TO_UINT8 = [
    ((0.05, -3), (0.05, 125)),  # equal scales, zero points 128 apart: TFLite Micro flips the top bit
    ((0.05, 0), (0.05, 128)),
    ((0.05, -3), (0.1, 100)),  # a real rescale, clamped to [0, 255]
    ((0.02, 10), (0.007, 0)),
    ((1 / 256, -128), (1 / 255, 0)),  # a softmax-like output scale
]


@pytest.mark.parametrize("in_q,out_q", INT8_TO_UINT8)
def test_quantize_int8_to_uint8_every_value(tmp_path, in_q, out_q):
    model = unary_model(tmp_path, "QUANTIZE", in_q, out_q, in_dtype="int8", out_dtype="uint8")
    assert_matches_reference(model, [EVERY_INT8])


@pytest.mark.parametrize("in_q,out_q", [((0.05, 125), (0.05, -3)), ((0.1, 100), (0.05, -3)), ((0.01, 0), (0.3, 5))])
def test_quantize_uint8_to_int8_every_value(tmp_path, in_q, out_q):
    model = unary_model(tmp_path, "QUANTIZE", in_q, out_q, in_dtype="uint8", out_dtype="int8")
    assert_matches_reference(model, [EVERY_UINT8])


# --- 16x8 models and int32 results: every int8 / int16 input value, sampled int32 values ---

EVERY_INT16 = np.arange(-32768, 32768, dtype=np.int16).reshape(1, 65536)
INT32_SAMPLES = np.concatenate([
    np.array([-2**31, -2**31 + 1, -65536, -32769, -32768, -129, -128, -1, 0, 1, 127, 128, 32767, 32768,
              2**31 - 2, 2**31 - 1], dtype=np.int64),
    np.random.default_rng(16).integers(-2**31, 2**31, 4080, dtype=np.int64)]).astype(np.int32).reshape(1, 4096)

# (input dtype, output dtype, (input scale, zero point), (output scale, zero point))
REQUANTIZE_PAIRS = [
    ("int16", "int16", (0.001, 0), (0.001, 0)),  # multiplier exactly 1
    ("int16", "int16", (0.001, 0), (0.0003, 0)),  # grows: saturates at both ends
    ("int16", "int16", (3.1e-5, 0), (0.0009, 0)),  # shrinks
    ("int16", "int8", (1 / 32768, 0), (1 / 128, -3)),
    ("int16", "int8", (0.0002, 0), (0.05, 100)),
    ("int8", "int16", (0.05, -7), (1 / 32768, 0)),
    ("int8", "int16", (0.3, 127), (0.0001, 0)),
    ("int8", "int32", (0.02, 5), (0.0001, 0)),
    ("int16", "int32", (0.001, 0), (1e-6, 0)),
]


def _every_value(dtype):
    return EVERY_INT16 if dtype == "int16" else EVERY_INT8


@pytest.mark.parametrize("in_dtype,out_dtype,in_q,out_q", REQUANTIZE_PAIRS,
                         ids=[f"{p[0]}-{p[1]}-{i}" for i, p in enumerate(REQUANTIZE_PAIRS)])
def test_requantize_every_value(tmp_path, in_dtype, out_dtype, in_q, out_q):
    shape = _every_value(in_dtype).shape
    model = unary_model(tmp_path, "QUANTIZE", in_q, out_q, in_dtype=in_dtype, out_dtype=out_dtype, shape=shape)
    assert_matches_reference(model, [_every_value(in_dtype)])


@pytest.mark.parametrize("out_dtype,in_q,out_q", [("int8", (0.5, 0), (0.7, -4)), ("int8", (1e-7, 0), (0.01, 0)),
                                                  ("int16", (0.25, 0), (0.001, 0)), ("int16", (3e-3, 0), (2.9e-3, 0))])
def test_requantize_int32_input(tmp_path, out_dtype, in_q, out_q):
    """int32 results (e.g. a 16x8 FULLY_CONNECTED kept wide) brought back to int8 / int16, extremes included."""
    model = unary_model(tmp_path, "QUANTIZE", in_q, out_q, in_dtype="int32", out_dtype=out_dtype,
                        shape=INT32_SAMPLES.shape)
    assert_matches_reference(model, [INT32_SAMPLES])


# Far enough out to saturate every scale below, not so far that value / scale leaves int32: TFLite Micro's
# float -> int32 cast is undefined behaviour there (x86 gives INT32_MIN even for +inf, a Cortex-M saturates).
FLOATS = np.concatenate([
    np.array([0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 60000.0, -60000.0, 65.535, -65.5365, 3.0e-3, -3.0e-3], np.float32),
    np.random.default_rng(3).normal(0, 40, 4083).astype(np.float32)]).reshape(1, 4096)


@pytest.mark.parametrize("out_q", [(0.001, 0), (1 / 32768, 0), (0.01, 0), (2.0, 0)])
def test_quantize_float_to_int16(tmp_path, out_q):
    model = unary_model(tmp_path, "QUANTIZE", None, out_q, in_dtype="float32", out_dtype="int16", shape=FLOATS.shape)
    assert_matches_reference(model, [FLOATS])


@pytest.mark.parametrize("in_dtype,in_q", [("int16", (0.001, 0)), ("int16", (1 / 32768, 0)), ("int16", (7.3, 0)),
                                           ("uint8", (0.02, 128)), ("uint8", (0.5, 3))])
def test_dequantize_every_value(tmp_path, in_dtype, in_q):
    values = EVERY_INT16 if in_dtype == "int16" else EVERY_UINT8
    model = unary_model(tmp_path, "DEQUANTIZE", in_q, None, in_dtype=in_dtype, out_dtype="float32", shape=values.shape)
    assert_matches_reference(model, [values])


def test_quantize_pair_tflite_micro_refuses_is_refused(tmp_path):
    """uint8 -> int16 is not a pair TFLite Micro runs: refused by name, nothing generated."""
    from usmp.compiler import compile_model
    from usmp.errors import ModelError
    model = unary_model(tmp_path, "QUANTIZE", (0.1, 128), (0.001, 0), in_dtype="uint8", out_dtype="int16")
    with pytest.raises(ModelError, match="uint8 QUANTIZE to or from int16 is not supported"):
        compile_model(model)
