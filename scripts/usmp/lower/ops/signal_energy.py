"""SignalEnergy (TFLite Micro's signal library): |bin|^2 of a complex int16 spectrum, as uint32, over the bins
[start_index, end_index); the others are 0 here (TFLite Micro leaves them as they were)."""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands


@lowering("CUSTOM:SignalEnergy")
def lower_signal_energy(op, ctx):
    (inp,), (out,) = operands(ctx, op, 1, 1)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "uint32")
    bins = out.num_elements
    if inp.num_elements != 2 * bins:
        raise ctx.fail(f"input of {inp.num_elements} values is not the {bins} complex bins of the output")
    start = int_option(ctx, op, "start_index", 0, bins)
    end = int_option(ctx, op, "end_index", start, bins)
    ctx.call("usmp_signal_energy", "usmp_signal_energy_params", dict(bins=bins, start=start, end=end),
             spectrum=ctx.read(op.inputs[0]), output=ctx.write(op.outputs[0]))
