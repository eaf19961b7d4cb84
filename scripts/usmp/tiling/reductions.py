"""A reduction over rows and columns at the end of a chain, taken band by band.

A global AVERAGE_POOL_2D, or a MEAN or SUM over height and width, needs every
row of its input at once as a window operator, so a chain ending in one would
keep that input whole. Summed band by band into per-channel accumulators (in
the row-major order the whole-tensor kernels add in, so every sum is the
same) and finished once after the last band, the input never exists whole.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.program import KernelCall, LoweredOp
from usmp.lower.ops.nd_copy import ND_DIMS

_AVERAGE = {"usmp_avg_pool_s8": "s8", "usmp_avg_pool_f32": "f32"}
_SUMS = {"usmp_quantized_sum_s8": "s8", "usmp_mean_f32": "f32", "usmp_sum_f32": "f32"}


@dataclass
class Tail:
    """The chain's last link when it reduces: what it reads, and where it accumulates."""

    call: KernelCall
    rows: int  # input rows (the producer's out_h)
    width: int
    channels: int

    @property
    def suffix(self) -> str:
        return _AVERAGE.get(self.call.function) or _SUMS[self.call.function]

    @property
    def needs_accumulator(self) -> bool:
        """Average pools get a scratch for their sums; quantized sums have theirs; float sums use the output."""
        return self.call.function in _AVERAGE

    def row_params(self) -> dict:
        """The link as the band schedule sees it: a 1x1 window that reads one row per row."""
        return dict(in_h=self.rows, out_h=self.rows, in_w=self.width, out_w=self.width, channels=self.channels,
                    filter_h=1, filter_w=1, stride_h=1, pad_top=0)

    def accumulator(self, args: dict[str, str], scratch: str | None) -> str:
        if self.call.function == "usmp_quantized_sum_s8":
            return args[self.call.args[1]]
        return scratch if self.needs_accumulator else args[self.call.args[-1]]

    def start(self, acc: str) -> KernelCall:
        return KernelCall("usmp_fill_bytes", "usmp_fill_bytes_params", dict(count=4 * self.channels, value=0), [acc])

    def band(self, source: str, acc: str) -> KernelCall:
        """Summing every row; the loop sets `count` for the rows of each band."""
        return KernelCall(f"usmp_band_sum_{self.suffix}", "usmp_band_sum_params",
                          dict(count=self.rows * self.width, channels=self.channels), [source, acc])

    def finish(self, acc: str, output: str) -> list[KernelCall]:
        p, fn = self.call.params, self.call.function
        if fn in _AVERAGE:
            count = self.rows * self.width
            return [KernelCall(f"usmp_band_avg_finish_{self.suffix}", f"usmp_band_avg_{self.suffix}_params",
                               dict(channels=self.channels, count=count if self.suffix == "s8" else float(count),
                                    act_min=p["act_min"], act_max=p["act_max"]), [acc, output])]
        if fn == "usmp_quantized_sum_s8":
            return [KernelCall("usmp_quantized_sum_finish_s8", self.call.params_type, p, [acc, output])]
        if fn == "usmp_mean_f32":
            return [KernelCall("usmp_band_divide_f32", "usmp_band_divide_f32_params",
                               dict(count=self.channels, divisor=p["divisor"]), [output, output])]
        return []  # float SUM: the sums are the output


def reduction_tail(op: LoweredOp, q: dict) -> Tail | None:
    """The operator as a chain's reducing last link, if it reduces all rows and columns of the output of a
    producer with row geometry `q`."""
    if len(op.calls) != 1:
        return None
    call = op.calls[0]
    p = call.params
    rows, width = q["out_h"], q["out_w"]
    channels = q.get("out_ch") or q.get("channels") or q["in_ch"] * q["depth_multiplier"]
    if call.function in _AVERAGE:
        whole = (p["batches"] == 1 and p["out_h"] == p["out_w"] == 1 and p["pad_top"] == p["pad_left"] == 0
                 and (p["in_h"], p["in_w"], p["filter_h"], p["filter_w"]) == (rows, width, rows, width))
        return Tail(call, rows, width, channels) if whole and p["channels"] == channels else None
    if call.function in _SUMS:
        # the walk collapsed [1, H, W, C] reduced over H and W into (H * W, C) with outputs stepping by channel
        wanted = ([1] * (ND_DIMS - 2) + [rows * width, channels], [0] * (ND_DIMS - 1) + [1])
        if (list(p["count"]), list(p["out_step"])) == wanted and p["num_outputs"] == channels:
            return Tail(call, rows, width, channels)
    return None
