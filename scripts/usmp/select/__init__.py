"""Kernel selection: after lowering (and tiling), swap portable kernel calls for faster ones.

The lowering always produces portable calls. For a CPU with the DSP
extension and `--kernels auto|cmsis-nn`, select_kernels rewrites the int8
calls CMSIS-NN computes exactly as TFLite Micro does (cmsis_nn.py decides
per call and shape) into calls of small glue functions, adds the constants
and scratch they need as ordinary buffers for the planner, drops the
buffers only the portable calls used, and records which CMSIS-NN sources a
build must compile (Program.external_kernels). Everything it cannot do stays
portable; fused depth-first steps (tiling) stay portable as a whole.

On DSP cores USMP's own kernels (kernels/dsp/, dsp.py decides) take the calls
they compute faster, with `--kernels auto` (CMSIS-NN, if known, for the rest)
or `usmp` (the portable kernels for the rest); they need no CMSIS-NN.
"""
from __future__ import annotations

import os

import numpy as np

from usmp.errors import UsmpError
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, ExternalKernels, KernelCall, LoweredOp, Program
from usmp.paths import KERNELS_DIR
from usmp.select.cmsis_nn import REWRITES, NewBuffer, Rewrite, portable_calls
from usmp.select.cmsis_nn_sources import cmsis_nn_root, known_root, sources_for
from usmp.select.cpus import CPUS, GENERIC, KERNEL_CHOICES, cpu_extension
from usmp.select.dsp import DSP_HEADER, DSP_SOURCES, OPTIMIZE_CHOICES, select_dsp_kernels

GLUE_SOURCE = KERNELS_DIR / "cmsis_nn" / "cmsis_nn_glue.c"

__all__ = ["CPUS", "GENERIC", "KERNEL_CHOICES", "OPTIMIZE_CHOICES", "select_kernels", "selects_fast_kernels"]


def select_kernels(program: Program, cpu: str = GENERIC, kernels: str = "auto",
                   cmsis_nn: str | os.PathLike | None = None, optimize: str = "balanced") -> Program:
    """The program with USMP's DSP kernels and CMSIS-NN calls where `kernels` and the CPU allow them (in place,
    and returned)."""
    extension = cpu_extension(cpu)
    if kernels not in KERNEL_CHOICES:
        raise UsmpError(f"unknown --kernels '{kernels}' (known: {', '.join(KERNEL_CHOICES)})")
    if optimize not in OPTIMIZE_CHOICES:
        raise UsmpError(f"unknown --optimize '{optimize}' (known: {', '.join(OPTIMIZE_CHOICES)})")
    if kernels == "portable":
        return program
    root = None
    if kernels != "usmp":
        root = cmsis_nn_root(cmsis_nn) if kernels == "cmsis-nn" else known_root(cmsis_nn)
    own = select_dsp_kernels(program, extension, optimize, root is not None) if kernels in ("auto", "usmp") else {}
    if (root is None or extension is None) and not own:  # plain cores run the portable kernels faster
        return program
    called: set[str] = set()
    rewritten = 0
    for position, rewrite in own.items():
        program.ops[position] = _apply(program, program.ops[position], rewrite)
    for position, call, rewrite_fn in portable_calls(program, REWRITES if root is not None else {}, extension):
        rewrite = rewrite_fn(call)
        if rewrite is not None:
            program.ops[position] = _apply(program, call.op, rewrite)
            called.update(rewrite.cmsis_functions)
            rewritten += 1
    if rewritten or own:  # also when only USMP's own kernels in the glue were chosen
        _drop_unused(program)
        program.external_kernels = _external(cpu, root if rewritten else None, called, rewritten, len(own))
    return program


def _external(cpu: str, root, called: set[str], rewritten: int, own: int) -> ExternalKernels:
    """What the build adds: CMSIS-NN's sources the program reaches and its glue, and the DSP kernels."""
    glue = [GLUE_SOURCE] if root is not None else []
    glue += list(DSP_SOURCES) if own else []
    if root is None:
        return ExternalKernels("usmp-dsp", cpu, [], [], glue, 0, DSP_HEADER, own)
    return ExternalKernels("cmsis-nn", cpu, [root / "Include"], list(sources_for(root, called)), glue, rewritten,
                           own_operators=own)


def selects_fast_kernels(cpu: str = GENERIC, kernels: str = "auto", cmsis_nn: str | os.PathLike | None = None) -> bool:
    """Whether select_kernels may rewrite calls for this core (without checking a given path again)."""
    extension = cpu_extension(cpu)
    if kernels == "portable" or extension is None:
        return False
    if kernels == "usmp" or (kernels == "auto" and extension == "dsp"):
        return extension == "dsp"
    return kernels == "cmsis-nn" or known_root(cmsis_nn) is not None


def _apply(program: Program, op: LoweredOp, rewrite: Rewrite) -> LoweredOp:
    args: list[Arg] = []
    names: list[str] = []
    for name, buffer, writable in rewrite.args:
        if isinstance(buffer, NewBuffer):
            buffer = _add_buffer(program, op, buffer)
        existing = next((a for a in args if a.buffer == buffer), None)
        if existing is not None:  # in place: one pointer for input and output, as the lowering had it
            existing.writable = existing.writable or writable
            names.append(existing.name)
            continue
        args.append(Arg(name, buffer, writable))
        names.append(name)
    call = KernelCall(rewrite.function, rewrite.params_type, rewrite.params, names)
    return LoweredOp(op.op_index, op.opcode, args, [call])


def _add_buffer(program: Program, op: LoweredOp, new: NewBuffer) -> str:
    name, n = f"op{op.op_index}_{new.what}", 1
    while name in program.buffers:
        n += 1
        name = f"op{op.op_index}_{new.what}#{n}"
    kind = "scratch" if new.data is None else "constant"
    program.buffers[name] = Buffer(name, kind, max(new.size, 1), MIN_ALIGNMENT, new.c_type, data=new.data)
    return name


def _drop_unused(program: Program) -> None:
    """Constants and scratch that only the replaced portable calls used are no longer planned."""
    used = {a.buffer for op in program.ops + program.init_ops for a in op.args}
    for name in [n for n, b in program.buffers.items() if b.kind in ("constant", "scratch") and n not in used]:
        del program.buffers[name]
