"""SLICE: a strided copy; also the copy helper REVERSE_V2, DYNAMIC_UPDATE_SLICE
and BROADCAST_ARGS share.

The usmp_slice_x* kernels go by element width, so every type TFLite Micro
moves shares them (int64 as pairs of 32-bit words). Constant begin and size
are resolved here exactly as TFLite Micro validates them (0 <= begin <= dim,
size -1 meaning "to the end") and never reach the constant pool. A begin
known only at run time is read by usmp_slice_dynamic_x*, which takes the
extents from the static output shape and clamps each begin into the input
(TFLite Micro stops with an error there instead).
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import element_size
from usmp.lower.context import LowerContext, Ref
from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.nd_copy import ND_DIMS, collapse, pad_dims, row_major_steps

# Element types TFLite Micro's SLICE kernel moves.
SLICE_TYPES = ("float32", "int32", "int8", "int16", "bool")


def _words(dtype: str, count, in_steps, out_steps, offsets, strides=None):
    """Kernel width in bits and the walk in its words: an int64 element is two 32-bit words."""
    size = element_size(dtype)
    if size != 8:
        return 8 * size, list(count), list(in_steps), list(out_steps), list(offsets), strides
    return (32, list(count) + [2], [2 * s for s in in_steps] + [1], [2 * s for s in out_steps] + [1],
            [2 * o for o in offsets], None if strides is None else [2 * s for s in strides])


def strided_copy(ctx: LowerContext, dtype: str, count, in_steps, out_steps, input: Ref, output: Ref,
                 in_offset: int = 0, out_offset: int = 0) -> None:
    """Emit output[out_offset + idx.out_steps] = input[in_offset + idx.in_steps] for all idx < count."""
    if any(int(c) == 0 for c in count):
        return
    bits, count, ins, outs, (in_offset, out_offset), _ = _words(dtype, count, in_steps, out_steps,
                                                                 [in_offset, out_offset])
    counts, (ins, outs) = collapse(count, ins, outs)
    if len(counts) > ND_DIMS:
        raise ctx.fail(f"needs a {len(counts)}-dimensional copy; at most {ND_DIMS} dimensions are supported")
    ctx.call(f"usmp_slice_x{bits}", "usmp_slice_params",
             dict(count=pad_dims(counts, 1), in_step=pad_dims(ins, 0), out_step=pad_dims(outs, 0),
                  in_offset=int(in_offset), out_offset=int(out_offset)),
             input=input, output=output)


def dynamic_strided_copy(ctx: LowerContext, dtype: str, count, in_steps, out_steps, input: Ref, start: Ref,
                         output: Ref, start_dtype: str, limits, strides, shift_output: bool) -> None:
    """strided_copy shifted at run time by sum(clamp(start[d], 0, limits[d]) * strides[d]) elements."""
    if any(int(c) == 0 for c in count):
        return
    if len(limits) > ND_DIMS:
        raise ctx.fail(f"start has {len(limits)} entries; at most {ND_DIMS} are supported")
    bits, count, ins, outs, _, strides = _words(dtype, count, in_steps, out_steps, [0, 0], list(strides))
    counts, (ins, outs) = collapse(count, ins, outs)
    if len(counts) > ND_DIMS:
        raise ctx.fail(f"needs a {len(counts)}-dimensional copy; at most {ND_DIMS} dimensions are supported")
    tail = [0] * (ND_DIMS - len(limits))
    ctx.call(f"usmp_slice_dynamic_x{bits}", "usmp_slice_dynamic_params",
             dict(count=pad_dims(counts, 1), in_step=pad_dims(ins, 0), out_step=pad_dims(outs, 0),
                  in_offset=0, out_offset=0, rank=len(limits), start_is_64=int(start_dtype == "int64"),
                  shift_output=int(shift_output), limit=[int(v) for v in limits] + tail,
                  stride=[int(v) for v in strides] + tail),
             input=input, start=start, output=output)


def _vector(ctx: LowerContext, index: int, rank: int, what: str):
    tensor = ctx.tensor(index)
    require_dtype(ctx, tensor, "int32", "int64")
    if len(tensor.shape) != 1 or tensor.num_elements != rank:
        raise ctx.fail(f"{what} tensor {index} '{tensor.name}' has shape {list(tensor.shape)}; "
                       f"expected [{rank}], one entry per input dimension")
    return tensor


def resolve_slice(ctx: LowerContext, shape, begin, size) -> list[int]:
    """Per dimension the extent TFLite Micro's SLICE copies; refuses what its Eval refuses."""
    counts = []
    for d, (dim, b, s) in enumerate(zip(shape, begin, size)):
        if not 0 <= b <= dim:
            raise ctx.fail(f"begin {b} of dimension {d} is outside [0, {dim}]")
        count = dim - b if s == -1 else s
        if not 0 <= count <= dim - b:
            raise ctx.fail(f"size {s} of dimension {d} does not fit: begin {b}, dimension {dim}")
        counts.append(count)
    return counts


@lowering("SLICE")
def lower_slice(op, ctx):
    if len(op.inputs) != 3 or None in op.inputs or len(op.outputs) != 1:
        raise ctx.fail("expects input, begin and size and one output")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *SLICE_TYPES)
    require_dtype(ctx, out, dtype)
    rank = len(inp.shape)
    if rank > ND_DIMS:
        raise ctx.fail(f"input has {rank} dimensions; at most {ND_DIMS} are supported")
    begin_t, size_t = _vector(ctx, op.inputs[1], rank, "begin"), _vector(ctx, op.inputs[2], rank, "size")
    if begin_t.dtype != size_t.dtype:
        raise ctx.fail(f"begin is {begin_t.dtype} but size is {size_t.dtype}; TFLite Micro needs one type")
    if size_t.is_constant and begin_t.is_constant:
        counts = resolve_slice(ctx, inp.shape, [int(v) for v in begin_t.data.reshape(-1)],
                               [int(v) for v in size_t.data.reshape(-1)])
    else:
        counts = [int(v) for v in out.shape]
        if len(counts) != rank:
            raise ctx.fail(f"begin or size is only known at run time, so the output shape {counts} must give "
                           f"the extent of each of the {rank} input dimensions")
        if size_t.is_constant:
            for d, (s, c) in enumerate(zip(size_t.data.reshape(-1), counts)):
                if int(s) != -1 and int(s) != c:
                    raise ctx.fail(f"size {int(s)} of dimension {d} differs from the output's {c}")
        if any(c > dim for c, dim in zip(counts, inp.shape)):
            raise ctx.fail(f"output shape {counts} does not fit in the input shape {list(inp.shape)}")
    if int(np.prod(counts)) != out.num_elements:
        raise ctx.fail(f"the slice holds {int(np.prod(counts))} elements, but the output holds {out.num_elements}")
    steps = row_major_steps(inp.shape)
    if begin_t.is_constant:
        begin = [int(v) for v in begin_t.data.reshape(-1)]
        if not size_t.is_constant and any(not 0 <= b <= dim - c for b, c, dim in zip(begin, counts, inp.shape)):
            raise ctx.fail(f"begin {begin} with output shape {counts} does not fit in the input {list(inp.shape)}")
        strided_copy(ctx, dtype, counts, steps, row_major_steps(counts), ctx.read(op.inputs[0]),
                     ctx.write(op.outputs[0]), in_offset=sum(b * s for b, s in zip(begin, steps)))
        return
    dynamic_strided_copy(ctx, dtype, counts, steps, row_major_steps(counts), ctx.read(op.inputs[0]),
                         ctx.read(op.inputs[1]), ctx.write(op.outputs[0]), begin_t.dtype,
                         [dim - c for dim, c in zip(inp.shape, counts)], steps, shift_output=False)
