"""SignalRfft (TFLite Micro's signal library), int16: the spectrum of each real frame, zero-padded.

TFLite Micro computes it with a 16-bit fixed-point mixed-radix FFT (kiss_fft)
of half the length over sample pairs, then splits the result into the real
frame's spectrum. Its tables are built here exactly as that FFT builds them:
twiddles floor(0.5 + 32767 * cos/sin(phase)) in double, the radices 4 first,
then 2, then odd primes (kernels/src/signal_rfft.c does the arithmetic).
"""
from __future__ import annotations

import math

import numpy as np

from usmp.lower.ops import lowering
from usmp.lower.ops.common import require_dtype
from usmp.lower.ops.signal_common import int_option, operands

MAX_RADIX = 5  # TFLite Micro's FFT crashes on larger prime factors (its generic butterfly allocates)


def fft_factors(n: int) -> list[int]:
    """(radix, remaining length) pairs: powers of 4, then 2, then odd factors, as kiss_fft factors."""
    factors, p, limit = [], 4, math.floor(math.sqrt(n))
    while True:
        while n % p:
            p = {4: 2, 2: 3}.get(p, p + 2)
            if p > limit:
                p = n
        n //= p
        factors += [p, n]
        if n <= 1:
            return factors


def _q15(phase: float) -> tuple[int, int]:
    return math.floor(0.5 + 32767 * math.cos(phase)), math.floor(0.5 + 32767 * math.sin(phase))


def twiddles(n: int) -> np.ndarray:
    return np.array([_q15(-2 * math.pi * i / n) for i in range(n)], np.int16).reshape(-1)


def split_twiddles(n: int) -> np.ndarray:
    return np.array([_q15(-math.pi * ((i + 1) / n + 0.5)) for i in range(n // 2)], np.int16).reshape(-1)


@lowering("CUSTOM:SignalRfft")
def lower_signal_rfft(op, ctx):
    (inp,), (out,) = operands(ctx, op, 1, 1)
    require_dtype(ctx, inp, "int16")
    require_dtype(ctx, out, "int16")
    kind = op.options.get("T", 7)
    if kind != 7:  # TensorType INT16
        raise ctx.fail(f"is of type {kind}; only the int16 form (T = 7) is supported")
    fft_length = int_option(ctx, op, "fft_length", 2, 1 << 15)
    if fft_length % 2:
        raise ctx.fail(f"fft_length {fft_length} is odd; the real FFT needs an even length")
    if not inp.shape or not out.shape:
        raise ctx.fail("input and output must have at least one dimension")
    input_length = int(inp.shape[-1])
    frames = inp.num_elements // input_length if input_length else 0
    bins = fft_length // 2 + 1
    if input_length > fft_length or out.shape[-1] != 2 * bins or out.num_elements != frames * 2 * bins:
        raise ctx.fail(f"input {list(inp.shape)} and output {list(out.shape)} do not fit fft_length {fft_length} "
                       f"({bins} complex bins per frame)")
    n = fft_length // 2
    factors = fft_factors(n)
    if max(factors[::2]) > MAX_RADIX:
        raise ctx.fail(f"fft_length {fft_length} has the prime factor {max(factors[::2])}; TFLite Micro's FFT "
                       f"takes radices 2, 3, 4 and 5 only (its other butterfly needs a heap)")
    ctx.call("usmp_signal_rfft", "usmp_signal_rfft_params",
             dict(frames=frames, input_length=input_length, fft_length=fft_length),
             input=ctx.read(op.inputs[0]), twiddles=ctx.constant("twiddles", twiddles(n)),
             super_twiddles=ctx.constant("split_twiddles", split_twiddles(n)),
             factors=ctx.constant("factors", np.array(factors, np.int32)),
             work=ctx.scratch("frame", 2 * fft_length, "int16_t"),
             spectrum=ctx.scratch("half_spectrum", 2 * fft_length, "int16_t"), output=ctx.write(op.outputs[0]))
