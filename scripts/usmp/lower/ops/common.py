"""Checks and parameter helpers shared by the op lowerings."""
from __future__ import annotations

import numpy as np

from usmp.ir.graph import Operator, Tensor
from usmp.lower.context import LowerContext
from usmp.lower.fixed_point import activation_range_float, activation_range_int8, quantize_multiplier


def require_dtype(ctx: LowerContext, tensor: Tensor, *allowed: str) -> str:
    if tensor.dtype not in allowed:
        raise ctx.fail(f"tensor {tensor.index} '{tensor.name}' has type {tensor.dtype}; supported here: {', '.join(allowed)}")
    return tensor.dtype


def require_quantized(ctx: LowerContext, tensor: Tensor, per_tensor: bool = True):
    q = tensor.quant
    if q is None:
        raise ctx.fail(f"int8 tensor {tensor.index} '{tensor.name}' has no quantization parameters")
    if per_tensor and q.per_channel:
        raise ctx.fail(f"tensor {tensor.index} '{tensor.name}' is quantized per channel, which this operator does not support")
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
