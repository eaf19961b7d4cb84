"""Rewrites of portable int8 kernel calls into calls of CMSIS-NN, one per operator family.

Each rewrite reads the KernelCall the lowering produced (its params and
buffers), decides whether CMSIS-NN computes exactly what TFLite Micro does
for that shape, and if so returns the glue call (kernels/cmsis_nn/) with
CMSIS-NN's parameter structs filled in, the CMSIS-NN function it reaches,
and any constants or scratch it needs. The variant a CMSIS-NN wrapper would
pick at run time is picked here, since every shape is known. A rewrite
returns None to leave the call portable.

The DSP builds (Cortex-M4, M7, M33) and the Helium build (Cortex-M55) are
rewritten, each tested bit-exact on its emulated core. Helium has its own
code paths in CMSIS-NN: other scratch sizes (cmsis_nn_sizes.py), variants its
wrappers pick differently (no 3x3 depthwise, no int16 row im2col) and kernel
sums for the fully connected layers.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from usmp.select import cmsis_nn_sizes as sizes
from usmp.select.family import Call, NewBuffer, Rewrite, Site, portable_calls  # noqa: F401

FAST = ("dsp", "mve")  # the extensions whose CMSIS-NN paths beat the portable kernels
UINT16_MAX = 0xFFFF  # CMSIS-NN keeps several sizes in uint16_t locals
POOL_CONTEXT_BYTES = 8  # cmsis_nn_glue.h: USMP_CMSIS_NN_POOL_CONTEXT_BYTES (a cmsis_nn_context for 4-byte pointers)
# what usmp_cmsis_nn_convolve_rows_s8 calls (the int8 -> int16 column copy of the DSP and the plain C build)
ROWS_FUNCTIONS = ("arm_nn_mat_mult_kernel_s8_s16", "arm_s8_to_s16_unordered_with_offset", "arm_q7_to_q15_with_offset")


def _dims(n: int, h: int, w: int, c: int) -> list[int]:
    return [n, h, w, c]


def _fits(*values: int) -> bool:
    return all(0 <= int(v) <= UINT16_MAX for v in values)


def _int32(values) -> bytes:
    return np.ascontiguousarray(values, dtype=np.int32).tobytes()


def _per_channel(c: Call, channels: int) -> tuple[str | NewBuffer, str | NewBuffer]:
    """CMSIS-NN's convolutions read one multiplier and shift per channel; a per-tensor pair is repeated."""
    if c.p.get("per_channel", 1):
        return c.buffers["multiplier"], c.buffers["shift"]
    multiplier = np.frombuffer(c.program.buffers[c.buffers["multiplier"]].data, np.int32)[:1]
    shift = np.frombuffer(c.program.buffers[c.buffers["shift"]].data, np.int32)[:1]
    return (NewBuffer("cmsis_multiplier", "int32_t", 4 * channels, _int32(np.repeat(multiplier, channels))),
            NewBuffer("cmsis_shift", "int32_t", 4 * channels, _int32(np.repeat(shift, channels))))


def _conv_struct(p: dict, dilation: tuple[int, int]) -> list:
    return [p["input_offset"], p["output_offset"], [p["stride_w"], p["stride_h"]], [p["pad_left"], p["pad_top"]],
            [dilation[1], dilation[0]], [p["act_min"], p["act_max"]]]


def _convolution(c: Call, filter_buffer, filter_in_ch: int, out_ch: int) -> Rewrite | None:
    """A CONV_2D-shaped call (also a depthwise one with one input channel): the variant by shape."""
    p, extension = c.p, c.extension
    if extension not in FAST:
        return None
    dilation = (p["dilation_h"], p["dilation_w"])
    if not _fits(p["in_h"], p["in_w"], p["in_ch"], p["out_h"], p["out_w"], out_ch, p["filter_h"], p["filter_w"],
                 filter_in_ch, p["pad_top"], p["pad_left"], p["stride_h"], p["stride_w"]):
        return None
    multiplier, shift = _per_channel(c, out_ch)
    params = dict(conv=_conv_struct(p, dilation),
                  input=_dims(p["batches"], p["in_h"], p["in_w"], p["in_ch"]),
                  filter=_dims(out_ch, p["filter_h"], p["filter_w"], filter_in_ch),
                  bias=_dims(1, 1, 1, out_ch), output=_dims(p["batches"], p["out_h"], p["out_w"], out_ch))
    same_channels = p["in_ch"] == filter_in_ch
    one_by_one = (p["pad_top"] == 0 and p["pad_left"] == 0 and p["filter_h"] == 1 and p["filter_w"] == 1
                  and dilation == (1, 1) and same_channels)
    scratch, scratch_type = None, "int16_t"
    if one_by_one:
        function = "arm_convolve_1x1_s8_fast" if (p["stride_h"], p["stride_w"]) == (1, 1) else "arm_convolve_1x1_s8"
        glue, reached = f"usmp_cmsis_nn_{function[4:]}", (function,)
    elif same_channels and dilation == (1, 1):  # our im2col by filter rows around CMSIS-NN's matrix kernel
        if extension == "mve":  # four int8 columns for Helium's int8 matrix kernel
            glue, reached = "usmp_cmsis_nn_convolve_rows_nt_s8", ("arm_nn_mat_mult_nt_t_s8",)
            scratch, scratch_type = sizes.convolve_rows_nt_s8(p["in_ch"], p["filter_h"], p["filter_w"]), "int8_t"
        else:
            glue, reached = "usmp_cmsis_nn_convolve_rows_s8", ROWS_FUNCTIONS
            scratch = sizes.convolve_rows_s8(p["in_ch"], p["filter_h"], p["filter_w"])
    else:
        glue, reached = "usmp_cmsis_nn_convolve_s8", ("arm_convolve_s8",)
        scratch = sizes.convolve_s8(extension, p["in_ch"], p["filter_h"], p["filter_w"])
    if scratch is not None:
        params["buffer_size"] = scratch
    args = [("input", c.buffers["input"], False), ("filter", filter_buffer, False), ("bias", c.buffers["bias"], False),
            ("multiplier", multiplier, False), ("shift", shift, False)]
    if scratch is not None:
        args.append(("buffer", NewBuffer("cmsis_buffer", scratch_type, scratch), True))
    args.append(("output", c.buffers["output"], True))
    return Rewrite(glue, "usmp_cmsis_nn_conv_params", params, args, reached)


def rewrite_conv(c: Call) -> Rewrite | None:
    return _convolution(c, c.buffers["filter"], c.p["filter_in_ch"], c.p["out_ch"])


def rewrite_depthwise_conv(c: Call) -> Rewrite | None:
    p, extension = c.p, c.extension
    if extension not in FAST:
        return None
    out_ch = p["in_ch"] * p["depth_multiplier"]
    dilation = (p["dilation_h"], p["dilation_w"])
    if p["in_ch"] == 1 and dilation == (1, 1):
        # One input channel: the same sums as a convolution whose [out_ch, H, W, 1] filters are the
        # channel-major filter the lowering made; the row im2col convolution (on Helium arm_convolve_s8, as
        # CMSIS-NN's wrapper does for many output channels) is the faster (micro_speech).
        return _convolution(c, c.buffers["filter"], 1, out_ch)
    if not _fits(p["in_h"], p["in_w"], p["in_ch"], p["out_h"], p["out_w"], out_ch, p["filter_h"], p["filter_w"],
                 p["pad_top"], p["pad_left"], p["stride_h"], p["stride_w"], dilation[0], dilation[1]):
        return None
    weights = c.program.graph.tensors[c.graph_op().inputs[1]]  # CMSIS-NN reads the [1, H, W, C] filter as stored
    hwc = np.ascontiguousarray(weights.data, dtype=np.int8).tobytes()
    multiplier, shift = _per_channel(c, out_ch)
    params = dict(conv=[p["input_offset"], p["output_offset"], p["depth_multiplier"], [p["stride_w"], p["stride_h"]],
                        [p["pad_left"], p["pad_top"]], [dilation[1], dilation[0]], [p["act_min"], p["act_max"]]],
                  input=_dims(p["batches"], p["in_h"], p["in_w"], p["in_ch"]),
                  filter=_dims(1, p["filter_h"], p["filter_w"], out_ch), bias=_dims(1, 1, 1, out_ch),
                  output=_dims(p["batches"], p["out_h"], p["out_w"], out_ch))
    scratch = None
    if p["depth_multiplier"] == 1 and p["batches"] == 1 and dilation == (1, 1):
        three = (p["filter_h"], p["filter_w"]) == (3, 3) and p["pad_top"] <= 1 and p["pad_left"] <= 1
        if three and extension == "dsp":  # Helium's wrapper takes the vectorised _opt for 3x3 too
            function = "arm_depthwise_conv_3x3_s8"
        else:
            function = "arm_depthwise_conv_s8_opt"
            scratch = sizes.depthwise_conv_s8_opt(extension, p["in_ch"], p["filter_h"], p["filter_w"])
            params["buffer_size"] = scratch
    else:
        function = "arm_depthwise_conv_s8"
    args = [("input", c.buffers["input"], False), ("filter", NewBuffer("cmsis_filter", "int8_t", len(hwc), hwc), False),
            ("bias", c.buffers["bias"], False), ("multiplier", multiplier, False), ("shift", shift, False)]
    if scratch is not None:
        args.append(("buffer", NewBuffer("cmsis_buffer", "int16_t", scratch), True))
    args.append(("output", c.buffers["output"], True))
    return Rewrite(f"usmp_cmsis_nn_{function[4:]}", "usmp_cmsis_nn_dw_conv_params", params, args, (function,))


def rewrite_fully_connected(c: Call) -> Rewrite | None:
    """The lowering's bias already holds the input zero point's term, so CMSIS-NN runs with input offset 0:
    the same sums modulo 2**32, and the cheapest CMSIS-NN path. On Helium CMSIS-NN starts each sum from a
    kernel sum (arm_vector_sum_s8: bias + input offset * filter row sum); with both offsets 0 that is the
    bias itself, so the glue hands over the bias constant and nothing is computed or stored twice."""
    p = c.p
    if c.extension not in FAST:
        return None
    params = dict(fc=[0, 0, p["output_offset"], [p["act_min"], p["act_max"]]],
                  input=_dims(p["batches"], 1, 1, p["in_features"]), filter=_dims(p["in_features"], 1, 1, p["out_features"]),
                  bias=_dims(1, 1, 1, p["out_features"]), output=_dims(p["batches"], 1, 1, p["out_features"]))
    function = "arm_fully_connected_per_channel_s8" if p["per_channel"] else "arm_fully_connected_s8"
    args = [(name, c.buffers[name], name == "output")
            for name in ("input", "weights", "bias", "multiplier", "shift", "output")]
    return Rewrite(f"usmp_cmsis_nn_{function[4:]}", "usmp_cmsis_nn_fc_params", params, args, (function,))


def _pool(c: Call, average: bool, suffix: str = "s8") -> Rewrite | str | None:
    """AVERAGE_POOL_2D or MAX_POOL_2D of int8 (suffix s8) or int16 (s16): the same parameters and scratch."""
    p = c.p
    if c.extension not in FAST:
        return None
    if not _fits(p["in_h"], p["in_w"], p["channels"], p["out_h"], p["out_w"], p["filter_h"], p["filter_w"],
                 p["pad_top"], p["pad_left"], p["stride_h"], p["stride_w"]):
        return "a dimension beyond CMSIS-NN's 16-bit sizes"
    params = dict(pool=[[p["stride_w"], p["stride_h"]], [p["pad_left"], p["pad_top"]], [p["act_min"], p["act_max"]]],
                  input=_dims(p["batches"], p["in_h"], p["in_w"], p["channels"]),
                  filter=_dims(1, p["filter_h"], p["filter_w"], 1),
                  output=_dims(p["batches"], p["out_h"], p["out_w"], p["channels"]))
    args = [("input", c.buffers["input"], False)]
    if not average:
        glue, function = f"usmp_cmsis_nn_max_pool_{suffix}", f"arm_max_pool_{suffix}"
    else:
        function = f"arm_avgpool_{suffix}"
        scratch = sizes.avgpool_s8(c.extension, p["channels"])  # arm_avgpool_s16 sizes it alike
        params["buffer_size"] = scratch
        glue = f"usmp_cmsis_nn_avgpool_{suffix}" + ("" if scratch else "_unbuffered")
        if scratch:  # the int8 glue keeps the call's context after the sums (cmsis_nn_glue.h)
            context = POOL_CONTEXT_BYTES if suffix == "s8" else 0
            args.append(("buffer", NewBuffer("cmsis_buffer", "int32_t", scratch + context), True))
    args.append(("output", c.buffers["output"], True))
    return Rewrite(glue, "usmp_cmsis_nn_pool_params", params, args, (function,))


def rewrite_avg_pool(c: Call) -> Rewrite | None:
    return _pool(c, average=True)


def rewrite_max_pool(c: Call) -> Rewrite | None:
    return _pool(c, average=False)


def rewrite_softmax(c: Call) -> Rewrite | None:
    if c.extension not in FAST:
        return None
    params = {k: c.p[k] for k in ("rows", "depth", "input_multiplier", "input_left_shift", "diff_min")}
    return Rewrite("usmp_cmsis_nn_softmax_s8", "usmp_cmsis_nn_softmax_params", params,
                   [("input", c.buffers["input"], False), ("output", c.buffers["output"], True)], ("arm_softmax_s8",))


def same_shape_size(p: dict) -> int | None:
    """Elements of a binary operator whose inputs have the output's shape (CMSIS-NN does not broadcast)."""
    if p["rank"] == 1 and p["stride1"][0] == 1 and p["stride2"][0] == 1:
        return p["shape"][0]
    return None


def _binary_args(c: Call) -> list:
    return [("input1", c.buffers["input1"], False), ("input2", c.buffers["input2"], False),
            ("output", c.buffers["output"], True)]


def rewrite_add(c: Call) -> Rewrite | None:
    size = same_shape_size(c.p)
    if c.extension not in FAST or size is None:
        return None
    fields = ("input1_offset", "input1_multiplier", "input1_shift", "input2_offset", "input2_multiplier",
              "input2_shift", "left_shift", "output_offset", "output_multiplier", "output_shift", "act_min", "act_max")
    params = dict({k: c.p[k] for k in fields}, size=size)
    return Rewrite("usmp_cmsis_nn_elementwise_add_s8", "usmp_cmsis_nn_add_params", params, _binary_args(c),
                   ("arm_elementwise_add_s8",))


def rewrite_mul(c: Call) -> Rewrite | None:
    size = same_shape_size(c.p)
    if c.extension not in FAST or size is None:
        return None
    fields = ("input1_offset", "input2_offset", "output_offset", "output_multiplier", "output_shift",
              "act_min", "act_max")
    params = dict({k: c.p[k] for k in fields}, size=size)
    return Rewrite("usmp_cmsis_nn_elementwise_mul_s8", "usmp_cmsis_nn_mul_params", params, _binary_args(c),
                   ("arm_elementwise_mul_s8",))


# portable kernel -> (its parameter names in order, rewrite)
REWRITES: dict[str, tuple[tuple[str, ...], Callable[[Call], Rewrite | None]]] = {
    "usmp_conv_s8": (("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"), rewrite_conv),
    "usmp_depthwise_conv_s8": (("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"),
                               rewrite_depthwise_conv),
    "usmp_fully_connected_s8": (("input", "weights", "bias", "multiplier", "shift", "output"),
                                rewrite_fully_connected),
    "usmp_avg_pool_s8": (("input", "output"), rewrite_avg_pool),
    "usmp_max_pool_s8": (("input", "output"), rewrite_max_pool),
    "usmp_softmax_s8": (("input", "output"), rewrite_softmax),
    "usmp_add_s8": (("input1", "input2", "output"), rewrite_add),
    "usmp_mul_s8": (("input1", "input2", "output"), rewrite_mul),
}
