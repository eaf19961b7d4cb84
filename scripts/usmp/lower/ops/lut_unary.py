"""int8 ABS, RSQRT, ELU and HARD_SWISH as 256-entry tables; TFLite's integer 1/sqrt.

Each of these int8 outputs depends on the input value alone, so the compiler
evaluates TFLite Micro's arithmetic once per possible input (exactly: its
fixed-point steps, or its float steps rounded to float32 as C would) and the
kernel looks the result up (usmp_lookup_s8). The tables are indexed by input + 128.
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import INT8_MAX, INT8_MIN, f32, quantize_multiplier, round_half_away
from usmp.lower.ops.activations import (
    _mul, _mul_by_quantized_multiplier, _rounding_divide_by_pot, _saturating_shl, _wrap,
)

EVERY_INT8 = range(INT8_MIN, INT8_MAX + 1)
RSQRT_EXTRA_SHIFT = 20  # TFLite keeps 1/sqrt(x) an integer by 2^20 before the final rescale


def _clamp(value: int, lo: int = INT8_MIN, hi: int = INT8_MAX) -> int:
    return min(max(value, lo), hi)


def _table(values) -> np.ndarray:
    return np.array(list(values), dtype=np.int8)


def abs_multiplier(input_scale: float, output_scale: float) -> tuple[bool, int, int]:
    """(rescale, multiplier, shift): TFLite rescales only when the float scales differ."""
    if f32(input_scale) == f32(output_scale):
        return False, 0, 0
    multiplier, shift = quantize_multiplier(float(np.float32(input_scale)) / float(np.float32(output_scale)))
    return True, multiplier, shift


def abs_table(ctx, q_in, q_out) -> np.ndarray:
    rescale, multiplier, shift = abs_multiplier(q_in.scale, q_out.scale)

    def one(value: int) -> int:
        magnitude = abs(value - q_in.zero_point)
        if rescale:
            magnitude = _mul_by_quantized_multiplier(magnitude, multiplier, shift)
        return _clamp(magnitude + q_out.zero_point)

    return _table(one(v) for v in EVERY_INT8)


def rsqrt_multiplier(input_scale: float, output_scale: float) -> tuple[int, int]:
    """1 / (sqrt(input scale) * output scale), in double as TFLite computes it."""
    return quantize_multiplier(1.0 / (math.sqrt(float(np.float32(input_scale))) * float(np.float32(output_scale))))


def inv_sqrt_multiplier(x: int) -> tuple[int, int]:
    """TFLite's 1/sqrt(x) for x > 1 as (multiplier, shift <= 0): Newton-Raphson in Q3 (usmp_inv_sqrt_multiplier)."""
    if x <= 1:
        return (1 << 31) - 1, 0
    exponent = 11
    while x >= 1 << 29:
        x //= 4
        exponent += 1
    pairs = (32 - x.bit_length() - 1) // 2 - 1
    exponent -= pairs
    x <<= 2 * pairs
    half_x = _rounding_divide_by_pot(x >> 1, 1)
    y = 1 << 28
    for _ in range(5):
        y3 = _saturating_shl(_mul(_mul(y, y), y), 6)
        y = _saturating_shl(_wrap(_mul((1 << 28) + (1 << 27), y) - _mul(half_x, y3)), 3)
    y = _mul(y, 1518500250)  # sqrt(2) / 2 in Q0
    if exponent < 0:
        y = _wrap(y << -exponent)
        exponent = 0
    return y, -exponent


def rsqrt_value(x: int, multiplier: int, shift: int, output_zero_point: int, lo: int, hi: int) -> int:
    """TFLite's quantized RSQRT of x = input - input zero point > 0."""
    inv_multiplier, inv_shift = inv_sqrt_multiplier(x)
    scaled = _mul_by_quantized_multiplier(1, inv_multiplier, inv_shift + RSQRT_EXTRA_SHIFT)
    scaled = _mul_by_quantized_multiplier(scaled, multiplier, shift - RSQRT_EXTRA_SHIFT)
    return _clamp(_wrap(scaled + output_zero_point), lo, hi)


def rsqrt_table(ctx, q_in, q_out) -> np.ndarray:
    """Zero, and the negative values on which TFLite Micro stops with an error, give 127."""
    multiplier, shift = rsqrt_multiplier(q_in.scale, q_out.scale)

    def one(value: int) -> int:
        x = value - q_in.zero_point
        return INT8_MAX if x <= 0 else rsqrt_value(x, multiplier, shift, q_out.zero_point, INT8_MIN, INT8_MAX)

    return _table(one(v) for v in EVERY_INT8)


def elu_table(ctx, q_in, q_out) -> np.ndarray:
    """TFLite Micro fills ELU's table in float: dequantize, exp(x) - 1 below zero, requantize."""
    scale, inverse = np.float32(q_in.scale), np.float32(1.0) / np.float32(q_out.scale)

    def one(value: int) -> int:
        real = scale * np.float32(value - q_in.zero_point)
        if real < 0:
            real = np.float32(math.exp(float(real))) - np.float32(1.0)  # expf, correctly rounded
        product = float(np.float32(real * inverse))
        if not math.isfinite(product):  # absurd output scales: saturate, as the int32 conversion does on Arm
            return INT8_MAX if product > 0 else INT8_MIN
        return _clamp(int(np.float32(round_half_away(product)) + np.float32(q_out.zero_point)))

    with np.errstate(over="ignore"):
        return _table(one(v) for v in EVERY_INT8)


def _float_table(q_in, q_out, transform) -> np.ndarray:
    """LiteRT's LUTPopulate: dequantize in float, transform (float32, correctly rounded), times 1 / output scale,
    rounded half away from zero, plus the zero point in float, converted to int32 and clamped. A value no int32
    holds (an infinity, NaN) converts to INT32_MIN, as on the x86 host LiteRT runs on, so it clamps to -128."""
    scale, inverse = np.float32(q_in.scale), np.float32(1.0) / np.float32(q_out.scale)

    def one(value: int) -> int:
        real = float(scale * np.float32(value - q_in.zero_point))
        result = np.float32(transform(real))
        rescaled = np.float32(round_half_away(float(result * inverse))) if np.isfinite(result * inverse) \
            else result * inverse
        total = float(np.float32(rescaled + np.float32(q_out.zero_point)))
        if not math.isfinite(total) or not -2.0 ** 31 <= total < 2.0 ** 31:
            return INT8_MIN
        return _clamp(int(total))

    with np.errstate(all="ignore"):
        return _table(one(v) for v in EVERY_INT8)


def _exp(x: float) -> float:
    return math.exp(x) if x < 709.0 else math.inf


def exp_table(ctx, q_in, q_out) -> np.ndarray:
    """LiteRT's int8 EXP (TFLite Micro has none): a table of exp, filled as _float_table says."""
    return _float_table(q_in, q_out, _exp)


def log_table(ctx, q_in, q_out) -> np.ndarray:
    """LiteRT's int8 LOG: log of the dequantized input; zero and below give the output's lowest value."""
    lowest = float(np.float32(np.float32(INT8_MIN - q_out.zero_point) * np.float32(q_out.scale)))
    return _float_table(q_in, q_out, lambda x: math.log(x) if x > 0.0 else lowest)


def sqrt_table(ctx, q_in, q_out) -> np.ndarray:
    """LiteRT's int8 SQRT: sqrt(dequantized) / output scale in float, truncated toward zero, plus the zero point.
    LiteRT stops with an error below the input zero point; here those inputs give sqrt(0)."""
    scale, out_scale = np.float32(q_in.scale), np.float32(q_out.scale)

    def one(value: int) -> int:
        real = max(scale * np.float32(value - q_in.zero_point), np.float32(0.0))
        quotient = float(np.float32(np.sqrt(np.float32(real)) / out_scale))
        if not math.isfinite(quotient) or abs(quotient) >= 2.0 ** 31:
            return INT8_MAX if quotient > 0 else INT8_MIN
        return _clamp(int(quotient) + q_out.zero_point)

    with np.errstate(all="ignore"):
        return _table(one(v) for v in EVERY_INT8)


def _int16(x: int) -> int:
    return (x + (1 << 15)) % (1 << 16) - (1 << 15)


def _mul16(a: int, b: int) -> int:
    """Saturating rounding doubling high multiply on int16: round(a * b / 2^15)."""
    if a == b == -(1 << 15):
        return (1 << 15) - 1
    ab = a * b
    return _divide_truncating(ab + ((1 << 14) if ab >= 0 else 1 - (1 << 14)), 15)


def _divide_truncating(x: int, exponent: int) -> int:
    """x / 2**exponent rounded towards zero, as C's integer division."""
    return (abs(x) >> exponent) * (1 if x >= 0 else -1)


def _shl16(x: int, amount: int) -> int:
    return _clamp(x * (1 << amount), -(1 << 15), (1 << 15) - 1)


def _int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier, then the multiplier rounded to its top 16 bits (TFLite's DownScaleInt32ToInt16Multiplier)."""
    multiplier, shift = quantize_multiplier(real)
    if multiplier >= (1 << 31) - 1 - (1 << 15):
        return (1 << 15) - 1, shift
    return (multiplier + (1 << 15)) >> 16, shift


def hard_swish_table(ctx, q_in, q_out) -> np.ndarray:
    """TFLite's int16 fixed-point HARD_SWISH: x * relu6(x + 3) / 6, per int8 value."""
    hires_scale = np.float32(1.0 / 128.0) * np.float32(q_in.scale)
    out_multiplier, out_exponent = _int16_multiplier(float(hires_scale / np.float32(q_out.scale)))
    if out_exponent > 0:  # TFLite Micro's Prepare refuses it too
        raise ctx.fail(f"input scale {q_in.scale:g} / output scale {q_out.scale:g} is "
                       f"{q_in.scale / q_out.scale:g}, above the 128 the int8 kernel supports")
    relu_multiplier, relu_exponent = _int16_multiplier(float(hires_scale / np.float32(3.0 / 32768.0)))

    def one(value: int) -> int:
        hires = _int16((value - q_in.zero_point) * 128)
        preshift = _mul16(hires, out_multiplier)
        reluish = hires
        if relu_exponent > 0:
            reluish = _shl16(reluish, relu_exponent - 1)
        reluish = _mul16(reluish, relu_multiplier)
        if relu_exponent > 0:
            reluish = _shl16(reluish, 1)
        if relu_exponent < 0:
            reluish = _rounding_divide_by_pot(reluish, -relu_exponent)
        reluish = (reluish + (1 << 15)) >> 1
        product = _divide_truncating(reluish * preshift, 15)  # doubling high multiply, truncating
        out = _int16(_rounding_divide_by_pot(product, -out_exponent) + q_out.zero_point)
        return _clamp(out)

    return _table(one(v) for v in EVERY_INT8)
