"""SignalDelay (TFLite Micro's signal library): each row of int16 samples delayed by delay_length. The last
delay_length samples of every row are state (zeros after init() and reset())."""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands


@lowering("CUSTOM:SignalDelay")
def lower_signal_delay(op, ctx):
    (inp,), (out,) = operands(ctx, op, 1, 1)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "int16")
    if not inp.shape or out.num_elements != inp.num_elements:
        raise ctx.fail(f"input {list(inp.shape)} and output {list(out.shape)} differ")
    frame = int(inp.shape[-1])
    rows = inp.num_elements // frame
    delay = int_option(ctx, op, "delay_length", 0, 1 << 20)
    ctx.call("usmp_signal_delay", "usmp_signal_delay_params", dict(rows=rows, frame=frame, delay=delay),
             input=ctx.read(op.inputs[0]), state=ctx.persistent("delay_line", np.zeros(max(rows * delay, 1), np.int16)),
             output=ctx.write(op.outputs[0]))
