"""Drive the op lowerings over the graph in its operator order."""
from __future__ import annotations

from usmp.errors import ModelError
from usmp.ir.graph import Graph, Operator
from usmp.lower.context import LowerContext
from usmp.lower.ops import lowering_for
from usmp.lower.program import Program
from usmp.state import resolve_state
from usmp.state.init_code import lower_init
from usmp.state.variables import VARIABLE_OPCODES
from usmp.uint8 import unsupported_uint8


def check_supported(graph: Graph) -> None:
    """Name the first operator usmp cannot compile, before any work is done."""
    for op in graph.operators:
        reason = unsupported_reason(op)
        if reason is not None:
            raise ModelError(reason)  # the ~100 supported names would bury it: `usmp check` and the README list them


def unsupported_reason(op: Operator) -> str | None:
    """Why no lowering can take this operator at all (None: its lowering decides)."""
    if lowering_for(op.opcode) is None:
        kind = "custom operator" if op.opcode.startswith("CUSTOM:") else "operator"
        return f"operator {op.index}: {kind} {op.opcode.removeprefix('CUSTOM:')} is not supported"
    uint8 = unsupported_uint8(op)
    if uint8 is not None:
        return uint8
    if op.opcode in VARIABLE_OPCODES:  # checked by the state stage
        return None
    if op.inputs[:1] in ([], [None]) or not op.outputs:  # every supported operator reads and writes a tensor
        return (f"operator {op.index} ({op.opcode}) has {len(op.inputs)} inputs and {len(op.outputs)} "
                f"outputs; its first input and output are required")
    return None


def lower_operators(ctx: LowerContext, graph: Graph) -> None:
    """Every operator of graph (the main one, or a subgraph IF or WHILE runs) into ctx, in order."""
    for op in graph.operators:
        reason = unsupported_reason(op)
        if reason is not None:
            raise ModelError(f"subgraph {ctx.subgraph} {reason}" if ctx.subgraph else reason)
    for op in graph.operators:
        ctx.begin(op)
        lowering_for(op.opcode)(op, ctx)
        ctx.end()


def lower_graph(graph: Graph) -> Program:
    check_supported(graph)
    ctx = LowerContext(graph, resolve_state(graph))
    # Model I/O buffers exist even if no operator touches them (e.g. an unused input).
    for index in graph.inputs:
        ctx.read(index)
    lower_operators(ctx, graph)
    for index in graph.outputs:
        if index not in ctx.tensor_buffers:
            tensor = graph.tensors[index]
            raise ModelError(f"model output tensor {index} '{tensor.name}' is not produced by any operator")
    used = {arg.buffer for op in ctx.ops for arg in op.args}
    inputs = [ctx.tensor_buffers[i] for i in graph.inputs]
    outputs = [ctx.tensor_buffers[i] for i in graph.outputs]
    keep = used | set(inputs) | set(outputs)
    init_ops = lower_init(ctx, [name for name, b in ctx.buffers.items() if name in keep and b.kind == "state"])
    keep |= {arg.buffer for op in init_ops for arg in op.args}
    buffers = {name: b for name, b in ctx.buffers.items() if name in keep}
    return Program(graph.name, graph, buffers, ctx.ops, inputs, outputs, init_ops)
