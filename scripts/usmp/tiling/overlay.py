"""With --workspace-io, a depth-first run's output may overwrite the rows of the model input it has consumed.

A model input in the workspace is read once, top to bottom, by the run that
starts from it; rows it will never read again are free. When every row of the
run's output is written only over input bytes no later band reads, the output
can live inside the input's buffer, as an in-place operator's does, and the
planner needs no separate place for it. (With --workspace-io the application
writes the input before every run anyway: the inference may overwrite it.)
"""
from __future__ import annotations

from dataclasses import replace

from usmp.lower.program import Arg, LoweredOp, Program
from usmp.tiling.links import ELEMENT_BYTES
from usmp.tiling.region import Region, buffer_users
from usmp.tiling.schedule import Compute, Move


def overlay_output(program: Program, region: Region, steps: list[Compute | Move], fused_at: int) -> Program:
    """`program` (with the region fused at position `fused_at`) with the run's output inside the input it consumes,
    when that is safe; otherwise unchanged."""
    last = len(region.links) - 1
    if region.links[last].tail:
        return program  # a reduction's output is a few bytes, written after the last band
    sources = {region.buffer(i, a) for i, link in enumerate(region.links)
               for a, p in zip(link.inputs, region.producers[i]) if p is None}
    inputs = [name for name in sources if program.buffers[name].kind == "input"]
    output = region.buffer(last, region.links[last].output)
    if len(inputs) != 1 or program.buffers[output].kind != "tensor":
        return program
    if program.buffers[inputs[0]].c_type != program.buffers[output].c_type:
        return program
    source = inputs[0]
    users = buffer_users(program)
    if any(k != fused_at for k in users.get(source, [])) or len(program.buffers[output].tensors) > 1:
        return program  # someone else reads the input, or the output is a view shared with other tensors
    if not _writes_behind_reads(region, steps, source, output, program):
        return program
    return _merge(program, output, source)


def _writes_behind_reads(region: Region, steps: list[Compute | Move], source: str, output: str,
                         program: Program) -> bool:
    """Every output byte is written after the last read of the input bytes under it."""
    last = len(region.links) - 1
    in_bytes = ELEMENT_BYTES[program.buffers[source].c_type]
    out_row = region.links[last].row("out") * region.element_bytes[last]
    reads = []  # (step, first input byte still read there)
    for k, step in enumerate(steps):
        if isinstance(step, Compute):
            link = region.links[step.link]
            for a, p, (rows, _) in zip(link.inputs, region.producers[step.link], step.reads):
                if p is None and region.buffer(step.link, a) == source:
                    reads.append((k, rows.first * link.row("in") * in_bytes))
    for k, step in enumerate(steps):
        if isinstance(step, Compute) and step.link == last:
            later = [first for j, first in reads if j >= k]
            if later and step.out.end * out_row > min(later):
                return False
    return True


def _merge(program: Program, output: str, source: str) -> Program:
    """The output tensor stored in the input's buffer, as in-place operators store theirs."""
    out, into = program.buffers[output], program.buffers[source]
    merged = replace(into, size=max(into.size, out.size), alignment=max(into.alignment, out.alignment),
                     tensors=into.tensors + out.tensors)
    buffers = {n: (merged if n == source else b) for n, b in program.buffers.items() if n != output}

    def renamed(op: LoweredOp) -> LoweredOp:
        if all(a.buffer != output for a in op.args):
            return op
        return replace(op, args=[Arg(a.name, source if a.buffer == output else a.buffer, a.writable) for a in op.args])

    return replace(program, ops=[renamed(op) for op in program.ops], buffers=buffers)
