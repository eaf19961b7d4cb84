"""DIV, FLOOR_DIV, FLOOR_MOD, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE with TFLite broadcasting.

The types are TFLite Micro's: MAXIMUM/MINIMUM int8, int16, int32, int64, float32
(stored values compared, quantization ignored); DIV float32, int32 and int8;
FLOOR_DIV and FLOOR_MOD float32; SQUARED_DIFFERENCE float32, int32, int8 and
int16. Broadcasting is broadcast_walk's (elementwise.py).

int8 DIV follows TFLite Micro: the divisor's reciprocal in fixed point, the
numerator normalised to its headroom, then one rescale by in1 / (in2 * out)
in double. (TFLite Micro's source divides the scales in float; the
tflite-micro interpreter used as the reference agrees with double, which
tests/test_ops_binary.py checks on scales where they differ.)
int8/int16 SQUARED_DIFFERENCE rescales both inputs like int8 ADD (with 7 and
0 bits of headroom), squares the difference and rescales the square by
(2 max scale)^2 / (2^(2 headroom) * output scale).
"""
from __future__ import annotations

from usmp.lower.fixed_point import INT8_MAX, INT8_MIN, INT16_MAX, INT16_MIN, f32, quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.common import float_activation, int8_activation, require_dtype, require_quantized
from usmp.lower.ops.elementwise import broadcast_walk

SUFFIX = {"int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64", "float32": "f32", "bool": "b8"}
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
SQUARED_DIFFERENCE_LEFT_SHIFT = {"int8": 7, "int16": 0}
# DIV's rescale shift minus the reciprocal's and the numerator's shifts must stay <= 0 (a right shift):
# the numerator has at least 23 bits of headroom and a zero divisor gives a reciprocal shift of -1.
DIV_MAX_OUTPUT_SHIFT = 22


def binary_operands(op, ctx, *dtypes: str, out_dtype: str | None = None):
    """(input1, input2, output, dtype) of a two-input operator whose inputs share a type."""
    if len(op.inputs) != 2 or any(i is None for i in op.inputs):
        raise ctx.fail("needs exactly two inputs")
    a, b, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, a, *dtypes)
    require_dtype(ctx, b, dtype)
    require_dtype(ctx, out, out_dtype or dtype)
    return a, b, out, dtype


def binary_refs(op, ctx) -> dict:
    """The output overwrites an input that dies here when it can: the kernels read
    element i of a full-shape input before they write element i of the output."""
    refs = dict(input1=ctx.read(op.inputs[0]), input2=ctx.read(op.inputs[1]))
    for position in (0, 1):
        if ctx.can_write_in_place(op.outputs[0], op.inputs[position]):
            return dict(refs, output=ctx.write_in_place(op.outputs[0], op.inputs[position]))
    return dict(refs, output=ctx.write(op.outputs[0]))


def smaller_than_one(ctx, real: float, what: str) -> tuple[int, int]:
    """TFLite's QuantizeMultiplierSmallerThanOneExp, which aborts outside (0, 1)."""
    if not 0.0 < real < 1.0:
        raise ctx.fail(f"the {what} rescale factor {real:g} is outside (0, 1); the tensor scales are unsupported")
    return quantize_multiplier(real)


def int32_activation(ctx, op) -> tuple[int, int]:
    lo, hi = float_activation(ctx, op)
    return max(INT32_MIN, int(lo)), min(INT32_MAX, int(hi))


@lowering("MAXIMUM", "MINIMUM")
def lower_max_min(op, ctx):
    a, b, out, dtype = binary_operands(op, ctx, "int8", "int16", "int32", "int64", "float32")
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    ctx.call(f"usmp_{op.opcode.lower()}_{SUFFIX[dtype]}", "usmp_broadcast_params", walk, **binary_refs(op, ctx))


@lowering("DIV")
def lower_div(op, ctx):
    a, b, out, dtype = binary_operands(op, ctx, "int8", "int32", "float32")
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    if dtype == "float32":
        lo, hi = float_activation(ctx, op)
        ctx.call("usmp_div_f32", "usmp_binary_f32_params", dict(walk, act_min=lo, act_max=hi), **binary_refs(op, ctx))
        return
    if dtype == "int32":
        lo, hi = int32_activation(ctx, op)
        ctx.call("usmp_div_s32", "usmp_div_s32_params", dict(walk, act_min=lo, act_max=hi), **binary_refs(op, ctx))
        return
    q1, q2, qo = require_quantized(ctx, a), require_quantized(ctx, b), require_quantized(ctx, out)
    multiplier, shift = quantize_multiplier(q1.scale / (q2.scale * qo.scale))
    if shift > DIV_MAX_OUTPUT_SHIFT:
        raise ctx.fail(f"the rescale factor {q1.scale / (q2.scale * qo.scale):g} (input1 / (input2 * output scale)) "
                       f"is above the 2^{DIV_MAX_OUTPUT_SHIFT} the int8 kernel supports")
    lo, hi = int8_activation(ctx, op, out)
    params = dict(walk, input1_offset=-q1.zero_point, input2_offset=-q2.zero_point, output_offset=qo.zero_point,
                  output_multiplier=multiplier, output_shift=shift, act_min=lo, act_max=hi)
    ctx.call("usmp_div_s8", "usmp_div_s8_params", params, **binary_refs(op, ctx))


@lowering("FLOOR_DIV", "FLOOR_MOD")
def lower_floor_div_mod(op, ctx):
    a, b, out, _ = binary_operands(op, ctx, "float32")
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    ctx.call(f"usmp_{op.opcode.lower()}_f32", "usmp_broadcast_params", walk, **binary_refs(op, ctx))


@lowering("SQUARED_DIFFERENCE")
def lower_squared_difference(op, ctx):
    a, b, out, dtype = binary_operands(op, ctx, "int8", "int16", "int32", "float32")
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    function = f"usmp_squared_difference_{SUFFIX[dtype]}"
    if dtype in ("float32", "int32"):
        ctx.call(function, "usmp_broadcast_params", walk, **binary_refs(op, ctx))
        return
    q1, q2, qo = require_quantized(ctx, a), require_quantized(ctx, b), require_quantized(ctx, out)
    left_shift = SQUARED_DIFFERENCE_LEFT_SHIFT[dtype]
    twice_max = 2.0 * max(q1.scale, q2.scale)
    m1, s1 = smaller_than_one(ctx, q1.scale / twice_max, "first input")
    m2, s2 = smaller_than_one(ctx, q2.scale / twice_max, "second input")
    mo, so = quantize_multiplier(twice_max * twice_max / f32((1 << 2 * left_shift) * qo.scale))  # a float product
    lo, hi = (INT8_MIN, INT8_MAX) if dtype == "int8" else (INT16_MIN, INT16_MAX)
    params = dict(walk, input1_offset=-q1.zero_point, input2_offset=-q2.zero_point, output_offset=qo.zero_point,
                  left_shift=left_shift, input1_multiplier=m1, input1_shift=s1, input2_multiplier=m2,
                  input2_shift=s2, output_multiplier=mo, output_shift=so, act_min=lo, act_max=hi)
    ctx.call(function, "usmp_add_s8_params", params, **binary_refs(op, ctx))
