"""Multiply-accumulates of an operator: the work a kernel cannot avoid, to judge instructions against.

Counted for the operators whose cost is a sum of products (padding positions included, as the
kernels visit them): convolutions, fully connected layers, transposed convolutions and matrix
products. Every other operator counts 0: its cost is per element, not per product.
"""
from __future__ import annotations

from usmp.ir.graph import Graph, Operator


def operator_macs(graph: Graph, op: Operator) -> int:
    if not op.outputs or len(op.inputs) < 2 or op.inputs[1] is None:
        return 0
    out_elements = graph.tensors[op.outputs[0]].num_elements
    weights = graph.tensors[op.inputs[1]].shape
    if op.opcode in ("CONV_2D", "DEPTHWISE_CONV_2D") and len(weights) == 4:
        _, kh, kw, filter_depth = weights
        return out_elements * kh * kw * (filter_depth if op.opcode == "CONV_2D" else 1)
    if op.opcode == "FULLY_CONNECTED" and weights:
        return out_elements * weights[-1]
    if op.opcode == "TRANSPOSE_CONV" and len(weights) == 4 and len(op.inputs) > 2 and op.inputs[2] is not None:
        out_ch, kh, kw, _ = weights  # each input element meets every filter tap of every output channel
        return graph.tensors[op.inputs[2]].num_elements * kh * kw * out_ch
    if op.opcode == "BATCH_MATMUL":
        a = graph.tensors[op.inputs[0]].shape
        inner = a[-2] if op.options.get("adj_x") else a[-1]
        return out_elements * (inner if a else 1)
    return 0


def multiply_accumulates(graph: Graph) -> int:
    """MACs of the whole model."""
    return sum(operator_macs(graph, op) for op in graph.operators)
