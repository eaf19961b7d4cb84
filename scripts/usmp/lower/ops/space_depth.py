"""DEPTH_TO_SPACE, SPACE_TO_DEPTH, SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: rearrangements of NHWC data.

DEPTH_TO_SPACE and SPACE_TO_DEPTH are one 6-D strided copy each: the block
offsets (i, j) become two dimensions of their own. The batch/space pair is
one copy per block offset, over the rows and columns that offset reaches
(ranges worked out here, so nothing divides at run time); SPACE_TO_BATCH_ND
first fills the output with the pad value: real 0, so the zero point for
int8, as TFLite pads. (TFLite Micro never sets the pad offset of its
parameters, so its padding is whatever its arena held: not a reference.)
Only int8 and float32 are accepted, as in TFLite Micro.
"""
from __future__ import annotations

import itertools

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_constant, require_dtype, require_quantized
from usmp.lower.ops.nd_copy import copy_nd, copy_operands, fill, row_major_steps

TYPES = ("int8", "float32")


def _block_size(ctx, op) -> int:
    block = int(op.options.get("block_size", 0))
    if block < 1:
        raise ctx.fail(f"block_size {block} must be at least 1")
    return block


def _check_shape(ctx, expected, out) -> None:
    if list(expected) != list(out.shape):
        raise ctx.fail(f"the rearranged input has shape {list(expected)}, but the output is {list(out.shape)}")


@lowering("DEPTH_TO_SPACE")
def lower_depth_to_space(op, ctx):
    inp, out, dtype = copy_operands(ctx, op, TYPES)
    b = _block_size(ctx, op)
    if len(inp.shape) != 4 or inp.shape[3] % (b * b):
        raise ctx.fail(f"input {list(inp.shape)} must be NHWC with depth divisible by {b * b}")
    n, h, w, c = inp.shape
    depth = c // (b * b)
    _check_shape(ctx, [n, h * b, w * b, depth], out)
    s_n, s_h, s_w, _ = row_major_steps(inp.shape)
    o_n, o_h, o_w, _ = row_major_steps(out.shape)
    copy_nd(ctx, dtype, [n, h, w, b, b, depth], [s_n, s_h, s_w, b * depth, depth, 1],
            [o_n, b * o_h, b * o_w, o_h, o_w, 1], ctx.read(op.inputs[0]), ctx.write(op.outputs[0]))


@lowering("SPACE_TO_DEPTH")
def lower_space_to_depth(op, ctx):
    inp, out, dtype = copy_operands(ctx, op, TYPES)
    b = _block_size(ctx, op)
    if len(inp.shape) != 4 or inp.shape[1] % b or inp.shape[2] % b:
        raise ctx.fail(f"input {list(inp.shape)} must be NHWC with height and width divisible by {b}")
    n, h, w, c = inp.shape
    _check_shape(ctx, [n, h // b, w // b, c * b * b], out)
    s_n, s_h, s_w, _ = row_major_steps(inp.shape)
    o_n, o_h, o_w, _ = row_major_steps(out.shape)
    copy_nd(ctx, dtype, [n, h // b, w // b, b, b, c], [s_n, b * s_h, b * s_w, s_h, s_w, 1],
            [o_n, o_h, o_w, b * c, c, 1], ctx.read(op.inputs[0]), ctx.write(op.outputs[0]))


def _block_operands(ctx, op, name: str):
    """Input, output, type, block shape and the (before, after) pairs of paddings or crops."""
    inp, out, dtype = copy_operands(ctx, op, TYPES)
    if len(inp.shape) not in (3, 4) or len(out.shape) != len(inp.shape):
        raise ctx.fail(f"input {list(inp.shape)} and output {list(out.shape)} must both be 3-D or 4-D")
    spatial = len(inp.shape) - 2
    tensors = [require_constant(ctx, op, k) for k in (1, 2)]
    for t in tensors:
        require_dtype(ctx, t, "int32")
    block = [int(v) for v in tensors[0].data.reshape(-1)]
    edges = [int(v) for v in tensors[1].data.reshape(-1)]
    if len(block) != spatial or len(edges) != 2 * spatial or min(block) < 1 or min(edges) < 0:
        raise ctx.fail(f"block_shape {block} and {name} {edges} do not fit {spatial} spatial dimensions")
    return inp, out, dtype, block, [(edges[2 * k], edges[2 * k + 1]) for k in range(spatial)]


def _reached(offset: int, step: int, lo: int, hi: int, count: int) -> tuple[int, int]:
    """(first k, number of k) with lo <= k * step + offset < hi for 0 <= k < count."""
    ks = [k for k in range(count) if lo <= k * step + offset < hi]
    return (ks[0], len(ks)) if ks else (0, 0)


@lowering("SPACE_TO_BATCH_ND")
def lower_space_to_batch(op, ctx):
    inp, out, dtype, block, pads = _block_operands(ctx, op, "paddings")
    spatial = len(block)
    padded = [d + a + b for d, (a, b) in zip(inp.shape[1:1 + spatial], pads)]
    if any(p % b for p, b in zip(padded, block)):
        raise ctx.fail(f"padded spatial shape {padded} is not divisible by block_shape {block}")
    blocks = 1
    for b in block:
        blocks *= b
    batch = inp.shape[0]
    _check_shape(ctx, [batch * blocks] + [p // b for p, b in zip(padded, block)] + [inp.shape[-1]], out)
    in_steps, out_steps = row_major_steps(inp.shape), row_major_steps(out.shape)
    output = ctx.write(op.outputs[0])
    if any(a or b for a, b in pads):
        value = require_quantized(ctx, out).zero_point if dtype == "int8" else 0
        fill(ctx, dtype, out.num_elements, value, output)
    for position, offsets in enumerate(itertools.product(*[range(b) for b in block])):
        count, in_offset, out_offset = [batch], 0, position * batch * out_steps[0]
        ins, outs = [in_steps[0]], [out_steps[0]]
        for k, (i, b, (before, _)) in enumerate(zip(offsets, block, pads)):
            # output row o reads input row o * b + i - before, when that lies inside the input
            first, n = _reached(i - before, b, 0, inp.shape[1 + k], out.shape[1 + k])
            count.append(n)
            in_offset += (first * b + i - before) * in_steps[1 + k]
            out_offset += first * out_steps[1 + k]
            ins.append(b * in_steps[1 + k])
            outs.append(out_steps[1 + k])
        copy_nd(ctx, dtype, count + [inp.shape[-1]], ins + [1], outs + [1], ctx.read(op.inputs[0]), output,
                in_offset=in_offset, out_offset=out_offset)


@lowering("BATCH_TO_SPACE_ND")
def lower_batch_to_space(op, ctx):
    inp, out, dtype, block, crops = _block_operands(ctx, op, "crops")
    blocks = 1
    for b in block:
        blocks *= b
    if inp.shape[0] % blocks:
        raise ctx.fail(f"batch {inp.shape[0]} is not divisible by the block size {blocks}")
    batch = inp.shape[0] // blocks
    spatial = [d * b - a - c for d, b, (a, c) in zip(inp.shape[1:-1], block, crops)]
    _check_shape(ctx, [batch] + spatial + [inp.shape[-1]], out)
    in_steps, out_steps = row_major_steps(inp.shape), row_major_steps(out.shape)
    output = ctx.write(op.outputs[0])
    for position, offsets in enumerate(itertools.product(*[range(b) for b in block])):
        count, in_offset, out_offset = [batch], position * batch * in_steps[0], 0
        ins, outs = [in_steps[0]], [out_steps[0]]
        for k, (i, b, (before, _)) in enumerate(zip(offsets, block, crops)):
            # input row r lands on output row r * b + i - before, when that lies inside the output
            first, n = _reached(i - before, b, 0, out.shape[1 + k], inp.shape[1 + k])
            count.append(n)
            in_offset += first * in_steps[1 + k]
            out_offset += (first * b + i - before) * out_steps[1 + k]
            ins.append(in_steps[1 + k])
            outs.append(b * out_steps[1 + k])
        copy_nd(ctx, dtype, count + [inp.shape[-1]], ins + [1], outs + [1], ctx.read(op.inputs[0]), output,
                in_offset=in_offset, out_offset=out_offset)
