"""Integer-arithmetic parameters computed at compile time.

TFLite's int8 kernels turn every real-valued rescale into a 32-bit multiplier
and a shift. Computing them here (in double, as TFLite does) keeps floating
point out of the generated int8 code; the rounding rules must match TFLite's
exactly or results drift by one LSB.
"""
from __future__ import annotations

import math

import numpy as np

from usmp.errors import ModelError

INT8_MIN, INT8_MAX = -128, 127
INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


def round_half_away(x: float) -> int:
    """C's round(): halves go away from zero (Python's round() goes to even)."""
    if not math.isfinite(x):  # e.g. 6 / scale with a denormal scale from a damaged model
        raise ModelError(f"a value derived from the model's quantization scales is {x}, not a finite number")
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def quantize_multiplier(real: float) -> tuple[int, int]:
    """real ~= multiplier * 2**(shift - 31), multiplier in [2**30, 2**31)."""
    if not math.isfinite(real):  # extreme scales or options in a damaged model
        raise ModelError(f"a rescale factor derived from the model's scales and options is {real}, not a finite number")
    if real == 0.0:
        return 0, 0
    fraction, shift = math.frexp(real)
    multiplier = round_half_away(fraction * (1 << 31))
    if multiplier == (1 << 31):
        multiplier //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if shift > 31:  # the kernels shift an int32 left by `shift`: more would be undefined behaviour in C
        raise ModelError(f"a rescale factor derived from the model's scales is {real:g}, above the 2^31 "
                         f"the int8 kernels support")
    return multiplier, shift


def quantize_multiplier_greater_than_one(real: float) -> tuple[int, int]:
    multiplier, shift = quantize_multiplier(real)
    if shift < 0:
        raise ValueError("multiplier is not greater than one")
    return multiplier, shift


def f32(x) -> float:
    """Round a value to float32 precision, as a C float would hold it."""
    return float(np.float32(x))


def quantize_value(real: float, scale: float, zero_point: int) -> int:
    """TFLite's Quantize for activation bounds: float division, round, add zero point."""
    return zero_point + round_half_away(f32(np.float32(real) / np.float32(scale)))


# TFLite's ActivationFunctionType values
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3


def activation_range_int8(activation: int, scale: float, zero_point: int, where: str) -> tuple[int, int]:
    """The clamp bounds of a fused activation on an int8 output."""
    lo, hi = INT8_MIN, INT8_MAX
    if activation == ACT_NONE:
        return lo, hi
    if activation == ACT_RELU:
        return max(lo, quantize_value(0.0, scale, zero_point)), hi
    if activation == ACT_RELU6:
        return max(lo, quantize_value(0.0, scale, zero_point)), min(hi, quantize_value(6.0, scale, zero_point))
    if activation == ACT_RELU_N1_TO_1:
        return max(lo, quantize_value(-1.0, scale, zero_point)), min(hi, quantize_value(1.0, scale, zero_point))
    raise ModelError(f"{where}: fused activation {activation_name(activation)} is not supported")


FLOAT_MAX = float(np.finfo(np.float32).max)


def activation_range_float(activation: int, where: str) -> tuple[float, float]:
    if activation == ACT_NONE:
        return -FLOAT_MAX, FLOAT_MAX
    if activation == ACT_RELU:
        return 0.0, FLOAT_MAX
    if activation == ACT_RELU6:
        return 0.0, 6.0
    if activation == ACT_RELU_N1_TO_1:
        return -1.0, 1.0
    raise ModelError(f"{where}: fused activation {activation_name(activation)} is not supported")


def activation_name(activation: int) -> str:
    names = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
    return names.get(activation, str(activation))
