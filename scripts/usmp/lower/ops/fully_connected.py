"""FULLY_CONNECTED: out[b, o] = act(sum_k in[b, k] * W[o, k] + bias[o]).

int8: the input zero point is folded into the bias at compile time
(bias'[o] = bias[o] - zp_in * sum_k W[o, k]), so the kernel's inner loop is a
plain int8 dot product; the sum is equal modulo 2**32 to TFLite's.

16x8 (int16 activations, int8 weights): the same fold into an int64 or int32
bias, summed and rescaled as lower/ops/sums16x8.py says; TFLite Micro's
16x8 FULLY_CONNECTED, unlike its convolutions, honours zero points.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import asymmetric, hybrid, lowering
from usmp.lower.ops.common import (
    float_activation, int8_activation, int16_clamp, optional_input, per_channel_requantization, require_constant,
    require_dtype, require_quantized,
)
from usmp.lower.ops.sums16x8 import sums_16x8


@lowering("FULLY_CONNECTED")
def lower_fully_connected(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    weights = require_constant(ctx, op, 1)
    if len(weights.shape) != 2:
        raise ctx.fail(f"weights tensor '{weights.name}' must be 2-D, not {list(weights.shape)}")
    out_features, in_features = weights.shape
    if inp.num_elements % in_features:
        raise ctx.fail(f"input of {inp.num_elements} elements is not a multiple of {in_features} features")
    batches = inp.num_elements // in_features
    if out.num_elements != batches * out_features:
        raise ctx.fail(f"output shape {list(out.shape)} does not hold {batches} x {out_features} results")
    bias_index = optional_input(op, 2)
    bias = ctx.tensor(bias_index) if bias_index is not None else None
    if bias is not None and not bias.is_constant:
        raise ctx.fail("a non-constant bias is not supported")
    if bias is not None and bias.num_elements != out_features:  # the kernel reads one per output feature
        raise ctx.fail(f"bias '{bias.name}' has {bias.num_elements} elements, not {out_features}")
    shape = dict(batches=batches, in_features=in_features, out_features=out_features)
    if hybrid.is_hybrid(ctx, op):  # int8 weights, float activations
        hybrid.lower_fully_connected(op, ctx, shape)
        return
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    require_dtype(ctx, out, dtype)
    if dtype == "float32":
        require_dtype(ctx, weights, "float32")
        if bias is not None:
            require_dtype(ctx, bias, "float32")
        lo, hi = float_activation(ctx, op)
        bias_ref = ctx.read(bias_index) if bias is not None else ctx.constant("bias", np.zeros(out_features, np.float32))
        ctx.call("usmp_fully_connected_f32", "usmp_fully_connected_f32_params",
                 dict(shape, act_min=lo, act_max=hi),
                 input=ctx.read(op.inputs[0]), weights=ctx.read(op.inputs[1]), bias=bias_ref,
                 output=ctx.write(op.outputs[0]))
        return
    require_dtype(ctx, weights, "int8")
    if asymmetric.is_uint8(op):  # a uint8 model's: weights with a zero point
        asymmetric.lower_fully_connected(op, ctx, shape)
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    q_w = require_quantized(ctx, weights, per_tensor=False)
    if np.any(q_w.zero_points != 0):
        raise ctx.fail(f"weights tensor '{weights.name}' has a non-zero zero point; int8 weights must be symmetric")
    if q_w.per_channel and (len(q_w.scales) != out_features or q_w.axis != 0):
        raise ctx.fail(f"weights tensor '{weights.name}' is quantized along axis {q_w.axis} with {len(q_w.scales)} "
                       f"scales; expected axis 0 with {out_features}")
    multipliers, shifts = per_channel_requantization(q_in.scale, q_w.scales, q_out.scale)
    w = weights.data.astype(np.int64)
    folded = (bias.data.astype(np.int64).reshape(-1) if bias is not None else np.zeros(out_features, np.int64))
    folded = folded - q_in.zero_point * w.sum(axis=1)
    refs = dict(input=ctx.read(op.inputs[0]), weights=ctx.read(op.inputs[1]))
    if dtype == "int16":
        sums = sums_16x8(ctx, op, bias, folded, multipliers, shifts)
        lo, hi = int16_clamp(ctx, op.options.get("fused_activation_function", 0), q_out)
        ctx.call("usmp_fully_connected_s16", "usmp_fully_connected_s16_params",
                 dict(shape, output_offset=q_out.zero_point, act_min=lo, act_max=hi, **sums.params),
                 **refs, **sums.refs, output=ctx.write(op.outputs[0]))
        return
    if bias is not None:
        require_dtype(ctx, bias, "int32")
    lo, hi = int8_activation(ctx, op, out)
    folded = ((folded + 2**31) % 2**32 - 2**31).astype(np.int32)
    ctx.call("usmp_fully_connected_s8", "usmp_fully_connected_s8_params",
             dict(shape, output_offset=q_out.zero_point, act_min=lo, act_max=hi,
                  per_channel=int(len(multipliers) > 1)),
             **refs, bias=ctx.constant("bias", folded), multiplier=ctx.constant("multiplier", multipliers),
             shift=ctx.constant("shift", shifts), output=ctx.write(op.outputs[0]))

