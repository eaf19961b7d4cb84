"""L2_NORMALIZATION (float32, int8) over the innermost dimension, and L2_POOL_2D (float32).

int8 L2_NORMALIZATION follows TFLite Micro: the inverse square root of each
row's sum of squares is computed in fixed point by the kernel (it depends on
the row), and the output is in steps of 1/128 around 0. TFLite Micro uses
that quantization without reading the output tensor's, and so does this.
L2_POOL_2D takes the sliding-window geometry of the other pools.
"""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.activations import unary_operands
from usmp.lower.ops.common import float_activation, require_dtype, require_quantized
from usmp.lower.ops.window import sliding_window

MAX_RANK = 4  # TFLite Micro's limit for L2_NORMALIZATION


@lowering("L2_NORMALIZATION")
def lower_l2_normalization(op, ctx):
    inp, out, dtype = unary_operands(op, ctx, "int8", "float32")
    if not 1 <= len(inp.shape) <= MAX_RANK or inp.num_elements == 0:
        raise ctx.fail(f"input shape {list(inp.shape)} is not supported (1 to {MAX_RANK} dimensions, non-empty)")
    if op.options.get("fused_activation_function", 0) != 0:
        raise ctx.fail("a fused activation is not supported (TFLite Micro requires NONE)")
    depth = int(inp.shape[-1])
    params = dict(rows=inp.num_elements // depth, depth=depth)
    # A row is read completely before any of it is written: in place is safe.
    refs = dict(input=ctx.read(op.inputs[0]), output=ctx.write_in_place(op.outputs[0], op.inputs[0]))
    if dtype == "float32":
        ctx.call("usmp_l2_norm_f32", "usmp_l2_norm_f32_params", params, **refs)
        return
    q_in = require_quantized(ctx, inp)
    ctx.call("usmp_l2_norm_s8", "usmp_l2_norm_s8_params", dict(params, input_zero_point=q_in.zero_point), **refs)


@lowering("L2_POOL_2D")
def lower_l2_pool_2d(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    require_dtype(ctx, inp, "float32")
    require_dtype(ctx, out, "float32")
    window = sliding_window(ctx, op, inp, out, op.options.get("filter_height", 0),
                            op.options.get("filter_width", 0), dilated=False)
    if window.out_ch != window.in_ch:
        raise ctx.fail(f"output has {window.out_ch} channels, input {window.in_ch}; a pool keeps the channels")
    params = window.params()
    params["channels"] = params.pop("in_ch")
    for unused in ("out_ch", "dilation_h", "dilation_w"):
        del params[unused]
    lo, hi = float_activation(ctx, op)
    ctx.call("usmp_l2_pool_f32", "usmp_pool_f32_params", dict(params, act_min=lo, act_max=hi),
             input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
