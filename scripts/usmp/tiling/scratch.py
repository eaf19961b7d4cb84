"""The kernels of a depth-first loop share one scratch buffer.

A loop's links call their kernels one after another, and a kernel's scratch
(Buffer.per_call: CMSIS-NN's im2col columns) holds nothing from one call to
the next, so all of them can take the bytes of the largest: one buffer for
the planner instead of one per link, all live at the loop's step. This runs
after the kernel selection, which adds that scratch.
"""
from __future__ import annotations

from dataclasses import replace

from usmp.lower.program import Program
from usmp.tiling.loop import BandLoop


def share_kernel_scratch(program: Program) -> Program:
    for op in program.ops:
        if isinstance(op, BandLoop):
            program = _share(program, op)
    return program


def _share(program: Program, loop: BandLoop) -> Program:
    scratch = sorted({a.buffer for a in loop.args if program.buffers[a.buffer].per_call
                      and program.buffers[a.buffer].inside is None}, key=lambda b: (-program.buffers[b].size, b))
    if len(scratch) < 2:
        return program
    host = scratch[0]
    buffers = dict(program.buffers)
    buffers[host] = replace(buffers[host], alignment=max(buffers[b].alignment for b in scratch))
    for name in scratch[1:]:
        buffers[name] = replace(buffers[name], inside=(host, 0))
    return replace(program, buffers=buffers)
