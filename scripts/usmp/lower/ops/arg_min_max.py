"""ARG_MAX and ARG_MIN along one constant axis.

The input is viewed as [outer, axis_size, inner] around the axis; the kernel
returns the index of the first extreme value, as TFLite's loop does (ties go
to the lowest index). int8 compares raw values: a positive scale keeps their
order. TFLite Micro writes int32 indexes only; int64 indexes (the converter's
default for tf.argmax) are the same numbers, so they are written too.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype

INPUT_SUFFIX = {"int8": "s8", "float32": "f32"}
INDEX_SUFFIX = {"int32": "i32", "int64": "i64"}


@lowering("ARG_MAX", "ARG_MIN")
def lower_arg_min_max(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, "int8", "float32")
    index_type = require_dtype(ctx, out, "int32", "int64")
    axis_tensor = require_constant(ctx, op, 1)
    require_dtype(ctx, axis_tensor, "int32", "int64")
    rank = len(inp.shape)
    if axis_tensor.data.size != 1:
        raise ctx.fail(f"axis tensor {axis_tensor.index} '{axis_tensor.name}' holds {axis_tensor.data.size} values; "
                       f"exactly one is supported")
    axis = int(axis_tensor.data.reshape(-1)[0])
    if rank == 0 or not -rank <= axis < rank:
        raise ctx.fail(f"axis {axis} is out of range for a {rank}-D input")
    axis %= rank
    outer = int(np.prod(inp.shape[:axis], dtype=np.int64))
    inner = int(np.prod(inp.shape[axis + 1:], dtype=np.int64))
    axis_size = int(inp.shape[axis])
    if outer * inner != out.num_elements:
        raise ctx.fail(f"{op.opcode} of {list(inp.shape)} along axis {axis} gives {outer * inner} indexes, "
                       f"but the output holds {out.num_elements}")
    if axis_size == 0 or out.num_elements == 0:
        raise ctx.fail("empty tensors are not supported")
    function = f"usmp_{op.opcode.lower()}_{INPUT_SUFFIX[dtype]}_{INDEX_SUFFIX[index_type]}"
    ctx.call(function, "usmp_arg_min_max_params", dict(outer=outer, axis_size=axis_size, inner=inner),
             input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
