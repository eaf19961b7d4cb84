"""MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL over constant axes; keep_dims only changes the output shape.

All five are one walk (usmp_kernels/reduce.h): the input in row-major order,
each element folded into the output it reduces into, which is TFLite's order.
Quantized MEAN and SUM (int8, int16) follow TFLite Micro's integer path: sum
the raw inputs into int32 accumulators (planned scratch, one per output),
subtract zero_point * n, and rescale with input_scale / output_scale; MEAN's
multiplier is also pre-divided by n with TFLite's shift-then-divide trick.
float32 MEAN sums in the reference's order and divides by n. REDUCE_MAX and
REDUCE_MIN compare raw values, so int8 needs one quantization on both sides
(TFLite Micro refuses anything else too). REDUCE_ALL is a logical AND of bools.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype, require_quantized
from usmp.lower.ops.nd_copy import ND_DIMS, collapse, pad_dims, row_major_steps

SUFFIX = {"int8": "s8", "int16": "s16", "float32": "f32"}


def mean_multiplier(input_scale: float, output_scale: float, n: int) -> tuple[int, int]:
    """TFLite's multiplier and shift for mean = (sum - zp * n) * input_scale / output_scale / n."""
    multiplier, shift = sum_multiplier(input_scale, output_scale)
    pre_shift = min(n.bit_length() - 1, 32, 31 + shift)
    return int((multiplier << pre_shift) // n), shift - pre_shift


def sum_multiplier(input_scale: float, output_scale: float) -> tuple[int, int]:
    """input_scale / output_scale from the float32 scales, in double as TFLite computes it."""
    return quantize_multiplier(float(np.float64(np.float32(input_scale)) / np.float64(np.float32(output_scale))))


def wrap_int32(value: int) -> int:
    return (int(value) + 2**31) % 2**32 - 2**31


def reduction_walk(op, ctx) -> tuple[dict, int]:
    """The kernel's walk params (count, out_step, num_outputs) and the elements per output."""
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
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
    return dict(count=pad_dims(counts, 1), out_step=pad_dims(out_steps, 0), num_outputs=num_outputs), n


def _operands(op, ctx, *dtypes: str) -> str:
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *dtypes)
    require_dtype(ctx, out, dtype)
    return dtype


def _quantizations(op, ctx):
    return require_quantized(ctx, ctx.tensor(op.inputs[0])), require_quantized(ctx, ctx.tensor(op.outputs[0]))


@lowering("MEAN", "SUM")
def lower_mean_sum(op, ctx):
    dtype = _operands(op, ctx, "int8", "int16", "float32")
    walk, n = reduction_walk(op, ctx)
    refs = dict(input=ctx.read(op.inputs[0]))
    if dtype == "float32":
        if op.opcode == "MEAN":
            ctx.call("usmp_mean_f32", "usmp_mean_f32_params", dict(walk, divisor=float(n)),
                     **refs, output=ctx.write(op.outputs[0]))
        else:
            ctx.call("usmp_sum_f32", "usmp_reduce_params", walk, **refs, output=ctx.write(op.outputs[0]))
        return
    q_in, q_out = _quantizations(op, ctx)
    if op.opcode == "MEAN":
        multiplier, shift = mean_multiplier(q_in.scale, q_out.scale, n)
    else:
        multiplier, shift = sum_multiplier(q_in.scale, q_out.scale)
    ctx.call(f"usmp_quantized_sum_{SUFFIX[dtype]}", "usmp_quantized_sum_params",
             dict(walk, sum_offset=wrap_int32(q_in.zero_point * n), multiplier=multiplier, shift=shift,
                  output_offset=q_out.zero_point),
             **refs, accumulators=ctx.scratch("accumulators", 4 * walk["num_outputs"], "int32_t"),
             output=ctx.write(op.outputs[0]))


@lowering("REDUCE_MAX", "REDUCE_MIN")
def lower_reduce_extreme(op, ctx):
    dtype = _operands(op, ctx, "int8", "float32")
    walk, _ = reduction_walk(op, ctx)
    if dtype == "int8":
        q_in, q_out = _quantizations(op, ctx)
        if (np.float32(q_in.scale), q_in.zero_point) != (np.float32(q_out.scale), q_out.zero_point):
            raise ctx.fail(f"int8 input quantization ({q_in.scale:g}, {q_in.zero_point}) and output quantization "
                           f"({q_out.scale:g}, {q_out.zero_point}) differ; only equal ones are supported")
    function = f"usmp_{op.opcode.lower()}_{SUFFIX[dtype]}"
    ctx.call(function, "usmp_reduce_params", walk, input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))


@lowering("REDUCE_ALL")
def lower_reduce_all(op, ctx):
    _operands(op, ctx, "bool")
    walk, _ = reduction_walk(op, ctx)
    ctx.call("usmp_reduce_all_b8", "usmp_reduce_params", walk,
             input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
