"""Which members of a kernel's parameter struct describe the rows it computes, per struct type.

A kernel runs a band when its parameters say: these input rows are there
(in_h), compute these output rows (out_h), this much padding lies above the
first input row (pad_top) — or, for kernels that walk a flat run of elements
or pixels, how many there are. The generated loop sets exactly these members
in a copy of the whole-tensor parameters. A struct type missing here cannot
run a band, so a chain never gets a kernel that takes one.

Where every band member is a field of the struct or an element of one, the
compiler writes a const copy of the parameters for each set of band members
the loop's bands take (tiling/variants.py) and the loop hands the kernel the
one that matches: no copy in RAM. CMSIS-NN's nested structs keep the copy.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class BandField:
    member: str  # C member path inside the struct
    value: str  # a member of struct usmp_band: "count" (rows computed), "in_count" (rows read), "pad_top"
    per: str = "1"  # multiplied by: "1", "row" (elements of an output row) or "width" (output columns)


_WINDOW = (BandField("in_h", "in_count"), BandField("out_h", "count"), BandField("pad_top", "pad_top"))
_CMSIS_NN_WINDOW = (BandField("input.h", "in_count"), BandField("output.h", "count"))

BAND_FIELDS: dict[str, tuple[BandField, ...]] = {
    **{t: _WINDOW for t in ("usmp_conv_s8_params", "usmp_conv_s16_params", "usmp_conv_f32_params",
                            "usmp_depthwise_conv_s8_params", "usmp_depthwise_conv_s16_params",
                            "usmp_depthwise_conv_f32_params", "usmp_pool_s8_params", "usmp_pool_f32_params",
                            "usmp_pad_rows_params")},
    # element-wise walks, flattened to one dimension
    **{t: (BandField("shape[0]", "count", "row"),) for t in ("usmp_add_s8_params", "usmp_mul_s8_params",
                                                             "usmp_binary_f32_params")},
    **{t: (BandField("size", "count", "row"),)
       for t in ("usmp_relu6_s8_params", "usmp_relu_f32_params", "usmp_leaky_relu_s8_params",
                 "usmp_leaky_relu_f32_params", "usmp_lookup_s8_params", "usmp_unary_f32_params",
                 "usmp_requantize_s8_params", "usmp_relu_s16_params",
                 "usmp_cmsis_nn_add_params", "usmp_cmsis_nn_mul_params", "usmp_helium_add_params",
                 "usmp_dsp_add_params")},
    "usmp_band_sum_params": (BandField("count", "count", "width"),),
    "usmp_band_fully_connected_params": (BandField("count", "count", "row"),),
    "usmp_concat_rows_params": (BandField("pixels", "count", "width"),),
    # CMSIS-NN's structs (kernels/cmsis_nn/): dims and padding by name
    "usmp_cmsis_nn_conv_params": (*_CMSIS_NN_WINDOW, BandField("conv.padding.h", "pad_top")),
    "usmp_cmsis_nn_dw_conv_params": (*_CMSIS_NN_WINDOW, BandField("conv.padding.h", "pad_top")),
    "usmp_cmsis_nn_pool_params": (*_CMSIS_NN_WINDOW, BandField("pool.padding.h", "pad_top")),
    # USMP's Helium kernels (kernels/helium/)
    "usmp_helium_conv_params": _WINDOW,
    "usmp_helium_depthwise_params": _WINDOW,
    "usmp_helium_conv_s16_params": _WINDOW,
    "usmp_helium_depthwise_s16_params": _WINDOW,
    # USMP's DSP kernels (kernels/dsp/): rows outside [0, in_h) are padding, as for the portable window kernels
    "usmp_dsp_conv_params": _WINDOW,
    "usmp_dsp_depthwise_params": _WINDOW,
    # USMP's float kernels (kernels/fpu/, kernels/helium/*_f32.c): the same
    "usmp_fpu_conv_params": _WINDOW,
    "usmp_fpu_depthwise_params": _WINDOW,
    # USMP's scalar kernels (kernels/scalar/), likewise
    "usmp_scalar_conv_params": _WINDOW,
}


def band_fields(params_type: str | None) -> tuple[BandField, ...] | None:
    """The struct's band members, or None when a kernel taking it cannot run a band."""
    return BAND_FIELDS.get(params_type or "")


def runs_bands(params_type: str | None) -> bool:
    return params_type in BAND_FIELDS


def by_variant(params_type: str | None) -> bool:
    """Whether the loop runs the struct's kernel on const variants of its parameters rather than a copy in RAM:
    every band member a field or an element of one, which the compiler can set in the values it writes."""
    fields = band_fields(params_type)
    return bool(fields) and all(re.fullmatch(r"\w+(\[\d+\])?", f.member) for f in fields)
