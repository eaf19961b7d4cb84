"""TRANSPOSE: output[i] = input[i permuted], one strided copy.

The output is written in row-major order; along output dimension k the
input pointer moves by the input's step of dimension perm[k].
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype
from usmp.lower.ops.nd_copy import copy_nd, copy_operands, row_major_steps


@lowering("TRANSPOSE")
def lower_transpose(op, ctx):
    inp, out, dtype = copy_operands(ctx, op, ("int8", "int16", "float32"))  # as TFLite Micro
    rank = len(inp.shape)
    perm_tensor = require_constant(ctx, op, 1)
    require_dtype(ctx, perm_tensor, "int32", "int64")  # int() of a NaN float would raise
    perm = [int(v) for v in perm_tensor.data.reshape(-1)]
    if sorted(perm) != list(range(rank)):
        raise ctx.fail(f"perm {perm} is not a permutation of the {rank} input dimensions")
    expected = [inp.shape[p] for p in perm]
    if expected != list(out.shape):
        raise ctx.fail(f"input {list(inp.shape)} permuted by {perm} is {expected}, but the output is {list(out.shape)}")
    in_steps = row_major_steps(inp.shape)
    copy_nd(ctx, dtype, out.shape, [in_steps[p] for p in perm], row_major_steps(out.shape),
            ctx.read(op.inputs[0]), ctx.write(op.outputs[0]))
