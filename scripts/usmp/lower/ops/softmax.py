"""SOFTMAX over the innermost dimension, int8 -> int8 and float32.

int8 follows TFLite Micro: differences from the row maximum are scaled by
beta * input scale into Q5 fixed point, exponentiated, summed in Q12 and
multiplied by a fixed-point reciprocal of the sum. The output must be scale
1/256 and zero point -128, as TFLite Micro requires.
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import INT8_MIN, quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.activations import unary_operands, unary_refs
from usmp.lower.ops.common import require_quantized

SCALED_DIFF_INTEGER_BITS = 5


@lowering("SOFTMAX")
def lower_softmax(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "float32")
    if not inp.shape:
        raise ctx.fail("input is a scalar; SOFTMAX needs at least one dimension")
    depth = int(inp.shape[-1])
    rows = inp.num_elements // depth if depth else 0
    beta = float(op.options.get("beta", 0.0))  # the schema default
    if dtype == "float32":
        ctx.call("usmp_softmax_f32", "usmp_softmax_f32_params", dict(rows=rows, depth=depth, beta=beta),
                 **unary_refs(op, ctx))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if q_out.zero_point != INT8_MIN or np.float32(q_out.scale) != np.float32(1.0 / 256):
        raise ctx.fail(f"int8 output must have scale 1/256 and zero point -128, "
                       f"not {q_out.scale:g} and {q_out.zero_point}")
    real = min(beta * q_in.scale * float(1 << (31 - SCALED_DIFF_INTEGER_BITS)), float((1 << 31) - 1))
    if real <= 1.0:
        raise ctx.fail(f"beta {beta:g} times input scale {q_in.scale:g} is too small for the int8 kernel")
    multiplier, shift = quantize_multiplier(real)
    top = ((1 << SCALED_DIFF_INTEGER_BITS) - 1) * (1 << (31 - SCALED_DIFF_INTEGER_BITS))
    diff_min = -math.floor(top / (1 << shift))
    params = dict(rows=rows, depth=depth, input_multiplier=multiplier, input_left_shift=shift, diff_min=diff_min)
    ctx.call("usmp_softmax_s8", "usmp_softmax_s8_params", params, **unary_refs(op, ctx))
