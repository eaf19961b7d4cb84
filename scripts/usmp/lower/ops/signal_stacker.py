"""SignalStacker (TFLite Micro's signal library): int16 frames of num_channels stacked with left and right
context, one stack every stacker_step frames, and a bool saying whether this run gave one. The frames
waiting, their count and whether the stream's first frame was seen are state (none after init())."""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands


@lowering("CUSTOM:SignalStacker")
def lower_signal_stacker(op, ctx):
    (inp,), (out, valid) = operands(ctx, op, 1, 2)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "int16")
    require_dtype(ctx, valid, "bool")
    channels = int_option(ctx, op, "num_channels", 1, 1 << 16)
    left = int_option(ctx, op, "stacker_left_context", 0, 1 << 10)
    right = int_option(ctx, op, "stacker_right_context", 0, 1 << 10)
    step = int_option(ctx, op, "stacker_step", 1, 1 << 10)
    stack = channels * (left + right + 1)
    if inp.num_elements != channels or out.num_elements != stack or valid.num_elements != 1:
        raise ctx.fail(f"input {list(inp.shape)} and output {list(out.shape)} are not one frame of {channels} "
                       f"channels and a stack of {stack}")
    if channels * step > stack:
        raise ctx.fail(f"a step of {step} frames is longer than the stack of {left + right + 1}")
    ctx.call("usmp_signal_stacker", "usmp_signal_stacker_params",
             dict(channels=channels, left_context=left, stack_size=stack, step_size=channels * step),
             input=ctx.read(op.inputs[0]), queue=ctx.persistent("queue", np.zeros(stack, np.int16)),
             status=ctx.persistent("status", np.zeros(2, np.int32)), output=ctx.write(op.outputs[0]),
             valid=ctx.write(op.outputs[1]))
