"""What an operator is as a link of a depth-first chain: the rows it reads, the rows it writes.

Three kinds of operator can run a band of rows at a time on batch-1 NHWC
tensors, each through its ordinary kernel:

- window operators (CONV_2D, DEPTHWISE_CONV_2D, the pools): output row r reads
  a window of input rows; geometry.py hands the kernel a band.
- element-wise ADD, SUB, MUL of two equal shapes (the residual join), and
  one-input activations and math (RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH,
  HARD_SWISH, ...): row r reads row r of each input, so a band is a shorter
  flat loop (a lookup table or other constant rides along unchanged).
- PAD of height, width and channels: output row r is input row r - top or a
  row of the pad value; a band is a fill of its rows and a copy of the
  input rows inside them.
- a reduction over rows and columns, only as a chain's last link (reductions.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.program import KernelCall, LoweredOp, Program
from usmp.tiling.band_rows import Edge
from usmp.tiling.geometry import row_elements
from usmp.tiling.reductions import Tail, reduction_tail

# the portable kernels of every number type a chain takes (int8, int16x8, float32)
WINDOW_KERNELS = {f"usmp_{kind}_{t}" for kind in ("conv", "depthwise_conv", "avg_pool", "max_pool")
                  for t in ("s8", "s16", "f32")}
ELEMENTWISE_KERNELS = {f"usmp_{kind}_{t}" for kind in ("add", "sub", "mul") for t in ("s8", "s16", "f32")}
# One input, `size` elements, element i read before element i is written; other arguments are constants.
UNARY_KERNELS = {
    "usmp_relu6_s8", "usmp_relu_f32", "usmp_leaky_relu_s8", "usmp_leaky_relu_f32", "usmp_requantize_s8",
    "usmp_lookup_s8", "usmp_relu6_f32", "usmp_relu6_s16", "usmp_relu_s16", "usmp_leaky_relu_s16",
    *(f"usmp_{name}_f32" for name in ("logistic", "tanh", "abs", "neg", "ceil", "floor", "round", "sqrt", "rsqrt",
                                      "square", "exp", "log", "sin", "cos", "elu", "hard_swish")),
}
ELEMENT_BYTES = {"int8_t": 1, "int16_t": 2, "float": 4}


@dataclass
class Link:
    op: LoweredOp
    kind: str  # "window", "elementwise" or "reduction"
    inputs: list[str]  # the call's argument names read row by row
    params: dict  # row geometry as the band schedule reads it (in_h, out_h, stride_h, filter_h, pad_top, ...)
    tail: Tail | None = None

    @property
    def call(self) -> KernelCall:
        return self.op.calls[-1]  # PAD: the copy after the fill

    @property
    def output(self) -> str:
        return self.call.args[-1]

    def row(self, side: str) -> int:
        """Elements in one row of an input ("in") or of the output ("out")."""
        return row_elements(self.params, side)

    def row_in(self, k: int) -> int:
        """Elements in one row of row input k (a concatenation's inputs differ in channels)."""
        if self.kind == "concat":
            return self.params["in_w"] * self.params["input_channels"][k]
        return self.row("in")

    def edge(self, k: int, producer: int | None) -> Edge:
        """Row input k as the loop reads it (band_rows.Edge)."""
        p = self.params
        extent = (p["filter_h"] - 1) * p.get("dilation_h", 1) + 1
        return Edge(producer, p["stride_h"], p["pad_top"], extent, p["in_h"])

    def loop_calls(self, sources: list[str], target: str, names: dict[str, str]) -> list[KernelCall]:
        """The whole-tensor calls the loop runs a band at a time: row inputs from `sources`, the output to
        `target`, every other argument renamed by `names` (by position: an in-place call names its input and
        output alike, but in a chain they are different buffers)."""
        if self.kind == "pad":
            return [_pad_rows_call(self, sources[0], target)]
        if self.kind == "concat":
            return _concat_calls(self, sources, target)
        call = self.call
        middle = [names[a] for a in call.args[len(self.inputs):-1]]
        return [KernelCall(call.function, call.params_type, call.params, [*sources, *middle, target])]


def window_call(op: LoweredOp) -> KernelCall | None:
    if len(op.calls) != 1 or op.calls[0].function not in WINDOW_KERNELS:
        return None
    call = op.calls[0]
    return call if call.params.get("batches") == 1 else None


def link_of(program: Program, op: LoweredOp) -> Link | None:
    """The operator as a window, element-wise or pad link, or None."""
    if op.opcode in ("PAD", "PADV2"):
        return _pad_link(program, op)
    if op.opcode == "CONCATENATION":
        return _concat_link(program, op)
    if len(op.calls) != 1:
        return None
    call = op.calls[0]
    if _arg_type(op, program, call.args[-1]) not in ELEMENT_BYTES:
        return None
    if window_call(op):
        return Link(op, "window", [call.args[0]], call.params)
    shape = _nhwc(program, op, call.args[-1])
    if not shape or shape[0] != 1:
        return None
    _, h, w, c = shape
    rows = dict(in_h=h, out_h=h, in_w=w, out_w=w, channels=c, filter_h=1, filter_w=1, stride_h=1, pad_top=0)
    p = call.params
    if call.function in ELEMENTWISE_KERNELS:
        flat = p["rank"] == 1 and p["stride1"][0] == p["stride2"][0] == 1
        if flat and p["shape"][0] == h * w * c:
            return Link(op, "elementwise", call.args[:2], rows)
    if call.function in UNARY_KERNELS and p.get("size") == h * w * c and _nhwc(program, op, call.args[0]) == shape:
        if all(program.buffers[_buffer(op, a)].kind == "constant" for a in call.args[1:-1]):
            return Link(op, "elementwise", call.args[:1], rows)
    return None


def reduction_link(op: LoweredOp, producer: Link) -> Link | None:
    """The operator as a reducing last link after `producer`, or None."""
    if producer.kind == "reduction":
        return None
    tail = reduction_tail(op, producer.params)
    return Link(op, "reduction", [op.calls[0].args[0]], tail.row_params(), tail) if tail else None


def _arg_type(op: LoweredOp, program: Program, name: str) -> str:
    return program.buffers[_buffer(op, name)].c_type


def _buffer(op: LoweredOp, name: str) -> str:
    return next(a.buffer for a in op.args if a.name == name)


def _nhwc(program: Program, op: LoweredOp, name: str) -> tuple[int, ...] | None:
    buffer = program.buffers[_buffer(op, name)]
    if not buffer.tensors:
        return None
    shape = tuple(program.graph.tensors[buffer.tensors[-1]].shape)
    return shape if len(shape) == 4 else None


def _pad_link(program: Program, op: LoweredOp) -> Link | None:
    """PAD of a batch-1 NHWC tensor whose batch is not padded, lowered as a fill and a copy (or just a copy)."""
    functions = [c.function for c in op.calls]
    if functions not in (["usmp_fill_x8", "usmp_copy_nd_x8"], ["usmp_fill_x32", "usmp_copy_nd_x32"],
                         ["usmp_copy_nd_x8"], ["usmp_copy_nd_x32"]):
        return None
    copy = op.calls[-1]
    if _arg_type(op, program, copy.args[-1]) not in ELEMENT_BYTES:
        return None
    shape_in, shape_out = _nhwc(program, op, copy.args[0]), _nhwc(program, op, copy.args[-1])
    if not shape_in or not shape_out or shape_in[0] != 1 or shape_out[0] != 1:
        return None
    graph_op = next(o for o in program.graph.operators if o.index == op.op_index)
    pads = program.graph.tensors[graph_op.inputs[1]].data
    if pads is None:
        return None
    (b0, _), (top, _), (left, _), (front, _) = [(int(a), int(b)) for a, b in pads.reshape(4, 2)]
    if b0 or len(op.calls) == 2 and op.calls[0].args[-1] != copy.args[-1]:
        return None
    (_, h, w, c), (_, oh, ow, oc) = shape_in, shape_out
    params = dict(in_h=h, out_h=oh, in_w=w, out_w=ow, in_ch=c, out_ch=oc, filter_h=1, filter_w=1, stride_h=1,
                  pad_top=top, pad_left=left, pad_front=front,
                  pattern=op.calls[0].params["pattern"] if len(op.calls) == 2 else None)
    return Link(op, "pad", [copy.args[0]], params)


def _pad_rows_call(link: Link, source: str, target: str) -> KernelCall:
    """The PAD as one row-wise kernel (usmp_pad_rows): a band fills its rows and copies the input rows inside."""
    p, bits = link.params, 8 if link.call.function.endswith("x8") else 32
    pattern = p["pattern"] if p["pattern"] is not None else 0
    params = dict(in_h=p["in_h"], out_h=p["out_h"], pad_top=p["pad_top"], in_w=p["in_w"], in_ch=p["in_ch"],
                  out_w=p["out_w"], out_ch=p["out_ch"], pad_left=p["pad_left"], pad_front=p["pad_front"],
                  pattern=pattern)
    return KernelCall(f"usmp_pad_rows_x{bits}", "usmp_pad_rows_params", params, [source, target])


def _concat_link(program: Program, op: LoweredOp) -> Link | None:
    """CONCATENATION of batch-1 NHWC tensors along channels: output row r is input row r of each, side by side."""
    if not op.calls or any(c.function not in ("usmp_copy_nd_x8", "usmp_copy_nd_x32") for c in op.calls):
        return None
    output = op.calls[0].args[-1]
    if _arg_type(op, program, output) not in ELEMENT_BYTES or any(c.args[-1] != output for c in op.calls):
        return None
    shape_out = _nhwc(program, op, output)
    shapes = [_nhwc(program, op, c.args[0]) for c in op.calls]
    if not shape_out or shape_out[0] != 1 or any(not s or s[:3] != shape_out[:3] for s in shapes):
        return None
    if sum(s[3] for s in shapes) != shape_out[3] or len({c.args[0] for c in op.calls}) != len(op.calls):
        return None  # along another axis, or one tensor concatenated with itself
    _, h, w, c = shape_out
    params = dict(in_h=h, out_h=h, in_w=w, out_w=w, channels=c, filter_h=1, filter_w=1, stride_h=1, pad_top=0,
                  input_channels=[s[3] for s in shapes])
    return Link(op, "concat", [call.args[0] for call in op.calls], params)


def _concat_calls(link: Link, sources: list[str], target: str) -> list[KernelCall]:
    """One row copy per input into its channels of the output; the loop sets the pixels of each band."""
    p, bits = link.params, 8 if link.call.function.endswith("x8") else 32
    calls, offset = [], 0
    for source, channels in zip(sources, p["input_channels"]):
        calls.append(KernelCall(f"usmp_concat_rows_x{bits}", "usmp_concat_rows_params",
                                dict(pixels=p["in_h"] * p["in_w"], channels=channels, offset=offset,
                                     out_channels=p["channels"]), [source, target]))
        offset += channels
    return calls
