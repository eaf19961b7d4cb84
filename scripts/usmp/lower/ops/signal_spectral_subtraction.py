"""SignalFilterBankSpectralSubtraction (TFLite Micro's signal library): a per-channel noise estimate
smoothed over time and subtracted. The estimate is state: a buffer in the state pool, zero after init() and
reset() (as TFLite Micro's Prepare and Reset leave it), updated in place every run; the operator's second
output is a copy of it."""
from __future__ import annotations

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import bool_option, int_option, operands

UINT32_MAX = (1 << 32) - 1


@lowering("CUSTOM:SignalFilterBankSpectralSubtraction")
def lower_signal_spectral_subtraction(op, ctx):
    (inp,), (out, noise_out) = operands(ctx, op, 1, 2)
    for tensor in (inp, out, noise_out):
        require_dtype(ctx, tensor, "uint32")
    channels = int_option(ctx, op, "num_channels", 1, 1 << 15)
    if any(t.num_elements != channels for t in (inp, out, noise_out)):
        raise ctx.fail(f"{channels} channels, but the tensors hold {inp.num_elements}, {out.num_elements} and "
                       f"{noise_out.num_elements}")
    params = dict(channels=channels)
    for name in ("smoothing", "one_minus_smoothing", "alternate_smoothing", "alternate_one_minus_smoothing",
                 "min_signal_remaining"):
        params[name] = int_option(ctx, op, name, 0, UINT32_MAX)
    params["smoothing_bits"] = int_option(ctx, op, "smoothing_bits", 0, 31)
    params["spectral_subtraction_bits"] = int_option(ctx, op, "spectral_subtraction_bits", 0, 63)
    params["clamping"] = int(bool_option(ctx, op, "clamping"))
    ctx.call("usmp_signal_spectral_subtraction", "usmp_signal_spectral_subtraction_params", params,
             input=ctx.read(op.inputs[0]), noise=ctx.persistent("noise_estimate", np.zeros(channels, np.uint32)),
             output=ctx.write(op.outputs[0]), noise_output=ctx.write(op.outputs[1]))
