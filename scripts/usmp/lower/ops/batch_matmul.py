"""BATCH_MATMUL: out[..., i, j] = sum_k lhs[..., i, k] * rhs[..., k, j], batches broadcast.

adj_x / adj_y say an operand is stored transposed; the kernel takes any
element step along rows, columns and depth, so activations are read where
they lie. A constant operand is transposed here instead, so that its depth
step is 1 (the converter's usual constant rhs is stored [K, N]).

Types as TFLite Micro: float32; int8 (zero points on both operands, one
rescale); int16 with zero points 0, whose 64-bit sums TFLite rescales with a
multiplier rounded to 16 bits (wide_requantization, shared with
TRANSPOSE_CONV's 16x8 path).
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import INT16_MAX, INT16_MIN
from usmp.lower.ops import hybrid, lowering
from usmp.lower.ops.common import per_channel_requantization, require_dtype, require_quantized
from usmp.lower.ops.elementwise import broadcast_walk

BATCH_DIMS = 4  # USMP_MATMUL_BATCH_DIMS in usmp_kernels/batch_matmul.h


def wide_requantization(ctx, multiplier: int, shift: int) -> tuple[int, int]:
    """(16-bit multiplier, right shift): how TFLite rescales a 64-bit sum by multiplier * 2^(shift - 31)."""
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    right_shift = 15 - shift
    if right_shift < 1:
        raise ctx.fail(f"a rescale factor of 2^{shift - 1} or more is beyond the 16-bit kernels")
    return reduced, right_shift


def _operand(ctx, tensor_index: int, depth_last: bool, what: str):
    """(ref, step between lhs rows or rhs columns, step along the depth) of one operand.

    depth_last: the operand is stored [..., outer, depth] (lhs without adj_x,
    rhs with adj_y). A constant stored the other way round is transposed here.
    """
    tensor = ctx.tensor(tensor_index)
    if depth_last:
        return ctx.read(tensor_index), tensor.shape[-1], 1
    outer, depth = tensor.shape[-1], tensor.shape[-2]
    if tensor.is_constant:
        data = np.ascontiguousarray(np.swapaxes(tensor.data, -1, -2))
        return ctx.constant(f"{what}_transposed", data), depth, 1
    return ctx.read(tensor_index), 1, outer


@lowering("BATCH_MATMUL")
def lower_batch_matmul(op, ctx):
    if len(op.inputs) != 2 or any(i is None for i in op.inputs):
        raise ctx.fail("needs exactly two inputs")
    lhs, rhs, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    if hybrid.is_hybrid(ctx, op):  # float lhs, int8 constant rhs
        hybrid.lower_batch_matmul(op, ctx)
        return
    dtype = require_dtype(ctx, lhs, "int8", "int16", "float32")
    require_dtype(ctx, rhs, dtype)
    require_dtype(ctx, out, dtype)
    for tensor, what in ((lhs, "lhs"), (rhs, "rhs")):
        if not 2 <= len(tensor.shape) <= 5:
            raise ctx.fail(f"{what} tensor '{tensor.name}' must have 2 to 5 dimensions, not {list(tensor.shape)}")
    adj_x, adj_y = bool(op.options.get("adj_x", False)), bool(op.options.get("adj_y", False))
    rows, depth = (lhs.shape[-1], lhs.shape[-2]) if adj_x else (lhs.shape[-2], lhs.shape[-1])
    rhs_depth, cols = (rhs.shape[-1], rhs.shape[-2]) if adj_y else (rhs.shape[-2], rhs.shape[-1])
    if depth != rhs_depth:
        raise ctx.fail(f"lhs {list(lhs.shape)} (adj_x {adj_x}) and rhs {list(rhs.shape)} (adj_y {adj_y}) "
                       f"disagree on the summed dimension: {depth} and {rhs_depth}")
    if len(out.shape) < 2 or tuple(out.shape[-2:]) != (rows, cols):
        raise ctx.fail(f"output shape {list(out.shape)} does not end in [{rows}, {cols}]")
    walk = broadcast_walk(ctx, lhs.shape[:-2], rhs.shape[:-2], out.shape[:-2])
    rank = walk["rank"]
    if rank > BATCH_DIMS:
        raise ctx.fail(f"the batch dimensions need {rank} loops; at most {BATCH_DIMS} are supported")
    pad = [0] * (BATCH_DIMS - rank)
    lhs_ref, lhs_row_step, lhs_depth_step = _operand(ctx, op.inputs[0], not adj_x, "lhs")
    rhs_ref, rhs_col_step, rhs_depth_step = _operand(ctx, op.inputs[1], adj_y, "rhs")
    params = dict(
        batch_count=[1] * len(pad) + walk["shape"][:rank],
        lhs_batch_step=pad + [s * rows * depth for s in walk["stride1"][:rank]],
        rhs_batch_step=pad + [s * depth * cols for s in walk["stride2"][:rank]],
        rows=rows, cols=cols, depth=depth, lhs_row_step=lhs_row_step, lhs_depth_step=lhs_depth_step,
        rhs_col_step=rhs_col_step, rhs_depth_step=rhs_depth_step,
        lhs_offset=0, rhs_offset=0, output_offset=0, multiplier=0, shift=0, act_min=0, act_max=0,
    )
    refs = dict(lhs=lhs_ref, rhs=rhs_ref, output=ctx.write(op.outputs[0]))
    if dtype == "float32":
        ctx.call("usmp_batch_matmul_f32", "usmp_batch_matmul_params", params, **refs)
        return
    q_l, q_r, q_o = require_quantized(ctx, lhs), require_quantized(ctx, rhs), require_quantized(ctx, out)
    multipliers, shifts = per_channel_requantization(q_l.scale, [q_r.scale], q_o.scale)
    multiplier, shift = int(multipliers[0]), int(shifts[0])
    if dtype == "int8":
        params.update(lhs_offset=-q_l.zero_point, rhs_offset=-q_r.zero_point, output_offset=q_o.zero_point,
                      multiplier=multiplier, shift=shift, act_min=-128, act_max=127)
        ctx.call("usmp_batch_matmul_s8", "usmp_batch_matmul_params", params, **refs)
        return
    for tensor, q in ((lhs, q_l), (rhs, q_r), (out, q_o)):
        if q.zero_point != 0:
            raise ctx.fail(f"int16 tensor '{tensor.name}' has zero point {q.zero_point}; int16 needs 0")
    reduced, right_shift = wide_requantization(ctx, multiplier, shift)
    params.update(multiplier=reduced, shift=right_shift, act_min=INT16_MIN, act_max=INT16_MAX)
    ctx.call("usmp_batch_matmul_s16", "usmp_batch_matmul_params", params, **refs)
