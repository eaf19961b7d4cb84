"""Kernel selection: after lowering (and tiling), swap portable kernel calls for faster ones.

The lowering always produces portable calls. Faster kernels come in families,
each described as data in its own module (family.Family): its name, the --kernels
choice that asks for it alone ("usmp": USMP's own kernels, "cmsis-nn"), the cores
it runs on (by cpus.cpu_extension: "dsp", "mve", None for plain cores, or by
cpus.float_unit: "fpu", "mve-f") and whether it needs CMSIS-NN, the number
types it serves, the sources a
build compiles and the header the generated code includes when the program
calls it, and a table: portable kernel -> (its parameter names, a handler).
A handler reads one portable call (family.Call: params and buffers) and
returns a family.Offer (the Rewrite that replaces it, with the constants and
scratch it adds, and its estimated instructions on the core), or a one-line
reason why it leaves the call (a string; None: nothing more to say).

For every portable call (an operator's one call, and every link of a
depth-first loop, which runs its kernel a band at a time: an offer whose
kernel cannot run a band is dropped there) select_kernels asks each family
that applies (the core, --kernels, CMSIS-NN found) and takes the cheapest
offer among those within the kernels' stack budget (KERNEL_STACK_BUDGET: an
offer may say how many bytes of stack it takes); a family's `settle` then
decides for the whole program among the calls it won (USMP's DSP kernels
widen filters within a budget on their constants: --optimize). Everything no family takes stays portable: program.portable_steps
names each such operator and why, from the families' tables and reasons
(fallbacks.py), for the compile notice, `usmp check --cpu`, the plan and the
report page (never silently slow).

To add a family: write select/<family>.py with a FAMILY (its table of handlers,
costs measured on the emulated cores), put its kernels in kernels/<family>/
(declared in a header usmp_kernels.h includes) and list FAMILY in FAMILIES
below. Nothing else changes: the tiling pass costs chains on the same choices
(preview_kernels), the runner builds the sources of the families a program calls.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from usmp.errors import UsmpError
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, ExternalKernels, KernelCall, LoweredOp, Program
from usmp.select import cmsis_nn_family, dsp_family, fpu, helium, scalar
from usmp.select.cmsis_nn_sources import cmsis_nn_root, known_root, sources_for
from usmp.select.cpus import CPUS, GENERIC, KERNEL_CHOICES, cpu_extension, float_unit
from usmp.select.dsp import OPTIMIZE_CHOICES
from usmp.select.fallbacks import portable_steps
from usmp.select.family import Call, Family, NewBuffer, Offer, Rewrite, Site, portable_calls
from usmp.tiling.band_fields import runs_bands
from usmp.tiling.loop import BandLoop

# The stack a kernel call may take below run(): one inference within 256 B (issue 33) beside run()'s own
# frame (48-56 B on the DSP cores' models). An offer known to take more (Offer.stack) wins only where none fits.
KERNEL_STACK_BUDGET = 200

# Every kernel family, in the order that breaks a tie between equal offers.
FAMILIES: tuple[Family, ...] = (dsp_family.FAMILY, helium.FAMILY, cmsis_nn_family.FAMILY, fpu.FPU_FAMILY,
                                fpu.HELIUM_F32_FAMILY, *scalar.FAMILIES)

__all__ = ["CPUS", "FAMILIES", "GENERIC", "KERNEL_CHOICES", "OPTIMIZE_CHOICES", "Selection", "preview_kernels",
           "select_kernels", "selects_fast_kernels"]


@dataclass
class Choice:
    """The offer a call takes: the family, the call (its parameter names) and the offer."""

    family: Family
    call: Call
    offer: Offer


@dataclass
class Selection:
    """What the selection decided, site by site: the chosen family, or why each family left the call."""

    chosen: dict[Site, Choice] = field(default_factory=dict)
    declined: dict[Site, list[tuple[Family, str | None]]] = field(default_factory=dict)


def active_families(cpu: str, kernels: str, cmsis_nn_found: bool) -> list[Family]:
    """The families select_kernels asks on this core with this --kernels (CMSIS-NN's only where it is found)."""
    extension, unit = cpu_extension(cpu), float_unit(cpu)
    if kernels == "portable":
        return []
    return [f for f in FAMILIES if f.runs_on(extension, unit, cpu) and (kernels == "auto" or f.kernels == kernels)
            and (cmsis_nn_found or not f.cmsis_nn)]


def choose(program: Program, families: list[Family], extension: str | None) -> Selection:
    """Every portable call some family knows, with the cheapest offer (sites in program order)."""
    selection = Selection()
    for family in families:
        for site, call, handler in portable_calls(program, family.table, extension):
            offer = handler(call)
            if isinstance(offer, Offer) and site.link is not None and not runs_bands(offer.rewrite.params_type):
                offer = f"{offer.rewrite.function} cannot run a band of a depth-first loop"
            if not isinstance(offer, Offer):
                selection.declined.setdefault(site, []).append((family, offer))
            elif site not in selection.chosen or _rank(offer) < _rank(selection.chosen[site].offer):
                selection.chosen[site] = Choice(family, call, offer)
    order = sorted(selection.chosen, key=lambda s: (s.position, -1 if s.link is None else s.link, s.call or 0))
    selection.chosen = {site: selection.chosen[site] for site in order}
    return selection


def _rank(offer: Offer) -> tuple[bool, float]:
    """Offers within the kernels' stack budget first (one not known to exceed it is within), then the cheapest."""
    return offer.stack is not None and offer.stack > KERNEL_STACK_BUDGET, offer.cost


def _settled(selection: Selection, program: Program, optimize: str) -> dict[Site, tuple[Choice, Rewrite]]:
    """Each chosen site's final rewrite: a family's settle decides for all the calls it won at once."""
    final = {site: (choice, choice.offer.rewrite) for site, choice in selection.chosen.items()}
    for family in FAMILIES:
        won = {site: choice.offer for site, choice in selection.chosen.items() if choice.family is family}
        if family.settle is not None and won:
            for site, rewrite in family.settle(won, program, optimize).items():
                final[site] = (final[site][0], rewrite)
    return final


def select_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                   cmsis_nn: str | os.PathLike | None = None, optimize: str = "balanced") -> Program:
    """The program with the kernel families' calls where `kernels` and the CPU allow them (in place, and
    returned), and program.portable_steps: what a core with fast kernel families still runs portable, and why."""
    extension, unit = cpu_extension(cpu), float_unit(cpu)
    root = _root(kernels, optimize, cmsis_nn)
    families = active_families(cpu, kernels, root is not None)
    selection = choose(program, families, extension)
    final = _settled(selection, program, optimize)
    operators: dict[str, set[tuple[int, int]]] = {}  # family name -> (position, op index)
    called: set[str] = set()
    sources: dict = {}  # the sources the rewrites need beyond their families', in order
    for family in FAMILIES:  # each family's calls in program order (the buffers they add are named in that order)
        for site, (choice, rewrite) in final.items():
            if choice.family is family:
                operators.setdefault(family.name, set()).add(_place(program, site, rewrite, choice.call.names))
                called.update(rewrite.cmsis_functions)
                sources.update(dict.fromkeys(rewrite.sources))
    for loop in program.ops:
        if families and isinstance(loop, BandLoop):
            used = {a for call in loop.calls for a in call.args}
            loop.args = [a for a in loop.args if a.name in used]
    if operators:
        _drop_unused(program)
        used = [f for f in FAMILIES if f.name in operators]
        program.external_kernels = _external(cpu, used, root, called, operators, list(sources))
    on_core = [f for f in FAMILIES if f.runs_on(extension, unit)]
    if on_core:
        program.portable_steps = portable_steps(program, on_core, families, selection.declined,
                                                {(site.position, site.link) for site in final}, kernels)
    return program


def _root(kernels: str, optimize: str, cmsis_nn: str | os.PathLike | None):
    """CMSIS-NN's directory where `kernels` may call it (None: not known, or not asked for)."""
    if kernels not in KERNEL_CHOICES:
        raise UsmpError(f"unknown --kernels '{kernels}' (known: {', '.join(KERNEL_CHOICES)})")
    if optimize not in OPTIMIZE_CHOICES:
        raise UsmpError(f"unknown --optimize '{optimize}' (known: {', '.join(OPTIMIZE_CHOICES)})")
    if kernels in ("portable", "usmp"):
        return None
    return cmsis_nn_root(cmsis_nn) if kernels == "cmsis-nn" else known_root(cmsis_nn)


def _place(program: Program, site: Site, rewrite: Rewrite, names: list[str]) -> tuple[int, int]:
    """Put the rewritten call where the portable one was; (position, operator index) of the operator it runs."""
    op = program.ops[site.position]
    if site.link is None:
        program.ops[site.position] = _apply(program, op, rewrite)
        return site.position, op.op_index
    call = op.calls[site.call]
    link = op.links[site.link]
    op.calls[site.call] = _apply_in_loop(program, op, site.link, link.op_index, call, tuple(names), rewrite)
    return site.position, link.op_index


def _external(cpu: str, used: list[Family], root, called: set[str], operators: dict[str, set],
              extra: list) -> ExternalKernels:
    """What the build adds: the sources of the families the program calls (an external library's glue first)
    and those its calls need besides, and CMSIS-NN's sources it reaches."""
    used = sorted(used, key=lambda f: not f.cmsis_nn)
    glue = [path for f in used for path in f.sources]
    glue += [path for path in extra if path not in glue]
    external = next((f for f in used if f.cmsis_nn), None)
    counts = {f.cmsis_nn: 0 for f in used}
    for f in used:
        counts[f.cmsis_nn] += len(operators[f.name])
    if external is None:
        return ExternalKernels(used[0].key, cpu, [], [], glue, 0, used[0].header, counts[False])
    return ExternalKernels(external.key, cpu, [root / "Include"], list(sources_for(root, called)), glue,
                           counts[True], external.header, counts.get(False, 0))


def _apply_in_loop(program: Program, loop: BandLoop, link: int, op_index: int, call: KernelCall,
                   names: tuple[str, ...], rewrite: Rewrite) -> KernelCall:
    """The chosen call inside the loop: an argument keeps its name where its buffer is the one the portable call
    had in that role (the loop offsets row inputs and outputs by name); new buffers get new arguments."""
    old = dict(zip(names, call.args))
    buffer_of = {a.name: a.buffer for a in loop.args}
    args = []
    for role, buffer, writable in rewrite.args:
        if isinstance(buffer, NewBuffer):
            buffer = _add_buffer(program, op_index, buffer)
        if role in old and buffer_of[old[role]] == buffer:
            args.append(old[role])
            continue
        name, n = f"l{link}_{role}", 1
        while name in buffer_of:
            n += 1
            name = f"l{link}_{role}{n}"
        loop.args.append(Arg(name, buffer, writable))
        buffer_of[name] = buffer
        args.append(name)
    return KernelCall(rewrite.function, rewrite.params_type, rewrite.params, args)


def preview_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                    cmsis_nn: str | os.PathLike | None = None, optimize: str = "balanced") -> dict[int, KernelCall]:
    """The call each single-call operator would get, by operator index, without changing the program: what the
    tiling pass costs its chains with (a kernel that cannot run a band is not taken in a chain's loop)."""
    if not selects_fast_kernels(cpu, kernels, cmsis_nn):
        return {}
    root = _root(kernels, optimize, cmsis_nn)
    families = active_families(cpu, kernels, root is not None)
    final = _settled(choose(program, families, cpu_extension(cpu)), program, optimize)
    return {choice.call.op_index: _preview(rewrite) for choice, rewrite in final.values()}


def _preview(rewrite: Rewrite) -> KernelCall:
    """The call with its scratch bytes among the params (the tiling pass sizes a loop's shared scratch)."""
    scratch = sum(b.size for _, b, _ in rewrite.args if isinstance(b, NewBuffer) and b.data is None)
    return KernelCall(rewrite.function, rewrite.params_type, dict(rewrite.params, scratch=scratch), [])


def selects_fast_kernels(cpu: str = GENERIC, kernels: str = "auto", cmsis_nn: str | os.PathLike | None = None) -> bool:
    """Whether select_kernels may rewrite calls for this core (without checking a given path again)."""
    if kernels not in KERNEL_CHOICES:
        return False
    found = kernels == "cmsis-nn" or known_root(cmsis_nn) is not None  # cmsis-nn without it: an error later
    return bool(active_families(cpu, kernels, found))


def _apply(program: Program, op: LoweredOp, rewrite: Rewrite) -> LoweredOp:
    args: list[Arg] = []
    names: list[str] = []
    for name, buffer, writable in rewrite.args:
        if isinstance(buffer, NewBuffer):
            buffer = _add_buffer(program, op.op_index, buffer)
        existing = next((a for a in args if a.buffer == buffer), None)
        if existing is not None:  # in place: one pointer for input and output, as the lowering had it
            existing.writable = existing.writable or writable
            names.append(existing.name)
            continue
        args.append(Arg(name, buffer, writable))
        names.append(name)
    call = KernelCall(rewrite.function, rewrite.params_type, rewrite.params, names)
    return LoweredOp(op.op_index, op.opcode, args, [call])


def _add_buffer(program: Program, op_index: int, new: NewBuffer) -> str:
    name, n = f"op{op_index}_{new.what}", 1
    while name in program.buffers:
        n += 1
        name = f"op{op_index}_{new.what}#{n}"
    kind = "scratch" if new.data is None else "constant"
    program.buffers[name] = Buffer(name, kind, max(new.size, 1), MIN_ALIGNMENT, new.c_type,
                                   data=new.data, per_call=new.data is None)
    return name


def _drop_unused(program: Program) -> None:
    """Constants and scratch that only the replaced portable calls used are no longer planned."""
    used = {a.buffer for op in program.ops + program.init_ops for a in op.args}
    for name in [n for n, b in program.buffers.items() if b.kind in ("constant", "scratch") and n not in used]:
        del program.buffers[name]
