"""SignalFramer (TFLite Micro's signal library): each row's stream cut into frame_size frames every frame_step
samples, with a bool output saying whether all of this run's frames were complete. The samples not yet
framed are state: after init() and reset() frame_size - frame_step zeros when prefill is set, else none."""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import bool_option, int_option, operands


@lowering("CUSTOM:SignalFramer")
def lower_signal_framer(op, ctx):
    (inp,), (out, valid) = operands(ctx, op, 1, 2)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "int16")
    require_dtype(ctx, valid, "bool")
    size = int_option(ctx, op, "frame_size", 1, 1 << 20)
    step = int_option(ctx, op, "frame_step", 1, size)
    prefill = bool_option(ctx, op, "prefill")
    if not inp.shape or inp.shape[-1] % step:
        raise ctx.fail(f"input {list(inp.shape)} is not whole steps of {step} samples")
    rows = inp.num_elements // int(inp.shape[-1])
    frames = int(inp.shape[-1]) // step
    if out.num_elements != rows * frames * size or valid.num_elements != 1:
        raise ctx.fail(f"output {list(out.shape)} does not hold {rows} x {frames} frames of {size}")
    capacity = -(-size // step) * step
    ctx.call("usmp_signal_framer", "usmp_signal_framer_params",
             dict(rows=rows, frames=frames, frame_size=size, frame_step=step, capacity=capacity),
             input=ctx.read(op.inputs[0]), queue=ctx.persistent("queue", np.zeros(rows * capacity, np.int16)),
             counts=ctx.persistent("queued", np.full(rows, size - step if prefill else 0, np.int32)),
             output=ctx.write(op.outputs[0]), valid=ctx.write(op.outputs[1]))
