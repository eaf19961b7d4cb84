"""DEPTHWISE_CONV_2D: output channel c * M + m filters input channel c (M = depth multiplier).

The [1, H, W, C*M] filter is repacked channel-major ([C*M, H, W]) at compile
time so that one output channel's taps are contiguous for the kernel. int8
folds the input zero point into the bias like CONV_2D (see conv.py). 16x8 as
CONV_2D's, except that TFLite Micro reads the bias as int64 only. A missing
options table is refused: TFLite Micro then uses depth multiplier 0 and writes
no output at all.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import asymmetric, hybrid, lowering
from usmp.lower.ops.common import float_activation, require_constant, require_dtype
from usmp.lower.ops.conv import float_bias, int8_conv_constants, int16_conv_constants, require_options
from usmp.lower.ops.window import sliding_window


@lowering("DEPTHWISE_CONV_2D")
def lower_depthwise_conv_2d(op, ctx):
    require_options(ctx, op, "DepthwiseConv2DOptions")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    weights = require_constant(ctx, op, 1)
    if len(weights.shape) != 4 or weights.shape[0] != 1:
        raise ctx.fail(f"filter tensor '{weights.name}' must have shape [1, H, W, C], not {list(weights.shape)}")
    _, filter_h, filter_w, out_ch = (int(d) for d in weights.shape)
    window = sliding_window(ctx, op, inp, out, filter_h, filter_w)
    if window.out_ch != out_ch:
        raise ctx.fail(f"output has {window.out_ch} channels but the filter makes {out_ch}")
    if out_ch % window.in_ch:
        raise ctx.fail(f"filter channels ({out_ch}) are not a multiple of the input channels ({window.in_ch})")
    multiplier = out_ch // window.in_ch
    declared = op.options.get("depth_multiplier", multiplier)
    if declared != multiplier:
        raise ctx.fail(f"depth_multiplier {declared} does not match the shapes ({window.in_ch} input, "
                       f"{out_ch} output channels)")
    params = window.params()
    del params["out_ch"]
    params["depth_multiplier"] = multiplier
    if hybrid.is_hybrid(ctx, op):  # int8 weights, float activations
        hybrid.lower_conv(op, ctx, window.params(), weights, depth_multiplier=multiplier)
        return
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    require_dtype(ctx, out, dtype)
    require_dtype(ctx, weights, "int8" if dtype == "int16" else dtype)
    channel_major = np.ascontiguousarray(weights.data[0].transpose(2, 0, 1))
    if dtype == "float32":
        lo, hi = float_activation(ctx, op)
        ctx.call("usmp_depthwise_conv_f32", "usmp_depthwise_conv_f32_params", dict(params, act_min=lo, act_max=hi),
                 input=ctx.read(op.inputs[0]), filter=ctx.constant("filter", channel_major),
                 bias=float_bias(ctx, op, out_ch), output=ctx.write(op.outputs[0]))
        return
    if dtype == "int16":
        quant, refs = int16_conv_constants(ctx, op, inp, out, weights, out_ch, 3, int32_bias=False)
        ctx.call("usmp_depthwise_conv_s16", "usmp_depthwise_conv_s16_params", dict(params, **quant),
                 input=ctx.read(op.inputs[0]), filter=ctx.constant("filter", channel_major), **refs,
                 output=ctx.write(op.outputs[0]))
        return
    if asymmetric.is_uint8(op):  # a uint8 model's: weights with a zero point
        asymmetric.lower_conv(op, ctx, window.params(), weights, depthwise=True, depth_multiplier=multiplier)
        return
    filter_sums = channel_major.astype(np.int64).reshape(out_ch, -1).sum(axis=1)
    quant, refs = int8_conv_constants(ctx, op, inp, out, weights, out_ch, 3, filter_sums)
    ctx.call("usmp_depthwise_conv_s8", "usmp_depthwise_conv_s8_params", dict(params, **quant),
             input=ctx.read(op.inputs[0]), filter=ctx.constant("filter", channel_major), **refs,
             output=ctx.write(op.outputs[0]))
