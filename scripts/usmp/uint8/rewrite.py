"""The rewrite: uint8 tensors retyped as int8, model inputs and outputs converted at the edges."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from usmp.ir.graph import Graph, Operator, Quantization, Tensor

# Operators whose uint8 arithmetic in LiteRT is their int8 arithmetic on (q - zero point), or which the
# lowerings compute LiteRT's uint8 way when options["uint8"] is set.
UINT8_OPERATORS = (
    "ADD", "ARG_MAX", "ARG_MIN", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEQUANTIZE",
    "EXPAND_DIMS", "FULLY_CONNECTED", "MAX_POOL_2D", "PAD", "PADV2", "QUANTIZE", "RESHAPE", "RESIZE_BILINEAR",
    "SOFTMAX", "SQUEEZE", "SUB",
)
SHIFT = 128  # uint8 q is int8 q - 128


def unsupported_uint8(op: Operator) -> str | None:
    """Why an operator of a uint8 model cannot run as LiteRT runs it (None: it can), as the rewrite noted."""
    return op.options.get("uint8_refused")


def _refusal(op: Operator, tensors: list[Tensor]) -> str | None:
    if op.opcode not in UINT8_OPERATORS:
        return (f"operator {op.index}: uint8 {op.opcode} is not supported (uint8 models may use "
                f"{', '.join(UINT8_OPERATORS)})")
    if op.opcode == "QUANTIZE":  # LiteRT quantizes float to uint8 and requantizes uint8 to uint8 or int8
        other = [tensors[i] for i in op.inputs + op.outputs if tensors[i].dtype not in ("uint8", "int8", "float32")]
        if other or tensors[op.outputs[0]].dtype == "float32":
            t = other[0] if other else tensors[op.outputs[0]]
            return (f"operator {op.index}: uint8 QUANTIZE to or from {t.dtype} is not supported "
                    f"(float32, uint8 or int8 to uint8, and uint8 to int8, as LiteRT)")
    return None


def _marked(op: Operator, tensors: list[Tensor]) -> Operator:
    reason = _refusal(op, tensors)
    return replace(op, options=dict(op.options, uint8=True, **({"uint8_refused": reason} if reason else {})))


def rewrite_uint8(graph: Graph) -> Graph:
    """graph with its uint8 tensors as int8 (zero points moved by 128); unchanged without uint8 tensors."""
    uint8 = {t.index for t in graph.tensors if t.dtype == "uint8" and t.quant is not None}  # plain bytes stay
    if not uint8:
        return graph
    tensors = [_as_int8(t) if t.index in uint8 else t for t in graph.tensors]
    operators = [_marked(op, graph.tensors) if set(op.inputs + op.outputs) & uint8 else op for op in graph.operators]
    inputs, outputs = list(graph.inputs), list(graph.outputs)
    first, last = [], []
    next_op = len(graph.operators)
    for position, index in enumerate(graph.inputs):  # the caller's uint8 array -> an int8 copy the model reads
        if index in uint8:
            tensors[index] = graph.tensors[index]
            inner = _edge_tensor(tensors, index, "int8")
            operators = [_renamed(op, index, inner.index) for op in operators]
            first.append(Operator(next_op, "QUANTIZE", [index], [inner.index]))
            next_op += 1
    for position, index in enumerate(graph.outputs):  # the model's int8 result -> the caller's uint8 array
        if index in uint8:
            inner = _edge_tensor(tensors, index, "int8")
            tensors[index] = graph.tensors[index]
            operators = [_renamed(op, index, inner.index) for op in operators]
            last.append(Operator(next_op, "QUANTIZE", [inner.index], [index]))
            next_op += 1
    return replace(graph, tensors=tensors, operators=first + operators + last, inputs=inputs, outputs=outputs)


def _as_int8(t: Tensor) -> Tensor:
    quant = Quantization(t.quant.scales, t.quant.zero_points - SHIFT, t.quant.axis)
    data = None if t.data is None else (t.data.astype(np.int16) - SHIFT).astype(np.int8)
    return replace(t, dtype="int8", quant=quant, data=data)


def _edge_tensor(tensors: list[Tensor], index: int, dtype: str) -> Tensor:
    """A new int8 twin of model input or output `index`, appended to tensors."""
    source = _as_int8(tensors[index]) if tensors[index].dtype == "uint8" else tensors[index]
    twin = replace(source, index=len(tensors), name=f"{tensors[index].name}_int8", dtype=dtype)
    tensors.append(twin)
    return twin


def _renamed(op: Operator, old: int, new: int) -> Operator:
    inputs = [new if i == old else i for i in op.inputs]
    outputs = [new if i == old else i for i in op.outputs]
    return replace(op, inputs=inputs, outputs=outputs) if (inputs, outputs) != (op.inputs, op.outputs) else op
