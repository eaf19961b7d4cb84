"""QUANTIZE (float32 -> int8, int8 -> int8, int8 <-> uint8) and DEQUANTIZE (int8 -> float32).

float -> int8 divides by the scale in float and rounds halves away from zero,
as TFLite Micro does; int8 -> int8 is an integer requantize with a multiplier
for input scale / output scale (computed in double). int8 -> uint8 (the output
of wake-word models trained for uint8 runtimes) and uint8 -> int8 are the same
requantize clamped to the other type's range; TFLite Micro's shortcut for equal
scales (flip the top bit when the zero points differ by 128) gives the same
bytes, since the multiplier is then exactly 1.
"""
from __future__ import annotations

from usmp.lower.fixed_point import INT8_MAX, INT8_MIN, quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.activations import unary_refs
from usmp.lower.ops.common import require_dtype, require_quantized


# (input, output) -> requantize kernel between 8-bit types
_REQUANTIZE_8BIT = {("int8", "int8"): "usmp_requantize_s8", ("int8", "uint8"): "usmp_requantize_s8_u8",
                    ("uint8", "int8"): "usmp_requantize_u8_s8"}


@lowering("QUANTIZE")
def lower_quantize(op, ctx):
    inp, out, dtype = _operands(op, ctx, "float32", "int8", "uint8")
    require_dtype(ctx, out, "uint8" if dtype == "int8" and out.dtype == "uint8" else "int8")
    q_out = require_quantized(ctx, out)
    size = out.num_elements
    if dtype == "float32":
        ctx.call("usmp_quantize_f32_s8", "usmp_quantize_f32_s8_params",
                 dict(size=size, scale=q_out.scale, zero_point=q_out.zero_point), **unary_refs(op, ctx))
        return
    q_in = require_quantized(ctx, inp)
    multiplier, shift = quantize_multiplier(q_in.scale / q_out.scale)
    low, high = (0, 255) if out.dtype == "uint8" else (INT8_MIN, INT8_MAX)
    params = dict(size=size, input_zero_point=q_in.zero_point, output_zero_point=q_out.zero_point,
                  multiplier=multiplier, shift=shift, act_min=low, act_max=high)
    kernel = _REQUANTIZE_8BIT[(dtype, out.dtype)]
    # In place only between equal types (unary_refs checks): the 8-bit kernels read element i before writing it.
    ctx.call(kernel, "usmp_requantize_s8_params", params, **unary_refs(op, ctx))


@lowering("DEQUANTIZE")
def lower_dequantize(op, ctx):
    inp, out, _ = _operands(op, ctx, "int8")
    require_dtype(ctx, out, "float32")
    q_in = require_quantized(ctx, inp)
    ctx.call("usmp_dequantize_s8_f32", "usmp_dequantize_s8_f32_params",
             dict(size=out.num_elements, scale=q_in.scale, zero_point=q_in.zero_point), **unary_refs(op, ctx))


def _operands(op, ctx, *input_dtypes: str):
    """Like activations.unary_operands, but the output type may differ from the input's."""
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *input_dtypes)
    if inp.num_elements != out.num_elements:
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ in size")
    return inp, out, dtype
