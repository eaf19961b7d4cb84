"""PAD and PADV2: fill the output with the pad value, then copy the input into its interior.

The pad value is what TFLite Micro uses: 0 for float and int32 PAD, the
output zero point for int8 and int16 PAD (real 0; int16 is symmetric, so 0),
and the raw constant_values element for PADV2 (quantized: it must carry the
output's quantization, as TFLM requires).
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import optional_input, require_constant, require_dtype, require_quantized
from usmp.lower.ops.nd_copy import copy_nd, copy_operands, fill, row_major_steps


@lowering("PAD", "PADV2")
def lower_pad(op, ctx):
    inp, out, dtype = copy_operands(ctx, op, ("int8", "int16", "int32", "float32"))
    rank = len(inp.shape)
    paddings = require_constant(ctx, op, 1)
    require_dtype(ctx, paddings, "int32", "int64")  # float paddings would be cast without a word
    pads = np.asarray(paddings.data).astype(np.int64).reshape(-1)
    if pads.size != 2 * rank or len(out.shape) != rank:
        raise ctx.fail(f"paddings of shape {list(paddings.shape)} do not match a {rank}-D input and {len(out.shape)}-D output")
    before, after = pads[0::2], pads[1::2]
    if np.any(before < 0) or np.any(after < 0):
        raise ctx.fail(f"negative paddings {pads.reshape(rank, 2).tolist()} are not supported")
    expected = [int(d + b + a) for d, b, a in zip(inp.shape, before, after)]
    if expected != list(out.shape):
        raise ctx.fail(f"input {list(inp.shape)} padded by {pads.reshape(rank, 2).tolist()} is {expected}, "
                       f"but the output is {list(out.shape)}")
    value = _pad_value(op, ctx, dtype, out)
    output = ctx.write(op.outputs[0])
    if out.num_elements != inp.num_elements:
        fill(ctx, dtype, out.num_elements, value, output)
    out_steps = row_major_steps(out.shape)
    copy_nd(ctx, dtype, inp.shape, row_major_steps(inp.shape), out_steps, ctx.read(op.inputs[0]), output,
            out_offset=sum(int(b) * s for b, s in zip(before, out_steps)))


def _pad_value(op, ctx, dtype, out):
    constant_index = optional_input(op, 2)
    if constant_index is None:
        return require_quantized(ctx, out).zero_point if dtype in ("int8", "int16") else 0
    constant = require_constant(ctx, op, 2)
    require_dtype(ctx, constant, dtype)
    if constant.num_elements != 1:
        raise ctx.fail(f"constant_values tensor '{constant.name}' must hold one value, not {constant.num_elements}")
    if dtype in ("int8", "int16"):
        q_c, q_out = require_quantized(ctx, constant), require_quantized(ctx, out)
        if np.float32(q_c.scale) != np.float32(q_out.scale) or q_c.zero_point != q_out.zero_point:
            raise ctx.fail(f"constant_values tensor '{constant.name}' must have the output's scale and zero point")
    return constant.data.reshape(-1)[0]
