"""Checks and parameter helpers shared by the op lowerings."""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import Operator, Tensor
from usmp.lower.context import LowerContext
from usmp.lower.fixed_point import (
    ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1, INT16_MAX, INT16_MIN, activation_name, activation_range_float,
    activation_range_int8, quantize_multiplier, quantize_value,
)


def require_dtype(ctx: LowerContext, tensor: Tensor, *allowed: str) -> str:
    if tensor.dtype not in allowed:
        raise ctx.fail(f"tensor {tensor.index} '{tensor.name}' has type {tensor.dtype}; supported here: {', '.join(allowed)}")
    return tensor.dtype


# Zero points a kernel can add to a value of the type without overflow.
_ZERO_POINT_RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}


def require_quantized(ctx: LowerContext, tensor: Tensor, per_tensor: bool = True):
    """The scales and zero points this operator reads, checked here because the importer takes them as written."""
    q = tensor.quant
    where = f"tensor {tensor.index} '{tensor.name}'"
    if q is None:
        raise ctx.fail(f"int8 {where} has no quantization parameters")
    if per_tensor and q.per_channel:
        raise ctx.fail(f"{where} is quantized per channel, which this operator does not support")
    if not np.all(np.isfinite(q.scales)) or np.any(q.scales <= 0):
        raise ctx.fail(f"{where} has a quantization scale that is not a positive finite number")
    used = q.zero_points[:1] if per_tensor else q.zero_points
    low, high = _ZERO_POINT_RANGE.get(tensor.dtype, (-(1 << 31), (1 << 31) - 1))
    bad = used[(used < low) | (used > high)]
    if len(bad):
        raise ctx.fail(f"{where} has zero point {int(bad[0])}, outside the {tensor.dtype} range [{low}, {high}]")
    return q


def require_constant(ctx: LowerContext, op: Operator, position: int) -> Tensor:
    index = op.inputs[position] if position < len(op.inputs) else None
    if index is None:
        raise ctx.fail(f"input {position} is missing")
    tensor = ctx.tensor(index)
    if not tensor.is_constant:
        raise ctx.fail(f"input {position} (tensor {index} '{tensor.name}') must be a constant")
    return tensor


def optional_input(op: Operator, position: int) -> int | None:
    return op.inputs[position] if position < len(op.inputs) else None


def int8_activation(ctx: LowerContext, op: Operator, output: Tensor) -> tuple[int, int]:
    q = require_quantized(ctx, output)
    return activation_range_int8(op.options.get("fused_activation_function", 0), q.scale, q.zero_point, ctx.where(op))


_ACTIVATION_BOUNDS = {ACT_RELU: (0.0, None), ACT_RELU6: (0.0, 6.0), ACT_RELU_N1_TO_1: (-1.0, 1.0)}


def int16_activation(ctx: LowerContext, op: Operator, output: Tensor) -> tuple[int, int]:
    """The clamp bounds of the operator's fused activation on an int16 output."""
    return int16_clamp(ctx, op.options.get("fused_activation_function", 0), require_quantized(ctx, output))


def int16_clamp(ctx: LowerContext, activation: int, q) -> tuple[int, int]:
    """The clamp bounds of a fused activation on an int16 output of quantization q, quantized as int8's are."""
    if activation == ACT_NONE:
        return INT16_MIN, INT16_MAX
    if activation not in _ACTIVATION_BOUNDS:
        raise ctx.fail(f"fused activation {activation_name(activation)} is not supported")
    low, high = _ACTIVATION_BOUNDS[activation]
    lo = max(INT16_MIN, quantize_value(low, q.scale, q.zero_point))
    hi = INT16_MAX if high is None else min(INT16_MAX, quantize_value(high, q.scale, q.zero_point))
    return lo, hi


def float_activation(ctx: LowerContext, op: Operator) -> tuple[float, float]:
    return activation_range_float(op.options.get("fused_activation_function", 0), ctx.where(op))


def per_channel_requantization(input_scale: float, filter_scales: np.ndarray, output_scale: float):
    """Multiplier and shift per output channel: input_scale * filter_scale / output_scale, in double."""
    multipliers, shifts = [], []
    for filter_scale in filter_scales:
        real = float(np.float64(np.float32(input_scale)) * np.float64(np.float32(filter_scale)) / np.float64(np.float32(output_scale)))
        m, s = quantize_multiplier(real)
        multipliers.append(m)
        shifts.append(s)
    return np.array(multipliers, dtype=np.int32), np.array(shifts, dtype=np.int32)
