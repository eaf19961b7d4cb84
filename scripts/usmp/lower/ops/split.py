"""SPLIT, SPLIT_V and UNPACK: one input cut into several outputs along an axis.

Each output is one strided copy of its slab of the input (UNPACK's outputs
are slabs of extent 1 with the axis dropped). The axis and the split sizes
are constants read here, never at run time.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype
from usmp.lower.ops.nd_copy import ND_DIMS, copy_nd, row_major_steps

TYPES = ("int8", "int16", "int32", "float32")


def _axis_of(ctx, value: int, rank: int, what: str) -> int:
    axis = value + rank if value < 0 else value
    if not 0 <= axis < rank:
        raise ctx.fail(f"{what} {value} is out of range for a {rank}-D input")
    return axis


def split_outputs(op, ctx, data_index: int, axis: int, sizes: list[int], drop_axis: bool = False) -> None:
    """Copy consecutive slabs of `sizes` along `axis` into the operator's outputs (UNPACK: axis dropped)."""
    inp = ctx.tensor(data_index)
    if sum(sizes) != inp.shape[axis]:
        raise ctx.fail(f"split sizes {sizes} do not add up to the input's extent {inp.shape[axis]} along axis {axis}")
    in_steps = row_major_steps(inp.shape)
    start = 0
    for index, size in zip(op.outputs, sizes):
        out = ctx.tensor(index)
        require_dtype(ctx, out, inp.dtype)
        count = list(inp.shape)
        count[axis] = size
        expected = count[:axis] + count[axis + 1:] if drop_axis else count
        if list(out.shape) != expected:
            raise ctx.fail(f"output '{out.name}' has shape {list(out.shape)}; the slab is {expected}")
        copy_nd(ctx, inp.dtype, count, in_steps, row_major_steps(count), ctx.read(data_index), ctx.write(index),
                in_offset=start * in_steps[axis])
        start += size


def _data(ctx, op, position: int):
    inp = ctx.tensor(op.inputs[position])
    require_dtype(ctx, inp, *TYPES)
    if len(inp.shape) > ND_DIMS:
        raise ctx.fail(f"input has {len(inp.shape)} dimensions; at most {ND_DIMS} are supported")
    return inp


def _constant_axis(ctx, op, position: int, rank: int) -> int:
    tensor = require_constant(ctx, op, position)
    require_dtype(ctx, tensor, "int32")
    if tensor.num_elements != 1:
        raise ctx.fail(f"axis tensor '{tensor.name}' must hold one value, not {tensor.num_elements}")
    return _axis_of(ctx, int(tensor.data.reshape(-1)[0]), rank, "axis")


@lowering("SPLIT")
def lower_split(op, ctx):
    if len(op.inputs) != 2 or op.inputs[1] is None:
        raise ctx.fail("expects an axis and a data input")
    inp = _data(ctx, op, 1)
    axis = _constant_axis(ctx, op, 0, len(inp.shape))
    parts = len(op.outputs)
    if inp.shape[axis] % parts:
        raise ctx.fail(f"extent {inp.shape[axis]} along axis {axis} does not split into {parts} equal parts")
    split_outputs(op, ctx, op.inputs[1], axis, [inp.shape[axis] // parts] * parts)


@lowering("SPLIT_V")
def lower_split_v(op, ctx):
    if len(op.inputs) != 3 or None in op.inputs:
        raise ctx.fail("expects a data input, size_splits and an axis")
    inp = _data(ctx, op, 0)
    axis = _constant_axis(ctx, op, 2, len(inp.shape))
    sizes_tensor = require_constant(ctx, op, 1)
    require_dtype(ctx, sizes_tensor, "int32", "int64")
    sizes = [int(v) for v in sizes_tensor.data.reshape(-1)]
    if len(sizes) != len(op.outputs):
        raise ctx.fail(f"size_splits has {len(sizes)} entries for {len(op.outputs)} outputs")
    if sizes.count(-1) == 1:  # one size may be inferred
        sizes[sizes.index(-1)] = inp.shape[axis] - (sum(sizes) + 1)
    if any(s < 0 for s in sizes):
        raise ctx.fail(f"size_splits {sizes} contain a negative size")
    split_outputs(op, ctx, op.inputs[0], axis, sizes)


@lowering("UNPACK")
def lower_unpack(op, ctx):
    inp = _data(ctx, op, 0)
    axis = _axis_of(ctx, int(op.options.get("axis", 0)), len(inp.shape), "axis")
    if len(op.outputs) != inp.shape[axis]:
        raise ctx.fail(f"has {len(op.outputs)} outputs for an extent of {inp.shape[axis]} along axis {axis}")
    split_outputs(op, ctx, op.inputs[0], axis, [1] * inp.shape[axis], drop_axis=True)
