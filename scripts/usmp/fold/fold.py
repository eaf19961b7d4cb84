"""The folding pass over a graph, in operator order (later operators see earlier results)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from usmp.fold.evaluators import EVALUATORS, CannotFold
from usmp.ir.graph import Graph, numpy_dtype

# A folded result costs flash: one that outgrows its constant inputs by more than this many bytes
# (a large FILL, BROADCAST_TO or TILE of a small constant) is left to its kernel instead.
MAX_GROWTH_BYTES = 4096


def fold_constants(graph: Graph) -> Graph:
    tensors = list(graph.tensors)
    kept, folded = [], []
    model_io = set(graph.inputs) | set(graph.outputs)  # the user's arrays: always written by a kernel
    for op in graph.operators:
        results = None if model_io.intersection(op.outputs) else evaluate(op, tensors)
        if results is None:
            kept.append(op)
            continue
        folded.append((op, "constant inputs"))
        for index, array in zip(op.outputs, results):
            tensors[index] = replace(tensors[index], data=array)
    if len(kept) == len(graph.operators):
        return graph
    return replace(graph, tensors=tensors, operators=kept, folded=graph.folded + folded)


def evaluate(op, tensors) -> list[np.ndarray] | None:
    """The operator's outputs as arrays of their declared shape and type, or None to leave it to a kernel."""
    evaluator = EVALUATORS.get(op.opcode)
    if evaluator is None or not op.outputs:
        return None
    inputs = [tensors[i] if i is not None else None for i in op.inputs]
    shape_only = getattr(evaluator, "shape_only", False)  # SHAPE reads its input's shape, never its data
    if any(t is not None and t.data is None for t in (inputs[1:] if shape_only else inputs)):
        return None
    try:
        results = evaluator(op, inputs, [tensors[i] for i in op.outputs])
    except (CannotFold, AttributeError, ValueError, IndexError, TypeError, OverflowError, KeyError):
        return None  # the lowering checks the operator and names what is wrong
    if len(results) != len(op.outputs):
        return None
    arrays = []
    for index, result in zip(op.outputs, results):
        out = tensors[index]
        result = np.asarray(result)
        if tuple(result.shape) != tuple(out.shape):
            return None
        typed = result.astype(numpy_dtype(out.dtype))
        if result.dtype != typed.dtype and not np.array_equal(typed, result):
            return None  # a value the output type cannot hold: left to the kernel
        arrays.append(np.array(typed, order="C"))  # (ascontiguousarray would make a scalar 1-D)
    read = sum(t.data.nbytes for t in inputs if t is not None and t.data is not None)
    if sum(a.nbytes for a in arrays) > read + MAX_GROWTH_BYTES:
        return None
    return arrays
