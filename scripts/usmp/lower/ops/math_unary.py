"""One-input elementwise operators: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT,
SQUARE, EXP, LOG, SIN, COS, ELU, HARD_SWISH, LOGICAL_NOT, ZEROS_LIKE.

The types are TFLite Micro's: float32 for all the math; int8 also for ABS,
RSQRT, ELU and HARD_SWISH (tables, see lut_unary.py), and for EXP, LOG and SQRT,
which TFLite Micro does not run, as LiteRT computes them (tables too); int16 for ABS (quantized
with zero points 0, or plain integers) and RSQRT (quantized, zero points 0);
bool for LOGICAL_NOT; int8, int32, int64 and float32 for ZEROS_LIKE. The float
kernels use the kernel library's own float_math.c, not libm.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.activations import unary_operands, unary_refs
from usmp.lower.ops.common import require_quantized
from usmp.lower.ops.lut_unary import (
    abs_multiplier, abs_table, elu_table, exp_table, hard_swish_table, log_table, rsqrt_multiplier, rsqrt_table,
    sqrt_table,
)

FLOAT_ONLY = ("NEG", "CEIL", "FLOOR", "ROUND", "SQUARE", "SIN", "COS")
INT8_TABLES = {"ABS": abs_table, "RSQRT": rsqrt_table, "ELU": elu_table, "HARD_SWISH": hard_swish_table,
               "EXP": exp_table, "LOG": log_table, "SQRT": sqrt_table}  # the last three: LiteRT's, see lut_unary.py
INT16_OPS = ("ABS", "RSQRT")


@lowering(*FLOAT_ONLY, *INT8_TABLES)
def lower_math_unary(op, ctx):
    dtypes = ["float32"]
    if op.opcode in INT8_TABLES:
        dtypes.append("int8")
    if op.opcode in INT16_OPS:
        dtypes.append("int16")
    inp, out, dtype = unary_operands(op, ctx, *dtypes)
    size = out.num_elements
    if dtype == "float32":
        ctx.call(f"usmp_{op.opcode.lower()}_f32", "usmp_unary_f32_params", dict(size=size), **unary_refs(op, ctx))
    elif dtype == "int8":
        q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
        table = INT8_TABLES[op.opcode](ctx, q_in, q_out)
        ctx.call("usmp_lookup_s8", "usmp_lookup_s8_params", dict(size=size), input=ctx.read(op.inputs[0]),
                 table=ctx.constant("table", table), output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
    elif op.opcode == "ABS":
        _lower_abs_s16(op, ctx, inp, out)
    else:
        _lower_rsqrt_s16(op, ctx, inp, out)


def _int16_quantization(ctx, inp, out):
    """TFLite Micro's int16 ABS and RSQRT take zero points 0 only."""
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    for tensor, q in ((inp, q_in), (out, q_out)):
        if q.zero_point != 0:
            raise ctx.fail(f"int16 tensor {tensor.index} '{tensor.name}' has zero point {q.zero_point}; "
                           f"TFLite Micro requires 0")
    return q_in, q_out


def _lower_abs_s16(op, ctx, inp, out):
    params = dict(size=out.num_elements, input_zero_point=0, output_zero_point=0, rescale=0, multiplier=0,
                  shift=0, wrap_minimum=0)
    if inp.quant is None:  # plain integers: C++ abs, whose -32768 stays -32768
        params["wrap_minimum"] = 1
    else:
        q_in, q_out = _int16_quantization(ctx, inp, out)
        rescale, multiplier, shift = abs_multiplier(q_in.scale, q_out.scale)
        params.update(rescale=int(rescale), multiplier=multiplier, shift=shift)
    ctx.call("usmp_abs_s16", "usmp_abs_s16_params", params, **unary_refs(op, ctx))


def _lower_rsqrt_s16(op, ctx, inp, out):
    q_in, q_out = _int16_quantization(ctx, inp, out)
    multiplier, shift = rsqrt_multiplier(q_in.scale, q_out.scale)
    params = dict(size=out.num_elements, input_zero_point=0, output_zero_point=0, multiplier=multiplier,
                  shift=shift)
    ctx.call("usmp_rsqrt_s16", "usmp_rsqrt_s16_params", params, **unary_refs(op, ctx))


@lowering("LOGICAL_NOT")
def lower_logical_not(op, ctx):
    _, out, _ = unary_operands(op, ctx, "bool")
    ctx.call("usmp_logical_not_b8", "usmp_bytes_params", dict(size=out.num_elements), **unary_refs(op, ctx))


@lowering("ZEROS_LIKE")
def lower_zeros_like(op, ctx):
    _, out, _ = unary_operands(op, ctx, "int8", "int32", "int64", "float32")
    ctx.call("usmp_zero_fill", "usmp_bytes_params", dict(size=out.nbytes), **unary_refs(op, ctx))
