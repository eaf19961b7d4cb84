"""SignalIrfft (TFLite Micro's signal library), int16: each frame's spectrum back into real samples, with
the FFT of SignalRfft run the inverse way (its tables built here for that direction: the phases negated)."""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands
from usmp.lower.ops.signal_rfft import MAX_RADIX, _q15, fft_factors


@lowering("CUSTOM:SignalIrfft")
def lower_signal_irfft(op, ctx):
    (inp,), (out,) = operands(ctx, op, 1, 1)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "int16")
    kind = op.options.get("T", 7)
    if kind != 7:
        raise ctx.fail(f"is of type {kind}; only the int16 form (T = 7) is supported")
    fft_length = int_option(ctx, op, "fft_length", 2, 1 << 15)
    if fft_length % 2 or not inp.shape or not out.shape:
        raise ctx.fail(f"fft_length {fft_length} must be even, input and output at least 1-D")
    n = fft_length // 2
    bins = int(inp.shape[-1]) // 2
    frames = inp.num_elements // (2 * bins) if bins else 0
    if inp.shape[-1] % 2 or bins < n + 1 or out.shape[-1] != fft_length or out.num_elements != frames * fft_length:
        raise ctx.fail(f"input {list(inp.shape)} (complex bins) and output {list(out.shape)} do not fit "
                       f"fft_length {fft_length}")
    factors = fft_factors(n)
    if max(factors[::2]) > MAX_RADIX:
        raise ctx.fail(f"fft_length {fft_length} has the prime factor {max(factors[::2])}; TFLite Micro's FFT "
                       f"takes radices 2, 3, 4 and 5 only (its other butterfly needs a heap)")
    tw = np.array([_q15(2 * math.pi * i / n) for i in range(n)], np.int16).reshape(-1)
    split = np.array([_q15(math.pi * ((i + 1) / n + 0.5)) for i in range(n // 2)], np.int16).reshape(-1)
    ctx.call("usmp_signal_irfft", "usmp_signal_irfft_params",
             dict(frames=frames, input_length=bins, fft_length=fft_length), input=ctx.read(op.inputs[0]),
             twiddles=ctx.constant("inverse_twiddles", tw), super_twiddles=ctx.constant("inverse_split_twiddles", split),
             factors=ctx.constant("factors", np.array(factors, np.int32)),
             spectrum=ctx.scratch("joined", 2 * fft_length, "int16_t"), output=ctx.write(op.outputs[0]))
