"""AVERAGE_POOL_2D and MAX_POOL_2D over NHWC tensors.

int8 and int16 pools work on the stored values directly (as TFLite does), so
the output must share the input's scale and zero point. Averages divide by the
number of taps inside the input, rounding halves away from zero (int16 too:
TFLite Micro's int16 average is the int8 one on wider values).
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import asymmetric, lowering
from usmp.lower.ops.common import float_activation, int8_activation, int16_clamp, require_dtype, require_quantized
from usmp.lower.ops.window import sliding_window

_KERNELS = {"AVERAGE_POOL_2D": "avg_pool", "MAX_POOL_2D": "max_pool"}
_SUFFIXES = {"int8": "s8", "int16": "s16"}


@lowering("AVERAGE_POOL_2D", "MAX_POOL_2D")
def lower_pool_2d(op, ctx):
    inp, out = ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])
    window = sliding_window(ctx, op, inp, out, op.options.get("filter_height", 0),
                            op.options.get("filter_width", 0), dilated=False)
    if window.out_ch != window.in_ch:
        raise ctx.fail(f"output has {window.out_ch} channels, input {window.in_ch}; a pool keeps the channels")
    params = window.params()
    params["channels"] = params.pop("in_ch")
    for unused in ("out_ch", "dilation_h", "dilation_w"):
        del params[unused]
    dtype = require_dtype(ctx, inp, "int8", "int16", "float32")
    require_dtype(ctx, out, dtype)
    kernel = _KERNELS[op.opcode]
    if dtype == "float32":
        lo, hi = float_activation(ctx, op)
        ctx.call(f"usmp_{kernel}_f32", "usmp_pool_f32_params", dict(params, act_min=lo, act_max=hi),
                 input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
        return
    q_in, q_out = require_quantized(ctx, inp), require_quantized(ctx, out)
    if not (np.float32(q_in.scale) == np.float32(q_out.scale) and q_in.zero_point == q_out.zero_point):
        raise ctx.fail(f"{dtype} pooling needs the same scale and zero point on input and output; got "
                       f"{q_in.scale:g}/{q_in.zero_point} and {q_out.scale:g}/{q_out.zero_point}")
    if dtype == "int8":
        lo, hi = int8_activation(ctx, op, out)
        if op.opcode == "AVERAGE_POOL_2D" and asymmetric.is_uint8(op):  # LiteRT rounds uint8 sums half up
            asymmetric.lower_average_pool(op, ctx, dict(params, act_min=lo, act_max=hi))
            return
    else:
        lo, hi = int16_clamp(ctx, op.options.get("fused_activation_function", 0), q_out)
    ctx.call(f"usmp_{kernel}_{_SUFFIXES[dtype]}", "usmp_pool_s8_params", dict(params, act_min=lo, act_max=hi),
             input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
