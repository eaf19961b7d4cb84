"""BROADCAST_ARGS: the shape two shapes broadcast to.

Constant shapes are broadcast here and the result becomes a constant buffer
(copied into the output only when it is a model output); shapes known only
at run time are broadcast by usmp_broadcast_args_*. As in TFLite Micro the
shapes and the output are one type, int32 or int64, and one-dimensional.
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import numpy_dtype
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.slice import strided_copy


def broadcast_shape(shape1, shape2, length: int) -> list[int] | None:
    """The last `length` entries of the broadcast of two shapes; None when they cannot broadcast."""
    result = []
    for back in range(length):
        a = int(shape1[-1 - back]) if back < len(shape1) else 1
        b = int(shape2[-1 - back]) if back < len(shape2) else 1
        if a != 1 and b != 1 and a != b:
            return None
        result.append(b if a == 1 else a)
    return result[::-1]


@lowering("BROADCAST_ARGS")
def lower_broadcast_args(op, ctx):
    if len(op.inputs) != 2 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects two shapes and one output")
    s1, s2, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, s1, "int32", "int64")
    require_dtype(ctx, s2, dtype)
    require_dtype(ctx, out, dtype)
    for t in (s1, s2, out):
        if len(t.shape) != 1:
            raise ctx.fail(f"tensor {t.index} '{t.name}' has shape {list(t.shape)}; expected one dimension")
    length = int(out.shape[0])
    if not (s1.is_constant and s2.is_constant):
        ctx.call(f"usmp_broadcast_args_s{dtype[3:]}", "usmp_broadcast_args_params",
                 dict(length1=int(s1.shape[0]), length2=int(s2.shape[0]), length=length),
                 shape1=ctx.read(op.inputs[0]), shape2=ctx.read(op.inputs[1]), output=ctx.write(op.outputs[0]))
        return
    shape1, shape2 = s1.data.reshape(-1).tolist(), s2.data.reshape(-1).tolist()
    result = broadcast_shape(shape1, shape2, length)
    if result is None:
        raise ctx.fail(f"shapes {shape1} and {shape2} do not broadcast")
    if length == 0:
        return
    words = np.array(result, dtype=numpy_dtype(dtype)).view(np.int32)  # int64 as pairs of words
    constant = ctx.constant("shape", words)
    if op.outputs[0] in ctx.graph.outputs:
        strided_copy(ctx, dtype, [length], [1], [1], constant, ctx.write(op.outputs[0]))
        return
    ctx.tensor_buffers[op.outputs[0]] = constant.buffer  # later readers read the constant: no kernel runs
    ctx.buffers[constant.buffer].tensors.append(op.outputs[0])
