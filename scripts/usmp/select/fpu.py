"""USMP's float32 kernels for cores with an FPU (kernels/fpu/) or Helium's float lanes: which calls take them.

On the Cortex-M4F, M7 and M33 with FPU every float multiply-add is one VFMA
once the code is built for the FPU; the portable kernels then still spend
several instructions a MAC on loads and loop control. The FPU kernels keep
blocks of sums in the FPU's 32 registers and load their operands with
load-multiples (usmp_kernels/fpu.h). Convolutions without groups and fully
connected layers become a matrix product (the window copied into a column
unless the input pixel is its own), depthwise layers with depth multiplier 1
and a multiple of 4 channels a loop over groups of 8 channels. The constants
are laid out here (float_layout.py); the portable filter and bias are then
no longer planned. The Cortex-M55 runs the same calls on its MVE-F kernels
(kernels/helium/, the files ending _f32.c), which read the same constants.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from usmp.paths import KERNELS_DIR
from usmp.report.macs import operator_macs
from usmp.select.family import Call, Entry, Family, NewBuffer, Offer, Rewrite
from usmp.select.float_layout import conv_stream, depthwise_stream, floats

FPU_SOURCES = tuple(sorted((KERNELS_DIR / "fpu").glob("*.c")))  # built only for programs that call them
HELIUM_F32_SOURCES = tuple(sorted((KERNELS_DIR / "helium").glob("*_f32.c")))


@dataclass(frozen=True)
class FloatFamily:
    """The float kernels of one float unit (cpus.FLOAT_UNITS)."""

    prefix: str  # of its functions: <prefix>_conv_f32, <prefix>_depthwise_f32
    sources: tuple  # what a build that calls them compiles (Helium's fall back to the FPU's off the M55)
    columns: int  # windows the convolution copies at a time
    per_mac: float  # instructions a MAC, measured (float32 DS-CNN with the defaults: 1.58 on the M4, 0.70 on the M55)


UNITS = {
    "fpu": FloatFamily("usmp_fpu", FPU_SOURCES, 2, 1.6),
    "mve-f": FloatFamily("usmp_helium", tuple(sorted(HELIUM_F32_SOURCES + FPU_SOURCES)), 3, 0.7),
}

_GEOMETRY = ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h", "filter_w", "stride_h",
             "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left")


def conv_rewrite(c: Call, family: FloatFamily) -> Rewrite | str:
    """CONV_2D without groups as the matrix kernel (else why not, for the notice)."""
    p = c.p
    if p["filter_in_ch"] != p["in_ch"]:
        return f"a grouped convolution ({p['in_ch'] // p['filter_in_ch']} groups)"
    taps = p["filter_h"] * p["filter_w"] * p["in_ch"]
    weights = floats(c, "filter")[:p["out_ch"] * taps].reshape(p["out_ch"], taps)
    return _matrix(c, family, {k: p[k] for k in _GEOMETRY}, weights, floats(c, "bias")[:p["out_ch"]])


def fully_connected_rewrite(c: Call, family: FloatFamily) -> Rewrite:
    """Each batch row is one pixel of a 1 x batches image under a 1x1 filter."""
    p = c.p
    rows, depth = p["out_features"], p["in_features"]
    geometry = dict(batches=1, in_h=1, in_w=p["batches"], in_ch=depth, out_h=1, out_w=p["batches"], out_ch=rows,
                    filter_h=1, filter_w=1, stride_h=1, stride_w=1, dilation_h=1, dilation_w=1, pad_top=0, pad_left=0)
    weights = floats(c, "weights")[:rows * depth].reshape(rows, depth)
    return _matrix(c, family, geometry, weights, floats(c, "bias")[:rows])


def _matrix(c: Call, family: FloatFamily, geometry: dict, weights: np.ndarray, bias: np.ndarray) -> Rewrite:
    data, depth = conv_stream(weights, bias)
    g = geometry
    direct = ((g["filter_h"], g["filter_w"], g["stride_h"], g["stride_w"], g["pad_top"], g["pad_left"])
              == (1, 1, 1, 1, 0, 0) and g["in_ch"] == depth and (g["in_h"], g["in_w"]) == (g["out_h"], g["out_w"]))
    params = dict(geometry, depth=depth, direct=int(direct), act_min=c.p["act_min"], act_max=c.p["act_max"])
    args = [("input", c.buffers["input"], False),
            ("weights", NewBuffer("float_weights", "float", len(data), data), False),
            ("columns", NewBuffer("float_columns", "float", 0 if direct else 4 * family.columns * depth), True),
            ("output", c.buffers["output"], True)]
    return Rewrite(f"{family.prefix}_conv_f32", "usmp_fpu_conv_params", params, args, ())


def depthwise_rewrite(c: Call, family: FloatFamily) -> Rewrite | str:
    p = c.p
    if p["depth_multiplier"] != 1:
        return f"depth multiplier {p['depth_multiplier']} (the float kernels take 1)"
    if p["in_ch"] % 4:
        return f"{p['in_ch']} channels (the float kernels take a multiple of 4)"
    channels, taps = p["in_ch"], p["filter_h"] * p["filter_w"]
    data = depthwise_stream(floats(c, "filter")[:channels * taps].reshape(channels, taps),
                            floats(c, "bias")[:channels])
    keys = ("batches", "in_h", "in_w", "out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w",
            "dilation_h", "dilation_w", "pad_top", "pad_left")
    params = dict({k: p[k] for k in keys}, channels=channels, act_min=p["act_min"], act_max=p["act_max"])
    params = {k: params[k] for k in ("batches", "in_h", "in_w", "channels", "out_h", "out_w", "filter_h", "filter_w",
                                     "stride_h", "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left",
                                     "act_min", "act_max")}
    args = [("input", c.buffers["input"], False),
            ("weights", NewBuffer("float_weights", "float", len(data), data), False),
            ("output", c.buffers["output"], True)]
    return Rewrite(f"{family.prefix}_depthwise_f32", "usmp_fpu_depthwise_params", params, args, ())


# portable kernel -> (its parameter names in order, rewrite)
REWRITES = {
    "usmp_conv_f32": (("input", "filter", "bias", "output"), conv_rewrite),
    "usmp_depthwise_conv_f32": (("input", "filter", "bias", "output"), depthwise_rewrite),
    "usmp_fully_connected_f32": (("input", "weights", "bias", "output"), fully_connected_rewrite),
}


def _table(unit: str) -> dict:
    """The family table of one float unit: its rewrites, offered at the unit's measured cost a MAC."""
    kernels = UNITS[unit]

    def offering(rewrite):
        def handler(c: Call) -> Offer | str:
            chosen = rewrite(c, kernels)
            if isinstance(chosen, str):
                return chosen
            return Offer(chosen, 100 + kernels.per_mac * operator_macs(c.program.graph, c.graph_op()))
        return handler

    return {function: Entry(names, offering(rewrite)) for function, (names, rewrite) in REWRITES.items()}


FPU_FAMILY = Family(name="USMP FPU", key="usmp-float", kernels="usmp", float_units=("fpu",),
                    number_types=("float32",), table=_table("fpu"), sources=UNITS["fpu"].sources,
                    header="usmp_kernels/dsp.h")
HELIUM_F32_FAMILY = Family(name="USMP Helium float", key="usmp-float", kernels="usmp", float_units=("mve-f",),
                           number_types=("float32",), table=_table("mve-f"), sources=UNITS["mve-f"].sources,
                           header="usmp_kernels/dsp.h")
