"""Kernel selection: after lowering (and tiling), swap portable kernel calls for faster ones.

The lowering always produces portable calls. For a CPU with the DSP
extension and `--kernels auto|cmsis-nn`, select_kernels rewrites the int8
calls CMSIS-NN computes exactly as TFLite Micro does (cmsis_nn.py decides
per call and shape) into calls of small glue functions, adds the constants
and scratch they need as ordinary buffers for the planner, drops the
buffers only the portable calls used, and records which CMSIS-NN sources a
build must compile (Program.external_kernels). Everything it cannot do stays
portable. The links of a depth-first chain (tiling) get the kernel their
operator would get whole, when that kernel can run a band.

On DSP cores USMP's own kernels (kernels/dsp/, dsp.py decides) take the calls
they compute faster, and on Helium cores USMP's Helium kernels (kernels/helium/,
helium.py: int8), with `--kernels auto` (CMSIS-NN, if known, for the rest) or
`usmp` (the portable kernels for the rest); they need no CMSIS-NN. So do the
float32 kernels on cores with an FPU (kernels/fpu/, fpu.py decides).
"""
from __future__ import annotations

import os

import numpy as np

from usmp.errors import UsmpError
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, ExternalKernels, KernelCall, LoweredOp, Program
from usmp.paths import KERNELS_DIR
from usmp.select.cmsis_nn import REWRITES, NewBuffer, Rewrite, Site, portable_calls
from usmp.select.cmsis_nn_sources import cmsis_nn_root, known_root, sources_for
from usmp.select.cpus import CPUS, GENERIC, KERNEL_CHOICES, cpu_extension, float_unit
from usmp.select.dsp import CANDIDATES, DSP_HEADER, DSP_SOURCES, OPTIMIZE_CHOICES, select_dsp_kernels
from usmp.select.fpu import FAMILIES as FLOAT_FAMILIES
from usmp.select.fpu import REWRITES as FLOAT_REWRITES
from usmp.select.fpu import select_float_kernels
from usmp.select.helium import CANDIDATES as HELIUM_CANDIDATES
from usmp.select.helium import HELIUM_HEADER, HELIUM_SOURCES, select_helium_kernels
from usmp.tiling.band_fields import runs_bands
from usmp.tiling.loop import BandLoop

GLUE_SOURCE = KERNELS_DIR / "cmsis_nn" / "cmsis_nn_glue.c"
OWN_KERNELS = ("dsp", "mve")  # the extensions USMP has kernels of its own for (kernels/dsp/, kernels/helium/)

__all__ = ["CPUS", "GENERIC", "KERNEL_CHOICES", "OPTIMIZE_CHOICES", "missed_fast_kernels", "preview_kernels",
           "select_kernels",
           "selects_fast_kernels"]


def select_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                   cmsis_nn: str | os.PathLike | None = None, optimize: str = "balanced") -> Program:
    """The program with USMP's DSP kernels and CMSIS-NN calls where `kernels` and the CPU allow them (in place,
    and returned)."""
    extension = cpu_extension(cpu)
    root = _root(kernels, optimize, cmsis_nn)
    if kernels == "portable":
        return program
    own = _own_kernels(program, cpu, kernels, optimize, root is not None)
    if (root is None or extension is None) and not own:  # plain cores run the portable kernels faster
        return program
    by_family: dict[str, set[tuple[int, int]]] = {"own": set(), "cmsis-nn": set()}  # (position, op index)
    called: set[str] = set()
    own_sources: set = set()
    for site, rewrite in own.items():
        by_family["own"].add(_place(program, site, rewrite))
        own_sources.update(_own_sources(rewrite.function))
    for site, call, rewrite_fn in portable_calls(program, REWRITES if root is not None else {}, extension):
        rewrite = rewrite_fn(call)
        if rewrite is None or (site.link is not None and not runs_bands(rewrite.params_type)):
            continue
        by_family["cmsis-nn"].add(_place(program, site, rewrite, call.names))
        called.update(rewrite.cmsis_functions)
    for loop in program.ops:
        if isinstance(loop, BandLoop):
            used = {a for call in loop.calls for a in call.args}
            loop.args = [a for a in loop.args if a.name in used]
    rewritten, mine = len(by_family["cmsis-nn"]), len(by_family["own"])
    if rewritten or mine:  # also when only USMP's own kernels were chosen
        _drop_unused(program)
        program.external_kernels = _external(cpu, root if rewritten else None, called, rewritten, mine,
                                             sorted(own_sources))
    return program


def _own_kernels(program: Program, cpu: str, kernels: str, optimize: str, cmsis_nn: bool) -> dict:
    """Site -> rewrite into USMP's own kernels for the core: the DSP or Helium kernels' int8 and the float
    kernels."""
    if kernels not in ("auto", "usmp"):
        return {}
    extension = cpu_extension(cpu)
    if extension == "mve":
        own = select_helium_kernels(program, extension, cmsis_nn)
    else:
        own = select_dsp_kernels(program, extension, optimize, cmsis_nn)
    own.update(select_float_kernels(program, float_unit(cpu)))
    return own


def _own_sources(function: str) -> tuple:
    """The sources of USMP's own kernel family a rewritten call reaches."""
    family = next((f for f in FLOAT_FAMILIES.values() if function.startswith(f"{f.prefix}_") and
                   function.endswith("_f32")), None)
    if family is not None:
        return family.sources
    return HELIUM_SOURCES if function.startswith("usmp_helium_") else DSP_SOURCES


def missed_fast_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                        cmsis_nn: str | os.PathLike | None = None) -> int:
    """How many operators run the portable kernels only because CMSIS-NN was not found: the calls still portable
    after selection that CMSIS-NN would take on this core with `--kernels auto` (0 when it is found or not wanted;
    a depth-first loop's links count one by one)."""
    extension = cpu_extension(cpu)
    if kernels != "auto" or extension is None or known_root(cmsis_nn) is not None:
        return 0
    missed = set()
    for site, call, rewrite_fn in portable_calls(program, REWRITES, extension):
        rewrite = rewrite_fn(call)
        if rewrite is not None and (site.link is None or runs_bands(rewrite.params_type)):
            op = program.ops[site.position]
            missed.add((site.position, op.op_index if site.link is None else op.links[site.link].op_index))
    return len(missed)


def _root(kernels: str, optimize: str, cmsis_nn: str | os.PathLike | None):
    """CMSIS-NN's directory where `kernels` may call it (None: not known, or not asked for)."""
    if kernels not in KERNEL_CHOICES:
        raise UsmpError(f"unknown --kernels '{kernels}' (known: {', '.join(KERNEL_CHOICES)})")
    if optimize not in OPTIMIZE_CHOICES:
        raise UsmpError(f"unknown --optimize '{optimize}' (known: {', '.join(OPTIMIZE_CHOICES)})")
    if kernels in ("portable", "usmp"):
        return None
    return cmsis_nn_root(cmsis_nn) if kernels == "cmsis-nn" else known_root(cmsis_nn)


def _place(program: Program, site: Site, rewrite: Rewrite, names: list[str] | None = None) -> tuple[int, int]:
    """Put the rewritten call where the portable one was; (position, operator index) of the operator it runs."""
    op = program.ops[site.position]
    if site.link is None:
        program.ops[site.position] = _apply(program, op, rewrite)
        return site.position, op.op_index
    call = op.calls[site.call]
    link = op.links[site.link]
    names = names or list(next(table[call.function][0] for table in (REWRITES, CANDIDATES, HELIUM_CANDIDATES,
                                                                     FLOAT_REWRITES) if call.function in table))
    op.calls[site.call] = _apply_in_loop(program, op, site.link, link.op_index, call, tuple(names), rewrite)
    return site.position, link.op_index


def _external(cpu: str, root, called: set[str], rewritten: int, own: int, own_sources: list) -> ExternalKernels:
    """What the build adds: CMSIS-NN's sources the program reaches and its glue, and USMP's own kernels."""
    glue = [GLUE_SOURCE] if root is not None else []
    glue += own_sources
    if root is None:
        if any(s in HELIUM_SOURCES for s in own_sources):
            return ExternalKernels("usmp-helium", cpu, [], [], glue, 0, HELIUM_HEADER, own)
        family = "usmp-dsp" if any(s in DSP_SOURCES for s in own_sources) else "usmp-float"
        return ExternalKernels(family, cpu, [], [], glue, 0, DSP_HEADER, own)
    return ExternalKernels("cmsis-nn", cpu, [root / "Include"], list(sources_for(root, called)), glue, rewritten,
                           own_operators=own)


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
    extension = cpu_extension(cpu)
    if not selects_fast_kernels(cpu, kernels, cmsis_nn):
        return {}
    root = _root(kernels, optimize, cmsis_nn)
    chosen = {}
    own = _own_kernels(program, cpu, kernels, optimize, root is not None)
    for site, rewrite in own.items():
        chosen[program.ops[site.position].op_index] = _preview(rewrite)
    for site, call, rewrite_fn in portable_calls(program, REWRITES if root is not None else {}, extension):
        if call.op_index not in chosen:
            rewrite = rewrite_fn(call)
            if rewrite is not None:
                chosen[call.op_index] = _preview(rewrite)
    return chosen


def _preview(rewrite: Rewrite) -> KernelCall:
    """The call with its scratch bytes among the params (the tiling pass sizes a loop's shared scratch)."""
    scratch = sum(b.size for _, b, _ in rewrite.args if isinstance(b, NewBuffer) and b.data is None)
    return KernelCall(rewrite.function, rewrite.params_type, dict(rewrite.params, scratch=scratch), [])


def selects_fast_kernels(cpu: str = GENERIC, kernels: str = "auto", cmsis_nn: str | os.PathLike | None = None) -> bool:
    """Whether select_kernels may rewrite calls for this core (without checking a given path again)."""
    extension = cpu_extension(cpu)
    if kernels in ("auto", "usmp") and float_unit(cpu) is not None:  # USMP's float kernels
        return True
    if kernels == "portable" or extension is None:
        return False
    if kernels == "usmp" or (kernels == "auto" and extension in OWN_KERNELS):
        return extension in OWN_KERNELS
    return kernels == "cmsis-nn" or known_root(cmsis_nn) is not None


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
    program.buffers[name] = Buffer(name, kind, max(new.size, 1), MIN_ALIGNMENT, new.c_type, data=new.data,
                                   per_call=new.data is None)
    return name


def _drop_unused(program: Program) -> None:
    """Constants and scratch that only the replaced portable calls used are no longer planned."""
    used = {a.buffer for op in program.ops + program.init_ops for a in op.args}
    for name in [n for n, b in program.buffers.items() if b.kind in ("constant", "scratch") and n not in used]:
        del program.buffers[name]
