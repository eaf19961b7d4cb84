"""Sliding-window geometry shared by CONV_2D, DEPTHWISE_CONV_2D and the pools.

Output sizes and padding follow TFLite's ComputePaddingHeightWidth: SAME
gives ceil(in / stride) outputs and pads (total // 2) before; VALID pads
nothing. The kernels then skip taps outside the input.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.ir.graph import Operator, Tensor
from usmp.lower.context import LowerContext

PADDING_SAME, PADDING_VALID = 0, 1


@dataclass
class Window:
    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    out_ch: int
    filter_h: int
    filter_w: int
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    pad_top: int
    pad_left: int

    def params(self) -> dict:
        return dict(vars(self))


def out_size(padding: int, size: int, taps: int, stride: int, dilation: int) -> int:
    effective = (taps - 1) * dilation + 1
    if padding == PADDING_SAME:
        return (size + stride - 1) // stride
    return (size + stride - effective) // stride


def pad_before(size: int, out: int, taps: int, stride: int, dilation: int) -> int:
    effective = (taps - 1) * dilation + 1
    return max((out - 1) * stride + effective - size, 0) // 2


def sliding_window(ctx: LowerContext, op: Operator, inp: Tensor, out: Tensor, filter_h: int, filter_w: int,
                   dilated: bool = True) -> Window:
    """The geometry of `op`, checked against the output tensor's shape."""
    for tensor, what in ((inp, "input"), (out, "output")):
        if len(tensor.shape) != 4:
            raise ctx.fail(f"{what} tensor '{tensor.name}' must be 4-D (NHWC), not {list(tensor.shape)}")
    o = op.options
    padding = o.get("padding", PADDING_SAME)
    if padding not in (PADDING_SAME, PADDING_VALID):
        raise ctx.fail(f"padding {padding} is not supported (only SAME and VALID)")
    stride_h, stride_w = o.get("stride_h", 1), o.get("stride_w", 1)
    dilation_h = o.get("dilation_h_factor", 1) if dilated else 1
    dilation_w = o.get("dilation_w_factor", 1) if dilated else 1
    if min(stride_h, stride_w) < 1 or min(dilation_h, dilation_w) < 1:
        raise ctx.fail(f"strides ({stride_h}, {stride_w}) and dilations ({dilation_h}, {dilation_w}) must be >= 1")
    if min(filter_h, filter_w) < 1:
        raise ctx.fail(f"filter size {filter_h}x{filter_w} is empty")
    batches, in_h, in_w, in_ch = inp.shape
    out_h = out_size(padding, in_h, filter_h, stride_h, dilation_h)
    out_w = out_size(padding, in_w, filter_w, stride_w, dilation_w)
    if out_h < 1 or out_w < 1:
        raise ctx.fail(f"the {filter_h}x{filter_w} filter (dilation {dilation_h}x{dilation_w}) does not fit "
                       f"the {in_h}x{in_w} input with VALID padding")
    if (out.shape[0], out.shape[1], out.shape[2]) != (batches, out_h, out_w):
        raise ctx.fail(f"output shape {list(out.shape)} does not match the window: expected "
                       f"[{batches}, {out_h}, {out_w}, ...] from input {list(inp.shape)}")
    return Window(
        batches=batches, in_h=in_h, in_w=in_w, in_ch=in_ch, out_h=out_h, out_w=out_w, out_ch=out.shape[3],
        filter_h=filter_h, filter_w=filter_w, stride_h=stride_h, stride_w=stride_w,
        dilation_h=dilation_h, dilation_w=dilation_w,
        pad_top=pad_before(in_h, out_h, filter_h, stride_h, dilation_h),
        pad_left=pad_before(in_w, out_w, filter_w, stride_w, dilation_w),
    )
