"""Rewrites of portable 16x8 kernel calls (int16 activations, int8 weights) into CMSIS-NN's s16 kernels.

Each computes what TFLite Micro's int16 kernel does for the call's shape, or
declines with the reason. The lowering keeps its constants in the portable
kernels' form (lower/ops/sums16x8.py): an int64 bias, and for a 64-bit sum
("wide") the 16-bit multiplier TFLite reduces the 32-bit one to and the
whole right shift 15 - shift. CMSIS-NN reduces the multiplier itself
(REDUCE_MULTIPLIER), so it is handed reduced << 16, which reduces back to the
same value, and the shift as TFLite states it. A 32-bit sum (an int32 bias)
takes the int8 requantization and an int32 bias.

CMSIS-NN sums at least the first 512 products of a 64-bit sum in 32 bits (all
of them for the last, odd pixel of a convolution on the DSP cores, and for a
depthwise window), so a call is taken only where no such partial sum can
overflow: 32768 times the absolute sum of those filter taps stays below 2^31.
"""
from __future__ import annotations

import numpy as np

from usmp.paths import KERNELS_DIR
from usmp.select import cmsis_nn_sizes as sizes
from usmp.select.cmsis_nn import FAST, _binary_args, _conv_struct, _dims, _fits, _int32, _pool, same_shape_size
from usmp.select.family import Call, NewBuffer, Rewrite

INT32_LIMIT = 1 << 31
LARGEST_INPUT = 32768  # |int16|
CHUNK = 512  # MAX_COL_COUNT: the products CMSIS-NN sums in 32 bits before widening
GLUE = (KERNELS_DIR / "cmsis_nn" / "cmsis_nn_glue_s16.c",)


def _values(c: Call, name: str, dtype) -> np.ndarray:
    return np.frombuffer(c.program.buffers[c.buffers[name]].data, dtype)


def _quantization(c: Call, channels: int) -> tuple[NewBuffer, NewBuffer] | str:
    """CMSIS-NN's multiplier and shift per channel, from the lowering's (see the module's docstring)."""
    multiplier = _values(c, "multiplier", np.int32).astype(np.int64)
    shift = _values(c, "shift", np.int32).astype(np.int64)
    if c.p["wide"]:
        multiplier, shift = multiplier << 16, 15 - shift
    if not c.p.get("per_channel", 1):
        multiplier, shift = np.repeat(multiplier[:1], channels), np.repeat(shift[:1], channels)
    return (NewBuffer("cmsis_multiplier", "int32_t", 4 * channels, _int32(multiplier[:channels])),
            NewBuffer("cmsis_shift", "int32_t", 4 * channels, _int32(shift[:channels])))


def _bias(c: Call, channels: int):
    """The int64 bias as it is (a 64-bit sum), or as int32 (a 32-bit sum: the lowering wrapped it already)."""
    if c.p["wide"]:
        return c.buffers["bias"]
    return NewBuffer("cmsis_bias", "int32_t", 4 * channels, _int32(_values(c, "bias", np.int64)[:channels]))


def _sums_fit(rows: np.ndarray, chunk: int | None = None) -> bool:
    """No 32-bit partial sum of int16 inputs against these filter rows ([rows, taps]; the first `chunk` taps
    only, where CMSIS-NN widens after them) can overflow."""
    taps = np.abs(rows.astype(np.int64))[:, :chunk]
    return bool(LARGEST_INPUT * taps.sum(axis=1).max(initial=0) < INT32_LIMIT)


NO_OVERFLOW = "its 32-bit partial sums could overflow for this filter"


def _chunk(c: Call, pixels: int) -> int | None:
    """The products CMSIS-NN's convolution sums in 32 bits: the first CHUNK of a row, except for the last pixel
    of an odd count on the DSP cores, which sums the whole row so."""
    return CHUNK if c.extension == "mve" or pixels % 2 == 0 else None


def rewrite_conv_s16(c: Call) -> Rewrite | str | None:
    p = c.p
    if c.extension not in FAST:
        return None
    if p["filter_in_ch"] != p["in_ch"]:
        return "CMSIS-NN has no grouped int16 convolution"
    weights = c.program.graph.tensors[c.graph_op().inputs[1]].data.astype(np.int8).reshape(p["out_ch"], -1)
    return _convolution_s16(c, c.buffers["filter"], weights, p["in_ch"])


def _convolution_s16(c: Call, filter_buffer: str, weights: np.ndarray, filter_in_ch: int) -> Rewrite | str:
    """arm_convolve_s16 for a CONV_2D-shaped call ([out_ch, taps] filter): a convolution, or a depthwise one of
    one input channel (its channel-major filter is the convolution's)."""
    p = c.p
    out_ch = len(weights)
    dims = (p["in_h"], p["in_w"], p["in_ch"], p["out_h"], p["out_w"], out_ch, p["filter_h"], p["filter_w"],
            p["pad_top"], p["pad_left"], p["stride_h"], p["stride_w"])
    if not _fits(*dims):
        return "a dimension beyond CMSIS-NN's 16-bit sizes"
    if not _sums_fit(weights, _chunk(c, p["batches"] * p["out_h"] * p["out_w"])):
        return NO_OVERFLOW
    quant = _quantization(c, out_ch)
    scratch = sizes.convolve_s16(c.extension, filter_in_ch, p["filter_h"], p["filter_w"])
    p_struct = dict(conv=_conv_struct(dict(p, input_offset=0, output_offset=0), (p["dilation_h"], p["dilation_w"])),
                    input=_dims(p["batches"], p["in_h"], p["in_w"], p["in_ch"]),
                    filter=_dims(out_ch, p["filter_h"], p["filter_w"], filter_in_ch),
                    bias=_dims(1, 1, 1, out_ch), output=_dims(p["batches"], p["out_h"], p["out_w"], out_ch),
                    buffer_size=scratch)
    args = [("input", c.buffers["input"], False), ("filter", filter_buffer, False),
            ("bias", _bias(c, out_ch), False), ("multiplier", quant[0], False), ("shift", quant[1], False),
            ("buffer", NewBuffer("cmsis_buffer", "int16_t", scratch), True), ("output", c.buffers["output"], True)]
    glue = "usmp_cmsis_nn_convolve_s16" if p["wide"] else "usmp_cmsis_nn_convolve_s16_int32_bias"
    return Rewrite(glue, "usmp_cmsis_nn_conv_params", p_struct, args, ("arm_convolve_s16",), sources=GLUE)


def rewrite_depthwise_conv_s16(c: Call) -> Rewrite | str | None:
    """TFLite Micro's 16x8 depthwise takes an int64 bias only (the lowering refuses others). One input
    channel (micro_speech's): the convolution, several times faster than arm_depthwise_conv_s16."""
    p = c.p
    if c.extension not in FAST:
        return None
    out_ch = p["in_ch"] * p["depth_multiplier"]
    if p["in_ch"] == 1:
        weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
        return _convolution_s16(c, c.buffers["filter"], weights[:out_ch * p["filter_h"] * p["filter_w"]].reshape(
            out_ch, -1), 1)
    dilation = (p["dilation_h"], p["dilation_w"])
    if not _fits(p["in_h"], p["in_w"], p["in_ch"], p["out_h"], p["out_w"], out_ch, p["filter_h"], p["filter_w"],
                 p["pad_top"], p["pad_left"], p["stride_h"], p["stride_w"], *dilation):
        return "a dimension beyond CMSIS-NN's 16-bit sizes"
    weights = c.program.graph.tensors[c.graph_op().inputs[1]]  # [1, H, W, C], as CMSIS-NN reads it
    if not _sums_fit(weights.data.astype(np.int8).reshape(-1, out_ch).T):
        return NO_OVERFLOW
    hwc = np.ascontiguousarray(weights.data, dtype=np.int8).tobytes()
    multiplier, shift = _quantization(c, out_ch)
    params = dict(conv=[0, 0, p["depth_multiplier"], [p["stride_w"], p["stride_h"]], [p["pad_left"], p["pad_top"]],
                        [dilation[1], dilation[0]], [p["act_min"], p["act_max"]]],
                  input=_dims(p["batches"], p["in_h"], p["in_w"], p["in_ch"]),
                  filter=_dims(1, p["filter_h"], p["filter_w"], out_ch), bias=_dims(1, 1, 1, out_ch),
                  output=_dims(p["batches"], p["out_h"], p["out_w"], out_ch))
    args = [("input", c.buffers["input"], False), ("filter", NewBuffer("cmsis_filter", "int8_t", len(hwc), hwc), False),
            ("bias", c.buffers["bias"], False), ("multiplier", multiplier, False), ("shift", shift, False)]
    fast = p["depth_multiplier"] == 1 and dilation == (1, 1) and p["filter_h"] * p["filter_w"] < CHUNK
    if fast:  # what arm_depthwise_conv_wrapper_s16 picks
        scratch = sizes.depthwise_conv_fast_s16(c.extension, p["in_ch"], p["filter_h"], p["filter_w"])
        params["buffer_size"] = scratch
        args.append(("buffer", NewBuffer("cmsis_buffer", "int16_t", scratch), True))
    args.append(("output", c.buffers["output"], True))
    function = "arm_depthwise_conv_fast_s16" if fast else "arm_depthwise_conv_s16"
    return Rewrite(f"usmp_cmsis_nn_{function[4:]}", "usmp_cmsis_nn_dw_conv_params", params, args, (function,), sources=GLUE)


def rewrite_fully_connected_s16(c: Call) -> Rewrite | str | None:
    """arm_fully_connected_s16 for one scale and an int64 bias; else (one scale per output, or an int32 bias)
    arm_convolve_s16 over a 1 x batches image with 1x1 filters: the same sums and requantization. No offsets:
    the lowering folded the input zero point into the bias."""
    p = c.p
    if c.extension not in FAST:
        return None
    if p["output_offset"]:
        return "CMSIS-NN's int16 kernels take no output zero point"
    rows, depth = p["out_features"], p["in_features"]
    weights = _values(c, "weights", np.int8)[:rows * depth].reshape(rows, depth)
    if p["per_channel"] or not p["wide"]:
        return _fully_connected_as_conv(c, weights)
    if not _sums_fit(weights, CHUNK):
        return NO_OVERFLOW
    multiplier, shift = _quantization(c, 1)
    params = dict(fc=[0, 0, 0, [p["act_min"], p["act_max"]]],
                  input=_dims(p["batches"], 1, 1, depth), filter=_dims(depth, 1, 1, rows),
                  bias=_dims(1, 1, 1, rows), output=_dims(p["batches"], 1, 1, rows))
    args = [("input", c.buffers["input"], False), ("weights", c.buffers["weights"], False),
            ("bias", c.buffers["bias"], False), ("multiplier", multiplier, False), ("shift", shift, False),
            ("output", c.buffers["output"], True)]
    return Rewrite("usmp_cmsis_nn_fully_connected_s16", "usmp_cmsis_nn_fc_params", params, args,
                   ("arm_fully_connected_s16",), sources=GLUE)


def _fully_connected_as_conv(c: Call, weights: np.ndarray) -> Rewrite | str:
    p = c.p
    rows, depth = weights.shape
    if not _fits(p["batches"], depth, rows):
        return "a dimension beyond CMSIS-NN's 16-bit sizes"
    if not _sums_fit(weights, _chunk(c, p["batches"])):
        return NO_OVERFLOW
    quant = _quantization(c, rows)
    scratch = sizes.convolve_s16(c.extension, depth, 1, 1)
    params = dict(conv=[0, 0, [1, 1], [0, 0], [1, 1], [p["act_min"], p["act_max"]]],
                  input=_dims(1, 1, p["batches"], depth), filter=_dims(rows, 1, 1, depth),
                  bias=_dims(1, 1, 1, rows), output=_dims(1, 1, p["batches"], rows), buffer_size=scratch)
    args = [("input", c.buffers["input"], False), ("filter", c.buffers["weights"], False),
            ("bias", _bias(c, rows), False), ("multiplier", quant[0], False), ("shift", quant[1], False),
            ("buffer", NewBuffer("cmsis_buffer", "int16_t", scratch), True), ("output", c.buffers["output"], True)]
    glue = "usmp_cmsis_nn_convolve_s16" if p["wide"] else "usmp_cmsis_nn_convolve_s16_int32_bias"
    return Rewrite(glue, "usmp_cmsis_nn_conv_params", params, args, ("arm_convolve_s16",), sources=GLUE)


def _pool_s16(c: Call, average: bool) -> Rewrite | str | None:
    rewrite = _pool(c, average, "s16")
    if isinstance(rewrite, Rewrite):
        rewrite.sources = GLUE
    return rewrite


def rewrite_avg_pool_s16(c: Call) -> Rewrite | str | None:
    return _pool_s16(c, average=True)


def rewrite_max_pool_s16(c: Call) -> Rewrite | str | None:
    return _pool_s16(c, average=False)


def rewrite_softmax_s16(c: Call) -> Rewrite | None:
    """arm_softmax_s16 with the lowering's exp and 1/(1+x) tables (TFLite Micro's, 513 entries each)."""
    if c.extension not in FAST:
        return None
    params = {k: c.p[k] for k in ("rows", "depth", "input_multiplier", "input_shift")}
    args = [("input", c.buffers["input"], False), ("exp_table", c.buffers["exp_table"], False),
            ("reciprocal_table", c.buffers["reciprocal_table"], False), ("output", c.buffers["output"], True)]
    return Rewrite("usmp_cmsis_nn_softmax_s16", "usmp_cmsis_nn_softmax_s16_params", params, args,
                   ("arm_softmax_s16",), sources=GLUE)


def _zero_points(c: Call, *names: str) -> bool:
    return all(c.p[name] == 0 for name in names)


def rewrite_add_s16(c: Call) -> Rewrite | str | None:
    size = same_shape_size(c.p)
    if c.extension not in FAST:
        return None
    if size is None:
        return "CMSIS-NN's int16 ADD does not broadcast"
    if not _zero_points(c, "input1_offset", "input2_offset", "output_offset"):
        return "CMSIS-NN's int16 ADD takes no zero points"
    fields = ("input1_offset", "input1_multiplier", "input1_shift", "input2_offset", "input2_multiplier",
              "input2_shift", "left_shift", "output_offset", "output_multiplier", "output_shift", "act_min", "act_max")
    params = dict({k: c.p[k] for k in fields}, size=size)
    return Rewrite("usmp_cmsis_nn_elementwise_add_s16", "usmp_cmsis_nn_add_params", params, _binary_args(c),
                   ("arm_elementwise_add_s16",), sources=GLUE)


def rewrite_mul_s16(c: Call) -> Rewrite | str | None:
    size = same_shape_size(c.p)
    if c.extension not in FAST:
        return None
    if size is None:
        return "CMSIS-NN's int16 MUL does not broadcast"
    fields = ("input1_offset", "input2_offset", "output_offset", "output_multiplier", "output_shift",
              "act_min", "act_max")
    params = dict({k: c.p[k] for k in fields}, size=size)
    return Rewrite("usmp_cmsis_nn_elementwise_mul_s16", "usmp_cmsis_nn_mul_params", params, _binary_args(c),
                   ("arm_elementwise_mul_s16",), sources=GLUE)


CONV_NAMES = ("input", "filter", "bias", "multiplier", "shift", "output")
# portable kernel -> (its parameter names in order, rewrite)
S16_REWRITES = {
    "usmp_conv_s16": (CONV_NAMES, rewrite_conv_s16),
    "usmp_depthwise_conv_s16": (CONV_NAMES, rewrite_depthwise_conv_s16),
    "usmp_fully_connected_s16": (("input", "weights", "bias", "multiplier", "shift", "output"),
                                 rewrite_fully_connected_s16),
    "usmp_avg_pool_s16": (("input", "output"), rewrite_avg_pool_s16),
    "usmp_max_pool_s16": (("input", "output"), rewrite_max_pool_s16),
    "usmp_softmax_s16": (("input", "exp_table", "reciprocal_table", "output"), rewrite_softmax_s16),
    "usmp_add_s16": (("input1", "input2", "output"), rewrite_add_s16),
    "usmp_mul_s16": (("input1", "input2", "output"), rewrite_mul_s16),
}
