"""SOFTMAX over the innermost dimension, int8 -> int8, int8 -> int16, int16 -> int16 and float32.

int8 follows TFLite Micro: differences from the row maximum are scaled by
beta * input scale into Q5 fixed point, exponentiated, summed in Q12 and
multiplied by a fixed-point reciprocal of the sum. The output must be scale
1/256 and zero point -128, as TFLite Micro requires (int16 outputs of int8
inputs: 1/65536 and -32768, the same arithmetic with 8 more bits).
int16 inputs: differences are scaled onto [-10, 0] in 65535 steps, exp and the
reciprocal of the sum come from TFLite's two interpolated tables (built here,
int16_tables.py); zero points 0 and an output scale of 2^-15 (within 0.1%).
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import INT8_MIN, INT16_MIN, quantize_multiplier
from usmp.lower.ops import asymmetric, lowering
from usmp.lower.ops.activations import unary_operands, unary_refs
from usmp.lower.ops.common import require_quantized
from usmp.lower.ops.int16_tables import require_zero_point_0, softmax_tables

SCALED_DIFF_INTEGER_BITS = 5
INT16_EXP_RANGE = 10.0 / 65535.0  # one step of the int16 kernel's scaled differences
MAX_INT16_DEPTH = 65536  # longer rows could overflow the int32 sum of Q15 exps


@lowering("SOFTMAX")
def lower_softmax(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    widening = inp.dtype == "int8" and out.dtype == "int16"  # TFLite Micro's int8 -> int16
    if widening and inp.num_elements != out.num_elements:
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ in size")
    dtype = "int8" if widening else unary_operands(op, ctx, "int8", "int16", "float32")[2]
    if not inp.shape:
        raise ctx.fail("input is a scalar; SOFTMAX needs at least one dimension")
    depth = int(inp.shape[-1])
    rows = inp.num_elements // depth if depth else 0
    beta = float(op.options.get("beta", 0.0))  # the schema default
    if dtype == "float32":
        ctx.call("usmp_softmax_f32", "usmp_softmax_f32_params", dict(rows=rows, depth=depth, beta=beta),
                 **unary_refs(op, ctx))
        return
    if asymmetric.is_uint8(op) and not widening:  # LiteRT's uint8 softmax: a float table
        asymmetric.lower_softmax(op, ctx, rows, depth, beta)
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if dtype == "int16":
        _lower_softmax_s16(op, ctx, inp, out, q_in, q_out, rows, depth, beta)
        return
    if widening:
        if q_out.zero_point != INT16_MIN or not _near(q_out.scale, 1.0 / 65536):
            raise ctx.fail(f"int16 output of an int8 input must have scale 1/65536 (within 0.1%) and zero point "
                           f"-32768, not {q_out.scale:g} and {q_out.zero_point}")
    elif q_out.zero_point != INT8_MIN or np.float32(q_out.scale) != np.float32(1.0 / 256):
        raise ctx.fail(f"int8 output must have scale 1/256 and zero point -128, "
                       f"not {q_out.scale:g} and {q_out.zero_point}")
    real = min(beta * q_in.scale * float(1 << (31 - SCALED_DIFF_INTEGER_BITS)), float((1 << 31) - 1))
    if real <= 1.0:
        raise ctx.fail(f"beta {beta:g} times input scale {q_in.scale:g} is too small for the int8 kernel")
    multiplier, shift = quantize_multiplier(real)
    top = ((1 << SCALED_DIFF_INTEGER_BITS) - 1) * (1 << (31 - SCALED_DIFF_INTEGER_BITS))
    diff_min = -math.floor(top / (1 << shift))
    params = dict(rows=rows, depth=depth, input_multiplier=multiplier, input_left_shift=shift, diff_min=diff_min)
    if widening:
        ctx.call("usmp_softmax_s8_s16", "usmp_softmax_s8_params", params, input=ctx.read(op.inputs[0]),
                 output=ctx.write(op.outputs[0]))
    else:
        ctx.call("usmp_softmax_s8", "usmp_softmax_s8_params", params, **unary_refs(op, ctx))


def _near(scale: float, target: float) -> bool:
    """TFLite's TF_LITE_ENSURE_NEAR on a float scale: within 0.1% of target."""
    f = np.float32
    return bool(abs(f(scale) - f(target)) <= f(0.001) * f(target))


def _lower_softmax_s16(op, ctx, inp, out, q_in, q_out, rows: int, depth: int, beta: float):
    require_zero_point_0(ctx, inp, q_in)
    require_zero_point_0(ctx, out, q_out)
    if not _near(q_out.scale, 1.0 / 32768):
        raise ctx.fail(f"int16 output '{out.name}' must have scale 2^-15 (within 0.1%), not {q_out.scale:g}")
    if depth > MAX_INT16_DEPTH:
        raise ctx.fail(f"rows of {depth} values are longer than the {MAX_INT16_DEPTH} the int16 kernel sums")
    multiplier, shift = quantize_multiplier(float(np.float32(q_in.scale)) * float(np.float32(beta)) / INT16_EXP_RANGE)
    exp_table, reciprocal_table = softmax_tables()
    params = dict(rows=rows, depth=depth, input_multiplier=multiplier, input_shift=shift)
    ctx.call("usmp_softmax_s16", "usmp_softmax_s16_params", params, input=ctx.read(op.inputs[0]),
             exp_table=ctx.constant("exp_table", exp_table),
             reciprocal_table=ctx.constant("reciprocal_table", reciprocal_table),
             output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
