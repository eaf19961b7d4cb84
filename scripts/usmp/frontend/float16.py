"""Float16 weights become float32 constants at compile time.

The converter's float16 option (target_spec.supported_types=[tf.float16])
stores weights as float16 and expands each with a DEQUANTIZE at run time.
Doing that expansion here removes the operator and its scratch-free copy: the
DEQUANTIZE's output is a float32 constant and no kernel ever sees float16.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from usmp.ir.graph import Graph


def fold_float16_weights(graph: Graph) -> Graph:
    """The graph with each DEQUANTIZE of a float16 constant replaced by its float32 result."""
    tensors = list(graph.tensors)
    kept, folded = [], []
    for op in graph.operators:
        if _foldable(graph, op):
            source, target = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            values = source.data.astype(np.float32).reshape(target.shape)  # exact: float32 holds every float16
            tensors[target.index] = replace(target, data=values)
            folded.append((op, "float16 weights expanded to float32"))
        else:
            kept.append(op)
    if len(kept) == len(graph.operators):
        return graph
    return replace(graph, tensors=tensors, operators=kept, folded=graph.folded + folded)


def _foldable(graph: Graph, op) -> bool:
    if op.opcode != "DEQUANTIZE" or len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] is None:
        return False
    source, target = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    # A model output stays an operator: the caller's output buffer is never a constant.
    return (source.dtype == "float16" and source.is_constant and target.dtype == "float32"
            and not target.is_constant and target.num_elements == source.num_elements
            and op.outputs[0] not in graph.outputs)
