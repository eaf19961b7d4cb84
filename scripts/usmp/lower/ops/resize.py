"""RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR over NHWC tensors.

Where each output row and column samples the input depends only on the
shapes and the options, so it is computed here, once, with TFLite Micro's
arithmetic, into constant tables the kernels look up:
- nearest: the source index in float (align_corners rounds, otherwise floor);
- bilinear float32: the sample position in float, its floor and ceiling and
  the blend weights 1 - d and d, as float;
- bilinear int8: the position in 1/1024 steps from a scale rounded to that
  grid, with C's truncating division. (For some large upscales without
  align_corners or half_pixel_centers that rounding puts the last samples
  past the input, where TFLite Micro reads outside the input; there both
  samples are the last row or column, so the output repeats the edge.)
Integer outputs blend the stored values, as TFLite does, so the output must
share the input's scale and zero point.
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.fixed_point import round_half_away
from usmp.lower.ops import asymmetric, lowering
from usmp.lower.ops.common import require_constant, require_dtype, require_quantized

ONE_10 = 1 << 10  # 1.0 in the int8 bilinear fixed point


def c_div(a: int, b: int) -> int:
    """C's integer division: truncates towards zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _operands(op, ctx, *dtypes: str):
    """(input, output, dtype, geometry params, align_corners, half_pixel_centers)."""
    if len(op.inputs) != 2 or op.inputs[0] is None:
        raise ctx.fail("needs an input and a size tensor")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *dtypes)
    require_dtype(ctx, out, dtype)
    for tensor, what in ((inp, "input"), (out, "output")):
        if len(tensor.shape) != 4:
            raise ctx.fail(f"{what} tensor '{tensor.name}' must be 4-D (NHWC), not {list(tensor.shape)}")
    size = require_constant(ctx, op, 1)
    require_dtype(ctx, size, "int32")
    if size.num_elements != 2:
        raise ctx.fail(f"size tensor '{size.name}' must hold 2 values (height, width), not {size.num_elements}")
    out_h, out_w = (int(v) for v in size.data.reshape(-1))
    if min(out_h, out_w) < 1:
        raise ctx.fail(f"size tensor '{size.name}' asks for an empty {out_h}x{out_w} output")
    batches, in_h, in_w, depth = inp.shape
    if tuple(out.shape) != (batches, out_h, out_w, depth):
        raise ctx.fail(f"output shape {list(out.shape)} is not [{batches}, {out_h}, {out_w}, {depth}] "
                       f"(input {list(inp.shape)} resized to {out_h}x{out_w})")
    if min(in_h, in_w) < 1:
        raise ctx.fail(f"input tensor '{inp.name}' is empty")
    align = bool(op.options.get("align_corners", False))
    half = bool(op.options.get("half_pixel_centers", False))
    if dtype != "float32":
        q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
        if not (np.float32(q_in.scale) == np.float32(q_out.scale) and q_in.zero_point == q_out.zero_point):
            raise ctx.fail(f"{dtype} resizing needs the same scale and zero point on input and output; got "
                           f"{q_in.scale:g}/{q_in.zero_point} and {q_out.scale:g}/{q_out.zero_point}")
    params = dict(batches=batches, in_h=in_h, in_w=in_w, depth=depth, out_h=out_h, out_w=out_w)
    return inp, out, dtype, params, align, half


def _f32_scale(in_size: int, out_size: int, align: bool) -> np.float32:
    if align and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def nearest_indices(in_size: int, out_size: int, align: bool, half: bool) -> list[int]:
    """The input index each output index copies (TFLite's GetNearestNeighbor, in float)."""
    scale = _f32_scale(in_size, out_size, align)
    offset = np.float32(0.5 if half else 0.0)
    result = []
    for i in range(out_size):
        position = float((np.float32(i) + offset) * scale)
        index = round_half_away(position) if align else math.floor(position)
        index = min(index, in_size - 1)
        result.append(max(index, 0) if half else index)
    return result


@lowering("RESIZE_NEAREST_NEIGHBOR")
def lower_resize_nearest(op, ctx):
    inp, out, dtype, params, align, half = _operands(op, ctx, "int8", "int16", "float32")
    rows = nearest_indices(params["in_h"], params["out_h"], align, half)
    cols = nearest_indices(params["in_w"], params["out_w"], align, half)
    row_step, col_step = params["in_w"] * params["depth"], params["depth"]
    offsets = np.array([r * row_step for r in rows] + [c * col_step for c in cols], np.int32)
    suffix = {"int8": "s8", "int16": "s16", "float32": "f32"}[dtype]
    ctx.call(f"usmp_resize_nearest_{suffix}", "usmp_resize_params", params, input=ctx.read(op.inputs[0]),
             offsets=ctx.constant("offsets", offsets), output=ctx.write(op.outputs[0]))


def bilinear_f32(in_size: int, out_size: int, align: bool, half: bool) -> list[tuple[int, int, float, float]]:
    """(first index, second index, 1 - d, d) per output index: TFLite's float interpolation values."""
    scale = _f32_scale(in_size, out_size, align)
    result = []
    for i in range(out_size):
        if half:
            position = (np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5)
        else:
            position = np.float32(i) * scale
        lower = max(int(math.floor(position)), 0)
        upper = min(int(math.ceil(position)), in_size - 1)
        d = np.float32(position - np.float32(lower))
        result.append((lower, upper, float(np.float32(1) - d), float(d)))
    return result


def bilinear_int(in_size: int, out_size: int, align: bool, half: bool) -> list[tuple[int, int, int]]:
    """(first index, second index, d in 1/1024 steps) per output index: TFLite's integer values."""
    if align and out_size > 1:
        scale = c_div(ONE_10 * (in_size - 1) + (out_size - 1) // 2, out_size - 1)
    else:
        scale = c_div(ONE_10 * in_size + out_size // 2, out_size)
    result = []
    for i in range(out_size):
        position = i * scale + c_div(scale, 2) - (1 << 9) if half else i * scale
        lower = max(c_div(position, ONE_10), 0)
        upper = min(c_div(position + ONE_10 - 1, ONE_10), in_size - 1)
        # The rounded scale can put the last samples of a large upscale past the input, where
        # TFLite reads outside the row or tensor; here both samples are then the last one.
        result.append((min(lower, in_size - 1), upper, position - ONE_10 * lower))
    return result


@lowering("RESIZE_BILINEAR")
def lower_resize_bilinear(op, ctx):
    inp, out, dtype, params, align, half = _operands(op, ctx, "int8", "float32")
    if align and half:
        raise ctx.fail("align_corners and half_pixel_centers cannot both be set")
    steps = (params["in_w"] * params["depth"], params["depth"])
    sizes = ((params["in_h"], params["out_h"]), (params["in_w"], params["out_w"]))
    if dtype == "float32" or asymmetric.is_uint8(op):  # a uint8 model's: LiteRT interpolates in float
        if asymmetric.is_uint8(op) and not align and half and params["depth"] % 8 == 0 \
                and params["out_h"] >= 8 and params["out_w"] >= 8 \
                and (params["in_h"] * 8, params["in_w"] * 8) == (params["out_h"], params["out_w"]):
            raise ctx.fail("a uint8 8x upsampling with half_pixel_centers is not supported (LiteRT has its own "
                           "kernel for it)")
        offsets, weights = [], []
        for (in_size, out_size), step in zip(sizes, steps):
            for lower, upper, w0, w1 in bilinear_f32(in_size, out_size, align, half):
                offsets += [lower * step, upper * step]
                weights += [w0, w1]
        function = "usmp_resize_bilinear_asym_s8" if dtype != "float32" else "usmp_resize_bilinear_f32"
        ctx.call(function, "usmp_resize_params", params, input=ctx.read(op.inputs[0]),
                 offsets=ctx.constant("offsets", np.array(offsets, np.int32)),
                 weights=ctx.constant("weights", np.array(weights, np.float32)), output=ctx.write(op.outputs[0]))
        return
    table = []
    for (in_size, out_size), step in zip(sizes, steps):
        for lower, upper, d in bilinear_int(in_size, out_size, align, half):
            table += [lower * step, upper * step, d]
    ctx.call("usmp_resize_bilinear_s8", "usmp_resize_params", params, input=ctx.read(op.inputs[0]),
             table=ctx.constant("table", np.array(table, np.int32)), output=ctx.write(op.outputs[0]))
