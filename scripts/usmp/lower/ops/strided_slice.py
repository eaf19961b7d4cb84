"""STRIDED_SLICE with constant begin/end/strides: one strided copy.

Per input dimension the visited indices are range(start, stop, stride), with
start and stop resolved exactly as TFLite's reference kernel resolves them
(negative indices wrap once, then clamp; begin_mask/end_mask take the whole
extent; shrink_axis_mask takes the single element at begin). The ellipsis and
new-axis masks and the `offset` option are not handled by TFLite Micro either
and are rejected. (SLICE, with begin and size, is lower/ops/slice.py.)
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype
from usmp.lower.ops.nd_copy import ND_DIMS, copy_nd, copy_operands, row_major_steps


def _clamp(v: int, lo: int, hi: int) -> int:
    return hi if v > hi else (lo if v < lo else v)


def resolve_axis(size: int, begin: int, end: int, stride: int, begin_masked: bool, end_masked: bool,
                 shrink: bool) -> tuple[int, int]:
    """(start, stop) of one axis, as TFLite's StridedSlice evaluates them."""
    start = begin + size if begin < 0 else begin
    start = _clamp(start, 0, size) if stride > 0 else _clamp(start, -1, size - 1)
    if begin_masked:
        start = 0 if stride > 0 else size - 1
    if shrink:
        return start, (start if start >= size else start + 1)
    stop = end + size if end < 0 else end
    stop = _clamp(stop, 0, size) if stride > 0 else _clamp(stop, -1, size - 1)
    if end_masked:
        stop = size if stride > 0 else -1
    return start, stop


def slice_axes(shape, begin, end, strides, begin_mask: int, end_mask: int, shrink_mask: int):
    """Per axis (start, count, stride) and the output shape with shrunk axes removed."""
    axes, out_shape = [], []
    for d, size in enumerate(shape):
        shrink = bool(shrink_mask >> d & 1)
        start, stop = resolve_axis(int(size), int(begin[d]), int(end[d]), int(strides[d]),
                                   bool(begin_mask >> d & 1), bool(end_mask >> d & 1), shrink)
        count = len(range(start, stop, int(strides[d])))
        axes.append((start, count, int(strides[d])))
        if not shrink:
            out_shape.append(count)
    return axes, out_shape


@lowering("STRIDED_SLICE")
def lower_strided_slice(op, ctx):
    inp, out, dtype = copy_operands(ctx, op, ("int8", "int16", "int32", "float32", "bool"))
    o = op.options
    for mask in ("ellipsis_mask", "new_axis_mask"):
        if o.get(mask, 0):
            raise ctx.fail(f"{mask} {o[mask]:#x} is not supported (TFLite Micro ignores it); "
                           "only begin_mask, end_mask and shrink_axis_mask are")
    if o.get("offset", False):
        raise ctx.fail("the offset option (end relative to begin) is not supported")
    rank = len(inp.shape)
    if rank > ND_DIMS:
        raise ctx.fail(f"input has {rank} dimensions; at most {ND_DIMS} are supported")
    for k in (1, 2, 3):  # float indices would be cast (NaN included) without a word
        require_dtype(ctx, require_constant(ctx, op, k), "int32", "int64")
    begin, end, strides = (np.asarray(require_constant(ctx, op, k).data).reshape(-1).astype(np.int64) for k in (1, 2, 3))
    if not len(begin) == len(end) == len(strides) == rank:
        raise ctx.fail(f"begin/end/strides have {len(begin)}/{len(end)}/{len(strides)} entries for a {rank}-D input")
    if np.any(strides == 0):
        raise ctx.fail(f"strides {strides.tolist()} contain 0")
    axes, out_shape = slice_axes(inp.shape, begin, end, strides, int(o.get("begin_mask", 0)),
                                 int(o.get("end_mask", 0)), int(o.get("shrink_axis_mask", 0)))
    if out_shape != list(out.shape):
        raise ctx.fail(f"slicing {list(inp.shape)} gives shape {out_shape}, but the output is {list(out.shape)}")
    counts = [count for _, count, _ in axes]
    if int(np.prod(counts)) != out.num_elements:
        raise ctx.fail(f"slicing {list(inp.shape)} selects {int(np.prod(counts))} elements, "
                       f"but the output holds {out.num_elements}")
    in_steps = row_major_steps(inp.shape)
    copy_nd(ctx, dtype, counts, [stride * step for (_, _, stride), step in zip(axes, in_steps)],
            row_major_steps(counts), ctx.read(op.inputs[0]), ctx.write(op.outputs[0]),
            in_offset=sum(start * step for (start, _, _), step in zip(axes, in_steps)))
