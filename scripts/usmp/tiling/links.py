"""What an operator is as a link of a depth-first chain: the rows it reads, the rows it writes.

Three kinds of operator can run a band of rows at a time on batch-1 NHWC
tensors, each through its ordinary kernel:

- window operators (CONV_2D, DEPTHWISE_CONV_2D, the pools): output row r reads
  a window of input rows; geometry.py hands the kernel a band.
- element-wise ADD, SUB, MUL of two equal shapes (the residual join): row r
  reads row r of both inputs, so a band is a shorter flat loop.
- a reduction over rows and columns, only as a chain's last link (reductions.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.program import KernelCall, LoweredOp, Program
from usmp.tiling.geometry import Rows, band_params, row_elements
from usmp.tiling.reductions import Tail, reduction_tail

WINDOW_KERNELS = {
    "usmp_conv_s8", "usmp_conv_f32", "usmp_depthwise_conv_s8", "usmp_depthwise_conv_f32",
    "usmp_avg_pool_s8", "usmp_avg_pool_f32", "usmp_max_pool_s8", "usmp_max_pool_f32",
}
ELEMENTWISE_KERNELS = {"usmp_add_s8", "usmp_add_f32", "usmp_sub_s8", "usmp_sub_f32", "usmp_mul_s8", "usmp_mul_f32"}
ELEMENT_BYTES = {"int8_t": 1, "float": 4}


@dataclass
class Link:
    op: LoweredOp
    kind: str  # "window", "elementwise" or "reduction"
    inputs: list[str]  # the call's argument names read row by row
    params: dict  # row geometry as the band schedule reads it (in_h, out_h, stride_h, filter_h, pad_top, ...)
    tail: Tail | None = None

    @property
    def call(self) -> KernelCall:
        return self.op.calls[0]

    @property
    def output(self) -> str:
        return self.call.args[-1]

    def row(self, side: str) -> int:
        """Elements in one row of an input ("in") or of the output ("out")."""
        return row_elements(self.params, side)

    def band_call(self, sources: list[str], names: dict[str, str], target: str, out: Rows,
                  rows_in: Rows) -> KernelCall:
        """The kernel call for one band; `names` renames the call's other arguments (weights, scratch)."""
        call = self.call
        if self.kind == "window":
            middle = [names[a] for a in call.args[1:-1]]
            return KernelCall(call.function, call.params_type, band_params(call.params, out, rows_in),
                              [sources[0], *middle, target])
        shape = list(call.params["shape"])
        shape[0] = out.count * self.row("out")
        return KernelCall(call.function, call.params_type, dict(call.params, shape=shape), [*sources, target])


def window_call(op: LoweredOp) -> KernelCall | None:
    if len(op.calls) != 1 or op.calls[0].function not in WINDOW_KERNELS:
        return None
    call = op.calls[0]
    return call if call.params.get("batches") == 1 else None


def link_of(program: Program, op: LoweredOp) -> Link | None:
    """The operator as a window or element-wise link, or None."""
    if len(op.calls) != 1:
        return None
    call = op.calls[0]
    if _arg_type(op, program, call.args[-1]) not in ELEMENT_BYTES:
        return None
    if window_call(op):
        return Link(op, "window", [call.args[0]], call.params)
    if call.function in ELEMENTWISE_KERNELS:
        p = call.params
        shape = _nhwc(program, op, call.args[-1])
        flat = p["rank"] == 1 and p["stride1"][0] == p["stride2"][0] == 1
        if flat and shape and shape[0] == 1 and p["shape"][0] == shape[1] * shape[2] * shape[3]:
            _, h, w, c = shape
            return Link(op, "elementwise", call.args[:2], dict(in_h=h, out_h=h, in_w=w, out_w=w, channels=c,
                                                               filter_h=1, filter_w=1, stride_h=1, pad_top=0))
    return None


def reduction_link(op: LoweredOp, producer: Link) -> Link | None:
    """The operator as a reducing last link after `producer`, or None."""
    if producer.kind == "reduction":
        return None
    tail = reduction_tail(op, producer.params)
    return Link(op, "reduction", [op.calls[0].args[0]], tail.row_params(), tail) if tail else None


def _arg_type(op: LoweredOp, program: Program, name: str) -> str:
    return program.buffers[next(a.buffer for a in op.args if a.name == name)].c_type


def _nhwc(program: Program, op: LoweredOp, name: str) -> tuple[int, ...] | None:
    buffer = program.buffers[next(a.buffer for a in op.args if a.name == name)]
    if not buffer.tensors:
        return None
    shape = tuple(program.graph.tensors[buffer.tensors[-1]].shape)
    return shape if len(shape) == 4 else None
