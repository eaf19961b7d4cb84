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
"""
from __future__ import annotations

import os

import numpy as np

from usmp.errors import UsmpError
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, ExternalKernels, KernelCall, LoweredOp, Program
from usmp.paths import KERNELS_DIR
from usmp.select.cmsis_nn import REWRITES, Call, NewBuffer, Rewrite
from usmp.select.cmsis_nn_sources import cmsis_nn_root, known_root, sources_for
from usmp.select.cpus import CPUS, GENERIC, KERNEL_CHOICES, cpu_extension
from usmp.tiling.band_fields import runs_bands
from usmp.tiling.loop import BandLoop

GLUE_SOURCE = KERNELS_DIR / "cmsis_nn" / "cmsis_nn_glue.c"

__all__ = ["CPUS", "GENERIC", "KERNEL_CHOICES", "missed_fast_kernels", "preview_kernels", "select_kernels",
           "selects_fast_kernels"]


def select_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                   cmsis_nn: str | os.PathLike | None = None) -> Program:
    """The program with CMSIS-NN calls where `kernels` and the CPU allow them (in place, and returned)."""
    extension = cpu_extension(cpu)
    if kernels not in KERNEL_CHOICES:
        raise UsmpError(f"unknown --kernels '{kernels}' (known: {', '.join(KERNEL_CHOICES)})")
    if kernels == "portable":
        return program
    root = cmsis_nn_root(cmsis_nn) if kernels == "cmsis-nn" else known_root(cmsis_nn)
    if root is None or extension is None:  # plain cores run the portable kernels faster than CMSIS-NN's C
        return program
    called: set[str] = set()
    rewritten = 0
    for position, op in enumerate(program.ops):
        if isinstance(op, BandLoop):
            count = _select_in_loop(program, op, extension, called)
        else:
            count = _select_op(program, position, op, extension, called)
        rewritten += count
    if rewritten:  # also when only USMP's own kernels in the glue were chosen
        _drop_unused(program)
        program.external_kernels = ExternalKernels(
            "cmsis-nn", cpu, [root / "Include"], list(sources_for(root, called)), [GLUE_SOURCE], rewritten)
    return program


def missed_fast_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                        cmsis_nn: str | os.PathLike | None = None) -> int:
    """How many operators run the portable kernels only because CMSIS-NN was not found: those select_kernels
    would have rewritten on this core with `--kernels auto` (0 when CMSIS-NN is found or not wanted)."""
    extension = cpu_extension(cpu)
    if kernels != "auto" or extension is None or known_root(cmsis_nn) is not None:
        return 0
    missed = 0
    for op in program.ops:
        by_arg = {a.name: a.buffer for a in op.args}
        if isinstance(op, BandLoop):  # a loop's links, as _select_in_loop sees them
            groups = [(link.op_index, [op.calls[k] for k in link.calls]) for link in op.links]
        else:
            groups = [(op.op_index, op.calls if len(op.calls) == 1 else [])]
        missed += sum(any(_rewrite_for(program, index, call, by_arg, extension) is not None for call in calls)
                      for index, calls in groups)
    return missed


def _rewrite_for(program: Program, op_index: int, call: KernelCall, by_arg: dict[str, str],
                 extension: str) -> tuple[tuple[str, ...], Rewrite] | None:
    """The rewrite of one portable call, with the call's parameter names, or None to leave it portable."""
    if call.function not in REWRITES:
        return None
    names, rewrite_fn = REWRITES[call.function]
    if len(names) != len(call.args):
        return None
    rewrite = rewrite_fn(Call(op_index, call, {n: by_arg[a] for n, a in zip(names, call.args)}, program, extension))
    return (names, rewrite) if rewrite is not None else None


def _select_op(program: Program, position: int, op: LoweredOp, extension: str, called: set[str]) -> int:
    if len(op.calls) != 1:
        return 0
    found = _rewrite_for(program, op.op_index, op.calls[0], {a.name: a.buffer for a in op.args}, extension)
    if found is None:
        return 0
    program.ops[position] = _apply(program, op, found[1])
    called.update(found[1].cmsis_functions)
    return 1


def _select_in_loop(program: Program, loop: BandLoop, extension: str, called: set[str]) -> int:
    """The calls of a depth-first chain's links, each as it would be chosen whole: the loop runs the chosen
    kernel a band at a time, so only kernels that can (tiling/band_fields.py) are taken."""
    operators = 0
    for j, link in enumerate(loop.links):
        taken = False
        for k in link.calls:
            call = loop.calls[k]
            found = _rewrite_for(program, link.op_index, call, {a.name: a.buffer for a in loop.args}, extension)
            if found is None or not runs_bands(found[1].params_type):
                continue
            names, rewrite = found
            loop.calls[k] = _apply_in_loop(program, loop, j, link.op_index, call, names, rewrite)
            called.update(rewrite.cmsis_functions)
            taken = True
        operators += taken
    used = {a for call in loop.calls for a in call.args}
    loop.args = [a for a in loop.args if a.name in used]
    return operators


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
                    cmsis_nn: str | os.PathLike | None = None) -> dict[int, KernelCall]:
    """The call each single-call operator would get, by operator index, without changing the program: what the
    tiling pass costs its chains with (a kernel that cannot run a band is not taken in a chain's loop)."""
    extension = cpu_extension(cpu)
    if not selects_fast_kernels(cpu, kernels, cmsis_nn) or extension is None:
        return {}
    chosen = {}
    for op in program.ops:
        if len(op.calls) != 1:
            continue
        found = _rewrite_for(program, op.op_index, op.calls[0], {a.name: a.buffer for a in op.args}, extension)
        if found is not None:
            rewrite = found[1]
            scratch = sum(b.size for _, b, _ in rewrite.args if isinstance(b, NewBuffer) and b.data is None)
            chosen[op.op_index] = KernelCall(rewrite.function, rewrite.params_type, dict(rewrite.params, scratch=scratch),
                                             [])
    return chosen


def selects_fast_kernels(cpu: str = GENERIC, kernels: str = "auto", cmsis_nn: str | os.PathLike | None = None) -> bool:
    """Whether select_kernels may rewrite calls for this core (without checking a given path again)."""
    if kernels == "portable" or cpu_extension(cpu) is None:
        return False
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
