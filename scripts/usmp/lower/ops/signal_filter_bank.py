"""SignalFilterBank (TFLite Micro's signal library): triangular mel bands summed into uint64 channels.

The band tables (weights, unweights, each channel's first frequency, first
weight and width) are int16 tensors; when they are constants, every index the
kernel will take is checked here against the input and the weight tables.
"""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands


@lowering("CUSTOM:SignalFilterBank")
def lower_signal_filter_bank(op, ctx):
    (inp, weights, unweights, starts, weight_starts, widths), (out,) = operands(ctx, op, 6, 1)
    require_dtype(ctx, inp, "uint32")
    require_dtype(ctx, out, "uint64")
    for table in (weights, unweights, starts, weight_starts, widths):
        require_dtype(ctx, table, "int16")
    channels = int_option(ctx, op, "num_channels", 1, 1 << 15)
    if out.num_elements != channels or any(t.num_elements != channels + 1 for t in (starts, weight_starts, widths)):
        raise ctx.fail(f"{channels} channels need an output of {channels} and band tables of {channels + 1}")
    if all(t.is_constant for t in (starts, weight_starts, widths)):
        first, first_weight, width = (t.data.astype(np.int64).reshape(-1) for t in (starts, weight_starts, widths))
        if (np.any(width < 0) or np.any(first < 0) or np.any(first_weight < 0)
                or np.any(first + width > inp.num_elements)
                or np.any(first_weight + width > min(weights.num_elements, unweights.num_elements))):
            raise ctx.fail("a band reaches outside the input or the weight tables")
    ctx.call("usmp_signal_filter_bank", "usmp_signal_filter_bank_params", dict(channels=channels),
             input=ctx.read(op.inputs[0]), weights=ctx.read(op.inputs[1]), unweights=ctx.read(op.inputs[2]),
             frequency_starts=ctx.read(op.inputs[3]), weight_starts=ctx.read(op.inputs[4]),
             widths=ctx.read(op.inputs[5]), output=ctx.write(op.outputs[0]))
