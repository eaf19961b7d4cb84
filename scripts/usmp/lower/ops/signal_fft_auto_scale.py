"""SignalFftAutoScale (TFLite Micro's signal library): samples shifted left as far as the largest allows,
and the shift as a second, int32 output."""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import operands


@lowering("CUSTOM:SignalFftAutoScale")
def lower_signal_fft_auto_scale(op, ctx):
    (inp,), (out, scale) = operands(ctx, op, 1, 2)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "int16")
    require_dtype(ctx, scale, "int32")
    if len(inp.shape) != 1 or out.num_elements != inp.num_elements or scale.num_elements != 1:
        raise ctx.fail(f"takes a 1-D input and gives it back scaled and one scale; got {list(inp.shape)} -> "
                       f"{list(out.shape)}, {list(scale.shape)}")
    ctx.call("usmp_signal_fft_auto_scale", "usmp_signal_fft_auto_scale_params", dict(size=inp.num_elements),
             input=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]), scale_bits=ctx.write(op.outputs[1]))
