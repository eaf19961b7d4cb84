"""QUANTIZE and DEQUANTIZE between float32 and the integer types, and between integer types.

float -> int8/int16 divides by the scale in float and rounds halves away from
zero, as TFLite Micro does. Integer -> integer (int8, uint8, int16, int32 in the
pairs TFLite Micro accepts) is one requantize: a multiplier for input scale /
output scale (computed in double), clamped to the output type. TFLite Micro's
shortcut for int8 <-> uint8 at equal scales (flip the top bit when the zero
points differ by 128) gives the same bytes, since the multiplier is then
exactly 1. DEQUANTIZE takes int8, uint8 and int16.
"""
from __future__ import annotations

from usmp.lower.fixed_point import INT8_MAX, INT8_MIN, quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.activations import unary_refs
from usmp.lower.ops.common import require_dtype, require_quantized


# (input, output) -> requantize kernel: exactly the pairs TFLite Micro runs
_REQUANTIZE = {("int8", "int8"): "usmp_requantize_s8", ("int8", "uint8"): "usmp_requantize_s8_u8",
               ("uint8", "int8"): "usmp_requantize_u8_s8", ("int16", "int16"): "usmp_requantize_s16",
               ("int16", "int8"): "usmp_requantize_s16_s8", ("int8", "int16"): "usmp_requantize_s8_s16",
               ("int8", "int32"): "usmp_requantize_s8_s32", ("int16", "int32"): "usmp_requantize_s16_s32",
               ("int32", "int8"): "usmp_requantize_s32_s8", ("int32", "int16"): "usmp_requantize_s32_s16"}
_RANGE = {"int8": (INT8_MIN, INT8_MAX), "uint8": (0, 255), "int16": (-32768, 32767),
          "int32": (-2**31, 2**31 - 1)}
_SUFFIX = {"int8": "s8", "uint8": "u8", "int16": "s16"}


@lowering("QUANTIZE")
def lower_quantize(op, ctx):
    inp, out, dtype = _operands(op, ctx, "float32", "int8", "uint8", "int16", "int32")
    if dtype == "float32":
        require_dtype(ctx, out, "int8", "int16")
    else:
        require_dtype(ctx, out, *[o for (i, o) in _REQUANTIZE if i == dtype])
    q_out = require_quantized(ctx, out)
    size = out.num_elements
    if dtype == "float32":
        kernel = f"usmp_quantize_f32_{_SUFFIX[out.dtype]}"
        ctx.call(kernel, "usmp_quantize_f32_s8_params",
                 dict(size=size, scale=q_out.scale, zero_point=q_out.zero_point), **unary_refs(op, ctx))
        return
    q_in = require_quantized(ctx, inp)
    multiplier, shift = quantize_multiplier(q_in.scale / q_out.scale)
    low, high = _RANGE[out.dtype]
    params = dict(size=size, input_zero_point=q_in.zero_point, output_zero_point=q_out.zero_point,
                  multiplier=multiplier, shift=shift, act_min=low, act_max=high)
    # In place only between equal types (unary_refs checks): the kernels read element i before writing it.
    ctx.call(_REQUANTIZE[(dtype, out.dtype)], "usmp_requantize_s8_params", params, **unary_refs(op, ctx))


@lowering("DEQUANTIZE")
def lower_dequantize(op, ctx):
    inp, out, dtype = _operands(op, ctx, "int8", "uint8", "int16")
    require_dtype(ctx, out, "float32")
    q_in = require_quantized(ctx, inp)
    ctx.call(f"usmp_dequantize_{_SUFFIX[dtype]}_f32", "usmp_dequantize_s8_f32_params",
             dict(size=out.num_elements, scale=q_in.scale, zero_point=q_in.zero_point), **unary_refs(op, ctx))


def _operands(op, ctx, *input_dtypes: str):
    """Like activations.unary_operands, but the output type may differ from the input's."""
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, *input_dtypes)
    if inp.num_elements != out.num_elements:
        raise ctx.fail(f"input shape {list(inp.shape)} and output shape {list(out.shape)} differ in size")
    return inp, out, dtype
