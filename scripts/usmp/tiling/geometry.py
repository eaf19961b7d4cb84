"""Row sizes of the batch-1 NHWC tensors a depth-first chain reads and writes."""
from __future__ import annotations


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
