"""The resolution walk: operators in order, each output shape from its inputs' resolved shapes."""
from __future__ import annotations

from dataclasses import replace

from usmp.errors import ModelError
from usmp.fold.fold import evaluate
from usmp.ir.graph import Graph, Operator, Tensor
from usmp.shapes.rules import RULES, NeedsValue, NoRule


def resolve_shapes(graph: Graph) -> Graph:
    """graph with every shape static: those the converter left open (-1) worked out from the input shapes."""
    if not any(t.signature is not None for t in graph.tensors):
        return graph
    for index in graph.inputs:
        _check_input(graph.tensors[index])
    tensors = list(graph.tensors)  # resolved shapes, the graph's constants
    known = list(graph.tensors)  # the same, plus the values operators compute from constants (shape arithmetic)
    for op in graph.operators:
        changed = any(i is not None and tensors[i].shape != graph.tensors[i].shape for i in op.inputs)
        if changed or any(tensors[i].signature is not None for i in op.outputs):
            for index, shape in zip(op.outputs, _output_shapes(op, known, tensors, changed)):
                tensors[index] = known[index] = replace(tensors[index], shape=shape, signature=None)
        values = evaluate(op, known)
        for index, array in zip(op.outputs, values or []):
            known[index] = replace(known[index], data=array)
    tensors = [replace(t, signature=None) if t.signature is not None else t for t in tensors]
    return replace(graph, tensors=tensors)


def _check_input(tensor: Tensor) -> None:
    """A model input's shape is the caller's: only its batch may be open (taken as the size the file records)."""
    if tensor.signature is not None and any(d < 0 for d in tensor.signature[1:]):
        raise ModelError(f"model input tensor {tensor.index} '{tensor.name}' has a dynamic shape "
                         f"{list(tensor.signature)}; only its batch dimension may be unknown")


def _output_shapes(op: Operator, known: list[Tensor], tensors: list[Tensor], changed: bool) -> list[tuple[int, ...]]:
    inputs = [known[i] if i is not None else None for i in op.inputs]
    shapes = [t.shape if t is not None else None for t in inputs]

    def value(position: int):
        t = inputs[position] if position < len(inputs) else None
        return None if t is None else t.data

    outputs = [tensors[i] for i in op.outputs]
    rule = RULES.get(op.opcode)
    try:
        if rule is None:
            raise NoRule()
        result = [tuple(int(d) for d in s) for s in rule(op, shapes, value)]
        if len(result) != len(outputs):
            raise NoRule()
    except NeedsValue as need:
        source = op.inputs[need.position]
        dynamic = _first_dynamic(outputs)
        raise ModelError(f"tensor {dynamic.index} '{dynamic.name}' has a dynamic shape {list(dynamic.signature)} "
                         f"that depends on data: operator {op.index} ({op.opcode}) takes it from tensor {source} "
                         f"'{known[source].name}', which is computed at run time") from None
    except (NoRule, IndexError, TypeError, ValueError):
        result = [_batch_follows(t, shapes, op, changed) for t in outputs]
    for t, shape in zip(outputs, result):
        _check_resolved(t, shape, op)
    return [shape if t.signature is not None else t.shape for t, shape in zip(outputs, result)]


def _batch_follows(t: Tensor, shapes, op: Operator, changed: bool) -> tuple[int, ...]:
    """No rule: an open batch dimension takes the first input's batch, as the converter assumes; any other
    open dimension cannot be worked out."""
    if t.signature is not None and any(d < 0 for d in t.signature[1:]):
        raise ModelError(f"tensor {t.index} '{t.name}' has a dynamic shape {list(t.signature)}: operator {op.index} "
                         f"({op.opcode}) computes it, and usmp cannot work out that operator's output shape "
                         f"at compile time")
    if t.signature is None or not changed or not shapes or not shapes[0]:
        return t.shape
    return (shapes[0][0],) + tuple(t.shape[1:])


def _check_resolved(t: Tensor, shape: tuple[int, ...], op: Operator) -> None:
    if t.signature is None:
        return
    fixed_differ = len(shape) != len(t.signature) or any(s >= 0 and s != d for s, d in zip(t.signature, shape))
    if fixed_differ or any(d <= 0 for d in shape):
        raise ModelError(f"operator {op.index} ({op.opcode}): output tensor {t.index} '{t.name}' works out to shape "
                         f"{list(shape)}, which does not fit its signature {list(t.signature)}")


def _first_dynamic(outputs: list[Tensor]) -> Tensor:
    return next((t for t in outputs if t.signature is not None), outputs[0])
