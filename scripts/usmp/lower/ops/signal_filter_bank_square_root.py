"""SignalFilterBankSquareRoot (TFLite Micro's signal library): rounded integer square roots of uint64
channels, shifted right by a scale (an int32 tensor: the FFT auto-scale's shift)."""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import operands


@lowering("CUSTOM:SignalFilterBankSquareRoot")
def lower_signal_filter_bank_square_root(op, ctx):
    (inp, scale), (out,) = operands(ctx, op, 2, 1)
    require_dtype(ctx, inp, "uint64")
    require_dtype(ctx, scale, "int32")
    require_dtype(ctx, out, "uint32")
    if out.num_elements != inp.num_elements or scale.num_elements != 1:
        raise ctx.fail(f"input {list(inp.shape)}, scale {list(scale.shape)} and output {list(out.shape)} "
                       f"do not match")
    ctx.call("usmp_signal_filter_bank_square_root", "usmp_signal_filter_bank_square_root_params",
             dict(channels=inp.num_elements), input=ctx.read(op.inputs[0]), scale_bits=ctx.read(op.inputs[1]),
             output=ctx.write(op.outputs[0]))
