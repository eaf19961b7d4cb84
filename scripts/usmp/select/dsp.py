"""USMP's own kernels for cores with the DSP extension (kernels/dsp/): which calls take them, and their constants.

The Cortex-M4, M7 and M33 run two MACs an instruction with SMLAD on int16
pairs. Every shape and constant is known here, so the constants are laid
out once, in the order the loops read them (usmp_kernels/dsp.h): filters
by output channel pairs and quads of taps, int8 or widened to doubled int16
("wide", faster, twice the filter's bytes), and per channel pair the bias,
multiplier and the rounding shift with the output offset folded in.

The handlers (FAMILY's table) offer the int8 calls the DSP kernels compute
exactly (every channel's shift negative, no sum that could overflow after
doubling), with their estimated instructions; settle then decides, for the
calls the selector gave the family, which get wide filters: all with
--optimize speed, none with size, and by default the ones that save the
most instructions per added byte while all their constants (filters and
per-channel numbers) stay within WIDE_BUDGET times what they are with the
plain int8 filters.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from usmp.lower.program import Program
from usmp.paths import KERNELS_DIR
from usmp.select.cmsis_nn import same_shape_size
from usmp.select.family import Call, Entry, NewBuffer, Offer, Rewrite, Site

DSP_SOURCES = (KERNELS_DIR / "dsp" / "conv.c", KERNELS_DIR / "dsp" / "depthwise.c")  # built only where called
DSP_HEADER = "usmp_kernels/dsp.h"

OPTIMIZE_CHOICES = ("balanced", "speed", "size")
WIDE_BUDGET = 1.25  # default: the DSP kernels' constants at most this many times those with int8 filters
INT32_LIMIT = 1 << 31
LAYERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")  # the operators the DSP kernels take
# Instructions per MAC of the matrix loop (measured on the Cortex-M4, benchmarks/dsp_kernels.py), which
# decide where wide filters pay best.
LOOP_COST = {False: 1.0, True: 0.75}
# Estimated instructions of a call with int8 filters (the offer's cost), measured on the Cortex-M4 with single
# layers (run_on_target's profile): the matrix kernel takes 1.13 a MAC over pixel pairs, plus 70 per filter row
# and pixel building the window's column; a lone pixel (a fully connected layer's batch of one) 1.68 a MAC and
# 55 per channel pair; the depthwise kernel as _depthwise_3_wide says.
MATRIX_CALL = 150
CONV_JOB_BYTES = 60  # kernels/dsp/conv.c: CONV_JOB_BYTES (what a call keeps at the start of its scratch)
MATRIX_PER_MAC = 1.13
DSP_WINDOW_ROW = 70.0
LONE_PAIR = 55.0
LONE_PER_MAC = 1.68
DEPTHWISE_CALL = 100
DEPTHWISE_ROW = 135.0
DEPTHWISE_OUTPUT = 20.0


@dataclass
class Candidate(Offer):
    """A call the DSP kernels can take (rewrite and cost: with int8 filters), and how to rewrite it with wide
    filters."""

    macs: int = 0
    filter_bytes: int = 0  # the int8 filter as laid out for the kernel; wide doubles it
    make: object = None  # callable(wide: bool) -> Rewrite
    widens: bool = True  # has a wide variant (the 16x8 kernels' filters are int16 either way)

    def constant_bytes(self, wide: bool) -> int:
        return sum(len(data) for _, data in self.constants(wide))

    def constants(self, wide: bool):
        return [(name, b.data) for name, b, _ in self.make(wide).args if isinstance(b, NewBuffer) and b.data]


def settle(taken: dict[Site, Candidate], program: Program, optimize: str) -> dict[Site, Rewrite]:
    """The calls the selector gave the DSP kernels, with int8 or wide filters. Those of depth-first loops are
    taken as their operators would be whole: the window kernels run bands."""
    narrow = {site: c for site, c in taken.items() if c.widens}
    fixed = sum(c.constant_bytes(False) for c in taken.values() if not c.widens)  # e.g. the in-place depthwise's
    wide = _widened(narrow, optimize, _loop_only_filter_bytes(program, taken) + fixed)
    return {site: c.make(site in wide) for site, c in taken.items()}


def _loop_only_filter_bytes(program: Program, taken: dict[Site, Candidate]) -> int:
    """The int8 filters of the layers a depth-first loop runs on a band kernel of its own (a fully connected
    layer ending a chain): whole, the DSP kernels would take them, so the wide-filter budget counts them."""
    chosen = {program.ops[site.position].op_index if site.link is None
              else program.ops[site.position].links[site.link].op_index for site in taken}
    by_index = {o.index: o for o in program.graph.operators}
    total = 0
    for op in program.ops:
        for link in getattr(op, "links", []):
            layer = by_index.get(link.op_index)
            if link.op_index in chosen or layer is None or layer.opcode not in LAYERS:
                continue
            weights, activations = program.graph.tensors[layer.inputs[1]], program.graph.tensors[layer.inputs[0]]
            int8 = weights.is_constant and weights.dtype == "int8" and activations.dtype == "int8"
            total += weights.nbytes if int8 else 0
    return total


def _widened(taken: dict[Site, Candidate], optimize: str, other_bytes: int = 0) -> set[Site]:
    """The calls whose filters are widened: all (speed), none (size), or within the budget, which is counted
    on the constants the DSP kernels would have with every operator whole (other_bytes: those a depth-first
    loop gives another kernel), so that tiling a chain does not change which filters are wide."""
    if optimize == "speed":
        return set(taken)
    if optimize == "size":
        return set()
    allowance = (WIDE_BUDGET - 1.0) * (sum(c.constant_bytes(False) for c in taken.values()) + other_bytes)
    chosen: set[Site] = set()
    gain = LOOP_COST[False] - LOOP_COST[True]
    for site, c in sorted(taken.items(), key=lambda item: -gain * item[1].macs / max(item[1].filter_bytes, 1)):
        if c.filter_bytes <= allowance:
            chosen.add(site)
            allowance -= c.filter_bytes
    return chosen


def _int32s(values) -> bytes:
    return np.ascontiguousarray(values, dtype=np.int32).tobytes()


def _channel_values(c: Call, name: str, channels: int) -> np.ndarray:
    values = np.frombuffer(c.program.buffers[c.buffers[name]].data, np.int32).astype(np.int64)
    return np.resize(values, channels) if len(values) == 1 else values[:channels]


def requant_fields(bias: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, output_offset: int,
                   bound: np.ndarray, doubled_bias: bool) -> np.ndarray | None:
    """[channels, 4]: where the sums start (the bias, doubled for a wide filter), the multiplier, the rounding
    2^(e-1) + output_offset * 2^e and the shift e per channel; None where the kernels' requantization is not
    exact: a shift >= 0, or a doubled sum (|sum| <= bound) or a rounding term that could overflow."""
    e = -shift
    if np.any(e < 1) or np.any(e > 30) or np.any(2 * bound >= INT32_LIMIT):
        return None
    round_ = (1 << (e - 1)) + output_offset * (1 << e)
    if np.any(np.abs(round_) + bound + 2 >= INT32_LIMIT):
        return None
    return np.stack([bias * (2 if doubled_bias else 1), multiplier, round_, e], axis=1)


def filter_layout(weights: np.ndarray, wide: bool) -> tuple[np.ndarray, int]:
    """[out_ch, depth] int8 -> the kernels' filter words [pair][quad][...] and the quads: channel pairs, quads
    of taps, each channel's quad as 4 int8 (one word) or (wide) as two words of doubled int16 in SXTB16's
    order (taps 0 and 2, then 1 and 3)."""
    out_ch, depth = weights.shape
    pairs, quads = -(-out_ch // 2), -(-depth // 4)
    padded = np.zeros((2 * pairs, 4 * quads), np.int16)
    padded[:out_ch, :depth] = weights
    blocks = padded.reshape(pairs, 2, quads, 4).transpose(0, 2, 1, 3)  # [pair][quad][channel][tap]
    if not wide:
        data = blocks.astype(np.int8)
    else:
        data = (2 * blocks[..., [0, 2, 1, 3]]).astype(np.int16)
    return np.frombuffer(data.tobytes(), np.uint32).reshape(pairs, -1), quads


def weights_stream(weights: np.ndarray, fields: np.ndarray, wide: bool) -> tuple[bytes, int]:
    """What usmp_dsp_conv_s8 reads, pair by pair: the two biases, the filter's quads, the two multipliers, two
    roundings and two shifts (a missing last channel: zeros, shift 1)."""
    words, quads = filter_layout(weights, wide)
    return pair_stream(words, fields), quads


def pair_stream(words: np.ndarray, fields: np.ndarray) -> bytes:
    """[pairs, filter words] and [channels, 4] fields -> the weights stream of the matrix kernels."""
    pairs = len(words)
    padded = np.zeros((2 * pairs, 4), np.int64)
    padded[:, 3] = 1
    padded[:len(fields)] = fields
    k = padded.reshape(pairs, 2, 4).transpose(0, 2, 1).reshape(pairs, 8).astype(np.int32)  # [field][channel]
    stream = np.concatenate([k[:, :2].view(np.uint32), words, k[:, 2:].view(np.uint32)], axis=1)
    return stream.astype(np.uint32).tobytes()


def _stage_bytes(g: dict, quads: int) -> int:
    """The scratch usmp_dsp_conv_s8 stages a window's rows in (after both columns): none for a 1x1 window over whole
    quads (widened straight from the input), one filter row where rows are whole quads (only a row the input's edge
    cuts is staged, padded), else the whole window and 12 bytes to spare (rows copied one after the other)."""
    row = g["filter_w"] * g["in_ch"]
    if (g["filter_h"], g["filter_w"]) == (1, 1) and g["in_ch"] % 4 == 0:
        return 0
    if g["dilation_w"] == 1 and row % 4 == 0:
        return row
    return 4 * quads + 12


def _matrix_candidate(c: Call, weights: np.ndarray, geometry: dict, input_offset: int,
                      bias: np.ndarray) -> Candidate | None:
    """A convolution (or fully connected layer) as the DSP matrix kernel, if its requantization is exact."""
    p = c.p
    out_ch, depth = weights.shape
    multiplier = _channel_values(c, "multiplier", out_ch)
    shift = _channel_values(c, "shift", out_ch)
    largest_input = max(abs(-128 + input_offset), abs(127 + input_offset))
    bound = np.abs(bias) + largest_input * np.abs(weights.astype(np.int64)).sum(axis=1)
    fields = {wide: requant_fields(bias, multiplier, shift, p["output_offset"], bound, wide) for wide in (False, True)}
    if fields[False] is None or fields[True] is None:
        return None
    quads = -(-depth // 4)
    params = dict(geometry, input_offset=input_offset, quads=quads, act_min=p["act_min"], act_max=p["act_max"])
    pixels = geometry["batches"] * geometry["out_h"] * geometry["out_w"]
    # One pixel of a 1x1 window over whole quads is read straight from the input (usmp_dsp_conv_s8's
    # lone_pixel): no columns (a fully connected layer's batch of one would otherwise widen its whole input).
    lone = pixels == 1 and (geometry["filter_h"], geometry["filter_w"]) == (1, 1) and geometry["in_ch"] % 4 == 0
    scratch = CONV_JOB_BYTES + (4 if lone else 16 * quads + _stage_bytes(geometry, quads))  # the job, columns, stage

    def make(wide: bool) -> Rewrite:
        data, _ = weights_stream(weights, fields[wide], wide)
        args = [("input", c.buffers["input"], False),
                ("weights", NewBuffer("dsp_weights", "uint32_t", len(data), data), False),
                ("scratch", NewBuffer("dsp_columns", "int16_t", scratch), True),
                ("output", c.buffers["output"], True)]
        function = "usmp_dsp_conv_wide_s8" if wide else "usmp_dsp_conv_s8"
        return Rewrite(function, "usmp_dsp_conv_params", params, args, ())

    macs = out_ch * depth * pixels
    pairs = -(-out_ch // 2)
    if lone:
        cost = MATRIX_CALL + pairs * (LONE_PAIR + 2 * LONE_PER_MAC * depth)
    else:
        window = DSP_WINDOW_ROW * geometry["filter_h"] * pixels if geometry["filter_h"] > 1 else 0
        cost = MATRIX_CALL + MATRIX_PER_MAC * macs + window
    return Candidate(make(False), cost, macs, pairs * 2 * quads * 4, make)


def _geometry(p: dict, in_ch: int, out_ch: int) -> dict:
    keys = ("batches", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w",
            "dilation_h", "dilation_w", "pad_top", "pad_left")
    return dict({k: p[k] for k in keys}, in_ch=in_ch, out_ch=out_ch)


def conv_candidate(c: Call) -> Candidate | str | None:
    p = c.p
    if p["filter_in_ch"] != p["in_ch"]:
        return "USMP's DSP kernels have no grouped convolution"
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    weights = weights[:p["out_ch"] * p["filter_h"] * p["filter_w"] * p["in_ch"]].reshape(p["out_ch"], -1)
    return _matrix_candidate(c, weights, _geometry(p, p["in_ch"], p["out_ch"]), p["input_offset"],
                             _channel_values(c, "bias", p["out_ch"]))


def depthwise_candidate(c: Call) -> Candidate | None:
    """One input channel: a convolution whose [out_ch, H, W, 1] filter is the lowering's channel-major one.
    Else, with multiplier 1, width 3 and no dilation: the DSP depthwise kernel."""
    p = c.p
    if p["in_ch"] != 1:
        return _depthwise_3_wide(c)
    out_ch = p["depth_multiplier"]
    return _matrix_candidate(c, single_channel_filter(c), _geometry(p, 1, out_ch), p["input_offset"],
                             _channel_values(c, "bias", out_ch))


def fully_connected_candidate(c: Call) -> Candidate | None:
    """Each batch row is one pixel of a 1 x batches image; the lowering's bias holds the input zero point's
    term, so the input is taken as it is (offset 0)."""
    p = c.p
    rows, depth = p["out_features"], p["in_features"]
    weights = np.frombuffer(c.program.buffers[c.buffers["weights"]].data, np.int8)[:rows * depth].reshape(rows, depth)
    return _matrix_candidate(c, weights, fully_connected_geometry(p), 0, _channel_values(c, "bias", rows))


def fully_connected_geometry(p: dict) -> dict:
    """A fully connected layer as the matrix kernel's 1x1 convolution over a 1 x batches image."""
    return dict(batches=1, in_h=1, in_w=p["batches"], in_ch=p["in_features"], out_h=1, out_w=p["batches"],
                out_ch=p["out_features"], filter_h=1, filter_w=1, stride_h=1, stride_w=1, dilation_h=1, dilation_w=1,
                pad_top=0, pad_left=0)


def _depthwise_3_wide(c: Call) -> Candidate | str | None:
    """usmp_dsp_depthwise_s8: per channel and filter row the tap pairs (w0, w1), (w1, w2), and per channel the
    bias, multiplier and rounding shift (struct usmp_dsp_channel_requant)."""
    p = c.p
    misfit = depthwise_misfit(p)
    if misfit:
        return misfit
    weights, params = depthwise_layout(c, p["input_offset"])
    channels, rows = weights.shape[:2]
    bias = _channel_values(c, "bias", channels)
    multiplier = _channel_values(c, "multiplier", channels)
    shift = _channel_values(c, "shift", channels)
    largest_input = max(abs(-128 + p["input_offset"]), abs(127 + p["input_offset"]))
    bound = np.abs(bias) + largest_input * np.abs(weights).reshape(channels, -1).sum(axis=1)
    blocks = {wide: channel_requant(bias, multiplier, shift, p["output_offset"], bound, wide) for wide in (False, True)}
    if blocks[False] is None or blocks[True] is None:
        return None
    taps = weights[..., [0, 1, 1, 2]]  # per row: the pairs (w0, w1) and (w1, w2)

    def make(wide: bool) -> Rewrite:
        data = (2 * taps).astype(np.int16).tobytes() if wide else taps.astype(np.int8).tobytes()
        args = [("input", c.buffers["input"], False),
                ("filter", NewBuffer("dsp_filter", "int16_t" if wide else "int8_t", len(data), data), False),
                ("requant", NewBuffer("dsp_requant", "struct usmp_dsp_channel_requant", len(blocks[wide]),
                                      blocks[wide]), False),
                ("rows", NewBuffer("dsp_rows", "int16_t", depthwise_rows_bytes(rows, params["row_pairs"])), True),
                ("output", c.buffers["output"], True)]
        function = "usmp_dsp_depthwise_wide_s8" if wide else "usmp_dsp_depthwise_s8"
        return Rewrite(function, "usmp_dsp_depthwise_params", params, args, ())

    macs, cost = depthwise_cost(p)
    widened = Candidate(make(False), cost, macs, channels * rows * 4, make)
    in_place = _depthwise_3x3(c, weights, params, blocks[True])
    return in_place if in_place is not None and in_place.cost < widened.cost else widened


DEPTHWISE_3X3_SOURCE = KERNELS_DIR / "dsp" / "depthwise_3x3.c"


def _depthwise_3x3(c: Call, weights: np.ndarray, params: dict, requant: bytes) -> Candidate | None:
    """usmp_dsp_depthwise_3x3_s8 (3x3, column stride 1, channels a multiple of four), which reads the input in
    place: per group of four channels and tap the doubled int16 pairs (w0, w2), (w1, w3); the requantization of
    the wide kernel (doubled sums). None where it does not fit."""
    channels, rows = weights.shape[:2]
    if rows != 3 or params["stride_w"] != 1 or channels % 4:
        return None
    taps = weights.reshape(channels // 4, 4, 9).transpose(0, 2, 1)[..., [0, 2, 1, 3]]  # [group][tap][lane]
    data = (2 * taps).astype(np.int16).tobytes()
    args = [("input", c.buffers["input"], False),
            ("filter", NewBuffer("dsp_filter", "int16_t", len(data), data), False),
            ("requant", NewBuffer("dsp_requant", "struct usmp_dsp_channel_requant", len(requant), requant), False),
            ("output", c.buffers["output"], True)]
    rewrite = Rewrite("usmp_dsp_depthwise_3x3_s8", "usmp_dsp_depthwise_params", params, args, (),
                      (DEPTHWISE_3X3_SOURCE,))
    macs, cost = depthwise_3x3_cost(params)
    return Candidate(rewrite, cost, macs, len(data), lambda wide=False: rewrite, widens=False)


DEPTHWISE_JOB_BYTES = 148  # kernels/dsp/depthwise_common.h: DW_JOB_BYTES


def depthwise_rows_bytes(filter_h: int, row_pairs: int) -> int:
    """The depthwise kernels' scratch: their job (the ring's state, which ring rows hold the filter's rows, the 3x3
    assembly's job), then the ring of filter_h rows of row_pairs pairs of pixels, four channels of int16 each."""
    return DEPTHWISE_JOB_BYTES + 16 * filter_h * row_pairs


def depthwise_misfit(p: dict) -> str | None:
    """Why the DSP depthwise kernel cannot take the layer, or None."""
    if p["depth_multiplier"] != 1 or p["filter_w"] != 3 or (p["dilation_h"], p["dilation_w"]) != (1, 1):
        return "USMP's DSP depthwise kernel takes multiplier 1, filter width 3 and no dilation"
    if p["stride_w"] not in (1, 2) or not 1 <= p["filter_h"] <= 16:
        return "USMP's DSP depthwise kernel takes column strides 1 and 2 and filters of 16 rows at most"
    return None


def depthwise_layout(c: Call, input_offset: int) -> tuple[np.ndarray, dict]:
    """The layer's filter [channels, rows, 3] (int64) and the kernel's usmp_dsp_depthwise_params."""
    p = c.p
    channels, rows = p["in_ch"], p["filter_h"]
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)[:channels * rows * 3]
    row_pairs = ((p["out_w"] - 1) * p["stride_w"] + 5) // 2
    params = dict({k: p[k] for k in ("batches", "in_h", "in_w")}, channels=channels,
                  **{k: p[k] for k in ("out_h", "out_w", "filter_h", "stride_h", "stride_w", "pad_top", "pad_left")},
                  input_offset=input_offset, act_min=p["act_min"], act_max=p["act_max"], row_pairs=row_pairs)
    return weights.reshape(channels, rows, 3).astype(np.int64), params


def depthwise_cost(p: dict) -> tuple[int, float]:
    """MACs and estimated instructions of the DSP depthwise kernel: per channel and output row it lays out its
    input rows (about 135 instructions), then each output takes about 20 a 3x3 window; at three output
    columns and fewer CMSIS-NN's int8 3x3 kernel (7 a MAC) is as fast."""
    channels, rows = p["in_ch"], p["filter_h"]
    macs = p["batches"] * p["out_h"] * p["out_w"] * channels * rows * 3
    return macs, DEPTHWISE_CALL + p["batches"] * p["out_h"] * channels * (
        DEPTHWISE_ROW + DEPTHWISE_OUTPUT * p["out_w"] * rows / 3)


# usmp_dsp_depthwise_3x3_s8 on the Cortex-M4: per output pixel and group of four channels (nine taps, four
# requantizations) about 135 instructions, a window cut by the input's edges about as many
DEPTHWISE_3X3_CALL = 60
DEPTHWISE_3X3_GROUP = 135.0


def depthwise_3x3_cost(p: dict) -> tuple[int, float]:
    """MACs and estimated instructions of usmp_dsp_depthwise_3x3_s8."""
    pixels = p["batches"] * p["out_h"] * p["out_w"]
    return pixels * p["channels"] * 9, DEPTHWISE_3X3_CALL + pixels * p["channels"] // 4 * DEPTHWISE_3X3_GROUP


def single_channel_filter(c: Call) -> np.ndarray:
    """A depthwise layer of one input channel's filter as a convolution's [out_ch, taps] (channel-major)."""
    p = c.p
    out_ch = p["depth_multiplier"]
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    return weights[:out_ch * p["filter_h"] * p["filter_w"]].reshape(out_ch, -1)


def channel_requant(bias: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, output_offset: int,
                    bound: np.ndarray, doubled_bias: bool) -> bytes | None:
    """struct usmp_dsp_channel_requant per channel, under the conditions of requant_fields."""
    fields = requant_fields(bias, multiplier, shift, output_offset, bound, doubled_bias)
    return None if fields is None else _int32s(fields)


ADD_SOURCE = KERNELS_DIR / "dsp" / "add.c"
# measured on the Cortex-M4 (4,096 elements): 18 an element with one input halved (TFLite's usual case: the
# larger input scale), 12 with both, about 6 more per input rescaled in full; 2 more to clamp a narrower activation
ADD_CALL = 150
ADD_PER_ELEMENT = 12.0
ADD_PER_RESCALED_INPUT = 6.0
ADD_CLAMP = 2.0
HALF = (1 << 30, 0)  # an exact halving's multiplier and shift: the larger of the two input scales


def add_candidate(c: Call) -> Candidate | str | None:
    """ADD of two int8 tensors of one shape as usmp_dsp_add_s8 (usmp_kernels/dsp.h), where its rescalings are
    exact: TFLite's left shift of 20, each input's shift negative or its rescaling a halving, the output's shift
    negative and its rounding with the offset within int32."""
    p = c.p
    size = same_shape_size(p)
    if size is None:
        return "USMP's DSP add takes two inputs of one shape"
    if p["left_shift"] != 20:
        return None
    fields, largest, halved = {}, 0, 0
    for n in (1, 2):
        offset, multiplier, shift = p[f"input{n}_offset"], p[f"input{n}_multiplier"], p[f"input{n}_shift"]
        if (multiplier, shift) == HALF:
            fields.update({f"offset{n}": offset << 20, f"multiplier{n}": multiplier, f"round{n}": 0, f"shift{n}": 0})
            largest += 255 << 19
            halved |= n
            continue
        if not -31 <= shift <= -1 or multiplier <= 0:
            return None
        fields.update({f"offset{n}": offset << 21, f"multiplier{n}": multiplier, f"round{n}": 1 << (-shift - 1),
                       f"shift{n}": -shift})
        largest += ((255 << 21) * multiplier >> 32) + 1 >> -shift
    e = -p["output_shift"]
    if not 1 <= e <= 31:
        return None
    round_ = (1 << (e - 1)) + p["output_offset"] * (1 << e)
    if abs(round_) + (2 * largest * p["output_multiplier"] >> 32) + 2 >= INT32_LIMIT:
        return None
    params = dict(size=size, halved=halved, **fields, multiplier=p["output_multiplier"], round=round_, shift=e,
                  act_min=p["act_min"], act_max=p["act_max"])
    args = [(name, c.buffers[name], name == "output") for name in ("input1", "input2", "output")]
    rewrite = Rewrite("usmp_dsp_add_s8", "usmp_dsp_add_params", params, args, (), (ADD_SOURCE,))
    per_element = (ADD_PER_ELEMENT + ADD_PER_RESCALED_INPUT * (2 - bin(halved).count("1"))
                   + (ADD_CLAMP if p["act_min"] > -128 or p["act_max"] < 127 else 0.0))
    return Candidate(rewrite, ADD_CALL + per_element * size, 0, 0, lambda wide=False: rewrite, widens=False)


# portable kernel -> (its parameter names in order, candidate finder)
CANDIDATES = {
    "usmp_conv_s8": Entry(("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"), conv_candidate),
    "usmp_depthwise_conv_s8": Entry(("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"),
                                    depthwise_candidate),
    "usmp_fully_connected_s8": Entry(("input", "weights", "bias", "multiplier", "shift", "output"),
                                     fully_connected_candidate),
    "usmp_add_s8": Entry(("input1", "input2", "output"), add_candidate),
}
