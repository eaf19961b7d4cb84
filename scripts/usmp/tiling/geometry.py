"""Which input rows a band of output rows reads, and the kernel params that run just that band.

A window kernel reads rows iy = oy * stride - pad_top + tap * dilation and skips
taps outside [0, in_h). Handing it a pointer to input row `a`, in_h = b - a and
pad_top' = pad_top + a - o0 * stride makes it compute output rows [o0, o1) from
rows [a, b) alone, skipping exactly the taps the whole-tensor call skips: the
arithmetic is unchanged, only the order of work.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rows:
    first: int
    end: int  # exclusive

    @property
    def count(self) -> int:
        return self.end - self.first


def rows_read(params: dict, out_rows: Rows) -> Rows:
    """The input rows that output rows `out_rows` read (clipped to the tensor)."""
    top = out_rows.first * params["stride_h"] - params["pad_top"]
    bottom = (out_rows.end - 1) * params["stride_h"] - params["pad_top"] + (params["filter_h"] - 1) * params.get(
        "dilation_h", 1) + 1
    return Rows(max(top, 0), min(bottom, params["in_h"]))


def band_params(params: dict, out_rows: Rows, in_rows: Rows) -> dict:
    """Params that compute `out_rows` from a buffer whose row 0 is input row `in_rows.first`."""
    return dict(params, in_h=in_rows.count, out_h=out_rows.count,
                pad_top=params["pad_top"] + in_rows.first - out_rows.first * params["stride_h"])


def row_elements(params: dict, side: str) -> int:
    """Elements in one row of the input ("in") or output ("out") of a batch-1 NHWC window op."""
    return params[f"{side}_w"] * channels(params, side)


def channels(params: dict, side: str) -> int:
    """Conv params name both sides' channels; depthwise ones a multiplier; pools one count for both."""
    if "channels" in params:
        return params["channels"]
    if side == "out" and "out_ch" not in params:
        return params["in_ch"] * params["depth_multiplier"]
    return params[f"{side}_ch"]
