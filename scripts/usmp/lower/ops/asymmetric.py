"""uint8 models' operators where LiteRT's uint8 arithmetic is not the int8 kernels' (see usmp/uint8).

The uint8 pass has stored every uint8 tensor as int8 (q - 128) and marked the
operator (options["uint8"]). CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
keep a weight zero point: their kernels add an offset to every weight, sum
in int32 and requantize with one multiplier (per tensor, as LiteRT's uint8
kernels; the real multiplier input_scale * filter_scale, a float product,
over output_scale in double), rounded as LiteRT's matrix library (ruy, on
x86) rounds for CONV_2D and FULLY_CONNECTED and as TFLite does for DEPTHWISE. AVERAGE_POOL_2D rounds the non-negative uint8
sums half up; SOFTMAX reads a float table (usmp_kernels/asymmetric.h).
The lowerings of those operators call these functions for marked operators.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import INT8_MIN, quantize_multiplier
from usmp.lower.ops.common import int8_activation, require_constant, require_dtype, require_quantized
from usmp.lower.ops.conv import constant_bias


def is_uint8(op) -> bool:
    return bool(op.options.get("uint8", False))


def _offsets(ctx, op, inp, out, weights, matrix_rounding: bool) -> dict:
    """input/filter/output offsets, the one multiplier, and the clamp, as LiteRT's uint8 kernels take them."""
    require_dtype(ctx, inp, "int8")
    require_dtype(ctx, out, "int8")
    require_dtype(ctx, weights, "int8")
    q_in, q_out, q_w = (require_quantized(ctx, t) for t in (inp, out, weights))
    product = np.float32(q_in.scale) * np.float32(q_w.scale)  # in float, then double: as LiteRT's uint8 kernels
    multiplier, shift = quantize_multiplier(float(product) / float(np.float32(q_out.scale)))
    lo, hi = int8_activation(ctx, op, out)
    return dict(input_offset=-q_in.zero_point, filter_offset=-q_w.zero_point, output_offset=q_out.zero_point,
                output_multiplier=multiplier, output_shift=shift,
                matrix_rounding=int(matrix_rounding), act_min=lo, act_max=hi)


def _bias(ctx, op, channels: int):
    tensor, values = constant_bias(ctx, op, channels)
    if tensor is not None:
        require_dtype(ctx, tensor, "int32")
    return ctx.constant("bias", values.astype(np.int32))


def lower_conv(op, ctx, window_params: dict, weights, depthwise: bool, depth_multiplier: int = 1):
    """CONV_2D (filter OHWI) or DEPTHWISE_CONV_2D (filter repacked channel-major here)."""
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    params = dict(window_params, depth_multiplier=depth_multiplier,
                  **_offsets(ctx, op, inp, out, weights, matrix_rounding=not depthwise))
    params["out_ch"] = params.get("out_ch", params["in_ch"] * depth_multiplier)
    channels = params["out_ch"]
    if depthwise:
        filter_ref = ctx.constant("filter", np.ascontiguousarray(weights.data[0].transpose(2, 0, 1)))
        function = "usmp_depthwise_conv_asym_s8"
    else:
        filter_ref, function = ctx.read(op.inputs[1]), "usmp_conv_asym_s8"
    ctx.call(function, "usmp_asym_conv_params", params, input=ctx.read(op.inputs[0]), filter=filter_ref,
             bias=_bias(ctx, op, channels), output=ctx.write(op.outputs[0]))


def lower_fully_connected(op, ctx, shape: dict):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    weights = require_constant(ctx, op, 1)
    params = dict(shape, **_offsets(ctx, op, inp, out, weights, matrix_rounding=True))
    ctx.call("usmp_fully_connected_asym_s8", "usmp_fully_connected_asym_params", params,
             input=ctx.read(op.inputs[0]), weights=ctx.read(op.inputs[1]),
             bias=_bias(ctx, op, shape["out_features"]), output=ctx.write(op.outputs[0]))


def lower_average_pool(op, ctx, params: dict):
    ctx.call("usmp_avg_pool_asym_s8", "usmp_pool_s8_params", params,
             input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))


def lower_softmax(op, ctx, rows: int, depth: int, beta: float):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if q_out.zero_point != INT8_MIN:  # LiteRT's uint8 softmax leaves the output zero point out
        raise ctx.fail(f"uint8 SOFTMAX needs output zero point 0, not {q_out.zero_point + 128}")
    scale = np.float32(-np.float32(q_in.scale) * np.float32(beta))
    table = np.empty(256, np.float32)
    for d in range(256):
        table[255 - d] = np.float32(np.exp(np.float64(np.float32(scale * np.float32(d)))))
    ctx.call("usmp_softmax_asym_s8", "usmp_softmax_asym_params",
             dict(rows=rows, depth=depth, output_scale=float(np.float32(q_out.scale))),
             input=ctx.read(op.inputs[0]), table=ctx.constant("table", table), output=ctx.write(op.outputs[0]))
