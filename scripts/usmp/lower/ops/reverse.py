"""REVERSE_V2: a strided copy walking the reversed dimensions backwards.

Constant axes are resolved here as TFLite Micro's kernel resolves them:
int32, a negative axis counts from the end once, and the sorted axes must be
neighbours (TFLite Micro refuses others). No axes at all is a plain copy.
Axes read at run time are resolved by usmp_reverse_dynamic_x*, which turns
the steps around before the same walk.
"""
from __future__ import annotations

from usmp.ir.graph import element_size
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.nd_copy import ND_DIMS, pad_dims, row_major_steps
from usmp.lower.ops.slice import strided_copy

REVERSE_TYPES = ("float32", "int32", "uint8", "int8", "int16", "int64", "bool")


def reversed_axes(ctx, axes, rank: int) -> list[int]:
    resolved = []
    for a in axes:
        axis = a + rank if a < 0 else a
        if not 0 <= axis < rank:
            raise ctx.fail(f"axis {a} is outside a {rank}-D input")
        resolved.append(axis)
    resolved.sort()
    if any(b != a + 1 for a, b in zip(resolved, resolved[1:])):
        raise ctx.fail(f"axes {list(axes)} are not neighbouring dimensions, which TFLite Micro does not support")
    return resolved


@lowering("REVERSE_V2")
def lower_reverse(op, ctx):
    if len(op.inputs) != 2 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects an input, an axis tensor and one output")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *REVERSE_TYPES)
    require_dtype(ctx, out, dtype)
    rank = len(inp.shape)
    if rank > ND_DIMS:
        raise ctx.fail(f"input has {rank} dimensions; at most {ND_DIMS} are supported")
    if list(out.shape) != list(inp.shape):
        raise ctx.fail(f"output shape {list(out.shape)} differs from input shape {list(inp.shape)}")
    axis_t = ctx.tensor(op.inputs[1])
    require_dtype(ctx, axis_t, "int32")
    if len(axis_t.shape) != 1 or axis_t.num_elements > rank:
        raise ctx.fail(f"axis tensor '{axis_t.name}' has shape {list(axis_t.shape)}; expected at most {rank} axes")
    if not axis_t.is_constant:
        _reverse_at_run_time(op, ctx, dtype, [int(d) for d in inp.shape], axis_t.num_elements)
        return
    axes = reversed_axes(ctx, [int(v) for v in axis_t.data.reshape(-1)], rank)
    steps = row_major_steps(inp.shape)
    in_steps = [-s if d in axes else s for d, s in enumerate(steps)]
    in_offset = sum((int(inp.shape[d]) - 1) * steps[d] for d in axes)
    strided_copy(ctx, dtype, list(inp.shape), in_steps, steps, ctx.read(op.inputs[0]), ctx.write(op.outputs[0]),
                 in_offset=in_offset)


def _reverse_at_run_time(op, ctx, dtype: str, shape: list[int], axes: int) -> None:
    words = [2] if element_size(dtype) == 8 else []  # int64 moves as two 32-bit words
    count = shape + words
    if len(count) > ND_DIMS:
        raise ctx.fail(f"a {len(shape)}-D {dtype} input with axes read at run time needs {len(count)} dimensions; "
                       f"at most {ND_DIMS} are supported")
    if 0 in shape:
        return
    bits = 32 if words else 8 * element_size(dtype)
    ctx.call(f"usmp_reverse_dynamic_x{bits}", "usmp_reverse_dynamic_params",
             dict(count=pad_dims(count, 1), step=pad_dims(row_major_steps(count), 0), rank=len(shape),
                  first_axis=ND_DIMS - len(count), axes=axes),
             input=ctx.read(op.inputs[0]), axis=ctx.read(op.inputs[1]), output=ctx.write(op.outputs[0]))
