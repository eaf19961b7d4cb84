"""BROADCAST_TO, TILE and FILL: an output made of repeats of a smaller input.

All three are one strided copy whose input step is 0 along the repeated
dimensions, so the kernel re-reads the same elements instead of anything
being materialised. TILE splits each output dimension into (repeat, input
extent); FILL of a constant value is a plain fill. The shape operands are
constants checked here and never read at run time.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.nd_copy import copy_nd, fill, kernel_suffix, row_major_steps

TYPES = ("int8", "uint8", "bool", "int16", "int32", "float32")


def _operands(op, ctx):
    if len(op.inputs) != 2 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects two inputs and one output")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    require_dtype(ctx, inp, *TYPES)
    require_dtype(ctx, out, inp.dtype)
    return inp, out


def _shape_operand(ctx, op, position: int) -> list[int] | None:
    """The constant shape-like operand, or None when it is computed at run time (the output shape is static)."""
    tensor = ctx.tensor(op.inputs[position])
    require_dtype(ctx, tensor, "int32", "int64")
    if not tensor.is_constant:
        return None
    return [int(v) for v in tensor.data.reshape(-1)]


@lowering("BROADCAST_TO")
def lower_broadcast_to(op, ctx):
    inp, out = _operands(op, ctx)
    shape = _shape_operand(ctx, op, 1)
    if shape is not None and shape != list(out.shape):
        raise ctx.fail(f"shape operand {shape} differs from the output shape {list(out.shape)}")
    rank = len(out.shape)
    if len(inp.shape) > rank:
        raise ctx.fail(f"input {list(inp.shape)} has more dimensions than the output {list(out.shape)}")
    padded = [1] * (rank - len(inp.shape)) + list(inp.shape)
    if any(i not in (1, o) for i, o in zip(padded, out.shape)):
        raise ctx.fail(f"input {list(inp.shape)} does not broadcast to {list(out.shape)}")
    in_steps = [0 if i == 1 else s for i, s in zip(padded, row_major_steps(padded))]
    copy_nd(ctx, inp.dtype, out.shape, in_steps, row_major_steps(out.shape), ctx.read(op.inputs[0]),
            ctx.write(op.outputs[0]))


@lowering("TILE")
def lower_tile(op, ctx):
    inp, out = _operands(op, ctx)
    multiples = _shape_operand(ctx, op, 1)
    rank = len(inp.shape)
    if multiples is None:
        raise ctx.fail("multiples must be a constant")
    if len(multiples) != rank or [d * m for d, m in zip(inp.shape, multiples)] != list(out.shape):
        raise ctx.fail(f"input {list(inp.shape)} tiled by {multiples} is not the output shape {list(out.shape)}")
    in_steps, out_steps = row_major_steps(inp.shape), row_major_steps(out.shape)
    count, ins, outs = [], [], []
    for d in range(rank):  # output index along d = repeat * extent + i
        count += [multiples[d], inp.shape[d]]
        ins += [0, in_steps[d]]
        outs += [inp.shape[d] * out_steps[d], out_steps[d]]
    copy_nd(ctx, inp.dtype, count, ins, outs, ctx.read(op.inputs[0]), ctx.write(op.outputs[0]))


@lowering("FILL")
def lower_fill(op, ctx):
    if len(op.inputs) != 2 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects dims and a value, and one output")
    value, out = ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    require_dtype(ctx, value, "int8", "int32", "float32", "bool")  # TFLite Micro refuses int16
    require_dtype(ctx, out, value.dtype)
    kernel_suffix(ctx, out.dtype)
    if value.num_elements != 1:
        raise ctx.fail(f"value tensor '{value.name}' must hold one element, not {value.num_elements}")
    dims = _shape_operand(ctx, op, 0)
    if dims is not None and dims != list(out.shape):
        raise ctx.fail(f"dims {dims} differ from the output shape {list(out.shape)}")
    if value.is_constant:
        fill(ctx, out.dtype, out.num_elements, value.data.reshape(-1)[0], ctx.write(op.outputs[0]))
        return
    copy_nd(ctx, out.dtype, [out.num_elements], [0], [1], ctx.read(op.inputs[1]), ctx.write(op.outputs[0]))
