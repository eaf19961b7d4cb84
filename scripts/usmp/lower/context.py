"""What an operator's lowering function may ask for.

An op lowering reads tensors, writes tensors, derives constants and declares
scratch, all through this context; it never allocates anything itself.

State kept from one inference to the next lives in buffers of kind "state"
(see usmp/state): `ctx.variable(handle)` is a resource variable's buffer and
`ctx.state(tensor)` a variable tensor's (`is_variable`, e.g. the state input
of SVDF or UNIDIRECTIONAL_SEQUENCE_LSTM). Both are writable: a kernel reads
the old state from the buffer and writes the new state back into it, in
place. `ctx.read(tensor)` of a variable tensor gives the same buffer
read-only. The buffer's initial contents (zero points, initialiser values)
are set by the generated init() and reset(), never by a lowering.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from usmp.errors import ModelError
from usmp.ir.graph import Graph, Operator, Tensor, c_type, element_size
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, KernelCall, LoweredOp
from usmp.state import StatePlan
from usmp.state.variables import variable_tensor_image

_C_TYPES = {
    np.dtype(np.int8): "int8_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.uint16): "uint16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.uint32): "uint32_t",
    np.dtype(np.uint64): "uint64_t",
    np.dtype(np.float32): "float",
}


class Ref:
    """A buffer as an argument of a kernel call: read-only or written."""

    def __init__(self, buffer: str, writable: bool):
        self.buffer = buffer
        self.writable = writable


class LowerContext:
    def __init__(self, graph: Graph, state: StatePlan | None = None):
        self.graph = graph
        self.state_plan = state or StatePlan()
        self._variable_buffers: dict[int, str] = {}
        self.buffers: dict[str, Buffer] = {}
        self.tensor_buffers: dict[int, str] = {}
        self.ops: list[LoweredOp] = []
        self._constant_by_content: dict[tuple[str, bytes], str] = {}
        self._current: Operator | None = None
        self._calls: list[KernelCall] = []
        self._args: list[Arg] = []
        self._control = None  # an IF or WHILE's blocks (usmp/control), set by its lowering
        # A subgraph's context (see nested()): its buffer names start with prefix, its inputs and outputs are
        # ordinary tensors, and protected buffers (a loop's carried values) are never written over in place.
        self.prefix = ""
        self.subgraph = 0
        self.copy = 1  # the k-th context of this subgraph (see usmp/control)
        self.protected: set[str] = set()
        self.parent: LowerContext | None = None
        for tensor_index, variable in self.state_plan.shared.items():  # views of and values computed into state
            name = self._variable_buffer(variable)
            self.tensor_buffers[tensor_index] = name
            self.buffers[name].tensors.append(tensor_index)

    def nested(self, graph: Graph, subgraph: int, prefix: str) -> "LowerContext":
        """A context for a subgraph IF or WHILE runs: the same buffers and constants, its own tensors."""
        child = LowerContext(graph)
        child.buffers, child._constant_by_content = self.buffers, self._constant_by_content
        child.prefix, child.subgraph, child.parent = prefix, subgraph, self
        return child

    # -- what the operator is ------------------------------------------------
    def tensor(self, index: int) -> Tensor:
        return self.graph.tensors[index]

    def where(self, op: Operator | None = None) -> str:
        op = op or self._current
        return f"{f'subgraph {self.subgraph} ' if self.subgraph else ''}operator {op.index} ({op.opcode})"

    def fail(self, message: str) -> ModelError:
        return ModelError(f"{self.where()}{self._hybrid_note()}: {message}")

    def _hybrid_note(self) -> str:
        """A refused operator with float activations and int8 constant weights is named as hybrid first."""
        op = self._current
        operands = [self.tensor(i) for i in (op.inputs if op is not None else []) if i is not None]
        weights = [t for t in operands if t.is_constant and t.dtype == "int8"]
        if not weights or not any(not t.is_constant and t.dtype == "float32" for t in operands):
            return ""
        return f", a hybrid operator (int8 weights '{weights[0].name}', float activations)"

    # -- buffers ---------------------------------------------------------------
    def read(self, tensor_index: int) -> Ref:
        """An input tensor of the operator (activation or constant)."""
        return Ref(self._tensor_buffer(tensor_index), writable=False)

    def write(self, tensor_index: int) -> Ref:
        tensor = self.tensor(tensor_index)
        if tensor.is_constant:
            raise self.fail(f"output tensor {tensor_index} '{tensor.name}' is a constant")
        return Ref(self._tensor_buffer(tensor_index), writable=True)

    def variable(self, handle_index: int) -> Ref:
        """The state buffer of the resource variable a VAR_HANDLE tensor names (read and update)."""
        if handle_index not in self.state_plan.handles:
            raise self.fail(f"tensor {handle_index} '{self.tensor(handle_index).name}' is not a variable handle")
        return Ref(self._variable_buffer(self.state_plan.handles[handle_index]), writable=True)

    def state(self, tensor_index: int) -> Ref:
        """A variable tensor's state buffer, to read the old state and write the new one in place."""
        tensor = self.tensor(tensor_index)
        if not tensor.is_variable:
            raise self.fail(f"tensor {tensor_index} '{tensor.name}' is not a variable tensor")
        return Ref(self._tensor_buffer(tensor_index), writable=True)

    def constant(self, what: str, array: np.ndarray, alignment: int = MIN_ALIGNMENT) -> Ref:
        """A constant the compiler derived (multipliers, folded biases, repacked weights).

        Identical contents are stored once.
        """
        array = np.ascontiguousarray(array)
        ctype = _C_TYPES.get(array.dtype)
        if ctype is None:
            raise TypeError(f"no C type for constant dtype {array.dtype}")
        data = array.tobytes()
        key = (ctype, data)
        if key in self._constant_by_content:
            return Ref(self._constant_by_content[key], writable=False)
        name = self._unique(f"op{self._current.index}_{what}")
        self.buffers[name] = Buffer(name, "constant", max(len(data), 1), max(alignment, MIN_ALIGNMENT, array.itemsize),
                                    ctype, data=data)
        self._constant_by_content[key] = name
        return Ref(name, writable=False)

    def persistent(self, what: str, initial: np.ndarray) -> Ref:
        """State an operator keeps from one run to the next (a noise estimate, a delay line): a state buffer
        with the given initial contents, which init() and reset() restore (see usmp/state)."""
        initial = np.ascontiguousarray(initial)
        name = self._unique(f"op{self._current.index}_{what}")
        self.buffers[name] = Buffer(name, "state", max(initial.nbytes, 1), max(MIN_ALIGNMENT, initial.itemsize),
                                    _C_TYPES[initial.dtype], data=initial.tobytes())
        return Ref(name, writable=True)

    def scratch(self, what: str, nbytes: int, c_type_name: str = "int8_t", alignment: int = MIN_ALIGNMENT) -> Ref:
        """Working memory of one kernel call, planned like any other buffer."""
        name = self._unique(f"op{self._current.index}_{what}")
        self.buffers[name] = Buffer(name, "scratch", max(int(nbytes), 1), max(alignment, MIN_ALIGNMENT), c_type_name)
        return Ref(name, writable=True)

    def alias(self, output_index: int, input_index: int) -> bool:
        """Make an output tensor a view of an input (RESHAPE, SQUEEZE): no copy, no buffer.

        Refused (returns False) when both are model I/O, which the user owns separately.
        """
        in_name = self._tensor_buffer(input_index)
        source = self.buffers[in_name]
        is_output = output_index in self.graph.outputs and not self.subgraph
        if is_output and source.kind in ("input", "output", "constant", "state"):
            return False
        if output_index in self.tensor_buffers:
            return False
        self.tensor_buffers[output_index] = in_name
        source.tensors.append(output_index)
        if is_output:
            source.kind = "output"
            source.io_index = self.graph.outputs.index(output_index)
        return True

    def write_in_place(self, output_index: int, input_index: int) -> Ref:
        """The output of an elementwise operator, written over an input that dies here.

        Only call this when the kernel allows it (each output element is written
        after the input elements it needs are read). The output shares the
        input's buffer when the input is an intermediate tensor (not a model
        input or output, not a constant) of the same type and byte size that no
        other operator reads, and the output is not a model output; otherwise
        it gets its own buffer as with write(). Both are passed to the kernel as
        one pointer argument.
        """
        if self.can_write_in_place(output_index, input_index):
            name = self._tensor_buffer(input_index)
            self.tensor_buffers[output_index] = name
            self.buffers[name].tensors.append(output_index)
            return Ref(name, writable=True)
        return self.write(output_index)

    def can_write_in_place(self, output_index: int, input_index: int) -> bool:
        out, source = self.tensor(output_index), self.tensor(input_index)
        if output_index in self.tensor_buffers or output_index in self.graph.outputs or out.is_constant:
            return False
        if source.is_constant or input_index in self.graph.inputs:
            return False
        if self.tensor_buffers.get(input_index) in self.protected:
            return False
        if out.dtype != source.dtype or out.nbytes != source.nbytes:
            return False
        name = self._tensor_buffer(input_index)
        buffer = self.buffers[name]
        if buffer.kind != "tensor":
            return False
        current = self._current.index if self._current is not None else None
        for tensor_index in buffer.tensors:  # views (RESHAPE/SQUEEZE) share the buffer: all must die here
            if tensor_index in self.graph.outputs:
                return False
            if any(op.index != current for op in self.graph.consumers(tensor_index)):
                return False
        return True

    def _tensor_buffer(self, index: int) -> str:
        if index in self.tensor_buffers:
            return self.tensor_buffers[index]
        tensor = self.tensor(index)
        if tensor.is_variable:
            kind, data = "state", variable_tensor_image(tensor)
        elif tensor.is_constant:
            kind, data = "constant", tensor.data.tobytes()
        elif index in self.graph.inputs and not self.subgraph:
            kind, data = "input", None
        elif index in self.graph.outputs and not self.subgraph:
            kind, data = "output", None
        elif index in self.graph.inputs:  # a subgraph's input: filled by its IF or WHILE
            kind, data = "tensor", None
        else:
            kind, data = "tensor", None
            if self.graph.producer(index) is None:
                raise self.fail(f"reads tensor {index} '{tensor.name}', which no operator produces and which is not a model input")
        name = self._unique(tensor.name)
        io_index = None
        if kind == "input":
            io_index = self.graph.inputs.index(index)
        elif kind == "output":
            io_index = self.graph.outputs.index(index)
        self.buffers[name] = Buffer(
            name, kind, max(tensor.nbytes, 1), max(MIN_ALIGNMENT, element_size(tensor.dtype)), c_type(tensor.dtype),
            data=data, tensors=[index], io_index=io_index,
        )
        self.tensor_buffers[index] = name
        return name

    def _variable_buffer(self, variable: int) -> str:
        if variable not in self._variable_buffers:
            v = self.state_plan.variables[variable]
            name = self._unique(v.name)
            self.buffers[name] = Buffer(name, "state", max(v.nbytes, 1), MIN_ALIGNMENT, c_type(v.dtype),
                                        data=v.initial_image())
            self._variable_buffers[variable] = name
        return self._variable_buffers[variable]

    def _unique(self, base: str) -> str:
        base = self.prefix + base
        name, n = base, 1
        while name in self.buffers:
            n += 1
            name = f"{base}#{n}"
        return name

    # -- kernel calls ------------------------------------------------------------
    def call(self, function: str, params_type: str | None = None, params: dict[str, Any] | None = None,
             **args: Ref) -> None:
        """Call `function(&params, args...)`; keyword order is the kernel's parameter order."""
        names = []
        for arg_name, ref in args.items():
            names.append(self._arg(arg_name, ref))
        self._calls.append(KernelCall(function, params_type, dict(params or {}), names))

    def _arg(self, name: str, ref: Ref) -> str:
        for arg in self._args:
            if arg.buffer == ref.buffer:
                arg.writable = arg.writable or ref.writable
                return arg.name
        unique, n = _c_ident(name), 1
        while any(a.name == unique for a in self._args):
            n += 1
            unique = f"{_c_ident(name)}_{n}"
        self._args.append(Arg(unique, ref.buffer, ref.writable))
        return unique

    def control(self, control, **args: Ref) -> None:
        """The operator is an IF or WHILE: its blocks and copies (usmp/control); args as call()'s, plus every
        buffer its blocks touch, which the generated function receives."""
        for arg_name, ref in args.items():
            self._arg(arg_name, ref)
        self._control = control

    def begin(self, op: Operator) -> None:
        self._current, self._calls, self._args, self._control = op, [], [], None

    def end(self) -> None:
        if self._calls or self._control is not None:
            self.ops.append(LoweredOp(self._current.index, self._current.opcode, self._args, self._calls,
                                      subgraph=self.subgraph, control=self._control, copy=self.copy))
        self._current = None


def _c_ident(name: str) -> str:
    ident = re.sub(r"[^0-9A-Za-z_]", "_", name)
    return ident if ident and not ident[0].isdigit() else f"a_{ident}"
