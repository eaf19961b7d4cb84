"""USMP's DSP kernels for 16x8 layers (int16 activations, int8 weights; kernels/dsp/*_s16.c): which calls, and
their constants.

int16 activations need no widening: the matrix kernel sums a window's int16
taps as they are against the filter, widened here to int16 once, in its
natural tap order (t0, t1), (t2, t3). Both of TFLite's rescales are exact
in 32 bits where the sums fit (checked per layer, with the weights known):
a 64-bit sum (int64 bias) by SMMLA of the sum and the 16-bit multiplier
TFLite rounds to (usmp_kernels/dsp.h), a 32-bit sum (int32 bias) as the int8
kernels rescale, with the filter and bias doubled.
"""
from __future__ import annotations

import numpy as np

from usmp.paths import KERNELS_DIR
from usmp.select.dsp import (
    DSP_WINDOW_ROW, INT32_LIMIT, MATRIX_CALL, Candidate, _channel_values, _geometry, _int32s, depthwise_cost,
    depthwise_layout, depthwise_misfit, depthwise_rows_bytes, fully_connected_geometry, pair_stream, requant_fields,
    single_channel_filter,
)
from usmp.select.family import Call, Entry, NewBuffer, Rewrite

CONV_SOURCES = (KERNELS_DIR / "dsp" / "conv_s16.c",)
DEPTHWISE_SOURCES = (KERNELS_DIR / "dsp" / "depthwise_s16.c",)
LARGEST_INPUT = 32768
# Instructions per MAC of the s16 matrix kernel's pair loop (13 for 16 MACs), and per window tap copied.
MATRIX_PER_MAC = 0.95
SUM64_PER_MAC = 1.6  # the 64-bit sums' C loop
COPY_PER_TAP = 1.0


def wide_fields(bias: np.ndarray, multiplier: np.ndarray, right_shift: np.ndarray, output_offset: int,
                bound: np.ndarray) -> np.ndarray | None:
    """[channels, 4] for a 64-bit sum: the bias, the 16-bit multiplier << 16, the rounding 2^(e-1) +
    output_offset * 2^e and e = right_shift - 16; None where that is not exact in 32 bits (a sum or the
    rounding beyond int32, e < 1)."""
    e = right_shift - 16
    if np.any(e < 1) or np.any(e > 31) or np.any(bound >= INT32_LIMIT):
        return None
    round_ = (1 << (e - 1)) + output_offset * (1 << e)
    high = (bound * multiplier) >> 16
    if np.any(np.abs(round_) + high + 1 >= INT32_LIMIT):
        return None
    return np.stack([bias, multiplier << 16, round_, e], axis=1)


def filter_words(weights: np.ndarray, doubled: bool) -> tuple[np.ndarray, int]:
    """[out_ch, depth] int8 -> [pair][quad][channel][4 int16 taps] as words, and the quads."""
    out_ch, depth = weights.shape
    pairs, quads = -(-out_ch // 2), -(-depth // 4)
    padded = np.zeros((2 * pairs, 4 * quads), np.int16)
    padded[:out_ch, :depth] = weights.astype(np.int16) * (2 if doubled else 1)
    blocks = padded.reshape(pairs, 2, quads, 4).transpose(0, 2, 1, 3)
    return np.frombuffer(blocks.tobytes(), np.uint32).reshape(pairs, -1), quads


def _matrix(c: Call, weights: np.ndarray, geometry: dict, output_offset: int) -> Candidate | str:
    p = c.p
    out_ch, depth = weights.shape
    fields = _fields(c, weights, output_offset)
    words, quads = filter_words(weights, doubled=not p["wide"])
    if fields is not None:
        data, function = pair_stream(words, fields), "usmp_dsp_conv_s16" if p["wide"] else "usmp_dsp_conv_s16_sum32"
    elif p["wide"]:  # sums or a bias beyond 32 bits: sums in 64 bits
        data, function = sum64_stream(c, words, out_ch, output_offset), "usmp_dsp_conv_s16_sum64"
    else:
        return "its 32-bit sums could overflow, which the DSP kernels do not wrap as TFLite does"
    params = dict(geometry, input_offset=0, quads=quads, act_min=p["act_min"], act_max=p["act_max"])
    pixels = geometry["batches"] * geometry["out_h"] * geometry["out_w"]
    # a 1x1 window of whole quads without padding is read from the input: no scratch
    direct = ((geometry["filter_h"], geometry["filter_w"], geometry["pad_top"], geometry["pad_left"]) == (1, 1, 0, 0)
              and geometry["in_ch"] % 4 == 0)

    def make(wide: bool = False) -> Rewrite:
        args = [("input", c.buffers["input"], False),
                ("weights", NewBuffer("dsp_weights", "uint32_t", len(data), data), False),
                ("scratch", NewBuffer("dsp_columns", "int16_t", 4 if direct else 16 * quads), True),
                ("output", c.buffers["output"], True)]
        return Rewrite(function, "usmp_dsp_conv_params", params, args, sources=CONV_SOURCES)

    macs = out_ch * depth * pixels
    copy = 0 if direct else pixels * (COPY_PER_TAP * depth + DSP_WINDOW_ROW / 2 * geometry["filter_h"])
    per_mac = MATRIX_PER_MAC if function != "usmp_dsp_conv_s16_sum64" else SUM64_PER_MAC
    return Candidate(make(), MATRIX_CALL + per_mac * macs + copy, macs, 0, make, widens=False)


def sum64_stream(c: Call, words: np.ndarray, out_ch: int, output_offset: int) -> bytes:
    """usmp_dsp_conv_s16_sum64's weights: per channel pair the filter's quads, then per channel the int64 bias
    (two words), the 16-bit multiplier, the right shift and the output offset (a missing channel: shift 1)."""
    pairs = len(words)
    channels = 2 * pairs
    k = np.zeros((channels, 5), np.int64)
    k[:, 3] = 1
    k[:out_ch, 0] = np.frombuffer(c.program.buffers[c.buffers["bias"]].data, np.int64)[:out_ch]
    k[:out_ch, 2] = _channel_values(c, "multiplier", out_ch)
    k[:out_ch, 3] = _channel_values(c, "shift", out_ch)
    k[:, 4] = output_offset
    requant = np.concatenate([np.ascontiguousarray(k[:, 0]).view(np.int32).reshape(channels, 2),  # bias: 2 words
                              k[:, 2:].astype(np.int32)], axis=1).reshape(pairs, 10)
    return np.concatenate([words, requant.view(np.uint32)], axis=1).astype(np.uint32).tobytes()


def conv_s16_candidate(c: Call) -> Candidate | str | None:
    p = c.p
    if p["filter_in_ch"] != p["in_ch"]:
        return "USMP's DSP kernels have no grouped convolution"
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    weights = weights[:p["out_ch"] * p["filter_h"] * p["filter_w"] * p["in_ch"]].reshape(p["out_ch"], -1)
    return _matrix(c, weights, _geometry(p, p["in_ch"], p["out_ch"]), 0)


def _fields(c: Call, weights: np.ndarray, output_offset: int) -> np.ndarray | None:
    """[channels, 4] (bias, multiplier, round, shift) of a layer's [channels, taps] filter, as its sum (p["wide"]:
    64-bit, else 32-bit with the filter and bias doubled) needs them; None where they are not exact."""
    channels = len(weights)
    bias = np.frombuffer(c.program.buffers[c.buffers["bias"]].data, np.int64)[:channels]
    multiplier = _channel_values(c, "multiplier", channels)
    shift = _channel_values(c, "shift", channels)
    bound = np.abs(bias) + LARGEST_INPUT * np.abs(weights.astype(np.int64)).sum(axis=1)
    if c.p["wide"]:
        return wide_fields(bias, multiplier, shift, output_offset, bound)
    return requant_fields(bias, multiplier, shift, output_offset, bound, True)


def _depthwise_3_wide(c: Call) -> Candidate | str | None:
    """usmp_dsp_depthwise_s16: multiplier 1, filter width 3 and no dilation, as the int8 kernel; per channel and
    filter row the int16 tap pairs (w0, w1), (w1, w2), and per channel struct usmp_dsp_channel_requant."""
    p = c.p
    misfit = depthwise_misfit(p)
    if misfit:
        return misfit
    weights, params = depthwise_layout(c, 0)
    channels, rows = weights.shape[:2]
    fields = _fields(c, weights.reshape(channels, -1), 0) if p["wide"] else None
    if fields is None:
        return "its sums or rescale do not fit the DSP kernel's 32 bits"
    taps = weights[..., [0, 1, 1, 2]].astype(np.int16).tobytes()  # a 64-bit sum: TFLite's takes int64 biases only
    requant = _int32s(fields)

    def make(wide: bool = False) -> Rewrite:
        args = [("input", c.buffers["input"], False),
                ("filter", NewBuffer("dsp_filter", "uint32_t", len(taps), taps), False),
                ("requant", NewBuffer("dsp_requant", "struct usmp_dsp_channel_requant", len(requant), requant), False),
                ("rows", NewBuffer("dsp_rows", "int16_t", depthwise_rows_bytes(rows, params["row_pairs"])), True),
                ("output", c.buffers["output"], True)]
        return Rewrite("usmp_dsp_depthwise_s16", "usmp_dsp_depthwise_params", params, args, sources=DEPTHWISE_SOURCES)

    macs, cost = depthwise_cost(p)
    return Candidate(make(), cost, macs, 0, make, widens=False)


def depthwise_s16_candidate(c: Call) -> Candidate | str | None:
    """One input channel: a convolution whose [out_ch, H, W, 1] filter is the lowering's channel-major one.
    Else, with multiplier 1, width 3 and no dilation: the DSP depthwise kernel."""
    p = c.p
    if p["in_ch"] != 1:
        return _depthwise_3_wide(c)
    return _matrix(c, single_channel_filter(c), _geometry(p, 1, p["depth_multiplier"]), 0)


def fully_connected_s16_candidate(c: Call) -> Candidate | str | None:
    """Each batch row is one pixel of a 1 x batches image; the lowering's bias holds the input zero point's
    term."""
    p = c.p
    rows, depth = p["out_features"], p["in_features"]
    weights = np.frombuffer(c.program.buffers[c.buffers["weights"]].data, np.int8)[:rows * depth].reshape(rows, depth)
    return _matrix(c, weights, fully_connected_geometry(p), p["output_offset"])


CONV_NAMES = ("input", "filter", "bias", "multiplier", "shift", "output")
# portable kernel -> (its parameter names in order, candidate finder)
S16_CANDIDATES = {
    "usmp_conv_s16": Entry(CONV_NAMES, conv_s16_candidate),
    "usmp_depthwise_conv_s16": Entry(CONV_NAMES, depthwise_s16_candidate),
    "usmp_fully_connected_s16": Entry(("input", "weights", "bias", "multiplier", "shift", "output"),
                                      fully_connected_s16_candidate),
}
