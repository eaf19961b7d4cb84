"""SignalPCAN (TFLite Micro's signal library): per-channel automatic gain from the noise estimate (a
piecewise quadratic int16 table per octave), then compression of the signal-to-noise ratio."""
from __future__ import annotations

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands

OCTAVES = 32  # the kernel reads 4 * octave - 6 + 2 entries for octaves up to 32


@lowering("CUSTOM:SignalPCAN")
def lower_signal_pcan(op, ctx):
    (inp, noise, table), (out,) = operands(ctx, op, 3, 1)
    for tensor in (inp, noise, out):
        require_dtype(ctx, tensor, "uint32")
    require_dtype(ctx, table, "int16")
    channels = inp.num_elements
    if noise.num_elements != channels or out.num_elements != channels:
        raise ctx.fail(f"input, noise estimate and output differ in size: {channels}, {noise.num_elements}, "
                       f"{out.num_elements}")
    if table.num_elements < 4 * OCTAVES - 6 + 3:
        raise ctx.fail(f"the gain table has {table.num_elements} entries; {4 * OCTAVES - 3} are needed")
    ctx.call("usmp_signal_pcan", "usmp_signal_pcan_params",
             dict(channels=channels, snr_shift=int_option(ctx, op, "snr_shift", 0, 63)),
             input=ctx.read(op.inputs[0]), noise=ctx.read(op.inputs[1]), gain_table=ctx.read(op.inputs[2]),
             output=ctx.write(op.outputs[0]))
