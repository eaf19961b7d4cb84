"""The lowered program: buffers, and operators that call kernels over them.

This is what the memory planner sees: every buffer the generated code touches
(tensors, model inputs and outputs, scratch and constants) with its size and
alignment, and the operator steps that read or write it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from usmp.ir.graph import Graph

# "copy": a constant's copy in a faster pool, made by init() and read by run() (usmp/placement/copies.py)
BUFFER_KINDS = ("input", "output", "tensor", "scratch", "constant", "state", "copy")

# Every buffer is at least word aligned: a Cortex-M0 faults on unaligned words.
MIN_ALIGNMENT = 4


@dataclass
class Buffer:
    name: str  # unique; a tensor's name or "op<N>_<what>"
    kind: str  # one of BUFFER_KINDS
    size: int  # bytes
    alignment: int
    c_type: str  # element type the kernels see, e.g. "int8_t"
    data: bytes | None = None  # contents of a constant buffer; initial contents of a state buffer
    tensors: list[int] = field(default_factory=list)  # graph tensors stored here (views share one)
    io_index: int | None = None  # position among model inputs/outputs
    # (buffer, byte offset): lives inside another buffer's bytes that nothing else uses while it does (the
    # kernels' scratch of a depth-first loop, sharing one buffer); not planned on its own
    inside: tuple[str, int] | None = None
    per_call: bool = False  # scratch whose contents one kernel call uses and leaves (CMSIS-NN's im2col buffers)

    @property
    def is_constant(self) -> bool:
        return self.kind == "constant"


@dataclass
class Arg:
    """A pointer parameter of an operator's function."""

    name: str  # C parameter name
    buffer: str  # Buffer.name
    writable: bool


@dataclass
class KernelCall:
    """One call into the kernel library: fn(&params, arg, arg, ...)."""

    function: str
    params_type: str | None  # C struct type of the constant parameters, or None
    params: dict[str, Any]  # field -> int, float, or list of them
    args: list[str]  # Arg names, in the kernel's parameter order


@dataclass
class LoweredOp:
    """One graph operator: one static C function, one step of the schedule."""

    op_index: int
    opcode: str
    args: list[Arg]
    calls: list[KernelCall]
    # Keyword-only, so subclasses' positional fields stay where they were.
    subgraph: int = field(default=0, kw_only=True)  # the subgraph the operator belongs to (0: the main one)
    control: Any = field(default=None, kw_only=True)  # IF and WHILE: their blocks (usmp/control.ControlFlow)
    copy: int = field(default=1, kw_only=True)  # which block of its subgraph (several operators may run one)

    @property
    def function_name(self) -> str:
        prefix = f"sg{self.subgraph}_" + (f"{self.copy}_" if self.copy > 1 else "") if self.subgraph else ""
        name = self.opcode
        if name.startswith("CUSTOM:"):  # CUSTOM:SignalWindow -> signal_window
            name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.removeprefix("CUSTOM:"))
        return f"{prefix}op_{self.op_index}_{re.sub(r'[^0-9a-z_]', '_', name.lower())}"

    def buffers_read(self) -> list[str]:
        return [a.buffer for a in self.args if not a.writable]

    def buffers_written(self) -> list[str]:
        return [a.buffer for a in self.args if a.writable]


@dataclass
class ExternalKernels:
    """A kernel library outside this module that the program calls (CMSIS-NN): what its build adds."""

    name: str
    cpu: str  # the --cpu it was selected for (its scratch sizes depend on it)
    include_dirs: list[Path]
    sources: list[Path]  # the library's sources the program reaches
    glue: list[Path]  # this module's sources that call it (and USMP's own DSP kernels, when chosen)
    operators: int = 0  # how many of the program's operators call it (the header tells the user)
    header: str = "usmp_kernels/cmsis_nn_glue.h"  # what the generated code includes
    own_operators: int = 0  # how many call USMP's own DSP kernels (kernels/dsp/)


@dataclass
class Program:
    name: str
    graph: Graph
    buffers: dict[str, Buffer]  # only buffers some operator uses, plus model I/O
    ops: list[LoweredOp]  # in schedule order
    inputs: list[str]  # buffer per model input
    outputs: list[str]  # buffer per model output
    init_ops: list[LoweredOp] = field(default_factory=list)  # set the state buffers' initial contents
    external_kernels: ExternalKernels | None = None  # set by the kernel selection pass (usmp/select)
    # set by the kernel selection pass too: the operators a core with fast kernel families leaves on portable
    # kernels, and why (select/fallbacks.PortableStep)
    portable_steps: list = field(default_factory=list)
    # the engines (kernel targets, e.g. "dma") that write the model's inputs and read its outputs, beside the
    # operators: the inputs and outputs live in pools those reach (--io-targets; analysis/scopes.py)
    io_targets: tuple[str, ...] = ()

    @property
    def state_buffers(self) -> list[str]:
        return [name for name, b in self.buffers.items() if b.kind == "state"]
