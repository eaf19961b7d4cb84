"""Hybrid (dynamic-range) operators: int8 weights, float32 activations, as LiteRT runs them.

TensorFlow's dynamic-range quantization keeps activations float and stores
large weights as int8 (symmetric, per tensor or per output channel). LiteRT
quantizes each batch of the input when the operator runs (symmetrically, or
asymmetrically when FULLY_CONNECTED's asymmetric_quantize_inputs is set; per
channel convolutions always asymmetrically), sums int8 products exactly and
scales the sums back to float (usmp_kernels/hybrid.h). Every operator is two
kernel calls: quantize the input into scratch, then the operator on it.
The lowerings of FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D call these
functions when their input is float32 and their weights int8.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops.common import float_activation, require_constant, require_dtype, require_quantized


def is_hybrid(ctx, op) -> bool:
    """Float input, int8 weights: TensorFlow's dynamic-range quantization."""
    weights = op.inputs[1] if len(op.inputs) > 1 else None
    return (ctx.tensor(op.inputs[0]).dtype == "float32" and weights is not None
            and ctx.tensor(weights).dtype == "int8")


def _weight_scales(ctx, weights, channels: int, axis: int) -> np.ndarray:
    q = require_quantized(ctx, weights, per_tensor=False)
    if np.any(q.zero_points != 0):
        raise ctx.fail(f"hybrid weights '{weights.name}' have a non-zero zero point; LiteRT needs symmetric weights")
    if q.per_channel and (len(q.scales) != channels or q.axis != axis):
        raise ctx.fail(f"hybrid weights '{weights.name}' are quantized along axis {q.axis} with {len(q.scales)} "
                       f"scales; expected axis {axis} with {channels}")
    return q.scales.astype(np.float32)


def _bias(ctx, op, channels: int):
    index = op.inputs[2] if len(op.inputs) > 2 else None
    if index is None:
        return ctx.constant("bias", np.zeros(channels, np.float32))
    bias = require_constant(ctx, op, 2)
    require_dtype(ctx, bias, "float32")
    if bias.num_elements != channels:
        raise ctx.fail(f"bias '{bias.name}' has {bias.num_elements} elements, not {channels}")
    return ctx.read(index)


def _quantize_input(ctx, op, batches: int, size: int, asymmetric: bool) -> dict:
    """Quantize the float input into scratch; the refs the operator's kernel reads."""
    refs = dict(quantized=ctx.scratch("quantized_input", batches * size),
                scales=ctx.scratch("input_scales", 4 * batches, "float"),
                offsets=ctx.scratch("input_offsets", 4 * batches, "int32_t"))
    ctx.call("usmp_hybrid_quantize", "usmp_hybrid_quantize_params",
             dict(batches=batches, size=size, asymmetric=int(asymmetric)), input=ctx.read(op.inputs[0]), **refs)
    return refs


def _check_output(ctx, op):
    require_dtype(ctx, ctx.tensor(op.outputs[0]), "float32")


def lower_fully_connected(op, ctx, shape: dict):
    _check_output(ctx, op)
    weights = ctx.tensor(op.inputs[1])
    scales = _weight_scales(ctx, weights, shape["out_features"], 0)
    asymmetric = bool(op.options.get("asymmetric_quantize_inputs", False))
    lo, hi = float_activation(ctx, op)
    refs = _quantize_input(ctx, op, shape["batches"], shape["in_features"], asymmetric)
    row_sums = weights.data.astype(np.int64).sum(axis=1).astype(np.int32)
    ctx.call("usmp_hybrid_fully_connected", "usmp_hybrid_fully_connected_params",
             dict(shape, per_channel=int(len(scales) > 1), asymmetric=int(asymmetric), act_min=lo, act_max=hi),
             **refs, weights=ctx.read(op.inputs[1]), row_sums=ctx.constant("row_sums", row_sums),
             weight_scales=ctx.constant("weight_scales", scales), bias=_bias(ctx, op, shape["out_features"]),
             output=ctx.write(op.outputs[0]))


def lower_conv(op, ctx, window_params: dict, weights, depth_multiplier: int = 0):
    """CONV_2D (depth_multiplier 0) or DEPTHWISE_CONV_2D (filter repacked channel-major here)."""
    _check_output(ctx, op)
    params = dict(window_params, depth_multiplier=depth_multiplier)
    channels = params["out_ch"] = params.get("out_ch", params["in_ch"] * max(depth_multiplier, 1))
    scales = _weight_scales(ctx, weights, channels, 3 if depth_multiplier else 0)
    per_channel = len(scales) > 1
    lo, hi = float_activation(ctx, op)
    batches = params["batches"]
    refs = _quantize_input(ctx, op, batches, ctx.tensor(op.inputs[0]).num_elements // batches, per_channel)
    if depth_multiplier:
        filter_ref = ctx.constant("filter", np.ascontiguousarray(weights.data[0].transpose(2, 0, 1)))
    else:
        filter_ref = ctx.read(op.inputs[1])
    ctx.call("usmp_hybrid_conv", "usmp_hybrid_conv_params",
             dict(params, per_channel=int(per_channel), act_min=lo, act_max=hi), **refs, filter=filter_ref,
             weight_scales=ctx.constant("weight_scales", scales), bias=_bias(ctx, op, channels),
             output=ctx.write(op.outputs[0]))


def lower_batch_matmul(op, ctx):
    """lhs float [..., rows, depth], rhs a constant int8 [..., depth, cols] (per tensor), batches equal or rhs's 1."""
    _check_output(ctx, op)
    lhs, rhs, out = (ctx.tensor(i) for i in (op.inputs[0], op.inputs[1], op.outputs[0]))
    if op.options.get("adj_x", False):
        raise ctx.fail("a hybrid BATCH_MATMUL with adj_x is not supported")
    if not rhs.is_constant:
        raise ctx.fail(f"hybrid rhs '{rhs.name}' must be a constant")
    scale = _weight_scales(ctx, rhs, 1, 0)
    if len(scale) != 1:
        raise ctx.fail(f"hybrid rhs '{rhs.name}' must be quantized per tensor")
    rhs_t = rhs.data if op.options.get("adj_y", False) else np.swapaxes(rhs.data, -1, -2)  # [..., cols, depth]
    rows, depth = lhs.shape[-2], lhs.shape[-1]
    cols = rhs_t.shape[-2]
    if rhs_t.shape[-1] != depth or tuple(out.shape[-2:]) != (rows, cols):
        raise ctx.fail(f"lhs {list(lhs.shape)}, rhs {list(rhs.shape)} and output {list(out.shape)} do not match")
    batches = lhs.num_elements // (rows * depth)
    rhs_batches = rhs.num_elements // (depth * cols)
    if rhs_batches not in (1, batches) or (rhs_batches > 1 and tuple(rhs.shape[:-2]) != tuple(lhs.shape[:-2])):
        raise ctx.fail(f"hybrid BATCH_MATMUL needs rhs batches of 1 or the lhs's, not {list(rhs.shape[:-2])}")
    if out.num_elements != batches * rows * cols:
        raise ctx.fail(f"output shape {list(out.shape)} does not hold {batches} x {rows} x {cols} results")
    asymmetric = bool(op.options.get("asymmetric_quantize_inputs", False))
    rhs_t = np.ascontiguousarray(rhs_t.reshape(rhs_batches, cols, depth))
    refs = _quantize_input(ctx, op, batches * rows, depth, asymmetric)
    ctx.call("usmp_hybrid_batch_matmul", "usmp_hybrid_batch_matmul_params",
             dict(batches=batches, rows=rows, depth=depth, cols=cols, rhs_batches=rhs_batches,
                  asymmetric=int(asymmetric), weight_scale=float(scale[0])),
             **refs, rhs_t=ctx.constant("rhs_transposed", rhs_t),
             row_sums=ctx.constant("row_sums", rhs_t.astype(np.int64).sum(axis=2).astype(np.int32)),
             output=ctx.write(op.outputs[0]))


def lower_svdf(op, ctx, shape: dict, output_function):
    """SVDF with int8 feature and time weights, float input, state and output (shape checked by svdf.py)."""
    _check_output(ctx, op)
    function, bias_ref = output_function
    features, times, state = (ctx.tensor(op.inputs[k]) for k in (1, 2, 4))
    require_dtype(ctx, times, "int8")
    require_dtype(ctx, state, "float32")
    feature_scale = _weight_scales(ctx, features, 1, 0)
    time_scale = _weight_scales(ctx, times, 1, 0)
    if len(feature_scale) != 1 or len(time_scale) != 1:
        raise ctx.fail("hybrid SVDF weights must be quantized per tensor")
    # LiteRT dequantizes the time weights once: scale * q in float, as here.
    float_times = (times.data.astype(np.float32) * np.float32(time_scale[0])).astype(np.float32)
    asymmetric = bool(op.options.get("asymmetric_quantize_inputs", False))
    refs = _quantize_input(ctx, op, shape["batches"], shape["input_size"], asymmetric)
    ctx.call("usmp_hybrid_svdf", "usmp_hybrid_svdf_params",
             dict(shape, asymmetric=int(asymmetric), feature_scale=float(feature_scale[0]), **function),
             **refs, feature_weights=ctx.read(op.inputs[1]),
             row_sums=ctx.constant("row_sums", features.data.astype(np.int64).sum(axis=1).astype(np.int32)),
             time_weights=ctx.constant("time_weights", float_times), bias=bias_ref, state=ctx.state(op.inputs[4]),
             output=ctx.write(op.outputs[0]))


def lower_lstm(op, ctx, inputs, weights, shape: dict, cell_clip: float):
    """UNIDIRECTIONAL_SEQUENCE_LSTM with int8 gate weights (per tensor); lstm.py has checked the shapes.

    weights: per gate (forget, input, cell, output) its (input weights, recurrent weights, bias) tensors.
    """
    hidden, cell = ctx.tensor(inputs[18]), ctx.tensor(inputs[19])
    for tensor in (hidden, cell, ctx.tensor(op.outputs[0])) + tuple(gate[2] for gate in weights):
        require_dtype(ctx, tensor, "float32")
    scales = []
    for k in (0, 1):
        for gate in weights:
            require_dtype(ctx, gate[k], "int8")
            scale = _weight_scales(ctx, gate[k], 1, 0)
            if len(scale) != 1:
                raise ctx.fail(f"hybrid LSTM weights '{gate[k].name}' must be quantized per tensor")
            scales.append(scale[0])

    def stacked(k):
        return np.concatenate([gate[k].data for gate in weights])

    def row_sums(k):
        return stacked(k).astype(np.int64).sum(axis=1).astype(np.int32)

    units, size = shape["state_size"], shape["input_size"]
    asymmetric = bool(op.options.get("asymmetric_quantize_inputs", False))
    ctx.call("usmp_hybrid_lstm", "usmp_hybrid_lstm_params",
             dict(shape, asymmetric=int(asymmetric), cell_clip=cell_clip),
             input=ctx.read(inputs[0]), input_weights=ctx.constant("input_weights", stacked(0)),
             input_row_sums=ctx.constant("input_row_sums", row_sums(0)),
             recurrent_weights=ctx.constant("recurrent_weights", stacked(1)),
             recurrent_row_sums=ctx.constant("recurrent_row_sums", row_sums(1)),
             weight_scales=ctx.constant("weight_scales", np.array(scales, np.float32)),
             bias=ctx.constant("bias", np.concatenate([gate[2].data.astype(np.float32) for gate in weights])),
             hidden=ctx.state(inputs[18]), cell=ctx.state(inputs[19]),
             scratch=ctx.scratch("gates", 5 * units * 4, "float"),
             quantized=ctx.scratch("quantized", size + units), output=ctx.write(op.outputs[0]))
