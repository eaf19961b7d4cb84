"""The sums of 16x8 FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D (int16 activations, int8 weights).

TFLite Micro picks the accumulator from the bias type: an int64 bias (or no
bias, unless the options say quantized_bias_type INT32) sums in 64 bits and is
rescaled the 64-bit way, with the multiplier rounded to 16 bits
(batch_matmul.wide_requantization); an int32 bias sums in 32 bits, wrapping
around, and is rescaled like int8. The kernels take the bias as int64 either
way, plus a flag, `wide`, that picks the rescale.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from usmp.ir.graph import Operator, Tensor
from usmp.lower.context import LowerContext, Ref
from usmp.lower.ops.batch_matmul import wide_requantization

TENSOR_TYPE_INT32 = 2  # tflite TensorType, as quantized_bias_type names it


@dataclass
class Sums16x8:
    params: dict  # wide, per_channel
    refs: dict  # bias (int64), multiplier, shift


def sums_16x8(ctx: LowerContext, op: Operator, bias: Tensor | None, values: np.ndarray, multipliers: np.ndarray,
              shifts: np.ndarray, int32_bias: bool = True) -> Sums16x8:
    """Kernel params and constants for `values`, the bias (with anything folded into it) as int64.

    int32_bias: whether TFLite Micro's kernel reads an int32 bias (DEPTHWISE_CONV_2D reads int64 only).
    """
    allowed = ("int64", "int32") if int32_bias else ("int64",)
    if bias is not None and bias.dtype not in allowed:
        raise ctx.fail(f"bias '{bias.name}' has type {bias.dtype}; a 16x8 {op.opcode} takes an "
                       f"{' or '.join(allowed)} bias")
    if bias is not None:
        wide = bias.dtype == "int64"
    else:
        wide = op.options.get("quantized_bias_type", 0) != TENSOR_TYPE_INT32
    values = np.asarray(values, np.int64)
    if wide:
        pairs = [wide_requantization(ctx, int(m), int(s)) for m, s in zip(multipliers, shifts)]
        multipliers = np.array([m for m, _ in pairs], np.int32)
        shifts = np.array([s for _, s in pairs], np.int32)
    else:  # the 32-bit sum wraps around: so may the bias with anything folded into it
        values = (values + 2**31) % 2**32 - 2**31
    refs: dict[str, Ref] = dict(bias=ctx.constant("bias", values, alignment=8),
                                multiplier=ctx.constant("multiplier", np.asarray(multipliers, np.int32)),
                                shift=ctx.constant("shift", np.asarray(shifts, np.int32)))
    return Sums16x8(dict(wide=int(wide), per_channel=int(len(multipliers) > 1)), refs)


def require_zero_points(ctx: LowerContext, op: Operator, *tensors: Tensor) -> None:
    """TFLite Micro's 16x8 convolutions leave zero points out of the sums: only 0 gives the right result."""
    for tensor in tensors:
        if tensor.quant is not None and tensor.quant.zero_point != 0:
            raise ctx.fail(f"int16 tensor '{tensor.name}' has zero point {tensor.quant.zero_point}; a 16x8 "
                           f"{op.opcode} needs 0")
