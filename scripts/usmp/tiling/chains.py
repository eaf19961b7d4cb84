"""The tiling pass: fuse runs of operators into one depth-first step.

A run (a region, region.py) of convolutions, depthwise convolutions, pools,
element-wise joins and a final reduction computes its output `band` rows at
a time. Each intermediate tensor becomes a band buffer (scratch) holding the
rows its consumers read: either recomputed where bands overlap (the halo) or
kept from band to band as a sliding window (schedule.py). Only the run's
inputs and output exist whole, so the planner sees small scratch buffers in
place of whole intermediate tensors; it stays generic.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

from usmp.analysis.liveness import live_intervals
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, KernelCall, LoweredOp, Program
from usmp.tiling.geometry import row_elements
from usmp.tiling.links import WINDOW_KERNELS, link_of, window_call
from usmp.tiling.overlay import overlay_output
from usmp.tiling.region import Region, buffer_users, region_at
from usmp.tiling.schedule import (STRATEGIES, Compute, Move, chain_schedule, computed_rows, held_rows, moved_rows,
                                  moves)

__all__ = ["WINDOW_KERNELS", "TilingChoice", "DepthFirstOp", "find_chains", "tile_program", "window_call"]


@dataclass
class TilingChoice:
    """One fused chain: its operators, band height and the bytes it saves (for reports)."""

    op_indices: list[int]
    band: int  # output rows of the chain's last operator per band
    whole_bytes: int  # intermediate tensors, whole
    band_bytes: int  # their band buffers
    extra_rows: int  # output rows computed more than once (recompute cost)
    total_rows: int  # output rows of the chain's operators untiled
    strategy: str = "recompute"  # or "sliding": rows kept from band to band (schedule.py)
    bands: int = 1  # times the chain's last link runs
    band_buffers: list[str] = field(default_factory=list)


@dataclass
class DepthFirstOp(LoweredOp):
    """A fused chain: one step of the schedule, band after band; `choice` is for the reports."""

    choice: TilingChoice | None = None

    def report(self) -> dict:
        c = self.choice
        return {"operators": c.op_indices, "band_rows": c.band, "whole_bytes": c.whole_bytes,
                "band_bytes": c.band_bytes, "recomputed_rows": c.extra_rows, "rows": c.total_rows,
                "strategy": c.strategy, "bands": c.bands, "band_buffers": c.band_buffers}


def find_chains(program: Program) -> list[list[int]]:
    """Maximal runs of positions in program.ops whose operators are all links (sub-runs are tried as regions).

    A run ends at an operator that is no link; a reduction ends the run it closes.
    """
    runs: list[list[int]] = []
    current: list[int] = []
    for k, op in enumerate(program.ops):
        if link_of(program, op) is not None:
            current.append(k)
            continue
        if current and region_at(program, current[-1:] + [k]) is not None:
            current.append(k)  # a reduction of the last link's output ends the run
        if len(current) >= 2:
            runs.append(current)
        current = []
    if len(current) >= 2:
        runs.append(current)
    return runs


def _region(program: Program, positions: list[int]) -> Region:
    region = region_at(program, positions)
    if region is None:
        raise ValueError(f"operators at {positions} cannot go depth-first together")
    return region


def _row_params(program: Program, positions: list[int]) -> tuple[list[dict], object]:
    """Each link's row geometry as the band schedule reads it (tests use it to pick band heights)."""
    region = _region(program, positions)
    return region.params, region.links[-1].tail


def _schedule(region: Region, band: int, strategy: str) -> list[Compute | Move]:
    return chain_schedule(region.params, region.producers, band, strategy)


def plan_chain(program: Program, positions: list[int], band: int, strategy: str = "recompute") -> TilingChoice:
    region = _region(program, positions)
    steps = _schedule(region, band, strategy)
    whole = band_bytes = extra = total = 0
    for i, p in enumerate(region.params):
        total += p["out_h"]
        extra += computed_rows(steps, i) - p["out_h"]
        if i + 1 < len(region.links):
            row = row_elements(p, "out") * region.element_bytes[i]
            whole += row * p["out_h"]
            band_bytes += _aligned(row * held_rows(steps, i))
    last_runs = sum(1 for s in steps if isinstance(s, Compute) and s.link == len(region.links) - 1)
    names = [_band_name(program, positions, i) for i in range(len(region.links) - 1)]
    return TilingChoice([program.ops[k].op_index for k in positions], band, whole, band_bytes, extra, total, strategy,
                        last_runs, names)


def _band_name(program: Program, positions: list[int], i: int) -> str:
    return f"op{program.ops[positions[0]].op_index}_band{i}"


def _aligned(n: int) -> int:
    return (n + MIN_ALIGNMENT - 1) // MIN_ALIGNMENT * MIN_ALIGNMENT


def fuse_chain(program: Program, positions: list[int], band: int,
               strategy: str = "recompute") -> tuple[LoweredOp, dict[str, Buffer]]:
    """The depth-first step for the region at `positions`, and its band buffers."""
    region = _region(program, positions)
    links, last = region.links, len(region.links) - 1
    args: list[Arg] = []
    renamed: list[dict[str, str]] = []
    for j, link in enumerate(links):
        internal = {a for a, p in zip(link.inputs, region.producers[j]) if p is not None}
        if j < last:
            internal.add(link.output)  # a band buffer replaces the intermediate tensor
        internal -= {a for a, p in zip(link.inputs, region.producers[j]) if p is None}  # whole inputs stay
        names = {}
        for a in link.op.args:
            if a.name not in internal:
                names[a.name] = f"l{j}_{a.name}"
                args.append(Arg(names[a.name], a.buffer, a.writable))
        renamed.append(names)
    output = renamed[last].get(links[last].output)
    if output is None:  # written in place over an input that is now a band buffer: the buffer stays, as the output
        output = f"l{last}_output"
        args.append(Arg(output, region.buffer(last, links[last].output), True))
    steps = _schedule(region, band, strategy)
    buffers: dict[str, Buffer] = {}
    band_names = []
    for i, link in enumerate(links[:-1]):
        out = program.buffers[region.buffer(i, link.output)]
        name = _band_name(program, positions, i)
        buffers[name] = Buffer(name, "scratch", held_rows(steps, i) * link.row("out") * region.element_bytes[i],
                               max(out.alignment, MIN_ALIGNMENT), out.c_type)
        band_names.append(name)
        args.append(Arg(name, name, True))
    new_calls = []
    tail = links[-1].tail
    if tail:
        acc = None
        if tail.needs_accumulator:
            acc = f"op{links[0].op.op_index}_acc"
            buffers[acc] = Buffer(acc, "scratch", 4 * tail.channels, MIN_ALIGNMENT,
                                  "int32_t" if tail.suffix == "s8" else "float")
            args.append(Arg(acc, acc, True))
        acc = tail.accumulator(renamed[-1], acc)
        new_calls.append(tail.start(acc))
    for step in steps:
        i, link = step.link, links[step.link]
        if isinstance(step, Move):
            row = link.row("out")
            new_calls.append(_move_rows(band_names[i], step.source * row, step.rows * row, region.element_bytes[i]))
            continue
        sources = []
        for a, p, (rows_in, top) in zip(link.inputs, region.producers[i], step.reads):
            origin = renamed[i][a] if p is None else band_names[p]
            sources.append(_offset(origin, (rows_in.first - top) * link.row("in")))
        if tail and i == last:
            new_calls.append(tail.band(sources[0], step.out.count, acc))
            continue
        target = band_names[i] if i < last else output
        target = _offset(target, (step.out.first - step.out_top) * link.row("out"))
        new_calls.extend(link.band_calls(sources, renamed[i], target, step.out, step.reads[0][0]))
    if tail:
        new_calls.extend(tail.finish(acc, output))
    opcode = f"DEPTH_FIRST_{links[0].op.opcode}_X{len(links)}"
    choice = plan_chain(program, positions, band, strategy)
    return DepthFirstOp(links[0].op.op_index, opcode, args, new_calls, choice), buffers


def _move_rows(buffer: str, source: int, elements: int, element_bytes: int) -> KernelCall:
    """Copy `elements` from `source` up to the top of a band buffer (overlapping: a forward copy)."""
    count = elements * element_bytes
    words = count % 4 == 0 and source * element_bytes % 4 == 0  # band buffers are word aligned
    return KernelCall("usmp_move_words" if words else "usmp_move_bytes", "usmp_move_params",
                      dict(count=count // 4 if words else count), [_offset(buffer, source), buffer])


def _offset(pointer: str, elements: int) -> str:
    return f"{pointer} + {elements}" if elements else pointer


def step_profile(program: Program, workspace_io: bool = False) -> list[int]:
    """Live workspace bytes at each step, highest first."""
    live = [0] * max(len(program.ops), 1)
    kinds = ("tensor", "scratch", "input", "output") if workspace_io else ("tensor", "scratch")
    for name, (first, last) in live_intervals(program).items():
        if program.buffers[name].kind in kinds:
            for step in range(first, last + 1):
                live[step] += program.buffers[name].size
    return sorted(live, reverse=True)


MAX_LINKS = {"recompute": 6,  # longer chains recompute too much halo to pay off
             "sliding": 12}  # bounds the search; a sliding chain repeats no work however long
# `auto` spends at most this share of the estimated window work on recomputation: 10 % less a margin,
# as the estimate runs low (person_detect: 9.9 % estimated was 10.8 % measured on the Cortex-M3).
AUTO_EXTRA = 0.08


def tile_program(program: Program, mode: str, workspace_io: bool = False) -> tuple[Program, list[TilingChoice]]:
    """The program with chains fused, greedily where each lowers the live-bytes profile most.

    The profile (live workspace bytes per step, highest first) is compared
    as a whole, so that two steps sharing the peak can be lowered one after
    the other. Each candidate chain and band height is costed both ways,
    recomputing halos or sliding them (schedule.py). "max" takes any cost;
    "auto" keeps the added instructions (the cost model) within AUTO_EXTRA
    of the model's window work. A result whose peak is not lower is dropped.
    """
    if mode == "off":
        return program, []
    original = program
    peak = partial(step_profile, workspace_io=workspace_io)
    budget = AUTO_EXTRA * sum(_work(c.params, c.params["out_h"]) for op in program.ops
                              if (c := window_call(op))) if mode == "auto" else float("inf")
    choices: list[TilingChoice] = []
    while True:
        baseline = peak(program)
        best = None
        users = buffer_users(program)
        for run in find_chains(program):
            for i in range(len(run) - 1):
                for j in range(i + 2, min(len(run), i + MAX_LINKS["sliding"]) + 1):
                    region = region_at(program, run[i:j], users)
                    if region is None:
                        continue
                    for strategy in STRATEGIES:
                        if j - i > MAX_LINKS[strategy] or (strategy == "recompute" and not region.is_plain_chain):
                            continue
                        for band in _band_heights(region.params[-1]["out_h"]):
                            cost = _extra_work(region, band, strategy)
                            if cost > budget:
                                continue
                            value = peak(_apply(program, run[i:j], band, strategy, workspace_io))
                            key = (value, cost)
                            if value < baseline and (best is None or key < best[0]):
                                best = (key, run[i:j], band, strategy)
        if best is None:
            if not choices or peak(program)[0] >= peak(original)[0]:
                return original, []
            return program, choices
        (_, cost), positions, band, strategy = best
        budget -= cost
        choices.append(plan_chain(program, positions, band, strategy))
        program = _apply(program, positions, band, strategy, workspace_io)


def _band_heights(out_h: int) -> list[int]:
    heights, h = [], 1
    while h < out_h:
        heights.append(h)
        h *= 2
    return heights


# Cortex-M0 instructions, roughly: per multiply-accumulate (load, load, multiply, add), per output
# element (requantize, clamp, store) and per kernel call (setup, border walks).
MAC_COST, ELEMENT_COST, CALL_COST = 4, 80, 300
# per byte a sliding buffer keeps: a word copy's load, store and loop (a byte copy's is four times that)
MOVE_COST = 2


def _work(params: dict, rows: int) -> int:
    """The cost model's instructions for `rows` output rows of one window operator."""
    taps = params["filter_h"] * params["filter_w"] * params.get("filter_in_ch", 1)
    return rows * row_elements(params, "out") * (MAC_COST * taps + ELEMENT_COST)


def _extra_work(region: Region, band: int, strategy: str = "recompute") -> int:
    """The cost model's added instructions: recomputed rows, rows moved, and the extra kernel calls."""
    steps = _schedule(region, band, strategy)
    extra = CALL_COST * (sum(1 for s in steps if isinstance(s, Compute)) - len(region.links))
    for i, p in enumerate(region.params):
        extra += _work(p, computed_rows(steps, i) - p["out_h"])
        if i + 1 < len(region.links):
            row_bytes = row_elements(p, "out") * region.element_bytes[i]
            extra += moved_rows(steps, i) * row_bytes * MOVE_COST + CALL_COST * moves(steps, i)
    return extra


def _apply(program: Program, positions: list[int], band: int, strategy: str = "recompute",
           workspace_io: bool = False) -> Program:
    """The program with one region fused (positions after it shift); with the model's I/O in the workspace,
    its output overwrites the input rows it has consumed where that is safe (overlay.py)."""
    fused, band_buffers = fuse_chain(program, positions, band, strategy)
    region = _region(program, positions)
    kept = {a.buffer for a in fused.args} | {a.buffer for k, op in enumerate(program.ops)
                                             if k not in positions for a in op.args}
    dropped = {region.buffer(i, link.output) for i, link in enumerate(region.links[:-1])} - kept
    ops = program.ops[:positions[0]] + [fused] + program.ops[positions[-1] + 1:]
    buffers = {n: b for n, b in program.buffers.items() if n not in dropped}
    buffers.update(band_buffers)
    fused_program = replace(program, ops=ops, buffers=buffers)
    if workspace_io:
        return overlay_output(fused_program, region, _schedule(region, band, strategy), positions[0])
    return fused_program
