"""GATHER and GATHER_ND: slices of the input picked by an int32 index tensor.

The indices may be computed at run time, so the kernels read them; an index
outside the input makes TFLite Micro fail the invoke, and the kernels write a
zero slice there instead of reading outside the input. Constant int64
indices are narrowed to int32 here (TFLite Micro takes int32 only). Sizes and
strides are worked out at compile time.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.nd_copy import ND_DIMS, kernel_suffix, row_major_steps

TYPES = ("int8", "uint8", "bool", "int16", "int32", "float32")


def _operands(op, ctx):
    if len(op.inputs) != 2 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects an input, an index tensor and one output")
    inp, indices, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    require_dtype(ctx, inp, *TYPES)
    require_dtype(ctx, out, inp.dtype)
    require_dtype(ctx, indices, "int32", "int64")
    return inp, indices, out


def _indices(ctx, op, indices):
    """The index tensor as the kernel reads it: int32 (constant int64 indices are narrowed once, here)."""
    if indices.dtype == "int32":
        return ctx.read(op.inputs[1])
    if not indices.is_constant:
        raise ctx.fail(f"index tensor '{indices.name}' is int64 and computed at run time; only int32 is supported")
    values = indices.data.reshape(-1)
    if np.any(values < np.iinfo(np.int32).min) or np.any(values > np.iinfo(np.int32).max):
        raise ctx.fail(f"index tensor '{indices.name}' holds values outside the int32 range")
    return ctx.constant("indices", values.astype(np.int32))


@lowering("GATHER")
def lower_gather(op, ctx):
    inp, indices, out = _operands(op, ctx)
    rank = len(inp.shape)
    axis = int(op.options.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    batch_dims = int(op.options.get("batch_dims", 0))
    batch_dims = batch_dims + len(indices.shape) if batch_dims < 0 else batch_dims
    if not 0 <= axis < rank:
        raise ctx.fail(f"axis {op.options.get('axis', 0)} is out of range for a {rank}-D input")
    if not 0 <= batch_dims <= min(axis, len(indices.shape)) or \
            list(inp.shape[:batch_dims]) != list(indices.shape[:batch_dims]):
        raise ctx.fail(f"batch_dims {op.options.get('batch_dims', 0)} does not fit input {list(inp.shape)}, "
                       f"indices {list(indices.shape)} and axis {axis}")
    expected = list(inp.shape[:axis]) + list(indices.shape[batch_dims:]) + list(inp.shape[axis + 1:])
    if expected != list(out.shape):
        raise ctx.fail(f"gathering gives shape {expected}, but the output is {list(out.shape)}")
    if out.num_elements == 0:
        return
    batch = int(np.prod(inp.shape[:batch_dims], dtype=np.int64))
    ctx.call(f"usmp_gather_{kernel_suffix(ctx, inp.dtype)}", "usmp_gather_params",
             dict(batch=batch, outer=int(np.prod(inp.shape[batch_dims:axis], dtype=np.int64)),
                  axis_size=int(inp.shape[axis]), count=indices.num_elements // batch,
                  inner=int(np.prod(inp.shape[axis + 1:], dtype=np.int64))),
             input=ctx.read(op.inputs[0]), indices=_indices(ctx, op, indices), output=ctx.write(op.outputs[0]))


@lowering("GATHER_ND")
def lower_gather_nd(op, ctx):
    inp, indices, out = _operands(op, ctx)
    if not inp.shape or not indices.shape:
        raise ctx.fail("input and indices must have at least one dimension")
    depth = int(indices.shape[-1])
    if not 1 <= depth <= min(len(inp.shape), ND_DIMS):
        raise ctx.fail(f"index tuples of {depth} entries do not fit a {len(inp.shape)}-D input")
    expected = list(indices.shape[:-1]) + list(inp.shape[depth:])
    if expected != list(out.shape):
        raise ctx.fail(f"gathering gives shape {expected}, but the output is {list(out.shape)}")
    if out.num_elements == 0:
        return
    steps = row_major_steps(inp.shape)
    extent, stride = list(inp.shape[:depth]), steps[:depth]
    ctx.call(f"usmp_gather_nd_{kernel_suffix(ctx, inp.dtype)}", "usmp_gather_nd_params",
             dict(count=indices.num_elements // depth, depth=depth,
                  slice=int(np.prod(inp.shape[depth:], dtype=np.int64)),
                  extent=extent + [1] * (ND_DIMS - depth), stride=stride + [0] * (ND_DIMS - depth)),
             input=ctx.read(op.inputs[0]), indices=_indices(ctx, op, indices), output=ctx.write(op.outputs[0]))
