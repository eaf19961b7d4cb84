"""DYNAMIC_UPDATE_SLICE: the operand with the update written over it at a start.

As in TFLite Micro each start is clamped to [0, operand dim - update dim],
and an update as large as the operand replaces it whatever the start. The
operand is copied into the output first, unless the output can take its
buffer (it dies here); then the update is copied in. A constant start is
resolved here; one known only at run time is read by usmp_slice_dynamic_x*.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.nd_copy import ND_DIMS, row_major_steps
from usmp.lower.ops.slice import dynamic_strided_copy, strided_copy

# Element types TFLite Micro's DYNAMIC_UPDATE_SLICE kernel moves.
UPDATE_TYPES = ("float32", "int8", "int32")


@lowering("DYNAMIC_UPDATE_SLICE")
def lower_dynamic_update_slice(op, ctx):
    if len(op.inputs) != 3 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects operand, update and start indices and one output")
    operand, update, start_t = (ctx.tensor(i) for i in op.inputs)
    out = ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, operand, *UPDATE_TYPES)
    require_dtype(ctx, update, dtype)
    require_dtype(ctx, out, dtype)
    require_dtype(ctx, start_t, "int32", "int64")
    rank = len(operand.shape)
    if rank > ND_DIMS:
        raise ctx.fail(f"operand has {rank} dimensions; at most {ND_DIMS} are supported")
    if list(out.shape) != list(operand.shape):
        raise ctx.fail(f"output shape {list(out.shape)} differs from operand shape {list(operand.shape)}")
    if len(start_t.shape) != 1 or start_t.num_elements != rank:
        raise ctx.fail(f"start indices '{start_t.name}' have shape {list(start_t.shape)}; expected [{rank}]")
    if len(update.shape) != rank or any(u > o for u, o in zip(update.shape, operand.shape)):
        raise ctx.fail(f"update shape {list(update.shape)} does not fit in operand shape {list(operand.shape)}")
    update_ref = ctx.read(op.inputs[1])
    update_steps = row_major_steps(update.shape)
    steps = row_major_steps(operand.shape)
    if update.num_elements == operand.num_elements:  # TFLite Micro copies the update whatever the start
        strided_copy(ctx, dtype, [update.num_elements], [1], [1], update_ref, ctx.write(op.outputs[0]))
        return
    operand_ref = ctx.read(op.inputs[0])
    if update_ref.buffer == operand_ref.buffer:
        output = ctx.write(op.outputs[0])
    else:
        output = ctx.write_in_place(op.outputs[0], op.inputs[0])
    if output.buffer != operand_ref.buffer:
        strided_copy(ctx, dtype, [operand.num_elements], [1], [1], operand_ref, output)
    limits = [o - u for o, u in zip(operand.shape, update.shape)]
    if start_t.is_constant:
        start = [min(max(0, int(v)), limit) for v, limit in zip(start_t.data.reshape(-1), limits)]
        strided_copy(ctx, dtype, list(update.shape), update_steps, steps, update_ref, output,
                     out_offset=sum(s * st for s, st in zip(start, steps)))
        return
    dynamic_strided_copy(ctx, dtype, list(update.shape), update_steps, steps, update_ref, ctx.read(op.inputs[2]),
                         output, start_t.dtype, limits, steps, shift_output=True)
