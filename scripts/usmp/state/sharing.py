"""Which tensors can live in a variable's own buffer, so no copy is made.

A READ_VARIABLE result is a view of the state buffer when everything that
reads it (through RESHAPE/SQUEEZE views too) runs before the buffer is next
written. An ASSIGN_VARIABLE value is computed straight into the state buffer
when its producer feeds nothing else, and no read of the variable lies
between that producer and the assignment. Decided in graph order; --reorder
keeps every read/write order on a buffer, so the decision stays valid.
"""
from __future__ import annotations

from usmp.ir.graph import Graph

VIEW_OPCODES = ("RESHAPE", "SQUEEZE")  # lowered as views when possible: their readers read the state too
NEVER = float("inf")


def shared_tensors(graph: Graph, plan) -> dict[int, int]:
    """Main-graph tensor -> variable whose buffer holds it."""
    shared: dict[int, int] = {}
    reads = [(op, plan.handles[op.inputs[0]]) for op in graph.operators if op.opcode == "READ_VARIABLE"]
    assigns = [(op, plan.handles[op.inputs[0]]) for op in graph.operators if op.opcode == "ASSIGN_VARIABLE"]
    write_at: list[tuple[int, int]] = []  # (variable, operator index at which its buffer is written)
    for op, k in assigns:
        producer = _in_place_producer(graph, plan, op, k, reads, assigns)
        if producer is not None:
            shared[op.inputs[1]] = k
        write_at.append((k, producer.index if producer is not None else op.index))
    for op, k in reads:
        out = op.outputs[0]
        uses = _uses(graph, out)
        if uses is None:
            continue
        next_write = min([w for v, w in write_at if v == k and w > op.index], default=NEVER)
        if max(uses, default=op.index) < next_write:
            shared[out] = k
    return shared


def _in_place_producer(graph: Graph, plan, assign, k: int, reads, assigns):
    value = graph.tensors[assign.inputs[1]]
    variable = plan.variables[k]
    producer = graph.producer(value.index)
    if producer is None or producer.opcode in VIEW_OPCODES + ("READ_VARIABLE",):
        return None
    if value.index in graph.outputs or value.is_constant or (value.dtype, value.nbytes) != (variable.dtype, variable.nbytes):
        return None
    if [c.index for c in graph.consumers(value.index)] != [assign.index]:
        return None
    between = range(producer.index + 1, assign.index)
    if any(op.index in between and v == k for op, v in reads + assigns):
        return None
    return producer


def _uses(graph: Graph, tensor: int) -> list[int] | None:
    """Indices of the operators reading the tensor or a view of it; None if a model output holds it."""
    uses, pending = [], [tensor]
    while pending:
        t = pending.pop()
        if t in graph.outputs:
            return None
        for op in graph.consumers(t):
            uses.append(op.index)
            if op.opcode in VIEW_OPCODES and op.inputs[0] == t:
                pending.extend(op.outputs)
    return uses
