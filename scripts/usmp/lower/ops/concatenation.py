"""CONCATENATION along any axis (and PACK along a new one): one strided copy per input into its slab of the output.

TFLite Micro copies bytes and does not requantize: int8 and int16 inputs must
share the output's scale and zero point, and no fused activation is allowed. Both are
rejected here with the same rule, so no model compiles that TFLM refuses.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import activation_name
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype, require_quantized
from usmp.lower.ops.nd_copy import copy_nd, kernel_suffix, row_major_steps


@lowering("CONCATENATION")
def lower_concatenation(op, ctx):
    out = ctx.tensor(op.outputs[0])
    dtype = out.dtype
    kernel_suffix(ctx, dtype)
    activation = op.options.get("fused_activation_function", 0)
    if activation != 0:
        raise ctx.fail(f"fused activation {activation_name(activation)} is not supported "
                       "(TFLite Micro concatenates without activation)")
    rank = len(out.shape)
    axis = int(op.options.get("axis", 0))
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:  # a scalar output has no axis to concatenate along
        raise ctx.fail(f"axis {op.options.get('axis', 0)} is out of range for a {rank}-D output")
    if any(i is None for i in op.inputs) or not op.inputs:
        raise ctx.fail("has a missing input")
    out_steps = row_major_steps(out.shape)
    position = 0
    slabs = []
    for k, index in enumerate(op.inputs):
        inp = ctx.tensor(index)
        require_dtype(ctx, inp, dtype)
        if len(inp.shape) != rank or any(a != b for d, (a, b) in enumerate(zip(inp.shape, out.shape)) if d != axis):
            raise ctx.fail(f"input {k} shape {list(inp.shape)} does not fit output shape {list(out.shape)} on axis {axis}")
        if dtype in ("int8", "int16"):
            _require_same_quantization(ctx, k, inp, out)
        slabs.append((index, inp, position))
        position += inp.shape[axis]
    if position != out.shape[axis]:
        raise ctx.fail(f"inputs add up to {position} along axis {axis}, output has {out.shape[axis]}")
    output = ctx.write(op.outputs[0])
    for index, inp, start in slabs:
        copy_nd(ctx, dtype, inp.shape, row_major_steps(inp.shape), out_steps, ctx.read(index), output,
                out_offset=start * out_steps[axis])


def _require_same_quantization(ctx, k, inp, out):
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if np.float32(q_in.scale) != np.float32(q_out.scale) or q_in.zero_point != q_out.zero_point:
        raise ctx.fail(
            f"{inp.dtype} input {k} '{inp.name}' (scale {q_in.scale:g}, zero point {q_in.zero_point}) is quantized "
            f"differently from the output (scale {q_out.scale:g}, zero point {q_out.zero_point}); "
            "TFLite Micro does not requantize in CONCATENATION")


@lowering("PACK")
def lower_pack(op, ctx):
    """PACK: CONCATENATION along a new axis; TFLite Micro copies bytes without looking at quantization."""
    out = ctx.tensor(op.outputs[0])
    dtype = out.dtype
    kernel_suffix(ctx, dtype)
    rank = len(out.shape)
    axis = int(op.options.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise ctx.fail(f"axis {op.options.get('axis', 0)} is out of range for a {rank}-D output")
    if not op.inputs or any(i is None for i in op.inputs) or len(op.inputs) != out.shape[axis]:
        raise ctx.fail(f"has {len(op.inputs)} inputs for an output extent of {out.shape[axis]} along axis {axis}")
    out_steps = row_major_steps(out.shape)
    expected = list(out.shape[:axis]) + list(out.shape[axis + 1:])
    output = ctx.write(op.outputs[0])
    for k, index in enumerate(op.inputs):
        inp = ctx.tensor(index)
        require_dtype(ctx, inp, dtype)
        if list(inp.shape) != expected:
            raise ctx.fail(f"input {k} shape {list(inp.shape)} is not the output shape {list(out.shape)} "
                           f"without axis {axis}")
        copy_nd(ctx, dtype, inp.shape, row_major_steps(inp.shape), out_steps[:axis] + out_steps[axis + 1:],
                ctx.read(index), output, out_offset=k * out_steps[axis])
