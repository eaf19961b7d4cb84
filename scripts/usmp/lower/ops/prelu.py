"""PRELU: x >= 0 ? x : alpha * x, alpha broadcast to the input (usually per channel).

Types as TFLite Micro: float32; int8 with int8 alpha; int16 with int8 alpha.
Quantized, a non-negative input is rescaled by input/output scale and a
negative one, times alpha less its zero point, by input * alpha / output
scale; both multipliers are computed in double, as TFLite Micro does.
"""
from __future__ import annotations

from usmp.lower.fixed_point import quantize_multiplier
from usmp.lower.ops import lowering
from usmp.lower.ops.arith_binary import SUFFIX, binary_refs
from usmp.lower.ops.common import require_dtype, require_quantized
from usmp.lower.ops.elementwise import broadcast_walk


@lowering("PRELU")
def lower_prelu(op, ctx):
    if len(op.inputs) != 2 or any(i is None for i in op.inputs):
        raise ctx.fail("needs exactly two inputs (input, alpha)")
    inp, alpha, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    require_dtype(ctx, alpha, "float32" if dtype == "float32" else "int8")
    require_dtype(ctx, out, dtype)
    walk = broadcast_walk(ctx, inp.shape, alpha.shape, out.shape)
    if dtype == "float32":
        ctx.call("usmp_prelu_f32", "usmp_broadcast_params", walk, **binary_refs(op, ctx))
        return
    q_in, q_alpha, q_out = require_quantized(ctx, inp), require_quantized(ctx, alpha), require_quantized(ctx, out)
    identity_multiplier, identity_shift = quantize_multiplier(q_in.scale / q_out.scale)
    alpha_multiplier, alpha_shift = quantize_multiplier(q_in.scale * q_alpha.scale / q_out.scale)
    params = dict(walk, input_offset=-q_in.zero_point, alpha_offset=-q_alpha.zero_point,
                  output_offset=q_out.zero_point, identity_multiplier=identity_multiplier,
                  identity_shift=identity_shift, alpha_multiplier=alpha_multiplier, alpha_shift=alpha_shift)
    ctx.call(f"usmp_prelu_{SUFFIX[dtype]}", "usmp_prelu_params", params, **binary_refs(op, ctx))
