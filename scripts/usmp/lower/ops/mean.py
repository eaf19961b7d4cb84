"""MEAN over constant axes, keep_dims either way (it only changes the output shape).

int8 follows TFLite Micro's integer path: sum the raw int8 inputs into int32
accumulators (planned scratch, one per output), subtract zero_point * n, and
rescale with input_scale / output_scale whose multiplier is pre-divided by
n with TFLite's shift-then-divide trick. float32 sums in the reference's
order and divides by n.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype, require_quantized
from usmp.lower.ops.nd_copy import ND_DIMS, collapse, pad_dims, row_major_steps


def mean_multiplier(input_scale: float, output_scale: float, n: int) -> tuple[int, int]:
    """TFLite's multiplier and shift for mean = (sum - zp * n) * input_scale / output_scale / n."""
    real = float(np.float64(np.float32(input_scale)) / np.float64(np.float32(output_scale)))
    multiplier, shift = quantize_multiplier(real)
    pre_shift = min(n.bit_length() - 1, 32, 31 + shift)
    return int((multiplier << pre_shift) // n), shift - pre_shift


def wrap_int32(value: int) -> int:
    return (int(value) + 2**31) % 2**32 - 2**31


@lowering("MEAN")
def lower_mean(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, "int8", "float32")
    require_dtype(ctx, out, dtype)
    rank = len(inp.shape)
    axes_tensor = require_constant(ctx, op, 1)
    require_dtype(ctx, axes_tensor, "int32", "int64")  # float axes would index the shape with floats
    axes = set()
    for a in axes_tensor.data.reshape(-1).tolist():
        if not -rank <= a < rank:
            raise ctx.fail(f"axis {a} is out of range for a {rank}-D input")
        axes.add(a + rank if a < 0 else a)
    kept = [d for d in range(rank) if d not in axes]
    n = int(np.prod([inp.shape[d] for d in axes], dtype=np.int64)) if axes else 1
    num_outputs = int(np.prod([inp.shape[d] for d in kept], dtype=np.int64)) if kept else 1
    if num_outputs != out.num_elements:
        raise ctx.fail(f"reducing {list(inp.shape)} over axes {sorted(axes)} gives {num_outputs} values, "
                       f"but the output holds {out.num_elements}")
    if n == 0 or num_outputs == 0:
        raise ctx.fail("empty tensors are not supported")
    kept_steps = dict(zip(kept, row_major_steps([inp.shape[d] for d in kept])))
    out_steps = [kept_steps.get(d, 0) for d in range(rank)]
    counts, (_, out_steps) = collapse(inp.shape, row_major_steps(inp.shape), out_steps)
    if len(counts) > ND_DIMS:
        raise ctx.fail(f"needs a {len(counts)}-dimensional walk; at most {ND_DIMS} dimensions are supported")
    walk = dict(count=pad_dims(counts, 1), out_step=pad_dims(out_steps, 0), num_outputs=num_outputs)
    if dtype == "float32":
        ctx.call("usmp_mean_f32", "usmp_mean_f32_params", dict(walk, divisor=float(n)),
                 input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    multiplier, shift = mean_multiplier(q_in.scale, q_out.scale, n)
    ctx.call("usmp_mean_s8", "usmp_mean_s8_params",
             dict(walk, sum_offset=wrap_int32(q_in.zero_point * n), multiplier=multiplier, shift=shift,
                  output_offset=q_out.zero_point),
             input=ctx.read(op.inputs[0]),
             accumulators=ctx.scratch("accumulators", 4 * num_outputs, "int32_t"),
             output=ctx.write(op.outputs[0]))
