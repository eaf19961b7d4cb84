"""IF and WHILE lowered: each subgraph into a Block, the operands copied in and out."""
from __future__ import annotations

import re

from usmp.control.flow import Block, ControlFlow, Copy, nested_buffers
from usmp.errors import ModelError
from usmp.fold import fold_constants
from usmp.ir.graph import Graph, Tensor
from usmp.lower.context import LowerContext, Ref
from usmp.shapes import resolve_shapes
from usmp.uint8 import rewrite_uint8

IF_BRANCHES = (("then_subgraph_index", "then branch"), ("else_subgraph_index", "else branch"))
WHILE_PARTS = (("cond_subgraph_index", "loop condition"), ("body_subgraph_index", "loop body"))


def _check_subgraphs(op, ctx: LowerContext, parts) -> None:
    """Every subgraph the operator names was read (the importer says why not, in the same words)."""
    root = ctx
    while root.parent is not None:
        root = root.parent
    for option, role in parts:
        number = op.options.get(option)
        if number not in root.graph.subgraphs:
            raise ModelError(f"{ctx.where()} runs subgraph {number} as its {role}")


def lower_if(op, ctx: LowerContext) -> None:
    _check_subgraphs(op, ctx, IF_BRANCHES)
    if len(op.inputs) < 1 or op.inputs[0] is None:
        raise ctx.fail("the condition input is missing")
    condition = _condition(ctx, ctx.tensor(op.inputs[0]), "condition input")
    operands, results = op.inputs[1:], op.outputs
    blocks, enter, leave = [], [], []
    for option, role in IF_BRANCHES:
        block, graph = _block(ctx, op, option, role)
        _match(ctx, role, "inputs", [ctx.tensor(i) for i in operands], [graph.tensors[i] for i in graph.inputs])
        _match(ctx, role, "outputs", [ctx.tensor(i) for i in results], [graph.tensors[i] for i in graph.outputs])
        enter.append([Copy(ctx.read(i).buffer, b, ctx.tensor(i).nbytes) for i, b in zip(operands, block.inputs)])
        leave.append([Copy(b, ctx.write(i).buffer, ctx.tensor(i).nbytes) for i, b in zip(results, block.outputs)])
        blocks.append(block)
    _emit(ctx, op, ControlFlow("if", ctx.read(op.inputs[0]).buffer if condition else "", blocks, enter, leave))


def lower_while(op, ctx: LowerContext) -> None:
    _check_subgraphs(op, ctx, WHILE_PARTS)
    if len(op.inputs) != len(op.outputs) or any(i is None for i in op.inputs):
        raise ctx.fail(f"has {len(op.inputs)} inputs and {len(op.outputs)} outputs; a WHILE carries each input "
                       f"to the output in its place")
    body, body_graph = _block(ctx, op, "body_subgraph_index", "loop body")
    carried = body.inputs
    for buffer in carried:
        ctx.protected.add(buffer)
    cond, cond_graph = _block(ctx, op, "cond_subgraph_index", "loop condition", seeds=carried)
    loop = [ctx.tensor(i) for i in op.inputs]
    _match(ctx, "loop body", "inputs", loop, [body_graph.tensors[i] for i in body_graph.inputs])
    _match(ctx, "loop body", "outputs", loop, [body_graph.tensors[i] for i in body_graph.outputs])
    _match(ctx, "loop condition", "inputs", loop, [cond_graph.tensors[i] for i in cond_graph.inputs])
    if len(cond.outputs) != 1:
        raise ctx.fail(f"the loop condition (subgraph {cond.subgraph}) has {len(cond.outputs)} outputs, not 1")
    _condition(ctx, cond_graph.tensors[cond_graph.outputs[0]], f"loop condition (subgraph {cond.subgraph}) output")
    enter = [Copy(ctx.read(i).buffer, b, ctx.tensor(i).nbytes) for i, b in zip(op.inputs, carried)]
    carry = [Copy(o, c, t.nbytes) for o, c, t in zip(body.outputs, carried, loop)]
    leave = [Copy(c, ctx.write(o).buffer, t.nbytes) for c, o, t in zip(carried, op.outputs, loop)]
    _emit(ctx, op, ControlFlow("while", cond.outputs[0], [cond, body], [enter], [leave], carry))


def _emit(ctx: LowerContext, op, control: ControlFlow) -> None:
    """The operator's arguments: its own operands and every buffer its blocks and copies touch."""
    from usmp.lower.program import LoweredOp

    probe = LoweredOp(op.index, op.opcode, [], [], control=control)
    operands = {i: f"input{k}" for k, i in enumerate(op.inputs)} | {i: f"output{k}" for k, i in enumerate(op.outputs)}
    names = {ctx.tensor_buffers[i]: name for i, name in operands.items() if i in ctx.tensor_buffers}
    for buffer, written in nested_buffers(probe):  # the operands first, by role; the blocks' by their own names
        ctx.control(control, **{names.get(buffer, _short(buffer)): Ref(buffer, written)})


def _short(buffer: str) -> str:
    """sg2/while/add -> sg2_add: the subgraph and the tensor's last name, for the generated parameters."""
    subgraph, _, rest = buffer.partition("/")
    last = re.split(r"[/;:]", rest)[-1] if rest else subgraph
    return f"{subgraph}_{last}"[:40]


def _condition(ctx: LowerContext, tensor: Tensor, what: str) -> bool:
    if tensor.dtype != "bool":
        raise ctx.fail(f"the {what} (tensor {tensor.index} '{tensor.name}') has type {tensor.dtype}; "
                       f"it must be bool")
    return True


def _match(ctx: LowerContext, role: str, what: str, outer: list[Tensor], inner: list[Tensor]) -> None:
    """The operator's operands and the subgraph's inputs or outputs: as many, of the same type and size."""
    if len(outer) != len(inner):
        raise ctx.fail(f"passes {len(outer)} {what} to its {role}, which has {len(inner)}")
    for k, (a, b) in enumerate(zip(outer, inner)):
        if a.dtype != b.dtype or a.nbytes != b.nbytes:
            raise ctx.fail(f"{what[:-1]} {k} of its {role} is {b.dtype} {list(b.shape)} (tensor {b.index} "
                           f"'{b.name}') but the operator's is {a.dtype} {list(a.shape)}")


def _block(ctx: LowerContext, op, option: str, role: str, seeds: list[str] | None = None) -> tuple[Block, Graph]:
    """Lower subgraph op.options[option]; seeds: buffers its inputs are to share (a WHILE's carried values)."""
    from usmp.lower.lowering import lower_operators

    number = op.options.get(option)
    root = ctx
    while root.parent is not None:
        root = root.parent
    graph = fold_constants(rewrite_uint8(resolve_shapes(root.graph.subgraphs[number])))
    prefix = _prefix(ctx, number)
    copy = int(prefix[:-1].partition("#")[2] or 1)
    child = ctx.nested(graph, number, prefix)
    child.copy = copy
    if seeds is not None:
        if len(seeds) != len(graph.inputs):
            raise ctx.fail(f"its {role} (subgraph {number}) has {len(graph.inputs)} inputs, the loop {len(seeds)}")
        for index, buffer in zip(graph.inputs, seeds):
            child.tensor_buffers[index] = buffer
        child.protected.update(seeds)
    inputs = [child.read(i).buffer for i in graph.inputs]
    child.protected.update(inputs)  # a WHILE's condition and body read them again next time round
    lower_operators(child, graph)
    outputs = []
    for index in graph.outputs:
        if index not in child.tensor_buffers and not graph.tensors[index].is_constant:
            raise ModelError(f"subgraph {number} output tensor {index} '{graph.tensors[index].name}' is not "
                             f"produced by any operator")
        outputs.append(child.read(index).buffer)
    return Block(number, role, child.ops, inputs, outputs, copy), graph


def _prefix(ctx: LowerContext, number: int) -> str:
    """sg<N>/, or sg<N>#k/ when the subgraph is run by more than one operator (each has its own buffers)."""
    prefix, k = f"sg{number}/", 1
    while any(name.startswith(prefix) for name in ctx.buffers):
        k += 1
        prefix = f"sg{number}#{k}/"
    return prefix
