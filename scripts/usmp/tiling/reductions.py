"""An operator that reads every row of its input, at the end of a chain, taken band by band.

A global AVERAGE_POOL_2D or MAX_POOL_2D, a MEAN, SUM or REDUCE_MAX over
height and width, and a FULLY_CONNECTED reading the flattened tensor need
every row of their input at once, so a chain ending before one keeps that
input whole. Taken band by band into accumulators (the sums in the order the
whole-tensor kernels add in, so every result is the same) and finished once
after the last band, the input never exists whole.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.ops.nd_copy import ND_DIMS
from usmp.lower.program import KernelCall, LoweredOp

_AVERAGE = {"usmp_avg_pool_s8": "s8", "usmp_avg_pool_f32": "f32"}
_SUMS = {"usmp_quantized_sum_s8": "s8", "usmp_mean_f32": "f32", "usmp_sum_f32": "f32"}
_MAX_POOL = {"usmp_max_pool_s8": "s8", "usmp_max_pool_f32": "f32"}
_REDUCE_MAX = {"usmp_reduce_max_s8": "s8", "usmp_reduce_max_f32": "f32"}
_FULLY_CONNECTED = {"usmp_fully_connected_s8": "s8", "usmp_fully_connected_f32": "f32"}
_LOWEST = {"s8": 0x80, "f32": 0xFF800000}  # int8 -128; float -infinity
_C_TYPE = {"s8": "int32_t", "f32": "float"}


@dataclass
class Tail:
    """The chain's last link when it reads every row: what it reads, where it accumulates, how it ends.

    `args` below are the link's call arguments renamed into the fused operator (names[arg])."""

    call: KernelCall
    rows: int  # input rows (the producer's out_h)
    width: int
    channels: int  # of the input rows
    suffix: str  # "s8" or "f32"

    def row_params(self) -> dict:
        """The link as the band loop sees it: a 1x1 window that reads one row per row."""
        return dict(in_h=self.rows, out_h=self.rows, in_w=self.width, out_w=self.width, channels=self.channels,
                    filter_h=1, filter_w=1, stride_h=1, pad_top=0)

    @property
    def scratch_bytes(self) -> int:
        """Accumulators of their own (0: they live in a buffer the call has)."""
        return 0

    @property
    def scratch_type(self) -> str:
        return _C_TYPE[self.suffix]

    def accumulator(self, names: dict[str, str], scratch: str | None) -> str:
        return scratch if scratch is not None else names[self.call.args[-1]]

    def row_pointers(self, names: dict[str, str]) -> dict[str, int]:
        """Constant arguments indexed by the band's first row: name -> elements per row."""
        return {}


class SumTail(Tail):
    """Global AVERAGE_POOL_2D, MEAN or SUM: per-channel sums."""

    @property
    def scratch_bytes(self) -> int:  # average pools get a scratch for their sums; quantized sums have theirs
        return 4 * self.channels if self.call.function in _AVERAGE else 0

    def accumulator(self, names: dict[str, str], scratch: str | None) -> str:
        if self.call.function == "usmp_quantized_sum_s8":
            return names[self.call.args[1]]
        return super().accumulator(names, scratch)

    def start(self, acc: str, names: dict[str, str]) -> list[KernelCall]:
        return [KernelCall("usmp_fill_bytes", "usmp_fill_bytes_params", dict(count=4 * self.channels, value=0),
                           [acc])]

    def band(self, source: str, acc: str, names: dict[str, str]) -> KernelCall:
        """Summing every row; the loop sets `count` for the rows of each band."""
        return KernelCall(f"usmp_band_sum_{self.suffix}", "usmp_band_sum_params",
                          dict(count=self.rows * self.width, channels=self.channels), [source, acc])

    def finish(self, acc: str, output: str, names: dict[str, str]) -> list[KernelCall]:
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


class MaxTail(Tail):
    """Global MAX_POOL_2D or REDUCE_MAX: per-channel maxima, kept in the output itself."""

    def start(self, acc: str, names: dict[str, str]) -> list[KernelCall]:
        bits = 8 if self.suffix == "s8" else 32
        return [KernelCall(f"usmp_fill_x{bits}", "usmp_fill_params",
                           dict(count=self.channels, pattern=_pattern(_LOWEST[self.suffix])), [acc])]

    def band(self, source: str, acc: str, names: dict[str, str]) -> KernelCall:
        return KernelCall(f"usmp_band_max_{self.suffix}", "usmp_band_sum_params",
                          dict(count=self.rows * self.width, channels=self.channels), [source, acc])

    def finish(self, acc: str, output: str, names: dict[str, str]) -> list[KernelCall]:
        if self.call.function not in _MAX_POOL:
            return []
        p = self.call.params
        return [KernelCall(f"usmp_band_clamp_{self.suffix}", f"usmp_band_clamp_{self.suffix}_params",
                           dict(count=self.channels, act_min=p["act_min"], act_max=p["act_max"]), [output, output])]


class FullyConnectedTail(Tail):
    """FULLY_CONNECTED of the flattened tensor: every output's sum, a band's rows at a time."""

    @property
    def outputs(self) -> int:
        return self.call.params["out_features"]

    @property
    def scratch_bytes(self) -> int:
        return 4 * self.outputs

    def row_pointers(self, names: dict[str, str]) -> dict[str, int]:
        return {names[self.call.args[1]]: self.width * self.channels}  # the weights, by input element

    def start(self, acc: str, names: dict[str, str]) -> list[KernelCall]:
        if self.suffix == "s8":  # the sums start from the bias, as the whole-tensor kernel's
            return [KernelCall("usmp_band_copy_words", "usmp_band_copy_params", dict(count=self.outputs),
                               [names[self.call.args[2]], acc])]
        return [KernelCall("usmp_fill_bytes", "usmp_fill_bytes_params", dict(count=4 * self.outputs, value=0),
                           [acc])]

    def band(self, source: str, acc: str, names: dict[str, str]) -> KernelCall:
        p = self.call.params
        return KernelCall(f"usmp_band_fully_connected_{self.suffix}", "usmp_band_fully_connected_params",
                          dict(count=p["in_features"], in_features=p["in_features"], out_features=self.outputs),
                          [source, names[self.call.args[1]], acc])

    def finish(self, acc: str, output: str, names: dict[str, str]) -> list[KernelCall]:
        p, args = self.call.params, self.call.args
        if self.suffix == "s8":
            return [KernelCall("usmp_band_requantize_s8", "usmp_band_requantize_s8_params",
                               dict(count=self.outputs, output_offset=p["output_offset"], act_min=p["act_min"],
                                    act_max=p["act_max"], per_channel=p["per_channel"]),
                               [acc, names[args[3]], names[args[4]], output])]
        return [KernelCall("usmp_band_bias_clamp_f32", "usmp_band_clamp_f32_params",
                           dict(count=self.outputs, act_min=p["act_min"], act_max=p["act_max"]),
                           [acc, names[args[2]], output])]


def _pattern(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def reduction_tail(op: LoweredOp, q: dict) -> Tail | None:
    """The operator as a chain's last link reading every row of the output of a producer with row geometry `q`,
    or None."""
    if len(op.calls) != 1:
        return None
    call = op.calls[0]
    p = call.params
    rows, width = q["out_h"], q["out_w"]
    channels = q.get("out_ch") or q.get("channels") or q["in_ch"] * q["depth_multiplier"]
    if call.function in _AVERAGE or call.function in _MAX_POOL:
        whole = (p["batches"] == 1 and p["out_h"] == p["out_w"] == 1 and p["pad_top"] == p["pad_left"] == 0
                 and (p["in_h"], p["in_w"], p["filter_h"], p["filter_w"]) == (rows, width, rows, width))
        if not whole or p["channels"] != channels:
            return None
        kind = SumTail if call.function in _AVERAGE else MaxTail
        return kind(call, rows, width, channels, _AVERAGE.get(call.function) or _MAX_POOL[call.function])
    if call.function in _SUMS or call.function in _REDUCE_MAX:
        # the walk collapsed [1, H, W, C] reduced over H and W into (H * W, C) with outputs stepping by channel
        wanted = ([1] * (ND_DIMS - 2) + [rows * width, channels], [0] * (ND_DIMS - 1) + [1])
        if (list(p["count"]), list(p["out_step"])) != wanted or p["num_outputs"] != channels:
            return None
        if call.function in _SUMS:
            return SumTail(call, rows, width, channels, _SUMS[call.function])
        return MaxTail(call, rows, width, channels, _REDUCE_MAX[call.function])
    if call.function in _FULLY_CONNECTED and p["batches"] == 1 and p["in_features"] == rows * width * channels:
        return FullyConnectedTail(call, rows, width, channels, _FULLY_CONNECTED[call.function])
    return None
