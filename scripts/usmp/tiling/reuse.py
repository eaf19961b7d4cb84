"""A chain's band buffers and scratch in the unused end of a consumed input's buffer.

When a chain's output overlays its input (overlay.py), the buffer keeps the
size of the larger tensor it ever held: a model input of 27,648 B holding a
first chain's 18,432 B output, then a second chain's 9,216 B one, has 9,216
B and then 18,432 B at its end that nothing reads. A chain reading such a
buffer for the last time owns those bytes while it runs: its band buffers
and its kernels' scratch go there, at fixed offsets (Buffer.inside), and the
planner never sees them. Which bytes are in use is known exactly: the tensor
the chain reads and the output it writes over it, from the buffer's start
(any later tensor of the buffer is written over that output, after the loop).
This runs after the kernel selection, whose scratch then fits there too.
"""
from __future__ import annotations

from dataclasses import replace

from usmp.lower.program import Program
from usmp.tiling.links import ELEMENT_BYTES
from usmp.tiling.loop import BandLoop


def fit(sizes: list[tuple[int, int]], start: int, end: int) -> list[int | None]:
    """Offsets in [start, end) for buffers of (size, alignment), largest first, one after another; None for a
    buffer that does not fit."""
    placed: list[int | None] = [None] * len(sizes)
    at = start
    for k in sorted(range(len(sizes)), key=lambda k: -sizes[k][0]):
        size, align = sizes[k]
        offset = -(-at // align) * align
        if offset + size <= end:
            placed[k] = offset
            at = offset + size
    return placed


def place_band_buffers(program: Program, workspace_io: bool) -> Program:
    """Every band loop's kernels' scratch in one buffer, and its scratch inside the input buffer it consumes
    with the most free bytes, where it fits."""
    for op in program.ops:
        if isinstance(op, BandLoop):
            program = _place(_share_kernel_scratch(program, op), op, workspace_io)
    return program


def _share_kernel_scratch(program: Program, loop: BandLoop) -> Program:
    """A loop's links call their kernels one after another, and a kernel's scratch (Buffer.per_call) holds
    nothing from one call to the next: all of them take the bytes of the largest."""
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


def _place(program: Program, loop: BandLoop, workspace_io: bool) -> Program:
    buffer_of = {a.name: a.buffer for a in loop.args}
    planned = ("tensor", "input") if workspace_io else ("tensor",)
    scratch = sorted({a.buffer for a in loop.args if program.buffers[a.buffer].kind == "scratch"
                      and program.buffers[a.buffer].inside is None})
    used: dict[str, int] = {}  # whole input buffer -> bytes of it the loop reads or writes
    for link in loop.links:
        for name, pointer in link.pointers.items():
            buffer = program.buffers[buffer_of[name]]
            if pointer.row.startswith("in_row"):
                edge = link.edges[int(pointer.row[len("in_row["):-1])]
                if edge.producer is None:
                    size = edge.rows * pointer.elements * ELEMENT_BYTES.get(buffer.c_type, 4)
                    used[buffer.name] = max(used.get(buffer.name, 0), size)
    output = buffer_of[_output_arg(loop)]
    if output in used:  # written over its input: from the buffer's start too
        used[output] = max(used[output], loop.links[-1].rows * loop.links[-1].row_bytes)
    best = None
    for source, start in sorted(used.items()):
        if program.buffers[source].kind not in planned:
            continue  # the application's memory, outside the pools
        offsets = fit([(program.buffers[b].size, program.buffers[b].alignment) for b in scratch], start,
                      program.buffers[source].size)
        taken = sum(program.buffers[b].size for b, o in zip(scratch, offsets) if o is not None)
        if taken and (best is None or taken > best[0]):
            best = (taken, source, offsets)
    if best is None:
        return program
    _, source, offsets = best
    buffers = dict(program.buffers)
    for name, offset in zip(scratch, offsets):
        if offset is not None:
            buffers[name] = replace(buffers[name], inside=(source, offset))
    return replace(program, buffers=buffers)


def _output_arg(loop: BandLoop) -> str:
    """The argument the loop's result goes to: the last link's output, or the last call after the loop's."""
    if loop.after:
        return loop.calls[loop.after[-1]].args[-1]
    return loop.calls[loop.links[-1].calls[-1]].args[-1]
