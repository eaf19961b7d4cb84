"""RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH on int8 and float32.

What TFLite Micro computes for int8, and so what these lowerings ask for:
- RELU requantizes from the input to the output quantization, then clamps
  below at the output's zero (the int8 requantize kernel with a clamp).
- RELU6 clamps in the *input* quantization to [zero, six] and ignores the
  output's quantization parameters.
- LEAKY_RELU rescales positive inputs by in/out scale and negative ones by
  alpha * in/out scale.
- LOGISTIC and TANH rescale the input to Q4 fixed point and evaluate
  gemmlowp's fixed-point logistic/tanh (kernels/include/usmp_kernels/fixed_point.h);
  outputs are scale 1/256 zero point -128 (LOGISTIC) and 1/128, 0 (TANH).
Multipliers are computed in double and RELU6's bound in float: that is what
the tflite-micro reference does (tests/test_ops_elementwise.py has scales on
which float and double disagree).
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import FLOAT_MAX, INT8_MAX, INT8_MIN, quantize_multiplier, round_half_away
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype, require_quantized

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
    return dict(input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))


def f32_ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator in single precision (a C float division)."""
    return float(np.float32(numerator) / np.float32(denominator))


@lowering("RELU", "RELU6")
def lower_relu(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "float32")
    size = out.num_elements
    upper = 6.0 if op.opcode == "RELU6" else FLOAT_MAX
    if dtype == "float32":
        ctx.call("usmp_relu_f32", "usmp_relu_f32_params", dict(size=size, lo=0.0, hi=upper), **unary_refs(op, ctx))
        return
    q_in = require_quantized(ctx, inp)
    if op.opcode == "RELU6":
        six = round_half_away(f32_ratio(6.0, q_in.scale)) + q_in.zero_point
        params = dict(size=size, lo=q_in.zero_point, hi=min(max(six, INT8_MIN), INT8_MAX))
        ctx.call("usmp_relu6_s8", "usmp_relu6_s8_params", params, **unary_refs(op, ctx))
        return
    q_out = require_quantized(ctx, out)
    multiplier, shift = quantize_multiplier(q_in.scale / q_out.scale)
    params = dict(size=size, input_zero_point=q_in.zero_point, output_zero_point=q_out.zero_point,
                  multiplier=multiplier, shift=shift, act_min=max(INT8_MIN, q_out.zero_point), act_max=INT8_MAX)
    ctx.call("usmp_requantize_s8", "usmp_requantize_s8_params", params, **unary_refs(op, ctx))


@lowering("LEAKY_RELU")
def lower_leaky_relu(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "float32")
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
    ctx.call("usmp_leaky_relu_s8", "usmp_leaky_relu_s8_params", params, **unary_refs(op, ctx))


def sigmoid_input_params(ctx, scale: float) -> dict:
    """Rescale of an int8 input to Q4 and the radius beyond which the output saturates."""
    real = scale * float(1 << (31 - SIGMOID_INPUT_INTEGER_BITS))
    fraction, shift = math.frexp(real)
    if not 0 <= shift <= 31:
        raise ctx.fail(f"input scale {scale:g} is outside the range the int8 kernel supports")
    multiplier = round_half_away(fraction * (1 << 31))
    top = ((1 << SIGMOID_INPUT_INTEGER_BITS) - 1) * (1 << (31 - SIGMOID_INPUT_INTEGER_BITS))
    return dict(input_multiplier=multiplier, input_shift=shift, input_range_radius=math.floor(top / (1 << shift)))


@lowering("LOGISTIC", "TANH")
def lower_sigmoid(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "float32")
    name = op.opcode.lower()
    size = out.num_elements
    if dtype == "float32":
        ctx.call(f"usmp_{name}_f32", "usmp_unary_f32_params", dict(size=size), **unary_refs(op, ctx))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if op.opcode == "LOGISTIC" and q_out.zero_point != INT8_MIN:
        raise ctx.fail(f"int8 output zero point must be -128, not {q_out.zero_point}")
    params = dict(size=size, input_zero_point=q_in.zero_point, **sigmoid_input_params(ctx, q_in.scale))
    ctx.call(f"usmp_{name}_s8", "usmp_sigmoid_s8_params", params, **unary_refs(op, ctx))
