"""TRANSPOSE_CONV: inputs (output_shape, OHWI filter, NHWC input, optional bias).

The output tensor's shape is the geometry, as in TFLite Micro (which does not
read the output_shape input either). Padding is TFLite's padding of a
convolution whose *input* is this operator's output. The kernels gather; the
table of which input rows and columns (and filter taps) reach each output row
and column is computed here, and the filter's columns are reordered so that
the taps one input row contributes are contiguous (see
kernels/include/usmp_kernels/transpose_conv.h).

Types as TFLite Micro: float32; int8 with an int8 filter quantized per
channel or per tensor (symmetric) and an int32 bias; int16 activations with
an int8 filter and an int64 (or int16) bias, zero points 0, rescaled the
64-bit way (lower/ops/batch_matmul.py wide_requantization).
"""
from __future__ import annotations

import numpy as np

from usmp.lower.fixed_point import activation_range_int8
from usmp.lower.ops import lowering
from usmp.lower.ops.batch_matmul import wide_requantization
from usmp.lower.ops.common import (
    float_activation, int16_clamp, optional_input, per_channel_requantization, require_constant, require_dtype,
    require_quantized,
)
from usmp.lower.ops.resize import c_div
from usmp.lower.ops.window import PADDING_SAME, PADDING_VALID


def tflm_padding(padding: int, strides: tuple[int, int], sizes: tuple[int, int],
                 filters: tuple[int, int]) -> tuple[int, int]:
    """(top, left) as TFLite's ComputePaddingHeightWidth: a negative VALID size leaves both 0."""
    outs = []
    for stride, size, taps in zip(strides, sizes, filters):
        if padding == PADDING_SAME:
            out = c_div(size + stride - 1, stride)
        else:
            out = c_div(size + stride - taps, stride)
        if out < 0:
            return 0, 0
        outs.append(out)
    return tuple(max((out - 1) * stride + taps - size, 0) // 2
                 for out, stride, size, taps in zip(outs, strides, sizes, filters))


def tap_runs(out_size: int, in_size: int, stride: int, taps: int, pad: int) -> list[tuple[int, int, int]]:
    """Per output index: (first input, its filter tap, count) of the inputs that reach it.

    Input i reaches output o through tap o + pad - i * stride when that lies in
    [0, taps): i from floor((o + pad - taps) / stride) + 1 to floor((o + pad) / stride),
    within the input; listed from the lowest, so the taps go down by `stride`.
    """
    runs = []
    for o in range(out_size):
        first = max((o + pad - taps) // stride + 1, 0)
        last = min((o + pad) // stride, in_size - 1)
        runs.append((first, o + pad - first * stride, last - first + 1) if first <= last else (0, 0, 0))
    return runs


def column_order(taps: int, stride: int) -> list[int]:
    """The filter columns of one filter row in the kernel's order: by phase (tap mod stride), descending.

    An output column's taps are one phase, visited from the highest as the
    input column rises, so in this order they are one contiguous run.
    """
    return [tap for phase in range(min(stride, taps)) for tap in reversed(range(phase, taps, stride))]


@lowering("TRANSPOSE_CONV")
def lower_transpose_conv(op, ctx):
    if len(op.inputs) < 3 or op.inputs[1] is None or op.inputs[2] is None:
        raise ctx.fail("needs output_shape, filter and input tensors")
    weights = require_constant(ctx, op, 1)
    inp, out = ctx.tensor(op.inputs[2]), ctx.tensor(op.outputs[0])
    for tensor, what in ((inp, "input"), (out, "output"), (weights, "filter")):
        if len(tensor.shape) != 4:
            raise ctx.fail(f"{what} tensor '{tensor.name}' must be 4-D, not {list(tensor.shape)}")
    out_ch, filter_h, filter_w, filter_in_ch = (int(d) for d in weights.shape)
    batches, in_h, in_w, in_ch = inp.shape
    if out.shape[0] != batches or out.shape[3] != out_ch or filter_in_ch != in_ch:
        raise ctx.fail(f"input {list(inp.shape)}, filter {list(weights.shape)} and output {list(out.shape)} "
                       f"do not agree on batches and channels")
    o = op.options
    padding, stride_h, stride_w = o.get("padding", PADDING_SAME), o.get("stride_h", 1), o.get("stride_w", 1)
    if padding not in (PADDING_SAME, PADDING_VALID):
        raise ctx.fail(f"padding {padding} is not supported (only SAME and VALID)")
    if min(stride_h, stride_w) < 1 or min(filter_h, filter_w) < 1:
        raise ctx.fail(f"strides ({stride_h}, {stride_w}) and filter size {filter_h}x{filter_w} must be >= 1")
    out_h, out_w = out.shape[1], out.shape[2]
    pad_top, pad_left = tflm_padding(padding, (stride_h, stride_w), (out_h, out_w), (filter_h, filter_w))
    order = column_order(filter_w, stride_w)
    position = {tap: k for k, tap in enumerate(order)}
    taps = [v for first, tap, count in tap_runs(out_h, in_h, stride_h, filter_h, pad_top)
            for v in (first * in_w * in_ch, tap * filter_w * in_ch, count)]
    taps += [v for first, tap, count in tap_runs(out_w, in_w, stride_w, filter_w, pad_left)
             for v in (first * in_ch, position[tap] * in_ch if count else 0, count)]
    params = dict(batches=batches, in_h=in_h, in_w=in_w, in_ch=in_ch, out_h=out_h, out_w=out_w, out_ch=out_ch,
                  filter_size=filter_h * filter_w * in_ch, w_row_step=-stride_h * filter_w * in_ch)
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    require_dtype(ctx, out, dtype)
    require_dtype(ctx, weights, "float32" if dtype == "float32" else "int8")
    refs = dict(input=ctx.read(op.inputs[2]), filter=ctx.constant("filter", weights.data[:, :, order, :]),
                taps=ctx.constant("taps", np.array(taps, np.int32)))
    bias_index = optional_input(op, 3)
    bias = require_constant(ctx, op, 3) if bias_index is not None else None
    if bias is not None and bias.num_elements != out_ch:
        raise ctx.fail(f"bias '{bias.name}' has {bias.num_elements} elements, not {out_ch}")
    if dtype == "float32":
        lo, hi = float_activation(ctx, op)
        if bias is not None:
            require_dtype(ctx, bias, "float32")
        bias_ref = ctx.read(bias_index) if bias is not None else ctx.constant("bias", np.zeros(out_ch, np.float32))
        ctx.call("usmp_transpose_conv_f32", "usmp_transpose_conv_f32_params", dict(params, act_min=lo, act_max=hi),
                 **refs, bias=bias_ref, output=ctx.write(op.outputs[0]))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    q_w = require_quantized(ctx, weights, per_tensor=False)
    if np.any(q_w.zero_points != 0):
        raise ctx.fail(f"filter '{weights.name}' has a non-zero zero point; int8 filters must be symmetric")
    if q_w.per_channel and (len(q_w.scales) != out_ch or q_w.axis != 0):
        raise ctx.fail(f"filter '{weights.name}' is quantized along axis {q_w.axis} with {len(q_w.scales)} "
                       f"scales; expected axis 0 with {out_ch}")
    multipliers, shifts = per_channel_requantization(q_in.scale, q_w.scales, q_out.scale)
    per_channel = int(len(multipliers) > 1)
    activation = o.get("fused_activation_function", 0)
    if dtype == "int8":
        if bias is not None:
            require_dtype(ctx, bias, "int32")
        bias_ref = ctx.read(bias_index) if bias is not None else ctx.constant("bias", np.zeros(out_ch, np.int32))
        lo, hi = activation_range_int8(activation, q_out.scale, q_out.zero_point, ctx.where(op))
        ctx.call("usmp_transpose_conv_s8", "usmp_transpose_conv_s8_params",
                 dict(params, input_offset=-q_in.zero_point, output_offset=q_out.zero_point, act_min=lo, act_max=hi,
                      per_channel=per_channel),
                 **refs, bias=bias_ref, multiplier=ctx.constant("multiplier", multipliers),
                 shift=ctx.constant("shift", shifts), output=ctx.write(op.outputs[0]))
        return
    for tensor, q in ((inp, q_in), (out, q_out)):
        if q.zero_point != 0:
            raise ctx.fail(f"int16 tensor '{tensor.name}' has zero point {q.zero_point}; 16x8 needs 0")
    if bias is None:
        bias_values = np.zeros(out_ch, np.int64)
    else:
        require_dtype(ctx, bias, "int64", "int16")
        bias_values = bias.data.reshape(-1).astype(np.int64)
    wide = [wide_requantization(ctx, int(m), int(s)) for m, s in zip(multipliers, shifts)]
    lo, hi = int16_clamp(ctx, activation, q_out)
    ctx.call("usmp_transpose_conv_s16", "usmp_transpose_conv_s16_params",
             dict(params, act_min=lo, act_max=hi, per_channel=per_channel),
             **refs, bias=ctx.constant("bias", bias_values, alignment=8),
             multiplier=ctx.constant("multiplier", np.array([m for m, _ in wide], np.int32)),
             shift=ctx.constant("shift", np.array([s for _, s in wide], np.int32)), output=ctx.write(op.outputs[0]))
