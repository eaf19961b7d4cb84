"""Resolve VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE into variables, as TFLite Micro would.

Handles are matched by (container, shared name) across the main graph and
its initialiser subgraphs; an empty container matches any (TFLite Micro's
FindId). A variable's bytes start as its default fill, the zero point of the
first value assigned to it (TFLite Micro memsets the buffer with it), then
the initialiser's constant values are copied in.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from usmp.errors import ModelError
from usmp.ir.graph import Graph, Quantization, Tensor
from usmp.state.sharing import shared_tensors

VARIABLE_OPCODES = ("VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE")


@dataclass
class StateVariable:
    name: str  # the shared name, as the model gives it
    container: str
    dtype: str | None = None
    shape: tuple[int, ...] | None = None
    quant: Quantization | None = None
    fill: int | None = None  # default byte (TFLite Micro: the first assigned value's zero point)
    init: bytes | None = None  # the initialiser's value, if any

    @property
    def nbytes(self) -> int:
        return Tensor(0, self.name, self.shape, self.dtype).nbytes

    def initial_image(self) -> bytes:
        return self.init if self.init is not None else bytes([self.fill or 0]) * self.nbytes


@dataclass
class StatePlan:
    variables: list[StateVariable] = field(default_factory=list)
    handles: dict[int, int] = field(default_factory=dict)  # main-graph handle tensor -> variable
    shared: dict[int, int] = field(default_factory=dict)  # main-graph tensor stored in a variable's buffer


def resolve_state(graph: Graph) -> StatePlan:
    plan = StatePlan()
    subgraphs = [(graph, "")] + [(g, f"subgraph {n} ") for n, g in sorted(graph.init_graphs.items())]
    for g, where in subgraphs:
        handles = _resolve_handles(g, where, plan.variables)
        if g is graph:
            plan.handles = handles
        for op in g.operators:
            if op.opcode == "READ_VARIABLE":
                variable = plan.variables[_handle(op, g, handles, where)]
                _observe(variable, g.tensors[_operand(op, op.outputs, 0, "output", where)], op, where)
            elif op.opcode == "ASSIGN_VARIABLE":
                variable = plan.variables[_handle(op, g, handles, where)]
                value = g.tensors[_operand(op, op.inputs, 1, "value input", where)]
                _observe(variable, value, op, where)
                if variable.fill is None:
                    variable.fill = (value.quant.zero_point if value.quant is not None else 0) & 0xFF
                if g is graph:
                    continue
                if not value.is_constant:
                    raise ModelError(f"{where}operator {op.index} (ASSIGN_VARIABLE): the initial value of "
                                     f"variable '{variable.name}' is not a constant")
                else:
                    variable.init = value.data.tobytes()
    _check_order(graph, plan)
    plan.shared = shared_tensors(graph, plan)
    return plan


def _resolve_handles(g: Graph, where: str, variables: list[StateVariable]) -> dict[int, int]:
    handles: dict[int, int] = {}
    for op in g.operators:
        if op.opcode != "VAR_HANDLE":
            continue
        out = _operand(op, op.outputs, 0, "output", where)
        if g.tensors[out].dtype != "resource":
            raise ModelError(f"{where}operator {op.index} (VAR_HANDLE): output tensor {out} "
                             f"'{g.tensors[out].name}' is {g.tensors[out].dtype}, not a resource handle")
        container, name = (_text(op.options.get(k)) for k in ("container", "shared_name"))
        if not name:
            raise ModelError(f"{where}operator {op.index} (VAR_HANDLE) has no shared name")
        for k, v in enumerate(variables):
            if v.name == name and (not container or not v.container or container == v.container):
                handles[out] = k
                break
        else:
            variables.append(StateVariable(name, container))
            handles[out] = len(variables) - 1
    return handles


def _handle(op, g: Graph, handles: dict[int, int], where: str) -> int:
    index = _operand(op, op.inputs, 0, "handle input", where)
    if index not in handles:
        raise ModelError(f"{where}operator {op.index} ({op.opcode}): tensor {index} '{g.tensors[index].name}' "
                         f"is not a variable handle made by VAR_HANDLE")
    return handles[index]


def _operand(op, indices, position: int, what: str, where: str) -> int:
    if len(indices) <= position or indices[position] is None:
        raise ModelError(f"{where}operator {op.index} ({op.opcode}) has no {what}")
    return indices[position]


def _observe(variable: StateVariable, tensor: Tensor, op, where: str) -> None:
    """Every read and assignment of one variable has the same type and shape."""
    if variable.shape is None:
        variable.dtype, variable.shape, variable.quant = tensor.dtype, tuple(tensor.shape), tensor.quant
        return
    if (variable.dtype, variable.shape) != (tensor.dtype, tuple(tensor.shape)):
        raise ModelError(f"{where}operator {op.index} ({op.opcode}): variable '{variable.name}' is used as "
                         f"{variable.dtype}{list(variable.shape)} and as {tensor.dtype}{list(tensor.shape)}")


def _check_order(graph: Graph, plan: StatePlan) -> None:
    """The initialisers run before anything touches a variable, and nothing is read before it has a value."""
    assigned = {k for k, v in enumerate(plan.variables) if v.init is not None}
    touched = None
    for op in graph.operators:
        if op.opcode == "CALL_ONCE" and touched is not None:
            raise ModelError(f"operator {op.index} (CALL_ONCE) runs after operator {touched.index} "
                             f"({touched.opcode}) has used a variable; initialisers must come first")
        if op.opcode == "READ_VARIABLE":
            touched = touched or op
            k = plan.handles[op.inputs[0]]
            if k not in assigned:
                raise ModelError(f"operator {op.index} (READ_VARIABLE) reads variable '{plan.variables[k].name}' "
                                 f"before any assignment, and it has no initial value")
        elif op.opcode == "ASSIGN_VARIABLE":
            touched = touched or op
            assigned.add(plan.handles[op.inputs[0]])


def _text(value) -> str:
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    return "".join(c if c.isprintable() else "?" for c in (value or ""))


def variable_tensor_image(tensor: Tensor) -> bytes:
    """A variable tensor's reset value: TFLite Micro fills int8 ones with the zero point, others with 0."""
    fill = tensor.quant.zero_point & 0xFF if tensor.dtype == "int8" and tensor.quant is not None else 0
    return np.full(tensor.nbytes, fill, np.uint8).tobytes()
