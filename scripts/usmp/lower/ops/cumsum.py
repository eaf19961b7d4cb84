"""CUMSUM along one constant axis (float32, int8), with the exclusive and reverse options.

int8 is TFLite Micro's arithmetic: each (input - zero point) is shifted left
by 20 and scaled by in_scale / (2 * in_scale) (one half), the scaled values
are summed in int32, and the sum is rescaled by 2 * in_scale / (2**20 *
out_scale). The reference starts every line's sum from the scaled
(-zero point), not from 0; that start is computed here.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.activations import _mul_by_quantized_multiplier, _wrap
from usmp.lower.ops.common import require_constant, require_dtype, require_quantized

LEFT_SHIFT = 20  # TFLite's headroom, as for int8 ADD


def _smaller_than_one(ctx, real: float, what: str) -> tuple[int, int]:
    if not 0.0 < real < 1.0:
        raise ctx.fail(f"the {what} rescale factor {real:g} is outside (0, 1); the tensor scales are unsupported")
    return quantize_multiplier(real)


@lowering("CUMSUM")
def lower_cumsum(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, "int8", "float32")
    require_dtype(ctx, out, dtype)
    if tuple(inp.shape) != tuple(out.shape):
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ")
    axis_tensor = require_constant(ctx, op, 1)
    require_dtype(ctx, axis_tensor, "int32", "int64")
    rank = len(inp.shape)
    if axis_tensor.data.size != 1:
        raise ctx.fail(f"axis tensor {axis_tensor.index} '{axis_tensor.name}' holds {axis_tensor.data.size} values; "
                       f"exactly one is needed")
    axis = int(axis_tensor.data.reshape(-1)[0])
    if rank == 0 or not -rank <= axis < rank:
        raise ctx.fail(f"axis {axis} is out of range for a {rank}-D input")
    axis %= rank
    before = int(np.prod(inp.shape[:axis], dtype=np.int64))
    after = int(np.prod(inp.shape[axis + 1:], dtype=np.int64))
    depth = int(inp.shape[axis])
    reverse = bool(op.options.get("reverse", False))
    params = dict(before=before, depth=depth, after=after, first=(depth - 1) * after if reverse else 0,
                  step=-after if reverse else after, exclusive=int(bool(op.options.get("exclusive", False))))
    # Every output element is written after its own input element is read.
    refs = dict(input=ctx.read(op.inputs[0]), output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
    if inp.num_elements == 0:
        return
    if dtype == "float32":
        ctx.call("usmp_cumsum_f32", "usmp_cumsum_f32_params", params, **refs)
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    twice_scale = 2.0 * float(np.float32(q_in.scale))
    input_multiplier, input_shift = _smaller_than_one(ctx, float(np.float32(q_in.scale)) / twice_scale, "input")
    output_multiplier, output_shift = _smaller_than_one(
        ctx, twice_scale / ((1 << LEFT_SHIFT) * float(np.float32(q_out.scale))), "output")
    start = _mul_by_quantized_multiplier(_wrap(-q_in.zero_point << LEFT_SHIFT), input_multiplier, input_shift)
    params.update(start=start, input_offset=-q_in.zero_point, left_shift=LEFT_SHIFT,
                  input_multiplier=input_multiplier, input_shift=input_shift,
                  output_multiplier=output_multiplier, output_shift=output_shift, output_offset=q_out.zero_point)
    ctx.call("usmp_cumsum_s8", "usmp_cumsum_s8_params", params, **refs)
