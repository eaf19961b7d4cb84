"""EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, LOGICAL_AND, LOGICAL_OR.

Outputs are bool tensors. The types are TFLite Micro's: float32, int32, int64
and int8 for every comparison, bool for EQUAL and NOT_EQUAL and for the
logical operators. int8 values are compared as TFLite Micro compares them: less the
zero point, shifted left by 8 and multiplied by the tensor's own scale in
fixed point (so different quantizations compare by real value, rounded).
TFLite Micro's int16 GREATER never sets its scaling (every result is false):
int16 is refused rather than imitated.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.arith_binary import SUFFIX, binary_operands, binary_refs, smaller_than_one
from usmp.lower.ops.common import require_quantized
from usmp.lower.ops.elementwise import broadcast_walk

COMPARE_OPS = {"EQUAL": 0, "NOT_EQUAL": 1, "GREATER": 2, "GREATER_EQUAL": 3, "LESS": 4, "LESS_EQUAL": 5}
COMPARE_LEFT_SHIFT = 8  # TFLite's headroom for int8 comparisons


def _refs(op, ctx) -> dict:
    """Never in place: the bool output is a different type from the inputs."""
    return dict(input1=ctx.read(op.inputs[0]), input2=ctx.read(op.inputs[1]), output=ctx.write(op.outputs[0]))


@lowering(*COMPARE_OPS)
def lower_compare(op, ctx):
    dtypes = ("int8", "int32", "int64", "float32") + (("bool",) if op.opcode in ("EQUAL", "NOT_EQUAL") else ())
    a, b, out, dtype = binary_operands(op, ctx, *dtypes, out_dtype="bool")
    params = dict(broadcast_walk(ctx, a.shape, b.shape, out.shape), op=COMPARE_OPS[op.opcode])
    if dtype != "int8":
        ctx.call(f"usmp_compare_{SUFFIX[dtype]}", "usmp_compare_params", params, **_refs(op, ctx))
        return
    q1, q2 = require_quantized(ctx, a), require_quantized(ctx, b)
    m1, s1 = smaller_than_one(ctx, q1.scale, "first input")
    m2, s2 = smaller_than_one(ctx, q2.scale, "second input")
    params.update(left_shift=COMPARE_LEFT_SHIFT, input1_offset=-q1.zero_point, input1_multiplier=m1, input1_shift=s1,
                  input2_offset=-q2.zero_point, input2_multiplier=m2, input2_shift=s2)
    ctx.call("usmp_compare_s8", "usmp_compare_s8_params", params, **_refs(op, ctx))


@lowering("LOGICAL_AND", "LOGICAL_OR")
def lower_logical(op, ctx):
    a, b, out, _ = binary_operands(op, ctx, "bool")
    walk = broadcast_walk(ctx, a.shape, b.shape, out.shape)
    ctx.call(f"usmp_{op.opcode.lower()}_b8", "usmp_broadcast_params", walk, **binary_refs(op, ctx))
