"""ADD, SUB, MUL: two tensors combined element by element, with TFLite broadcasting.

Shapes are aligned from the right (the shorter one is extended with leading
1s); a dimension of 1 is repeated along the other input's extent. The kernel
walks the output in order; here the walk is reduced to the fewest dimensions
(equal shapes become one flat loop) and each input gets a stride per
dimension, 0 where it is broadcast.

int8 ADD/SUB follow TFLite: both inputs are shifted left by 20 bits and
rescaled to twice the larger input scale, added, then rescaled to the output.
The multipliers are computed in double. (Some TFLite Micro sources compute
SUB's in float; the tflite-micro interpreter used as the reference agrees with
double, which tests/test_ops_elementwise.py checks on scales where they differ.)
int16 ADD/SUB ("16x8") take the same path with 15 bits of headroom: TFLite
Micro never takes TFLite's power-of-two shortcut for them, whatever the
scales, and allows any zero points ((x - zero point) * 2^15 still fits int32).
int16 MUL is int8's with zero points 0 (TFLite Micro refuses others). int32
(unquantized, as TFLite Micro's) adds, subtracts and multiplies with wrap-around.
"""
from __future__ import annotations

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.common import (
    float_activation, int8_activation, int16_activation, require_dtype, require_quantized,
)

MAX_RANK = 6  # USMP_BROADCAST_MAX_RANK in usmp_kernels/elementwise.h
ADD_SUB_LEFT_SHIFT = {"int8": 20, "int16": 15}  # TFLite's headroom for ADD and SUB
SUFFIX = {"int8": "s8", "int16": "s16"}


def broadcast_walk(ctx, shape1, shape2, out_shape) -> dict:
    """Kernel params rank/shape/stride1/stride2 walking out_shape over both inputs."""
    rank = max(len(shape1), len(shape2), len(out_shape))
    s1, s2, so = (tuple([1] * (rank - len(s)) + list(s)) for s in (shape1, shape2, out_shape))
    for d1, d2, do in zip(s1, s2, so):
        if not (d1 in (1, do) and d2 in (1, do) and do == max(d1, d2)):
            raise ctx.fail(f"shapes {list(shape1)} and {list(shape2)} do not broadcast "
                           f"to the output shape {list(out_shape)}")
    dims = []  # (extent, stride1, stride2), outermost first
    strides1, strides2 = _contiguous_strides(s1), _contiguous_strides(s2)
    for d1, d2, do, t1, t2 in zip(s1, s2, so, strides1, strides2):
        if do != 1:
            dims.append([do, 0 if d1 == 1 else t1, 0 if d2 == 1 else t2])
    merged = []
    for dim in reversed(dims):  # innermost first: fold a dimension into the one inside it
        if merged:
            inner = merged[-1]
            if dim[1] == inner[1] * inner[0] and dim[2] == inner[2] * inner[0]:
                inner[0] *= dim[0]
                continue
        merged.append(dim)
    merged = list(reversed(merged)) or [[1, 1, 1]]
    if len(merged) > MAX_RANK:
        raise ctx.fail(f"broadcasting {list(shape1)} with {list(shape2)} needs {len(merged)} loops; "
                       f"at most {MAX_RANK} are supported")
    pad = MAX_RANK - len(merged)
    return dict(
        rank=len(merged),
        shape=[d[0] for d in merged] + [1] * pad,
        stride1=[d[1] for d in merged] + [0] * pad,
        stride2=[d[2] for d in merged] + [0] * pad,
    )


def _contiguous_strides(shape) -> list[int]:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return list(reversed(strides))


def _operands(op, ctx):
    if len(op.inputs) != 2 or any(i is None for i in op.inputs):
        raise ctx.fail("needs exactly two inputs")
    a, b, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, out, "int8", "int16", "int32", "float32")
    require_dtype(ctx, a, dtype)
    require_dtype(ctx, b, dtype)
    return a, b, out, dtype


def _refs(op, ctx) -> dict:
    """The output overwrites an input that dies here when it can: the kernels read
    element i of a full-shape input before they write element i of the output."""
    refs = dict(input1=ctx.read(op.inputs[0]), input2=ctx.read(op.inputs[1]))
    for position in (0, 1):
        if ctx.can_write_in_place(op.outputs[0], op.inputs[position]):
            return dict(refs, output=ctx.write_in_place(op.outputs[0], op.inputs[position]))
    return dict(refs, output=ctx.write(op.outputs[0]))


def _int32_binary(op, ctx, walk: dict) -> bool:
    """Plain int32 ADD/SUB/MUL (no quantization, as TFLite Micro's): True when it was one."""
    if ctx.tensor(op.outputs[0]).dtype != "int32":
        return False
    from usmp.lower.ops.arith_binary import int32_activation

    lo, hi = int32_activation(ctx, op)
    ctx.call(f"usmp_{op.opcode.lower()}_s32", "usmp_binary_s32_params", dict(walk, act_min=lo, act_max=hi),
             **_refs(op, ctx))
    return True


def _float_binary(op, ctx, function: str, walk: dict) -> None:
    lo, hi = float_activation(ctx, op)
    ctx.call(function, "usmp_binary_f32_params", dict(walk, act_min=lo, act_max=hi), **_refs(op, ctx))


def _activation(ctx, op, out, dtype: str) -> tuple[int, int]:
    return int8_activation(ctx, op, out) if dtype == "int8" else int16_activation(ctx, op, out)


def _smaller_than_one(ctx, real: float, what: str) -> tuple[int, int]:
    if not 0.0 < real < 1.0:
        raise ctx.fail(f"the {what} rescale factor {real:g} is outside (0, 1); the tensor scales are unsupported")
    return quantize_multiplier(real)


@lowering("ADD", "SUB")
def lower_add_sub(op, ctx):
    a, b, out, dtype = _operands(op, ctx)
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    name = op.opcode.lower()
    if _int32_binary(op, ctx, walk):
        return
    if dtype == "float32":
        _float_binary(op, ctx, f"usmp_{name}_f32", walk)
        return
    q1, q2, qo = require_quantized(ctx, a), require_quantized(ctx, b), require_quantized(ctx, out)
    left_shift = ADD_SUB_LEFT_SHIFT[dtype]
    twice_max = 2.0 * max(q1.scale, q2.scale)  # in double, as TFLite Micro (ADD and SUB alike)
    real1, real2 = q1.scale / twice_max, q2.scale / twice_max
    real_out = twice_max / ((1 << left_shift) * qo.scale)
    m1, s1 = _smaller_than_one(ctx, real1, "first input")
    m2, s2 = _smaller_than_one(ctx, real2, "second input")
    mo, so = _smaller_than_one(ctx, real_out, "output")
    lo, hi = _activation(ctx, op, out, dtype)
    params = dict(walk, input1_offset=-q1.zero_point, input2_offset=-q2.zero_point, output_offset=qo.zero_point,
                  left_shift=left_shift, input1_multiplier=m1, input1_shift=s1,
                  input2_multiplier=m2, input2_shift=s2, output_multiplier=mo, output_shift=so,
                  act_min=lo, act_max=hi)
    ctx.call(f"usmp_{name}_{SUFFIX[dtype]}", "usmp_add_s8_params", params, **_refs(op, ctx))


@lowering("MUL")
def lower_mul(op, ctx):
    a, b, out, dtype = _operands(op, ctx)
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    if _int32_binary(op, ctx, walk):
        return
    if dtype == "float32":
        _float_binary(op, ctx, "usmp_mul_f32", walk)
        return
    q1, q2, qo = require_quantized(ctx, a), require_quantized(ctx, b), require_quantized(ctx, out)
    if dtype == "int16":
        for tensor, q in ((a, q1), (b, q2), (out, qo)):
            if q.zero_point != 0:
                raise ctx.fail(f"int16 tensor {tensor.index} '{tensor.name}' has zero point {q.zero_point}; "
                               f"int16 MUL needs 0")
    multiplier, shift = quantize_multiplier(q1.scale * q2.scale / qo.scale)
    lo, hi = _activation(ctx, op, out, dtype)
    params = dict(walk, input1_offset=-q1.zero_point, input2_offset=-q2.zero_point, output_offset=qo.zero_point,
                  output_multiplier=multiplier, output_shift=shift, act_min=lo, act_max=hi)
    ctx.call(f"usmp_mul_{SUFFIX[dtype]}", "usmp_mul_s8_params", params, **_refs(op, ctx))
