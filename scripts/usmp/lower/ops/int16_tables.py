"""What TFLite Micro requires of, and derives for, its int16 RELU, LOGISTIC, TANH and SOFTMAX, at compile time.

LOGISTIC and TANH interpolate one 256-entry table of sigmoid(i / 24)
(SIGMOID_TABLE, shared with the LSTM) after rescaling the input by an
integer multiplier and a rounding right shift. TFLite Micro takes a shortcut
when the input scale is (within 1e-3 in log2) a power of two it expects, and
otherwise searches a 15-bit multiplier; both are reproduced here so the kernel
runs one multiply and shift per element.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import round_half_away

# The left shifts (12 + log2 of a power-of-two input scale) on which TFLite Micro multiplies by 3 << shift.
POWER_OF_TWO_SHIFTS = {"LOGISTIC": (0,), "TANH": (0, 1)}
INPUT_INTEGER_BITS = 3  # the table covers inputs in [-8, 8) (scaled by 4/3 to [-10.7, 10.7))
OUTPUT_FRACTIONAL_BITS = 15  # outputs are Q0.15: scale 2^-15, zero point 0


def require_zero_point_0(ctx, tensor, q) -> None:
    """TFLite Micro's int16 RELU, LOGISTIC, TANH and SOFTMAX are symmetric: zero points 0."""
    if q.zero_point != 0:
        raise ctx.fail(f"int16 tensor '{tensor.name}' has zero point {q.zero_point}; TFLite Micro requires 0")


def checked_log2(scale: float) -> tuple[bool, int]:
    """TFLite's CheckedLog2 in float: (is within 1e-3 of a power of two, rounded log2)."""
    with np.errstate(all="ignore"):
        log2 = np.float32(np.log(np.float32(scale))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = round_half_away(float(log2))
    return bool(abs(np.float32(log2) - np.float32(rounded)) < np.float32(1e-3)), rounded


def sigmoid_input_scaling(ctx, opcode: str, input_scale: float) -> tuple[int, int]:
    """(multiplier, right shift) taking an int16 input to the table's steps: (x * m + round) >> shift."""
    power_of_two, log2 = checked_log2(input_scale)
    left_shift = (15 - INPUT_INTEGER_BITS) + log2
    if power_of_two and left_shift in POWER_OF_TWO_SHIFTS[opcode]:
        return 3 << left_shift, 0
    multiplier, shift = float(np.float32(input_scale)) * 4096.0 * 3.0, 0
    while multiplier <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        multiplier *= 2.0
    if not 1 <= multiplier <= 32767.0:  # TFLite Micro asserts the upper bound; 0 would shift by 31
        raise ctx.fail(f"int16 input scale {input_scale:g} is outside the range TFLite Micro's int16 "
                       f"{opcode} supports")
    return int(multiplier), shift


def require_q15_output(ctx, tensor, q) -> None:
    """int16 LOGISTIC and TANH write Q0.15: zero point 0 and a scale of 2^-15 (as CheckedLog2 sees it)."""
    require_zero_point_0(ctx, tensor, q)
    power_of_two, log2 = checked_log2(q.scale)
    if not power_of_two or log2 != -OUTPUT_FRACTIONAL_BITS:
        raise ctx.fail(f"int16 output '{tensor.name}' must have scale 2^-15, not {q.scale:g}")


# -- SOFTMAX: TFLite Micro builds two 513-entry int16 tables in float at Prepare time (LUTPopulate),
# exp(x) on [-10, 0] and 1 / (1 + x) on [0, 1]; the kernel interpolates them (LUTLookup).
LUT_STEPS = 512
_INT16_RANGE = 65535  # int16 max - min


def _round(x: np.float32) -> np.float32:
    """TfLiteRound on a float: halves away from zero, the result still a float."""
    return np.float32(round_half_away(float(x)))


def _exp(x: np.float32) -> np.float32:
    """expf as exp rounded to float (the tables equal those built with glibc's expf)."""
    return np.float32(np.exp(np.float64(x)))


def _one_over_one_plus(x: np.float32) -> np.float32:
    return np.float32(1.0) / (np.float32(1.0) + x)


def lut_populate_int16(transform, input_scale: np.float32, input_zero_point: int, output_scale: np.float32,
                       output_zero_point: int) -> np.ndarray:
    """TFLite's LUTPopulate<int16_t>: samples of transform, each biased by half its midpoint error."""
    f = np.float32
    input_min = input_scale * f(-32768 - input_zero_point)
    input_max = input_scale * f(32767 - input_zero_point)
    output_min = output_scale * f(-32768 - output_zero_point)
    output_max = output_scale * f(32767 - output_zero_point)
    step = (input_max - input_min) / f(LUT_STEPS)
    half_step = step / f(2)
    to_output = f(_INT16_RANGE + 1) / (output_max - output_min)
    table = np.empty(LUT_STEPS + 1, np.int16)
    for i in range(LUT_STEPS):
        value = transform(input_min + f(i) * step)
        midpoint = transform(input_min + f(i) * step + half_step)
        following = transform(input_min + f(i + 1) * step)
        sample = _round(value * to_output)
        interpolated = _round((following * to_output + _round(value * to_output)) / f(2))
        bias = _round((interpolated - _round(midpoint * to_output)) / f(2))
        table[i] = int(min(max(sample - bias, f(-32768)), f(32767)))
    table[LUT_STEPS] = int(min(max(_round(transform(input_max) * to_output), f(-32768)), f(32767)))
    return table


def softmax_tables() -> tuple[np.ndarray, np.ndarray]:
    """(exp table over [-10, 0], 1 / (1 + x) table over [0, 1]), both with outputs in steps of 2 / 65535."""
    with np.errstate(all="ignore"):
        exp_table = lut_populate_int16(_exp, np.float32(10.0) / np.float32(_INT16_RANGE), 32767,
                                       np.float32(2.0) / np.float32(_INT16_RANGE), 0)
        reciprocal_table = lut_populate_int16(_one_over_one_plus, np.float32(1.0) / np.float32(_INT16_RANGE),
                                              -32768, np.float32(2.0) / np.float32(_INT16_RANGE), 0)
    return exp_table, reciprocal_table
