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
