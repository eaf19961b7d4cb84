"""A depth-first run's output may overwrite the rows of a whole input it has consumed.

A tensor the run alone reads is read top to bottom, band by band; rows it
will never read again are free. When every row of the run's output is written
only over input bytes no later band reads, the output can live inside the
input's buffer, as an in-place operator's does, and the planner needs no
separate place for it. Where the writes run ahead of the reads (a 3x3
depthwise convolution reads the row below the one it writes; an output row
wider than the input's outruns it), the output starts that many bytes (the
lag) before the input: one buffer of the output's size or the input's plus
the lag, the input at the lag inside it. This is TinyEngine's in-place
depthwise convolution for row-major tensors, and more: any chain whose first
link reads the input. A model input qualifies when it lives in the workspace
(--workspace-io: the application writes it before every run anyway).
"""
from __future__ import annotations

from dataclasses import replace

from usmp.lower.program import MIN_ALIGNMENT, Arg, LoweredOp, Program
from usmp.planner.indexed import round_up
from usmp.tiling.links import ELEMENT_BYTES
from usmp.tiling.band_rows import BandRows
from usmp.tiling.loop import BandLoop
from usmp.tiling.region import Region, buffer_users


def overlay_output(program: Program, region: Region, loop: BandLoop, fused_at: int, workspace_io: bool) -> Program:
    """`program` (with the region fused at position `fused_at`) with the run's output inside the input it consumes,
    when that saves bytes; otherwise unchanged."""
    found = overlay_source(program, region, loop.rows, buffer_users(program), {fused_at}, workspace_io)
    if found is None:
        return program
    source, lag = found
    output = region.buffer(len(region.links) - 1, region.links[-1].output)
    return _merge(program, output, source) if lag == 0 else _nest(program, output, source, lag)


def overlay_source(program: Program, region: Region, rows: BandRows, users: dict[str, list[int]],
                   region_steps: set[int], workspace_io: bool) -> tuple[str, int] | None:
    """The whole input of the region whose consumed rows can hold its output, and the lag (bytes the output
    starts before it), or None: of those that qualify, the one saving the most bytes.

    It must be read by the region alone (`region_steps` are its positions),
    be a tensor of the same element type (a model input only when it lives in
    the workspace), and every output row must land behind the last read of
    the input bytes under it, once the input starts `lag` bytes later."""
    last = len(region.links) - 1
    if region.links[last].tail:
        return None  # a reduction's output is a few bytes, written after the last band
    output = region.buffer(last, region.links[last].output)
    if program.buffers[output].kind != "tensor" or len(program.buffers[output].tensors) > 1:
        return None  # a model output, or a view shared with other tensors
    kinds = ("tensor", "input") if workspace_io else ("tensor",)
    sources = sorted({region.buffer(i, a) for i, link in enumerate(region.links)
                      for a, p in zip(link.inputs, region.producers[i]) if p is None})
    best = None
    for source in sources:
        buffer = program.buffers[source]
        if buffer.kind not in kinds or buffer.c_type != program.buffers[output].c_type or source == output:
            continue
        if buffer.inside is not None or any(k > max(region_steps) for k in users.get(source, [])):
            continue  # inside another buffer already, or read after the region too
        lag = round_up(_lag(region, rows, source, program), max(buffer.alignment, MIN_ALIGNMENT))
        if lag and any(b.inside is not None and b.inside[0] == source for b in program.buffers.values()):
            continue  # it holds an earlier run's input further on: a lag would add to that one's, live throughout
        saved = overlay_saving(program.buffers[source].size, program.buffers[output].size, lag)
        if saved > 0 and (best is None or saved > best[0]):
            best = (saved, source, lag)
    return None if best is None else (best[1], best[2])


def overlay_saving(source: int, output: int, lag: int) -> int:
    """Bytes one buffer holding both saves against two: the output at 0, the input at `lag`."""
    return source + output - max(output, lag + source)


def _lag(region: Region, rows: BandRows, source: str, program: Program) -> int:
    """The fewest bytes the output must start before the input so that every output byte is written after the
    last read of the input bytes under it (0: it fits over the input as it is)."""
    last = len(region.links) - 1
    in_bytes = ELEMENT_BYTES[program.buffers[source].c_type]
    out_row = region.links[last].row("out") * region.element_bytes[last]
    reads = [[(rows.links[j][1][k], region.links[j].row_in(k) * in_bytes)
              for k, (a, p) in enumerate(zip(region.links[j].inputs, region.producers[j]))
              if p is None and region.buffer(j, a) == source] for j in range(len(region.links))]
    events = []  # in the order the loop runs: (True, end byte written) or (False, first byte still read)
    for bands, times, change in rows.walk():
        for repeat in _ends(times) if change else (0,):
            for steps, _ in bands:
                for j, step in enumerate(steps):
                    if step is None:
                        continue
                    first = step.first + (repeat * change[j] if change else 0)
                    if j == last:  # a kernel reads its inputs while it writes: its own reads count as later
                        events.append((True, (first + step.count) * out_row))
                    events += [(False, edge.first_read(first) * row_bytes) for edge, row_bytes in reads[j]]
    lag, later = 0, None  # later: the least byte read from here on
    for is_write, at in reversed(events):
        if not is_write:
            later = at if later is None else min(later, at)
        elif later is not None:
            lag = max(lag, at - later)
    return lag


def _ends(times: int) -> list[int]:
    """The repetitions of a steady stretch of bands the check must look at: the first two and the last two.

    Across the stretch every row a band writes or reads moves on by the same number per repetition (no tensor
    edge is near), so how far a write overtakes the least later read is, per repetition, the largest of
    linear functions of it: convex, so at its largest at the first or the last. The least read after the
    first repetition's writes is in the second repetition or the last; the last's come after the stretch."""
    return sorted({r for r in (1, 2, times - 1, times) if 1 <= r <= times})


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


def _nest(program: Program, output: str, source: str, lag: int) -> Program:
    """The input stored `lag` bytes into the output's buffer, which grows to hold it: the output's rows trail the
    reads. The output's buffer is planned; the input lives inside it (Buffer.inside), so the planner keeps it
    live over both (analysis/liveness.py)."""
    out, into = program.buffers[output], program.buffers[source]
    buffers = dict(program.buffers)
    buffers[output] = replace(out, size=max(out.size, lag + into.size), alignment=max(into.alignment, out.alignment))
    buffers[source] = replace(into, inside=(output, lag))
    return replace(program, buffers=buffers)
