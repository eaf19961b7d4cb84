"""SignalOverlapAdd (TFLite Micro's signal library): frames of frame_size summed at frame_step intervals into
a stream, int16 (saturating) or float32. The running sum of every row is state (zeros after init())."""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands

TYPES = {7: ("int16", np.int16, "s16"), 0: ("float32", np.float32, "f32")}


@lowering("CUSTOM:SignalOverlapAdd")
def lower_signal_overlap_add(op, ctx):
    (inp,), (out,) = operands(ctx, op, 1, 1)
    kind = op.options.get("T", 7)
    if kind not in TYPES:
        raise ctx.fail(f"is of type {kind}; int16 (T = 7) and float32 (T = 0) are supported")
    dtype, numpy_type, suffix = TYPES[kind]
    require_dtype(ctx, inp, dtype)
    require_dtype(ctx, out, dtype)
    if len(inp.shape) < 2:
        raise ctx.fail(f"input {list(inp.shape)} must be frames of samples (at least 2-D)")
    size, frames = int(inp.shape[-1]), int(inp.shape[-2])
    step = int_option(ctx, op, "frame_step", 1, size)
    rows = inp.num_elements // (size * frames) if size * frames else 0
    if out.num_elements != rows * frames * step:
        raise ctx.fail(f"output {list(out.shape)} does not hold {rows} x {frames} steps of {step}")
    ctx.call(f"usmp_signal_overlap_add_{suffix}", "usmp_signal_overlap_add_params",
             dict(rows=rows, frames=frames, frame_size=size, frame_step=step), input=ctx.read(op.inputs[0]),
             state=ctx.persistent("sum", np.zeros(rows * size, numpy_type)), output=ctx.write(op.outputs[0]))
