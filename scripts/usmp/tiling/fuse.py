"""Fuse a region (region.py) into one band loop (loop.py), with a band buffer for every intermediate tensor.

The fused operator's arguments are the region's whole inputs and output, the
constants and scratch of its links (renamed l<link>_<name>) and one band
buffer per link but the last, sized by the rows the loop keeps in it
(band_rows.py). The intermediate tensors disappear from the program: the
planner sees the small band buffers in their place.
"""
from __future__ import annotations

from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, KernelCall, Program
from usmp.tiling.band_rows import BandRows, LinkSummary
from usmp.tiling.geometry import row_elements
from usmp.tiling.loop import BandLink, BandLoop, RowPointer, TilingChoice
from usmp.tiling.region import Region, region_at
from usmp.tiling.state import with_loop_state


def region_of(program: Program, positions: list[int]) -> Region:
    region = region_at(program, positions)
    if region is None:
        raise ValueError(f"operators at {positions} cannot go depth-first together")
    return region


def band_name(program: Program, positions: list[int], link: int) -> str:
    return f"op{program.ops[positions[0]].op_index}_band{link}"


def _aligned(n: int) -> int:
    return (n + MIN_ALIGNMENT - 1) // MIN_ALIGNMENT * MIN_ALIGNMENT


def fuse(program: Program, positions: list[int], band: int, strategy: str = "sliding",
         pointer: int = 8) -> tuple[BandLoop, dict[str, Buffer]]:
    """The band loop for the region at `positions`, and its band buffers and state (state.py: for `pointer`-byte
    pointers and the portable kernels' parameters, until the kernel selection has chosen)."""
    region = region_of(program, positions)
    links, last = region.links, len(region.links) - 1
    rows = region.band_rows(band, strategy)
    summary = rows.summary()
    bands = [band_name(program, positions, i) for i in range(last)]
    args: list[Arg] = []
    before: list[KernelCall] = []  # run once before the loop
    after: list[KernelCall] = []  # and once after it
    per_link: list[list[KernelCall]] = []
    loop_links: list[BandLink] = []
    buffers: dict[str, Buffer] = {}
    for j, link in enumerate(links):
        names: dict[str, str] = {}
        sources = []
        for a, p in zip(link.inputs, region.producers[j]):
            if p is not None:
                sources.append(bands[p])
            else:
                sources.append(_whole(args, names, j, a, region.buffer(j, a), writable=False))
        for a in link.op.args:  # constants and scratch keep their buffers under the link's prefix
            if a.name not in link.inputs and a.name != link.output:
                _whole(args, names, j, a.name, a.buffer, a.writable)
        if j < last:
            target = bands[j]
            out = program.buffers[region.buffer(j, link.output)]
            buffers[target] = Buffer(target, "scratch", _aligned(summary[j].held * link.row("out")
                                                                 * region.element_bytes[j]),
                                     max(out.alignment, MIN_ALIGNMENT), out.c_type)
            args.append(Arg(target, target, True))
        elif link.output in link.inputs and region.producers[j][link.inputs.index(link.output)] is None:
            target = sources[link.inputs.index(link.output)]  # in place over a whole input: that buffer is the output
            next(a for a in args if a.name == target).writable = True
        else:
            target = _whole(args, names, j, link.output, region.buffer(j, link.output), writable=True)
        if link.tail:
            acc = f"op{links[0].op.op_index}_acc"
            per_link.append([_tail(link.tail, sources[0], target, names, args, buffers, j, acc, before, after)])
        else:
            per_link.append(link.loop_calls(sources, target, names))
        pointers = {s: RowPointer(f"in_row[{k}]", link.row_in(k)) for k, s in reversed(list(enumerate(sources)))}
        if link.tail:
            pointers.update({a: RowPointer("first", n) for a, n in link.tail.row_pointers(names).items()})
        else:
            pointers.setdefault(target, RowPointer("out_row", link.row("out")))
        loop_links.append(BandLink(
            link.op.op_index, link.op.opcode, rows.links[j][1], link.params["out_h"], rows.shares[j],
            link.row("out") * region.element_bytes[j], link.params["out_w"], link.row("out"),
            target if j < last else None, [], pointers))
    calls = list(before)
    for link, link_calls in zip(loop_links, per_link):
        link.calls = list(range(len(calls), len(calls) + len(link_calls)))
        calls.extend(link_calls)
    choice = choice_for(program, positions, region, rows, summary, strategy)
    choice.band_buffers = bands
    loop = BandLoop(links[0].op.op_index, f"DEPTH_FIRST_{links[0].op.opcode}_X{len(links)}", args,
                    calls + after, loop_links, band, strategy, list(range(len(before))),
                    list(range(len(calls), len(calls) + len(after))), choice)
    loop, state = with_loop_state(program, loop, pointer)
    buffers[state.name] = state
    return loop, buffers


def _whole(args: list[Arg], names: dict[str, str], link: int, name: str, buffer: str, writable: bool) -> str:
    fused = f"l{link}_{name}"
    names[name] = fused
    if not any(a.name == fused for a in args):
        args.append(Arg(fused, buffer, writable))
    return fused


def _tail(tail, source: str, target: str, names: dict[str, str], args: list[Arg], buffers: dict[str, Buffer],
          link: int, acc_buffer: str, before: list[KernelCall], after: list[KernelCall]) -> KernelCall:
    """A link reading every row, ending the chain: its accumulators set before the loop, fed each band,
    finished after it."""
    scratch = None
    if tail.scratch_bytes:
        scratch = f"l{link}_acc"
        buffers[acc_buffer] = Buffer(acc_buffer, "scratch", tail.scratch_bytes, MIN_ALIGNMENT, tail.scratch_type)
        args.append(Arg(scratch, acc_buffer, True))
    acc = tail.accumulator(names, scratch)
    before.extend(tail.start(acc, names))
    after.extend(tail.finish(acc, target, names))
    return tail.band(source, acc, names)


def choice_for(program: Program, positions: list[int], region: Region, rows: BandRows, summary: list[LinkSummary],
               strategy: str) -> TilingChoice:
    """What the chain saves, for the reports."""
    whole = band_bytes = extra = total = 0
    for i, link in enumerate(region.links):
        p = link.params
        total += p["out_h"]
        extra += summary[i].computed - p["out_h"]
        if i + 1 < len(region.links):
            row = row_elements(p, "out") * region.element_bytes[i]
            whole += row * p["out_h"]
            band_bytes += _aligned(row * summary[i].held)
    return TilingChoice([program.ops[k].op_index for k in positions], rows.band, whole, band_bytes, extra, total,
                        strategy, rows.bands)
