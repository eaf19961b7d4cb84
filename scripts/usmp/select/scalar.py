"""USMP's own kernels for cores without SIMD (kernels/scalar/): which calls take them, and their constants.

A Cortex-M0/M0+ (Armv6-M), a Cortex-M3 (Armv7-M without DSP) and an RV32IM
core each get the form of the kernels their registers and instructions
suit (usmp_kernels/scalar.h): 4 pixels by 4 channels in registers on RV32,
two pixels packed in the lanes of SMLAL's 64-bit sums on the M3, one pixel
by eight channels of unsigned weights on the M0. Every shape and constant
is known here, so each layer's weights are laid out once in the order the
form's loops read them: per block of output channels the biases (the input
zero point folded in: padding reads the zero point), the taps [tap][channel]
and per channel the multiplier, rounding and shift of the requantization.

A call takes them where the requantization is exact without 64-bit
arithmetic (every shift negative, no sum that could overflow when doubled;
select/dsp.py's requant_fields) and, on the M3, where every channel's taps
fit the packed lanes in some chunk length.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from usmp.paths import KERNELS_DIR
from usmp.report.macs import operator_macs
from usmp.select.dsp import requant_fields
from usmp.select.family import Call, Entry, Family, NewBuffer, Offer, Rewrite
from usmp.tiling.cost import KERNELS as KERNEL_COSTS

SCALAR_SOURCES = tuple(sorted((KERNELS_DIR / "scalar").glob("*.c")))  # built only for programs that call them
SCALAR_HEADER = "usmp_kernels/scalar.h"
INT32_LIMIT = 1 << 31
V7M_LANE = 23  # armv7m: the second pixel's lane starts at bit 23 of the packed tap
V7M_LANE_LIMIT = 1 << (V7M_LANE - 1)  # the first pixel's lane holds sums in [-2^22, 2^22)


@dataclass(frozen=True)
class Form:
    """One form of the kernels: its function, the output channels of a weights block, how the block stores its
    taps, the pixels it takes together, its job's bytes and whether it packs their taps (4 bytes a tap of the
    group)."""

    name: str
    channels: int
    unsigned_taps: bool  # armv6m: w + 128 as uint8
    pixels: int
    job_bytes: int  # what the kernel keeps during a call (its cursor, sums: kernels/scalar/scalar_ops.h), with 4-byte pointers
    packs: bool = False

    @property
    def function(self) -> str:
        return f"usmp_scalar_conv_{self.name}_s8"

    def scratch_bytes(self, g: dict, depth: int) -> int:
        """usmp_kernels/scalar.h: the job, the packed taps, then the padded input rows."""
        return self.job_bytes + (4 * depth if self.packs else 0) + max(padded_rows_bytes(g), 1)


def padded_rows_bytes(g: dict) -> int:
    """An output row's filter_h input rows padded to the columns its windows span (kernels/scalar/rows.c), where
    the windows reach into the padding; else 0."""
    span = (g["out_w"] - 1) * g["stride_w"] + (g["filter_w"] - 1) * g["dilation_w"] + 1
    below = (g["out_h"] - 1) * g["stride_h"] + (g["filter_h"] - 1) * g["dilation_h"] + 1 - g["pad_top"] > g["in_h"]
    padded = g["pad_left"] > 0 or span - g["pad_left"] > g["in_w"] or g["pad_top"] > 0 or below
    return g["filter_h"] * span * g["in_ch"] if padded else 0


# job bytes: conv_s8.c's RV32_JOB_BYTES, V7M_JOB_BYTES, V6M_JOB_BYTES
FORMS = {"rv32": Form("rv32", 4, False, 4, 180), "armv7m": Form("armv7m", 4, False, 2, 120, packs=True),
         "armv6m": Form("armv6m", 8, True, 1, 88)}
DEPTHWISE_JOB_BYTES = 48  # depthwise_s8.c's DW_JOB_BYTES
# --cpu -> the form of the kernels its core runs
CORE_FORMS = {"cortex-m0": "armv6m", "cortex-m0plus": "armv6m", "cortex-m3": "armv7m", "riscv32": "rv32"}


def _channel_values(c: Call, name: str, channels: int) -> np.ndarray:
    values = np.frombuffer(c.program.buffers[c.buffers[name]].data, np.int32).astype(np.int64)
    return np.resize(values, channels) if len(values) == 1 else values[:channels]


def armv7m_chunk(weights: np.ndarray) -> int | None:
    """The longest run of taps after which the packed lanes are split, such that no channel's low lane can
    leave [-2^22, 2^22) within a run: 128 times the sum of the run's |w| stays below 2^22. None: no depth."""
    magnitude = np.abs(weights.astype(np.int64))
    depth = magnitude.shape[1]
    if depth == 0:
        return None
    always = max(1, (V7M_LANE_LIMIT - 1) // (128 * max(1, int(magnitude.max()))))
    for chunk in range(depth, always, -1):
        if 128 * int(np.add.reduceat(magnitude, np.arange(0, depth, chunk), axis=1).max()) < V7M_LANE_LIMIT:
            return chunk
    return min(always, depth)


def weights_stream(form: Form, weights: np.ndarray, bias: np.ndarray, fields: np.ndarray) -> bytes:
    """[out_ch, depth] int8, folded biases and [out_ch, 4] requantization fields (select/dsp.py's) -> what the
    form's kernel reads, block by block: biases, taps [tap][channel] (whole words), per channel multiplier,
    rounding and shift. A block's missing channels are zeros (shift 1)."""
    out_ch, depth = weights.shape
    n = form.channels
    blocks = -(-out_ch // n)
    taps = np.zeros((blocks * n, depth), np.int64)
    taps[:out_ch] = weights
    taps = taps + 128 if form.unsigned_taps else taps
    padded_bias = np.zeros(blocks * n, np.int64)
    padded_bias[:out_ch] = bias
    requant = np.zeros((blocks * n, 3), np.int64)
    requant[:, 2] = 1
    requant[:out_ch] = fields[:, 1:]
    tap_bytes = -(-n * depth // 4) * 4
    out = bytearray()
    for b in range(blocks):
        rows = slice(b * n, (b + 1) * n)
        block_taps = taps[rows].T.astype(np.uint8 if form.unsigned_taps else np.int8).tobytes()
        out += padded_bias[rows].astype(np.int32).tobytes()
        out += block_taps + bytes(tap_bytes - len(block_taps))
        out += requant[rows].astype(np.int32).tobytes()
    return bytes(out)


def _matrix(c: Call, form: Form, weights: np.ndarray, geometry: dict, folded: np.ndarray,
            zero_point: int, input_offset: int) -> Rewrite | None:
    """A convolution (or fully connected layer) as the form's matrix kernel, if its requantization is exact
    and its sums stay within int32 (and, on Armv7-M, its taps fit the packed lanes)."""
    p = c.p
    out_ch, depth = weights.shape
    if depth == 0:
        return None
    fields = _exact_requant(c, weights, folded, input_offset, form.unsigned_taps)
    if fields is None:
        return None
    chunk = armv7m_chunk(weights) if form.name == "armv7m" else depth
    data = weights_stream(form, weights, folded, fields)
    params = dict(geometry, zero_point=zero_point, depth=depth, chunk=chunk, depth_multiplier=1,
                  act_min=p["act_min"], act_max=p["act_max"])
    args = [("input", c.buffers["input"], False),
            ("weights", NewBuffer("scalar_weights", "uint32_t", len(data), data), False),
            ("scratch", NewBuffer("scalar_rows", "int8_t", form.scratch_bytes(geometry, depth)), True),
            ("output", c.buffers["output"], True)]
    return Rewrite(form.function, "usmp_scalar_conv_params", params, args, ())


def _exact_requant(c: Call, weights: np.ndarray, folded: np.ndarray, input_offset: int,
                   unsigned_taps: bool) -> np.ndarray | None:
    """select/dsp.py's requant_fields with the folded biases, where the requantization is exact without 64-bit
    arithmetic and no sum leaves int32: TFLite's, and every partial one from the folded bias on (raw taps;
    armv6m: minus 128 times the window's taps, plus unsigned weights)."""
    out_ch, depth = weights.shape
    w = np.abs(weights.astype(np.int64)).sum(axis=1)
    largest_input = max(abs(-128 + input_offset), abs(127 + input_offset))
    folded = folded.astype(np.int64)
    partial = np.abs(folded) + (128 * 383 * depth if unsigned_taps else 128 * w)
    bound = np.maximum(np.abs(_channel_values(c, "bias", out_ch)) + largest_input * w, partial)
    return requant_fields(folded, _channel_values(c, "multiplier", out_ch), _channel_values(c, "shift", out_ch),
                          c.p["output_offset"], bound, False)


def _geometry(p: dict, in_ch: int, out_ch: int) -> dict:
    keys = ("batches", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w",
            "dilation_h", "dilation_w", "pad_top", "pad_left")
    return dict({k: p[k] for k in keys}, in_ch=in_ch, out_ch=out_ch)


def _ordered(geometry: dict) -> dict:
    """The struct's members in its order (usmp_kernels/scalar.h)."""
    order = ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h", "filter_w", "stride_h",
             "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left")
    return {k: geometry[k] for k in order}


def conv_candidate(c: Call, form: Form) -> Rewrite | None:
    p = c.p
    if p["filter_in_ch"] != p["in_ch"] or p["dilation_w"] != 1:  # groups; a row of taps not one run
        return None
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    weights = weights[:p["out_ch"] * p["filter_h"] * p["filter_w"] * p["in_ch"]].reshape(p["out_ch"], -1)
    return _matrix(c, form, weights, _ordered(_geometry(p, p["in_ch"], p["out_ch"])),
                   _channel_values(c, "folded_bias", p["out_ch"]), -p["input_offset"], p["input_offset"])


def depthwise_candidate(c: Call, form: Form) -> Rewrite | None:
    """One input channel: a convolution whose [out_ch, H, W, 1] filter is the lowering's channel-major one.
    Else the depthwise kernel."""
    p = c.p
    if p["in_ch"] != 1:
        return _depthwise(c, form)
    if p["dilation_w"] != 1:
        return None
    out_ch = p["depth_multiplier"]
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)
    weights = weights[:out_ch * p["filter_h"] * p["filter_w"]].reshape(out_ch, -1)
    return _matrix(c, form, weights, _ordered(_geometry(p, 1, out_ch)),
                   _channel_values(c, "folded_bias", out_ch), -p["input_offset"], p["input_offset"])


def _depthwise(c: Call, form: Form) -> Rewrite | None:
    """usmp_scalar_depthwise_s8: per output channel its folded bias, multiplier, rounding and shift, then its
    taps (the lowering's channel-major filter), where the requantization is exact."""
    p = c.p
    out_ch, taps = p["in_ch"] * p["depth_multiplier"], p["filter_h"] * p["filter_w"]
    weights = np.frombuffer(c.program.buffers[c.buffers["filter"]].data, np.int8)[:out_ch * taps].reshape(out_ch, taps)
    fields = _exact_requant(c, weights, _channel_values(c, "folded_bias", out_ch), p["input_offset"], False)
    if fields is None:
        return None
    padded = np.zeros((out_ch, -(-taps // 4) * 4), np.int8)
    padded[:, :taps] = weights
    data = b"".join(fields[o].astype(np.int32).tobytes() + padded[o].tobytes() for o in range(out_ch))
    geometry = _ordered(_geometry(p, p["in_ch"], out_ch))
    params = dict(geometry, zero_point=-p["input_offset"], depth=taps, chunk=taps,
                  depth_multiplier=p["depth_multiplier"], act_min=p["act_min"], act_max=p["act_max"])
    args = [("input", c.buffers["input"], False),
            ("weights", NewBuffer("scalar_weights", "uint32_t", len(data), data), False),
            ("scratch", NewBuffer("scalar_rows", "int8_t", DEPTHWISE_JOB_BYTES + padded_rows_bytes(geometry)), True),
            ("output", c.buffers["output"], True)]
    return Rewrite("usmp_scalar_depthwise_s8", "usmp_scalar_conv_params", params, args, ())


def fully_connected_candidate(c: Call, form: Form) -> Rewrite | None:
    """Each batch row is one pixel of a 1 x batches image; the lowering's bias holds the input zero point's
    term, so the input is taken as it is (offset 0)."""
    p = c.p
    rows, depth = p["out_features"], p["in_features"]
    weights = np.frombuffer(c.program.buffers[c.buffers["weights"]].data, np.int8)[:rows * depth].reshape(rows, depth)
    geometry = dict(batches=1, in_h=1, in_w=p["batches"], in_ch=depth, out_h=1, out_w=p["batches"], out_ch=rows,
                    filter_h=1, filter_w=1, stride_h=1, stride_w=1, dilation_h=1, dilation_w=1, pad_top=0,
                    pad_left=0)
    return _matrix(c, form, weights, geometry, _channel_values(c, "bias", rows), 0, 0)


# portable kernel -> (its parameter names in order, rewrite in a form)
REWRITES = {
    "usmp_conv_s8": (("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"), conv_candidate),
    "usmp_depthwise_conv_s8": (("input", "filter", "bias", "folded_bias", "multiplier", "shift", "output"),
                               depthwise_candidate),
    "usmp_fully_connected_s8": (("input", "weights", "bias", "multiplier", "shift", "output"),
                                fully_connected_candidate),
}


def _table(form: Form) -> dict:
    """The family table of one form: its rewrites, offered at their kernel's measured cost (tiling/cost.py),
    well under the portable kernels' on every such core."""
    def offering(rewrite):
        def handler(c: Call) -> Offer | None:
            chosen = rewrite(c, form)
            if chosen is None:
                return None
            cost = KERNEL_COSTS[(chosen.function, None)]
            return Offer(chosen, cost.call + cost.per_mac * operator_macs(c.program.graph, c.graph_op()))
        return handler

    return {function: Entry(names, offering(rewrite)) for function, (names, rewrite) in REWRITES.items()}


def _family(form: str) -> Family:
    cpus = tuple(cpu for cpu, name in CORE_FORMS.items() if name == form)
    return Family(name=f"USMP scalar {form}", key="usmp-scalar", kernels="usmp", cpus=cpus, number_types=("int8",),
                  table=_table(FORMS[form]), sources=SCALAR_SOURCES, header=SCALAR_HEADER)


# One family per form, each on the cores of its form (kernels/scalar/ holds them all).
FAMILIES = tuple(_family(form) for form in FORMS)
