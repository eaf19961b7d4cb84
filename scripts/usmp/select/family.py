"""What a kernel family is to the selector: its needs, what it serves, and its offers for portable calls.

A family is one folder of kernels (USMP's DSP kernels in kernels/dsp/,
CMSIS-NN through its glue in kernels/cmsis_nn/, ...) described as data: the
core features it needs, the number types it serves, the sources a build
compiles when the program calls it, and a table from the portable kernel the
lowering emits to a handler. A handler reads one portable call (its params and
buffers: Call) and returns an Offer (the call that replaces it and the
instructions it is estimated to take), or a one-line reason why the family
leaves it (None: the family has nothing to say beyond "not this case").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, NamedTuple

from usmp.lower.program import KernelCall, Program
from usmp.tiling.loop import BandLoop


@dataclass
class NewBuffer:
    """A buffer a rewrite adds: a constant (data) or scratch (data None)."""

    what: str
    c_type: str
    size: int
    data: bytes | None = None


@dataclass
class Rewrite:
    function: str  # the kernel (or glue) function that replaces the portable one
    params_type: str
    params: dict
    args: list[tuple[str, str | NewBuffer, bool]]  # (parameter name, buffer name or new buffer, writable)
    cmsis_functions: tuple[str, ...] = ()  # the CMSIS-NN functions it calls (their sources are built)
    sources: tuple[Path, ...] = ()  # this module's sources it needs beyond its family's (a number type's file)


@dataclass
class Offer:
    """A family's replacement for one portable call, its estimated instructions on the core and, where known,
    its stack (the selector takes the cheapest offer within the kernels' stack budget; an offer is only made
    where it beats the portable kernel)."""

    rewrite: Rewrite
    cost: float
    stack: int | None = field(default=None, kw_only=True)  # bytes below its caller, where measured (cmsis_nn_frames)


@dataclass
class Call:
    """A portable call with its buffers by parameter name."""

    op_index: int  # the graph operator the call computes
    call: KernelCall
    buffers: dict[str, str]
    program: Program
    extension: str | None
    names: list[str] = field(default_factory=list)
    # in a depth-first loop, the most output rows one call computes (its link's share of a band): scratch sized
    # per call (a matrix kernel's columns) need not cover more; None: the call computes every row
    rows_per_call: int | None = None

    @property
    def p(self) -> dict:
        return self.call.params

    def graph_op(self):
        return next(o for o in self.program.graph.operators if o.index == self.op_index)


@dataclass(frozen=True)
class Site:
    """Where a portable call sits: program.ops[position], and in a depth-first loop its link and its place in
    the loop's calls (None for an operator's one call)."""

    position: int
    link: int | None = None
    call: int | None = None


Handler = Callable[[Call], "Offer | str | None"]
# (taken offers by site, the program, --optimize) -> the final rewrite of each site: a family that decides for
# the whole program (USMP's DSP kernels choose which filters to widen within a budget on all their constants)
Settle = Callable[[dict, Program, str], dict]


class Entry(NamedTuple):
    """A portable kernel a family can replace: its parameter names in order, and the handler."""

    names: tuple[str, ...]
    handler: Handler


@dataclass(frozen=True)
class Family:
    name: str  # as the notice, the profile and the report name it: "USMP DSP", "CMSIS-NN"
    key: str  # short and stable, for files and JSON: "usmp-dsp", "cmsis-nn"
    kernels: str  # the --kernels choice that asks for this family alone: "usmp" (USMP's own) or "cmsis-nn"
    number_types: tuple[str, ...]  # the activations' types it serves: "int8", "int16", "float32"
    table: Mapping[str, Entry]  # portable kernel -> what the family does with it
    extensions: tuple[str | None, ...] = ()  # the cores it runs on, by cpus.cpu_extension ("dsp", "mve"; None: plain)
    float_units: tuple[str, ...] = ()  # or by their float unit, cpus.float_unit ("fpu", "mve-f")
    cpus: tuple[str, ...] = ()  # or by name (--cpu), where the extension does not tell (cores without SIMD)
    sources: tuple[Path, ...] = ()  # this module's sources a build compiles when the program calls the family
    header: str | None = None  # what the generated code includes for it
    cmsis_nn: bool = False  # calls CMSIS-NN: only where CMSIS-NN is found (its sources are built as well)
    settle: Settle | None = None

    def runs_on(self, extension: str | None, float_unit: str | None, cpu: str | None = None) -> bool:
        return (extension in self.extensions or (float_unit is not None and float_unit in self.float_units)
                or cpu in self.cpus)


def portable_calls(program: Program, table: Mapping, extension: str | None):
    """(Site, Call, handler) for each portable call `table` knows (kernel name -> Entry or (its parameter names
    in order, handler)), with its buffers by parameter name: an operator's one call, and every call of a
    depth-first loop's links (the loop runs the kernel chosen for it a band at a time)."""
    for position, op in enumerate(program.ops):
        by_arg = {a.name: a.buffer for a in op.args}
        if isinstance(op, BandLoop):
            sites = [(Site(position, j, k), link.op_index, op.calls[k], link.share) for j, link in enumerate(op.links)
                     for k in link.calls]
        else:
            sites = [(Site(position), op.op_index, op.calls[0], None)] if len(op.calls) == 1 else []
        for site, op_index, call, rows in sites:
            if call.function not in table:
                continue
            names, handler = table[call.function]
            if len(names) != len(call.args):
                continue
            yield site, Call(op_index, call, {n: by_arg[a] for n, a in zip(names, call.args)}, program,
                             extension, list(names), rows), handler
