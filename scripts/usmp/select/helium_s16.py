"""USMP's Helium kernels for 16x8 layers (int16 activations, int8 weights; kernels/helium/*_s16.c): which calls
take them, and their constants.

TFLite sums a 16x8 layer with an int64 bias in 64 bits and rescales it with
the multiplier rounded to 16 bits. Where 32 bits provably hold every sum (the
bias plus 32768 times the filter's absolute sum, per channel, with the
weights known here), the kernels sum in 32 bits (VMLADAVA, VMULL) and rescale
exactly as TFLite does (select/dsp_s16.py's wide_fields: (sum * (m << 16)) >> 32,
plus the rounding and the output offset, then the right shift). Layers with an
int32 bias (TFLite's 32-bit, wrapping sums) are left to the other families
(CMSIS-NN's s16 kernels); the matrix kernel's layers whose sums may leave 32
bits (micro_speech's fully connected layer of 4,000 inputs) are summed in 64
bits, as TFLite sums them (usmp_helium_conv_s16_sum64).
"""
from __future__ import annotations

import numpy as np

from usmp.paths import KERNELS_DIR
from usmp.select.dsp import _geometry, fully_connected_geometry, single_channel_filter
from usmp.select.dsp_s16 import LARGEST_INPUT, wide_fields
from usmp.select.family import Call, Entry, NewBuffer, Offer, Rewrite

CONV_SOURCES = (KERNELS_DIR / "helium" / "conv_s16.c",)
DEPTHWISE_SOURCES = (KERNELS_DIR / "helium" / "depthwise_s16.c",)
POOL_SOURCES = (KERNELS_DIR / "helium" / "pool_s16.c",)
LANES = 8  # int16 lanes of a vector

# Instructions on the Cortex-M55: least-squares fits of the int16 benchmark twins' layers whole (usmp run --profile;
# the matrix kernel on fourteen shapes of MobileNetV1, DS-CNN, ResNet-8 and micro_speech within 15 % but a strided
# 1x1 layer (27 % over), the depthwise kernel on eight within 11 %): per MAC, per output element, per output
# pixel and, for windows copied into columns, per tap copied; the 64-bit sums on micro_speech's classifier.
MATRIX_COST = dict(per_mac=0.27, per_output=4.5, per_pixel=8.7, per_copied_tap=7.1)
DEPTHWISE_COST = dict(per_mac=1.51, per_output=2.7, per_pixel=0.0)
POOL_COST = dict(per_mac=0.6, per_output=3.0, per_pixel=12.0)  # per tap and channel, per output, per pixel
POOL_TAPS_MAX = 256  # the average's multiply-high is exact for windows of at most 256 int16 taps (pool_s16.c)
SUM64_COST = dict(per_mac=1.0, per_output=30.0, per_pixel=100.0, per_copied_tap=7.1)
BEYOND_32_BITS = "its sums or rescale need more than 32 bits"
# USMP_HELIUM_CONV_S16_STATE_BYTES: the matrix kernels' state during a call (the pair loop's job, two windows' taps), in their scratch
CONV_S16_STATE_BYTES = 136
DW_S16_STATE_BYTES = 72  # USMP_HELIUM_DW_S16_STATE_BYTES: the depthwise kernel's loops during a call, its scratch


def _values(c: Call, name: str, dtype, channels: int) -> np.ndarray:
    values = np.frombuffer(c.program.buffers[c.buffers[name]].data, dtype).astype(np.int64)
    return np.resize(values, channels) if len(values) == 1 else values[:channels]


def rescale_fields(c: Call, weights: np.ndarray, output_offset: int) -> np.ndarray | str:
    """[channels, 4]: the int32 bias, the multiplier << 16, the rounding with the output offset, the negated
    right shift, for a layer of [channels, taps] filter rows; or why 32-bit sums are not exact for it."""
    if not c.p["wide"]:
        return "an int32 bias: TFLite's 32-bit sums wrap, which USMP's Helium 16x8 kernels do not"
    channels = len(weights)
    bias = _values(c, "bias", np.int64, channels)
    bound = np.abs(bias) + LARGEST_INPUT * np.abs(weights.astype(np.int64)).sum(axis=1)
    fields = wide_fields(bias, _values(c, "multiplier", np.int32, channels), _values(c, "shift", np.int32, channels),
                         output_offset, bound)
    if fields is None:
        return BEYOND_32_BITS
    fields[:, 3] = -fields[:, 3]
    return fields


def matrix_blocks(weights: np.ndarray, fields: np.ndarray) -> bytes:
    """usmp_helium_conv_s16's blocks: per 4 output channels their biases, the filter as chunks x 4 channels x 8
    bytes, then their multipliers, roundings and negated shifts (int32); missing channels and taps are zeros."""
    out_ch, depth = weights.shape
    blocks, chunks = -(-out_ch // 4), -(-depth // LANES)
    padded = np.zeros((blocks * 4, chunks * LANES), np.int8)
    padded[:out_ch, :depth] = weights
    filters = padded.reshape(blocks, 4, chunks, LANES).transpose(0, 2, 1, 3).reshape(blocks, -1)
    k = np.zeros((blocks * 4, 4), np.int32)
    k[:out_ch] = fields
    k = k.reshape(blocks, 4, 4).transpose(0, 2, 1).reshape(blocks, 16).view(np.int8)  # [block][field][channel]
    return np.concatenate([k[:, :16], filters, k[:, 16:]], axis=1).tobytes()


def cost(kind: dict, macs: int, outputs: int, pixels: int, copied_taps: int = 0) -> float:
    return (kind["per_mac"] * macs + kind["per_output"] * outputs + kind["per_pixel"] * pixels
            + kind.get("per_copied_tap", 0.0) * copied_taps)


def sum64_blocks(c: Call, weights: np.ndarray, output_offset: int) -> bytes:
    """usmp_helium_conv_s16_sum64's blocks: per output channel the int64 bias, the 16-bit multiplier, the right
    shift and the output offset, then the filter as chunks x 8 bytes (zero padded)."""
    out_ch, depth = weights.shape
    fields = np.zeros((out_ch, 5), np.int32)
    fields[:, :2] = _values(c, "bias", np.int64, out_ch).view(np.int32).reshape(out_ch, 2)
    fields[:, 2] = _values(c, "multiplier", np.int32, out_ch)
    fields[:, 3] = _values(c, "shift", np.int32, out_ch)
    fields[:, 4] = output_offset
    filters = np.zeros((out_ch, -(-depth // LANES) * LANES), np.int8)
    filters[:, :depth] = weights
    return np.concatenate([fields.view(np.int8), filters], axis=1).tobytes()


def _matrix(c: Call, weights: np.ndarray, geometry: dict, output_offset: int) -> Offer | str:
    fields = rescale_fields(c, weights, output_offset)
    if isinstance(fields, str) and fields != BEYOND_32_BITS:
        return fields
    out_ch, depth = weights.shape
    chunks = -(-depth // LANES)
    if isinstance(fields, str):
        data, function, figures = sum64_blocks(c, weights, output_offset), "usmp_helium_conv_s16_sum64", SUM64_COST
    else:
        data, function, figures = matrix_blocks(weights, fields), "usmp_helium_conv_s16", MATRIX_COST
    params = dict(geometry, depth=depth, chunks=chunks, act_min=c.p["act_min"], act_max=c.p["act_max"])
    # a 1x1 window over whole vectors of channels without padding is read from the input: no columns
    direct = ((geometry["filter_h"], geometry["filter_w"], geometry["pad_top"], geometry["pad_left"]) == (1, 1, 0, 0)
              and geometry["in_ch"] % LANES == 0)
    args = [("input", c.buffers["input"], False),
            ("blocks", NewBuffer("helium_blocks", "int8_t", len(data), data), False),
            ("columns", NewBuffer("helium_columns", "int16_t",
                                  CONV_S16_STATE_BYTES + (0 if direct else 2 * 2 * LANES * chunks)), True),
            ("output", c.buffers["output"], True)]
    rewrite = Rewrite(function, "usmp_helium_conv_s16_params", params, args, sources=CONV_SOURCES)
    pixels = geometry["batches"] * geometry["out_h"] * geometry["out_w"]
    copied = 0 if direct or geometry["in_ch"] * geometry["filter_w"] % LANES == 0 else pixels * depth
    return Offer(rewrite, cost(figures, pixels * out_ch * depth, pixels * out_ch, pixels, copied))


def conv(c: Call) -> Offer | str | None:
    p = c.p
    if p["filter_in_ch"] != p["in_ch"]:
        return "USMP's Helium kernels have no grouped convolution"
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    weights = weights[:p["out_ch"] * p["filter_h"] * p["filter_w"] * p["in_ch"]].reshape(p["out_ch"], -1)
    return _matrix(c, weights, _geometry(p, p["in_ch"], p["out_ch"]), 0)


def fully_connected(c: Call) -> Offer | str | None:
    """Each batch row is one pixel of a 1 x batches image."""
    p = c.p
    rows, depth = p["out_features"], p["in_features"]
    weights = np.frombuffer(c.program.buffers[c.buffers["weights"]].data, np.int8)[:rows * depth].reshape(rows, depth)
    return _matrix(c, weights, fully_connected_geometry(p), p["output_offset"])


def depthwise_groups(weights: np.ndarray, fields: np.ndarray) -> bytes:
    """usmp_helium_depthwise_s16's constants: per group of 8 channels the 4 int32 fields, each as the even
    channels' 4 values then the odd channels', then the filter as taps x 8 bytes ([channels, taps] weights)."""
    channels, taps = weights.shape
    groups = -(-channels // LANES)
    k = np.zeros((groups * LANES, 4), np.int32)
    k[:channels] = fields
    k = k.reshape(groups, 4, 2, 4).transpose(0, 3, 2, 1).reshape(groups, 4 * LANES)  # [group][field][odd][lane]
    filters = np.zeros((groups * LANES, taps), np.int8)
    filters[:channels] = weights
    filters = filters.reshape(groups, LANES, taps).transpose(0, 2, 1).reshape(groups, -1)
    return np.concatenate([k.view(np.int8), filters], axis=1).tobytes()


def depthwise(c: Call) -> Offer | str | None:
    """One input channel: a convolution whose [out_ch, H, W, 1] filter is the lowering's channel-major one. Else,
    with multiplier 1: usmp_helium_depthwise_s16."""
    p = c.p
    if p["in_ch"] == 1:
        return _matrix(c, single_channel_filter(c), _geometry(p, 1, p["depth_multiplier"]), 0)
    if p["depth_multiplier"] != 1:
        return "USMP's Helium 16x8 depthwise kernel takes multiplier 1"
    channels, taps = p["in_ch"], p["filter_h"] * p["filter_w"]
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)[:channels * taps]
    weights = weights.reshape(channels, taps)  # the lowering's channel-major filter
    fields = rescale_fields(c, weights, 0)
    if isinstance(fields, str):
        return fields
    data = depthwise_groups(weights, fields)
    keys = ("batches", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w",
            "dilation_h", "dilation_w", "pad_top", "pad_left", "act_min", "act_max")
    params = dict({k: p[k] for k in keys}, channels=channels)
    args = [("input", c.buffers["input"], False),
            ("constants", NewBuffer("helium_groups", "int8_t", len(data), data), False),
            ("state", NewBuffer("helium_state", "int32_t", DW_S16_STATE_BYTES), True),
            ("output", c.buffers["output"], True)]
    rewrite = Rewrite("usmp_helium_depthwise_s16", "usmp_helium_depthwise_s16_params", params, args,
                      sources=DEPTHWISE_SOURCES)
    pixels = p["batches"] * p["out_h"] * p["out_w"]
    return Offer(rewrite, cost(DEPTHWISE_COST, pixels * channels * taps, pixels * channels, pixels))


def avg_pool(c: Call) -> Offer | str | None:
    """AVERAGE_POOL_2D: usmp_helium_avg_pool_s16 (the portable kernel's parameters), no scratch."""
    p = c.p
    taps = p["filter_h"] * p["filter_w"]
    if taps > POOL_TAPS_MAX:
        return f"USMP's Helium int16 average pool takes windows of at most {POOL_TAPS_MAX} taps"
    args = [("input", c.buffers["input"], False), ("output", c.buffers["output"], True)]
    rewrite = Rewrite("usmp_helium_avg_pool_s16", c.call.params_type, dict(p), args, sources=POOL_SOURCES)
    pixels = p["batches"] * p["out_h"] * p["out_w"]
    return Offer(rewrite, cost(POOL_COST, pixels * p["channels"] * taps, pixels * p["channels"], pixels))


CONV_NAMES = ("input", "filter", "bias", "multiplier", "shift", "output")
# portable kernel -> (its parameter names in order, handler)
S16_TABLE = {
    "usmp_conv_s16": Entry(CONV_NAMES, conv),
    "usmp_depthwise_conv_s16": Entry(CONV_NAMES, depthwise),
    "usmp_avg_pool_s16": Entry(("input", "output"), avg_pool),
    "usmp_fully_connected_s16": Entry(("input", "weights", "bias", "multiplier", "shift", "output"), fully_connected),
}
