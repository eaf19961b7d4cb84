"""CONV_2D: NHWC input, OHWI filter, optional bias, fused activation; groups allowed.

int8: the input zero point is folded into a per-channel bias
(folded[o] = bias[o] - zp_in * sum(W[o])), which is exact wherever the whole
filter lies inside the input. TFLite skips taps in the padding, so at the
borders the kernel starts from the plain bias and adds the zero-point term of
the taps that are inside; see kernels/include/usmp_kernels/conv.h.

16x8 (int16 activations, int8 filter): zero points 0, an int64 or int32
bias, summed and rescaled as lower/ops/sums16x8.py says.

A missing options table is refused: TFLite Micro then runs the operator with
stride 0 and dilation 0 (every output reads the same input pixel).
"""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import Operator, Tensor
from usmp.lower.context import LowerContext, Ref
from usmp.lower.ops import asymmetric, hybrid, lowering
from usmp.lower.ops.common import (
    float_activation, int8_activation, int16_clamp, optional_input, per_channel_requantization, require_constant,
    require_dtype, require_quantized,
)
from usmp.lower.ops.sums16x8 import require_zero_points, sums_16x8
from usmp.lower.ops.window import sliding_window


@lowering("CONV_2D")
def lower_conv_2d(op, ctx):
    require_options(ctx, op, "Conv2DOptions")
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    weights = require_constant(ctx, op, 1)
    if len(weights.shape) != 4:
        raise ctx.fail(f"filter tensor '{weights.name}' must be 4-D (OHWI), not {list(weights.shape)}")
    out_ch, filter_h, filter_w, filter_in_ch = (int(d) for d in weights.shape)
    window = sliding_window(ctx, op, inp, out, filter_h, filter_w)
    if window.out_ch != out_ch:
        raise ctx.fail(f"output has {window.out_ch} channels but the filter makes {out_ch}")
    if window.in_ch % filter_in_ch:
        raise ctx.fail(f"input channels ({window.in_ch}) are not a multiple of the filter's ({filter_in_ch})")
    groups = window.in_ch // filter_in_ch
    if out_ch % groups:
        raise ctx.fail(f"{out_ch} output channels cannot be split into {groups} groups")
    params = dict(window.params(), filter_in_ch=filter_in_ch, filters_per_group=out_ch // groups)
    if hybrid.is_hybrid(ctx, op):  # int8 weights, float activations
        if groups != 1:
            raise ctx.fail("a hybrid CONV_2D with groups is not supported")
        hybrid.lower_conv(op, ctx, window.params(), weights)
        return
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    require_dtype(ctx, out, dtype)
    require_dtype(ctx, weights, "int8" if dtype == "int16" else dtype)
    if dtype == "float32":
        lo, hi = float_activation(ctx, op)
        ctx.call("usmp_conv_f32", "usmp_conv_f32_params", dict(params, act_min=lo, act_max=hi),
                 input=ctx.read(op.inputs[0]), filter=ctx.read(op.inputs[1]),
                 bias=float_bias(ctx, op, out_ch), output=ctx.write(op.outputs[0]))
        return
    if dtype == "int16":
        quant, refs = int16_conv_constants(ctx, op, inp, out, weights, out_ch, 0)
        ctx.call("usmp_conv_s16", "usmp_conv_s16_params", dict(params, **quant),
                 input=ctx.read(op.inputs[0]), filter=ctx.read(op.inputs[1]), **refs,
                 output=ctx.write(op.outputs[0]))
        return
    if asymmetric.is_uint8(op):  # a uint8 model's: weights with a zero point
        if groups != 1:
            raise ctx.fail("a uint8 CONV_2D with groups is not supported")
        asymmetric.lower_conv(op, ctx, window.params(), weights, depthwise=False)
        return
    filter_sums = weights.data.astype(np.int64).reshape(out_ch, -1).sum(axis=1)
    quant, refs = int8_conv_constants(ctx, op, inp, out, weights, out_ch, 0, filter_sums)
    ctx.call("usmp_conv_s8", "usmp_conv_s8_params", dict(params, **quant),
             input=ctx.read(op.inputs[0]), filter=ctx.read(op.inputs[1]), **refs,
             output=ctx.write(op.outputs[0]))


def require_options(ctx: LowerContext, op: Operator, table: str) -> None:
    """The options table TFLite Micro reads the geometry from; without it TFLite Micro uses all zeros."""
    if "stride_h" not in op.options:
        raise ctx.fail(f"the {table} table is missing; TFLite Micro would run the operator with stride 0 and "
                       f"dilation 0, which has no meaning")


def float_bias(ctx: LowerContext, op: Operator, channels: int) -> Ref:
    """The float bias, or zeros when the operator has none."""
    index = optional_input(op, 2)
    if index is None:
        return ctx.constant("bias", np.zeros(channels, np.float32))
    bias = require_constant(ctx, op, 2)
    require_dtype(ctx, bias, "float32")
    if bias.num_elements != channels:
        raise ctx.fail(f"bias '{bias.name}' has {bias.num_elements} elements, not {channels}")
    return ctx.read(index)


def int8_conv_constants(ctx: LowerContext, op: Operator, inp: Tensor, out: Tensor, weights: Tensor,
                        channels: int, channel_axis: int, filter_sums: np.ndarray) -> tuple[dict, dict]:
    """Quantization parameters and constants shared by the int8 convolutions.

    Returns the params fields (input_offset, output_offset, act_min, act_max,
    per_channel) and the bias, folded_bias, multiplier and shift constants.
    """
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    q_w = filter_quantization(ctx, weights, channels, channel_axis)
    bias_tensor, bias = constant_bias(ctx, op, channels)
    if bias_tensor is not None:
        require_dtype(ctx, bias_tensor, "int32")
    input_offset = -q_in.zero_point
    folded = bias + input_offset * filter_sums
    multipliers, shifts = per_channel_requantization(q_in.scale, q_w.scales, q_out.scale)
    lo, hi = int8_activation(ctx, op, out)
    params = dict(input_offset=input_offset, output_offset=q_out.zero_point, act_min=lo, act_max=hi,
                  per_channel=int(len(multipliers) > 1))
    refs = dict(bias=ctx.constant("bias", _wrap_int32(bias)),
                folded_bias=ctx.constant("folded_bias", _wrap_int32(folded)),
                multiplier=ctx.constant("multiplier", multipliers), shift=ctx.constant("shift", shifts))
    return params, refs


def int16_conv_constants(ctx: LowerContext, op: Operator, inp: Tensor, out: Tensor, weights: Tensor,
                         channels: int, channel_axis: int, int32_bias: bool = True) -> tuple[dict, dict]:
    """The 16x8 counterpart: params (act_min, act_max, per_channel, wide) and bias, multiplier, shift."""
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    require_zero_points(ctx, op, inp, out)
    q_w = filter_quantization(ctx, weights, channels, channel_axis)
    bias_tensor, bias = constant_bias(ctx, op, channels)
    multipliers, shifts = per_channel_requantization(q_in.scale, q_w.scales, q_out.scale)
    sums = sums_16x8(ctx, op, bias_tensor, bias, multipliers, shifts, int32_bias)
    lo, hi = int16_clamp(ctx, op.options.get("fused_activation_function", 0), q_out)
    return dict(act_min=lo, act_max=hi, **sums.params), sums.refs


def filter_quantization(ctx: LowerContext, weights: Tensor, channels: int, channel_axis: int):
    """The int8 filter's scales: symmetric, one per tensor or one per output channel along channel_axis."""
    q_w = require_quantized(ctx, weights, per_tensor=False)
    if np.any(q_w.zero_points != 0):
        raise ctx.fail(f"filter '{weights.name}' has a non-zero zero point; int8 filters must be symmetric")
    if q_w.per_channel and (len(q_w.scales) != channels or q_w.axis != channel_axis):
        raise ctx.fail(f"filter '{weights.name}' is quantized along axis {q_w.axis} with {len(q_w.scales)} "
                       f"scales; expected axis {channel_axis} with {channels}")
    return q_w


def constant_bias(ctx: LowerContext, op: Operator, channels: int) -> tuple[Tensor | None, np.ndarray]:
    """The bias tensor (None when omitted) and its values as int64, one per channel."""
    if optional_input(op, 2) is None:
        return None, np.zeros(channels, np.int64)
    tensor = require_constant(ctx, op, 2)
    if tensor.num_elements != channels:
        raise ctx.fail(f"bias '{tensor.name}' has {tensor.num_elements} elements, not {channels}")
    return tensor, tensor.data.reshape(-1).astype(np.int64)


def _wrap_int32(values: np.ndarray) -> np.ndarray:
    """Two's-complement wrap: the kernel's sums are equal to TFLite's modulo 2**32."""
    return ((values.astype(np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)
