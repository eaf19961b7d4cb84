"""SignalWindow (TFLite Micro's signal library): each frame times an int16 window, shifted right, clamped."""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands


@lowering("CUSTOM:SignalWindow")
def lower_signal_window(op, ctx):
    (inp, weights), (out,) = operands(ctx, op, 2, 1)
    for tensor in (inp, weights, out):
        require_dtype(ctx, tensor, "int16")
    size = weights.num_elements
    if size == 0 or inp.num_elements % size or out.num_elements != inp.num_elements:
        raise ctx.fail(f"input of {inp.num_elements} samples is not whole frames of the {size}-sample window, "
                       f"or the output's {out.num_elements} differ")
    ctx.call("usmp_signal_window", "usmp_signal_window_params",
             dict(frames=inp.num_elements // size, size=size, shift=int_option(ctx, op, "shift", 0, 31)),
             input=ctx.read(op.inputs[0]), weights=ctx.read(op.inputs[1]), output=ctx.write(op.outputs[0]))
