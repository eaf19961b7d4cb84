"""SELECT_V2: output = condition ? x : y, the three inputs broadcast to the output.

TFLite Micro supports x and y of int8, int16 and float32 (values copied as
they are) and broadcasts all three inputs at once. broadcast_walk
(elementwise.py) walks two inputs; the walk here is its three-input
counterpart, kept simple: one loop per output dimension longer than 1,
without merging dimensions.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.arith_binary import SUFFIX
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.elementwise import MAX_RANK


def select_walk(ctx, shapes, out_shape) -> dict:
    """Kernel params rank/shape/stride_condition/stride_x/stride_y walking out_shape over the three inputs."""
    rank = max(len(out_shape), *(len(s) for s in shapes))
    padded = [[1] * (rank - len(s)) + list(s) for s in shapes]
    out = [1] * (rank - len(out_shape)) + list(out_shape)
    for *ins, extent in zip(*padded, out):
        if extent != max(ins) or any(d not in (1, extent) for d in ins):
            raise ctx.fail(f"shapes {' and '.join(str(list(s)) for s in shapes)} do not broadcast "
                           f"to the output shape {list(out_shape)}")
    strides = []
    for shape in padded:
        step, row = 1, []
        for extent in reversed(shape):
            row.append(0 if extent == 1 else step)
            step *= extent
        strides.append(row[::-1])
    kept = [d for d in range(rank) if out[d] != 1]
    if not kept:  # one element
        out, strides, kept = [1], [[0], [0], [0]], [0]
    pad = MAX_RANK - len(kept)
    return dict(rank=len(kept), shape=[out[d] for d in kept] + [1] * pad,
                stride_condition=[strides[0][d] for d in kept] + [0] * pad,
                stride_x=[strides[1][d] for d in kept] + [0] * pad,
                stride_y=[strides[2][d] for d in kept] + [0] * pad)


@lowering("SELECT_V2")
def lower_select_v2(op, ctx):
    if len(op.inputs) != 3 or any(i is None for i in op.inputs):
        raise ctx.fail("needs exactly three inputs (condition, x, y)")
    condition, x, y = (ctx.tensor(i) for i in op.inputs)
    out = ctx.tensor(op.outputs[0])
    require_dtype(ctx, condition, "bool")
    dtype = require_dtype(ctx, x, "int8", "int16", "float32")
    require_dtype(ctx, y, dtype)
    require_dtype(ctx, out, dtype)
    walk = select_walk(ctx, [condition.shape, x.shape, y.shape], out.shape)
    refs = dict(condition=ctx.read(op.inputs[0]), x=ctx.read(op.inputs[1]), y=ctx.read(op.inputs[2]))
    for position in (1, 2):  # element i of a full-shape x or y is read before element i is written
        if ctx.can_write_in_place(op.outputs[0], op.inputs[position]):
            refs["output"] = ctx.write_in_place(op.outputs[0], op.inputs[position])
            break
    else:
        refs["output"] = ctx.write(op.outputs[0])
    ctx.call(f"usmp_select_{SUFFIX[dtype]}", "usmp_select_params", walk, **refs)
