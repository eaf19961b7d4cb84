"""RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH on int8, int16 ("16x8") and float32.

What TFLite Micro computes for int8, and so what these lowerings ask for:
- RELU requantizes from the input to the output quantization, then clamps
  below at the output's zero (the int8 requantize kernel with a clamp).
- RELU6 clamps in the *input* quantization to [zero, six] and ignores the
  output's quantization parameters.
- int16 RELU (zero points 0) rescales by in/out scale and clamps below at 0;
  int16 RELU6 is the int8 clamp on int16 values.
- LEAKY_RELU rescales positive inputs by in/out scale and negative ones by
  alpha * in/out scale; int16 ("16x8") does the same, clamped to int16.
- LOGISTIC and TANH rescale the input to Q4 fixed point and evaluate
  gemmlowp's fixed-point logistic/tanh; outputs are scale 1/256 zero point
  -128 (LOGISTIC) and 1/128, 0 (TANH). That arithmetic runs here, once per
  possible input value, into a 256-entry table the kernel looks up.
- int16 LOGISTIC and TANH (zero points 0, outputs Q0.15) interpolate TFLite's
  table of sigmoid(i / 24) after an integer input rescale (int16_tables.py).
Multipliers are computed in double and RELU6's bound in float: that is what
the tflite-micro reference does (tests/test_ops_elementwise.py has scales on
which float and double disagree).
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import (
    FLOAT_MAX, INT8_MAX, INT8_MIN, INT16_MAX, INT16_MIN, quantize_multiplier, round_half_away,
)
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype, require_quantized
from usmp.lower.ops.int16_tables import require_q15_output, require_zero_point_0, sigmoid_input_scaling
from usmp.lower.ops.lstm import SIGMOID_TABLE

SIGMOID_INPUT_INTEGER_BITS = 4  # LOGISTIC and TANH take their input in Q4


def unary_operands(op, ctx, *dtypes: str):
    """(input, output, dtype) of a one-input operator with matching types and sizes."""
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *dtypes)
    require_dtype(ctx, out, dtype)
    if inp.num_elements != out.num_elements:
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ in size")
    return inp, out, dtype


def unary_refs(op, ctx) -> dict:
    """In place when the input dies here: the kernels map element i to element i."""
    return dict(input=ctx.read(op.inputs[0]), output=ctx.write_in_place(op.outputs[0], op.inputs[0]))


def f32_ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator in single precision (a C float division)."""
    with np.errstate(all="ignore"):  # overflow gives inf, which the caller's rounding refuses
        return float(np.float32(numerator) / np.float32(denominator))


@lowering("RELU", "RELU6")
def lower_relu(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "int16", "float32")
    size = out.num_elements
    upper = 6.0 if op.opcode == "RELU6" else FLOAT_MAX
    if dtype == "float32":
        ctx.call("usmp_relu_f32", "usmp_relu_f32_params", dict(size=size, lo=0.0, hi=upper), **unary_refs(op, ctx))
        return
    q_in = require_quantized(ctx, inp)
    low, high = (INT8_MIN, INT8_MAX) if dtype == "int8" else (INT16_MIN, INT16_MAX)
    suffix = "s8" if dtype == "int8" else "s16"
    if op.opcode == "RELU6":
        six = round_half_away(f32_ratio(6.0, q_in.scale)) + q_in.zero_point
        params = dict(size=size, lo=q_in.zero_point, hi=min(max(six, low), high))
        ctx.call(f"usmp_relu6_{suffix}", "usmp_relu6_s8_params", params, **unary_refs(op, ctx))
        return
    q_out = require_quantized(ctx, out)
    if dtype == "int16":
        require_zero_point_0(ctx, inp, q_in)
        require_zero_point_0(ctx, out, q_out)
        multiplier, shift = quantize_multiplier(q_in.scale / q_out.scale)
        ctx.call("usmp_relu_s16", "usmp_relu_s16_params", dict(size=size, multiplier=multiplier, shift=shift),
                 **unary_refs(op, ctx))
        return
    multiplier, shift = quantize_multiplier(q_in.scale / q_out.scale)
    params = dict(size=size, input_zero_point=q_in.zero_point, output_zero_point=q_out.zero_point,
                  multiplier=multiplier, shift=shift, act_min=max(INT8_MIN, q_out.zero_point), act_max=INT8_MAX)
    ctx.call("usmp_requantize_s8", "usmp_requantize_s8_params", params, **unary_refs(op, ctx))


@lowering("LEAKY_RELU")
def lower_leaky_relu(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "int16", "float32")
    alpha = float(op.options.get("alpha", 0.0))  # the schema default
    size = out.num_elements
    if dtype == "float32":
        ctx.call("usmp_leaky_relu_f32", "usmp_leaky_relu_f32_params", dict(size=size, alpha=alpha),
                 **unary_refs(op, ctx))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    identity_multiplier, identity_shift = quantize_multiplier(q_in.scale / q_out.scale)
    alpha_multiplier, alpha_shift = quantize_multiplier(q_in.scale * alpha / q_out.scale)
    params = dict(size=size, input_zero_point=q_in.zero_point, output_zero_point=q_out.zero_point,
                  identity_multiplier=identity_multiplier, identity_shift=identity_shift,
                  alpha_multiplier=abs(alpha_multiplier), alpha_shift=alpha_shift,
                  alpha_negative=int(alpha_multiplier < 0))
    kernel = "usmp_leaky_relu_s8" if dtype == "int8" else "usmp_leaky_relu_s16"
    ctx.call(kernel, "usmp_leaky_relu_s8_params", params, **unary_refs(op, ctx))


def sigmoid_input_params(ctx, scale: float) -> tuple[int, int, int]:
    """(multiplier, shift, radius): the rescale of an int8 input to Q4, and beyond which it saturates."""
    real = scale * float(1 << (31 - SIGMOID_INPUT_INTEGER_BITS))
    fraction, shift = math.frexp(real)
    if not 0 <= shift <= 62:  # TFLite Micro shifts 1 << shift in 64 bits for the radius
        raise ctx.fail(f"input scale {scale:g} is outside the range the int8 kernel supports")
    multiplier = round_half_away(fraction * (1 << 31))
    top = ((1 << SIGMOID_INPUT_INTEGER_BITS) - 1) * (1 << (31 - SIGMOID_INPUT_INTEGER_BITS))
    return multiplier, shift, math.floor(top / (1 << shift))


def sigmoid_table(ctx, opcode: str, zero_point: int, scale: float) -> np.ndarray:
    """TFLite Micro's int8 LOGISTIC or TANH of every int8 input, indexed by input + 128.

    The output depends on the input value alone, so the kernel looks it up
    instead of evaluating the fixed-point function per element (~1000
    instructions each on a Cortex-M0).
    """
    multiplier, shift, radius = sigmoid_input_params(ctx, scale)
    table = np.empty(256, np.int8)
    for value in range(INT8_MIN, INT8_MAX + 1):
        x = value - zero_point
        if x <= -radius:
            out = INT8_MIN
        elif x >= radius:
            out = INT8_MAX
        else:
            q4 = _mul_by_quantized_multiplier(x, multiplier, shift)
            if opcode == "LOGISTIC":  # Q0 to steps of 1/256, zero point -128
                out = _rounding_divide_by_pot(_logistic(q4, SIGMOID_INPUT_INTEGER_BITS), 23) - 128
            else:  # Q0 to steps of 1/128, zero point 0
                out = _rounding_divide_by_pot(_tanh(q4, SIGMOID_INPUT_INTEGER_BITS), 24)
        table[value - INT8_MIN] = min(max(out, INT8_MIN), INT8_MAX)
    return table


@lowering("LOGISTIC", "TANH")
def lower_sigmoid(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "int16", "float32")
    size = out.num_elements
    if dtype == "float32":
        ctx.call(f"usmp_{op.opcode.lower()}_f32", "usmp_unary_f32_params", dict(size=size), **unary_refs(op, ctx))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if dtype == "int16":
        require_zero_point_0(ctx, inp, q_in)
        require_q15_output(ctx, out, q_out)
        multiplier, shift = sigmoid_input_scaling(ctx, op.opcode, q_in.scale)
        ctx.call(f"usmp_{op.opcode.lower()}_s16", "usmp_sigmoid_s16_params",
                 dict(size=size, multiplier=multiplier, shift=shift), input=ctx.read(op.inputs[0]),
                 table=ctx.constant("sigmoid_table", SIGMOID_TABLE),
                 output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
        return
    if op.opcode == "LOGISTIC" and q_out.zero_point != INT8_MIN:
        raise ctx.fail(f"int8 output zero point must be -128, not {q_out.zero_point}")
    table = sigmoid_table(ctx, op.opcode, q_in.zero_point, q_in.scale)
    ctx.call("usmp_lookup_s8", "usmp_lookup_s8_params", dict(size=size), input=ctx.read(op.inputs[0]),
             table=ctx.constant("table", table), output=ctx.write_in_place(op.outputs[0], op.inputs[0]))


# -- gemmlowp's fixed-point logistic and tanh on int32 raw values (see usmp_kernels/fixed_point.h,
# which has the same arithmetic in C for SOFTMAX). A Qm value is raw / 2**(31 - m).

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_EXP_MINUS_POWERS_OF_TWO = [1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242]  # exp(-2^k), k=-2..4
_EXP_MINUS_EIGHTH, _ONE_THIRD = 1895147668, 715827883
_48_OVER_17, _MINUS_32_OVER_17, _ONE_Q2 = 1515870810, -1010580540, 1 << 29


def _wrap(x: int) -> int:
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def _mul(a: int, b: int) -> int:
    """Saturating rounding doubling high multiply: round(a * b / 2**31)."""
    if a == b == _INT32_MIN:
        return _INT32_MAX
    ab = a * b
    t = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    return (abs(t) >> 31) * (1 if t >= 0 else -1)


def _rounding_divide_by_pot(x: int, exponent: int) -> int:
    mask = (1 << exponent) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if (x & mask) > threshold else 0)


def _mul_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    return _rounding_divide_by_pot(_mul(_wrap(x << max(shift, 0)), multiplier), max(-shift, 0))


def _saturating_shl(x: int, exponent: int) -> int:
    threshold = (1 << (31 - exponent)) - 1
    return _INT32_MAX if x > threshold else _INT32_MIN if x < -threshold else x << exponent


def _exp_on_negative_values(a: int, integer_bits: int) -> int:
    fractional_bits = 31 - integer_bits
    quarter = 1 << (fractional_bits - 2)
    mod_quarter = _wrap((a & (quarter - 1)) - quarter)
    remainder = _wrap(mod_quarter - a)
    x = _wrap((_saturating_shl(mod_quarter, integer_bits) if integer_bits else mod_quarter) + (1 << 28))
    x2 = _mul(x, x)
    x3, x4 = _mul(x2, x), _mul(x2, x2)
    poly = _rounding_divide_by_pot(_wrap(_mul(_wrap(_rounding_divide_by_pot(x4, 2) + x3), _ONE_THIRD) + x2), 1)
    result = _wrap(_EXP_MINUS_EIGHTH + _mul(_EXP_MINUS_EIGHTH, _wrap(x + poly)))
    for k, multiplier in enumerate(_EXP_MINUS_POWERS_OF_TWO):
        if integer_bits > k - 2 and remainder & (1 << (fractional_bits + k - 2)):
            result = _mul(result, multiplier)
    return _INT32_MAX if a == 0 else result


def _newton_reciprocal_q2(a: int) -> int:
    """1 / (1 + a) / 2 in Q2 for a in [0, 1) in Q0: three Newton-Raphson steps."""
    total = a + _INT32_MAX
    half = (total + 1) // 2 if total >= 0 else -((1 - total) // 2)  # rounding half sum of a and 1
    x = _wrap(_48_OVER_17 + _mul(half, _MINUS_32_OVER_17))
    for _ in range(3):
        x = _wrap(x + _saturating_shl(_mul(x, _wrap(_ONE_Q2 - _mul(half, x))), 2))
    return x


def _logistic(a: int, integer_bits: int) -> int:
    magnitude = a if a > 0 else -a
    positive = _saturating_shl(_newton_reciprocal_q2(_exp_on_negative_values(-magnitude, integer_bits)), 1)
    if a == 0:
        return 1 << 30
    return positive if a > 0 else _INT32_MAX - positive


def _tanh(a: int, integer_bits: int) -> int:
    non_positive = a if a < 0 else -a
    x = _newton_reciprocal_q2(_exp_on_negative_values(non_positive, integer_bits + 1))
    t = _saturating_shl(_wrap(x - _ONE_Q2), 2)
    if a == 0:
        return 0
    return -t if a < 0 else t
