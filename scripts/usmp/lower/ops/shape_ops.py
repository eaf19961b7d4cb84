"""RESHAPE, SQUEEZE and EXPAND_DIMS: views, not copies; SHAPE: a constant.

All three keep the bytes and their order, so the output tensor becomes another
name for the input's buffer (ctx.alias) and the operator emits no code. Only
when both ends are model I/O, which the user owns as separate arrays, is
the data copied. The shape operand of RESHAPE and the axis of EXPAND_DIMS
are never read. SHAPE is normally folded into a constant before lowering
(usmp.fold); only when its result is a model output is it copied there.
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import numpy_dtype
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.nd_copy import copy_whole


@lowering("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def lower_view(op, ctx):
    if not op.inputs or op.inputs[0] is None or len(op.outputs) != 1:
        raise ctx.fail("expects a data input and one output")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    if inp.dtype != out.dtype:
        raise ctx.fail(f"input type {inp.dtype} differs from output type {out.dtype}")
    if inp.num_elements != out.num_elements:
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} "
                       f"hold different numbers of elements ({inp.num_elements} vs {out.num_elements})")
    if ctx.alias(op.outputs[0], op.inputs[0]):
        return
    copy_whole(ctx, inp.dtype, inp.num_elements, ctx.read(op.inputs[0]), ctx.write(op.outputs[0]))


@lowering("SHAPE")
def lower_shape(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    require_dtype(ctx, out, "int32")  # an int64 SHAPE is folded; no kernel moves 8-byte elements
    if list(out.shape) != [len(inp.shape)]:
        raise ctx.fail(f"output shape {list(out.shape)} cannot hold the {len(inp.shape)} dimensions of the input")
    shape = np.array(inp.shape, dtype=numpy_dtype(out.dtype))
    copy_whole(ctx, out.dtype, len(shape), ctx.constant("shape", shape), ctx.write(op.outputs[0]))
