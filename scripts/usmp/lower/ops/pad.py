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


@lowering("MIRROR_PAD")
def lower_mirror_pad(op, ctx):
    """Copy the input into the interior, then mirror one dimension at a time, output to output.

    When dimension d is mirrored, the dimensions before it already span the
    whole output and those after it only the interior, so each side of each
    dimension is one copy with a negative input step (REFLECT leaves the edge
    element out, SYMMETRIC repeats it).
    """
    inp, out, dtype = copy_operands(ctx, op, ("int8", "float32"))  # as TFLite Micro
    rank = len(inp.shape)
    paddings = require_constant(ctx, op, 1)
    require_dtype(ctx, paddings, "int32", "int64")
    pads = np.asarray(paddings.data).astype(np.int64).reshape(-1)
    mode = int(op.options.get("mode", 0))  # 0 REFLECT, 1 SYMMETRIC
    if mode not in (0, 1):
        raise ctx.fail(f"mode {mode} is neither REFLECT (0) nor SYMMETRIC (1)")
    if pads.size != 2 * rank or len(out.shape) != rank:
        raise ctx.fail(f"paddings of shape {list(paddings.shape)} do not match a {rank}-D input "
                       f"and {len(out.shape)}-D output")
    before, after = [int(v) for v in pads[0::2]], [int(v) for v in pads[1::2]]
    limit = [d - 1 if mode == 0 else d for d in inp.shape]
    if any(p < 0 or p > lim for p, lim in zip(before + after, limit + limit)):
        bound = "size - 1" if mode == 0 else "size"
        raise ctx.fail(f"paddings {pads.reshape(rank, 2).tolist()} must lie in [0, {bound}] for input "
                       f"{list(inp.shape)} in {'REFLECT' if mode == 0 else 'SYMMETRIC'} mode")
    expected = [d + b + a for d, b, a in zip(inp.shape, before, after)]
    if expected != list(out.shape):
        raise ctx.fail(f"input {list(inp.shape)} padded by {pads.reshape(rank, 2).tolist()} is {expected}, "
                       f"but the output is {list(out.shape)}")
    output = ctx.write(op.outputs[0])
    steps = row_major_steps(out.shape)
    copy_nd(ctx, dtype, inp.shape, row_major_steps(inp.shape), steps, ctx.read(op.inputs[0]), output,
            out_offset=sum(b * s for b, s in zip(before, steps)))
    skip = 1 if mode == 0 else 0  # REFLECT does not repeat the edge
    for d in range(rank):
        count = list(out.shape[:d]) + [0] + list(inp.shape[d + 1:])
        base = sum(b * s for b, s in zip(before[d + 1:], steps[d + 1:]))  # interior start of the later dimensions
        src_steps = steps[:d] + [-steps[d]] + steps[d + 1:]
        n, lo = inp.shape[d], before[d]
        for pad, first_out, first_in in ((lo, 0, 2 * lo - 1 + skip), (after[d], lo + n, lo + n - 1 - skip)):
            count[d] = pad
            copy_nd(ctx, dtype, count, src_steps, steps, ctx.read(op.outputs[0]), output,
                    in_offset=base + first_in * steps[d], out_offset=base + first_out * steps[d])
