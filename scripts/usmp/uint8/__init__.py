"""uint8 (asymmetric, per-tensor) models rewritten exactly into int8 at compile time.

The legacy quantization (Coral's and TensorFlow 1's MobileNets, DeepLab) stores
every tensor as uint8 with its own zero point, weights included; TFLite Micro
dropped it, LiteRT runs it. A uint8 value q with zero point z is the int8 value
q - 128 with zero point z - 128: every kernel that computes on (q - z) gives the
same real result, so this pass (between shape resolution and folding) retypes
the model's uint8 tensors as int8, shifts constant data by 128, and lets the
int8 lowerings take them. What differs from int8 is said on the operator
(options["uint8"]): weights keep a zero point (lower/ops/asymmetric.py takes the
convolutions and FULLY_CONNECTED), and LiteRT's uint8 AVERAGE_POOL_2D rounds
the sum of non-negative values, its SOFTMAX reads a float table, its
RESIZE_BILINEAR interpolates in float. Model inputs
and outputs stay uint8 for the caller: a QUANTIZE at each (same scale, zero
point moved by 128) converts, exactly. An operator whose uint8 arithmetic in
LiteRT is not one of these is refused by name (unsupported_uint8, which the
lowering stage asks first).
"""
from __future__ import annotations

from usmp.uint8.rewrite import UINT8_OPERATORS, rewrite_uint8, unsupported_uint8

__all__ = ["UINT8_OPERATORS", "rewrite_uint8", "unsupported_uint8"]
