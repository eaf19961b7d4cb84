"""LOG_SOFTMAX over the innermost dimension, int8 -> int8 and float32.

int8 follows TFLite Micro: differences from the row maximum are scaled by the
input scale (beta is 1) into Q5, exponentiated and summed in Q12; the output
is the Q5 difference minus log(sum), scale 16/256 and zero point 127 (TFLite
Micro requires exactly that). The exponential depends only on the difference
(0..255 steps below the maximum), so the compiler evaluates it here, with
TFLite's fixed-point arithmetic, into a table the kernel sums from. The log of
the sum depends on the whole row and stays in the kernel.
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.activations import (_exp_on_negative_values, _mul_by_quantized_multiplier,
                                        _rounding_divide_by_pot, unary_operands)
from usmp.lower.ops.common import require_quantized

INPUT_INTEGER_BITS = 5  # Q5 differences
ACCUMULATION_INTEGER_BITS = 12  # Q12 sum
OUTPUT_SCALE, OUTPUT_ZERO_POINT = 16.0 / 256, 127


def log_softmax_params(ctx, input_scale: float) -> tuple[dict, np.ndarray]:
    """TFLite's PreprocessLogSoftmaxScalingExp for beta 1, the input radius, and the exp table."""
    real = min(float(np.float32(input_scale)) * float(1 << (31 - INPUT_INTEGER_BITS)), float((1 << 31) - 1))
    if real <= 1.0:  # TFLite Micro aborts: it needs a multiplier above one
        raise ctx.fail(f"input scale {input_scale:g} is too small for the int8 kernel")
    multiplier, shift = quantize_multiplier(real)
    reverse_real = (1 << (31 - shift)) / float(multiplier)
    if not 0.0 < reverse_real < 1.0:
        raise ctx.fail(f"input scale {input_scale:g} is too small for the int8 kernel")
    reverse_multiplier, reverse_shift = quantize_multiplier(reverse_real)
    top = ((1 << INPUT_INTEGER_BITS) - 1) * (1 << (31 - INPUT_INTEGER_BITS))
    diff_min = -math.floor(top / (1 << shift))
    table = np.zeros(256, np.int32)
    for d in range(256):
        if -d >= diff_min:
            q5 = _mul_by_quantized_multiplier(-d, multiplier, shift)
            table[d] = _rounding_divide_by_pot(_exp_on_negative_values(q5, INPUT_INTEGER_BITS),
                                               ACCUMULATION_INTEGER_BITS)
    params = dict(input_multiplier=multiplier, input_left_shift=shift, reverse_multiplier=reverse_multiplier,
                  reverse_shift=reverse_shift, diff_min=diff_min)
    return params, table


@lowering("LOG_SOFTMAX")
def lower_log_softmax(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "float32")
    if tuple(inp.shape) != tuple(out.shape):
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ")
    if not inp.shape or inp.num_elements == 0:
        raise ctx.fail("needs a non-empty input with at least one dimension")
    depth = int(inp.shape[-1])
    rows = inp.num_elements // depth
    refs = dict(input=ctx.read(op.inputs[0]))
    if dtype == "float32":
        # Each row is read twice before any of it is written: in place is safe.
        ctx.call("usmp_log_softmax_f32", "usmp_log_softmax_f32_params", dict(rows=rows, depth=depth),
                 **refs, output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if np.float32(q_out.scale) != np.float32(OUTPUT_SCALE) or q_out.zero_point != OUTPUT_ZERO_POINT:
        raise ctx.fail(f"int8 output must have scale 16/256 and zero point {OUTPUT_ZERO_POINT}, "
                       f"not {q_out.scale:g} and {q_out.zero_point}")
    params, table = log_softmax_params(ctx, q_in.scale)
    ctx.call("usmp_log_softmax_s8", "usmp_log_softmax_s8_params", dict(params, rows=rows, depth=depth),
             **refs, exp_table=ctx.constant("exp_table", table), output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
