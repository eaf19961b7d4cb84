"""Shared by the data-movement lowerings: describe a copy as a strided N-D walk.

CONCATENATION, PAD, TRANSPOSE, STRIDED_SLICE, SPLIT, PACK, TILE, ... and a
refused RESHAPE view all become calls of usmp_copy_nd_x*: per dimension a
count and the element steps in input and output, worked out here so the
kernel never divides. Dimensions that are contiguous in both tensors are
merged, so most copies need one or two loops. The kernels go by element
width, so every type TFLite Micro moves shares them.
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import element_size, numpy_dtype
from usmp.lower.context import LowerContext, Ref
from usmp.lower.ops.common import require_dtype

ND_DIMS = 6  # USMP_ND_DIMS in usmp_kernels/shape_ops.h
MAX_UNROLLED_CALLS = 64  # copies of more than ND_DIMS dimensions: at most this many kernel calls
MOVABLE = ("int8", "uint8", "bool", "int16", "int32", "float32", "int64")  # element types the copies move


def row_major_steps(shape) -> list[int]:
    """Element distance between neighbours along each dimension of a dense tensor."""
    steps, step = [], 1
    for size in reversed(list(shape)):
        steps.append(step)
        step *= int(size)
    return list(reversed(steps))


def collapse(count, *steps) -> tuple[list[int], list[list[int]]]:
    """Drop size-1 dimensions and merge neighbours that are contiguous in every step list.

    Visiting order stays row-major, so a reduction's summation order is kept.
    """
    dims = [(int(c), [int(s[d]) for s in steps]) for d, c in enumerate(count) if int(c) != 1]
    merged: list[tuple[int, list[int]]] = []
    for c, st in dims:
        if merged:
            pc, pst = merged[-1]
            if all(ps == s * c for ps, s in zip(pst, st)):
                merged[-1] = (pc * c, st)
                continue
        merged.append((c, st))
    if not merged:
        merged = [(1, [0] * len(steps))]
    counts = [c for c, _ in merged]
    return counts, [[st[k] for _, st in merged] for k in range(len(steps))]


def pad_dims(values: list[int], fill: int) -> list[int]:
    """Left-pad to ND_DIMS entries (outer dimensions of size 1)."""
    return [fill] * (ND_DIMS - len(values)) + list(values)


def copy_operands(ctx: LowerContext, op, allowed=("int8", "int16", "float32")) -> tuple:
    """Input, output and element type of an operator that only moves elements (types as TFLite Micro allows)."""
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *allowed)
    require_dtype(ctx, out, dtype)
    if len(inp.shape) > ND_DIMS:
        raise ctx.fail(f"input has {len(inp.shape)} dimensions; at most {ND_DIMS} are supported")
    return inp, out, dtype


def kernel_suffix(ctx: LowerContext, dtype: str) -> str:
    """x8, x16 or x32: the kernels are chosen by element width (int64 moves as two 32-bit words)."""
    if dtype not in MOVABLE:
        raise ctx.fail(f"tensors of type {dtype} are not supported here (supported: {', '.join(MOVABLE)})")
    return f"x{8 * min(element_size(dtype), 4)}"


def copy_nd(ctx: LowerContext, dtype: str, count, in_steps, out_steps, input: Ref, output: Ref,
            in_offset: int = 0, out_offset: int = 0) -> None:
    """Emit output[out_offset + idx.out_steps] = input[in_offset + idx.in_steps] for all idx < count."""
    if any(int(c) == 0 for c in count):
        return
    if element_size(dtype) == 8:  # two 32-bit words per element: one more, innermost, dimension
        count, in_steps, out_steps = [*count, 2], [2 * s for s in in_steps] + [1], [2 * s for s in out_steps] + [1]
        dtype, in_offset, out_offset = "int32", 2 * in_offset, 2 * out_offset
    counts, (ins, outs) = collapse(count, in_steps, out_steps)
    if len(counts) > ND_DIMS:  # the outer dimensions become separate calls, unrolled here
        outer = counts[:len(counts) - ND_DIMS]
        calls = 1
        for c in outer:
            calls *= c
        if calls > MAX_UNROLLED_CALLS:
            raise ctx.fail(f"needs a {len(counts)}-dimensional copy; at most {ND_DIMS} dimensions are supported")
        for index in np.ndindex(*outer):
            copy_nd(ctx, dtype, counts[len(outer):], ins[len(outer):], outs[len(outer):], input, output,
                    in_offset + sum(i * st for i, st in zip(index, ins)),
                    out_offset + sum(i * st for i, st in zip(index, outs)))
        return
    ctx.call(f"usmp_copy_nd_{kernel_suffix(ctx, dtype)}", "usmp_copy_nd_params",
             dict(count=pad_dims(counts, 1), in_step=pad_dims(ins, 0), out_step=pad_dims(outs, 0),
                  in_offset=int(in_offset), out_offset=int(out_offset)),
             input=input, output=output)


def copy_whole(ctx: LowerContext, dtype: str, num_elements: int, input: Ref, output: Ref) -> None:
    """A plain element-for-element copy."""
    copy_nd(ctx, dtype, [num_elements], [1], [1], input, output)


def bit_pattern(dtype: str, value) -> int:
    """The element's bits as a signed 32-bit number (a float's IEEE pattern), for usmp_fill_x*."""
    raw = np.asarray(value).astype(numpy_dtype(dtype)).reshape(1)
    unsigned = int(np.frombuffer(raw.tobytes(), dtype=f"<u{raw.itemsize}")[0])
    return unsigned - (1 << 32) if unsigned >= 1 << 31 else unsigned


def fill(ctx: LowerContext, dtype: str, num_elements: int, value, output: Ref) -> None:
    suffix = kernel_suffix(ctx, dtype)
    if element_size(dtype) == 8:
        raise ctx.fail(f"filling {dtype} tensors is not supported")
    if num_elements == 0:
        return
    ctx.call(f"usmp_fill_{suffix}", "usmp_fill_params",
             dict(count=int(num_elements), pattern=bit_pattern(dtype, value)), output=output)
