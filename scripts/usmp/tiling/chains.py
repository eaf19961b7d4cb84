"""The tiling pass: chains of operators fused into loops over bands of rows (depth-first execution).

search.py chooses the chains and their band heights, fuse.py makes each a
loop (loop.py), overlay.py lets its output take the rows of an input it has
consumed. A chain (a region, region.py) of convolutions, depthwise
convolutions, pools, padding, element-wise joins and a final reduction or
fully connected layer computes its output `band` rows at a time; each
intermediate tensor becomes a band buffer (scratch) holding the rows its
consumers read: kept from band to band, or recomputed where bands overlap
(band_rows.py). Only the chain's inputs and output exist whole, so the
planner sees small scratch buffers in place of whole intermediate tensors;
it stays generic.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from usmp.analysis.liveness import live_intervals
from usmp.lower.program import Program
from usmp.tiling.fuse import fuse, region_of
from usmp.tiling.links import WINDOW_KERNELS, window_call
from usmp.tiling.loop import BandLoop, TilingChoice
from usmp.tiling.overlay import overlay_output
from usmp.tiling.region import buffer_users
from usmp.tiling.search import ChainSearch, link_runs

__all__ = ["WINDOW_KERNELS", "BandLoop", "TilingChoice", "find_chains", "tile_program", "window_call"]


def find_chains(program: Program) -> list[list[int]]:
    """Maximal runs of positions in program.ops whose operators are all links (sub-runs are tried as regions)."""
    return link_runs(program, buffer_users(program))


def step_profile(program: Program, workspace_io: bool = False) -> list[int]:
    """Live workspace bytes at each step, highest first."""
    live = [0] * max(len(program.ops), 1)
    kinds = ("tensor", "scratch", "input", "output") if workspace_io else ("tensor", "scratch")
    for name, (first, last) in live_intervals(program).items():
        if program.buffers[name].kind in kinds and program.buffers[name].inside is None:  # else in its host's bytes
            for step in range(first, last + 1):
                live[step] += program.buffers[name].size
    return sorted(live, reverse=True)


DEFAULT_BUDGET = 5.0  # per cent: `auto` adds at most this many instructions to the whole-tensor program's


def tile_program(program: Program, mode: str, workspace_io: bool = False, kernels: dict | None = None,
                 extension: str | None = None, budget: float = DEFAULT_BUDGET,
                 pointer: int = 8) -> tuple[Program, list[TilingChoice]]:
    """The program with the chains search.py chooses fused into band loops.

    `kernels` are the calls the selection pass will make in place of the
    portable ones (select.preview_kernels) and `extension` the core's, so that
    the instructions a loop adds are counted on them; `pointer` the bytes of the
    core's pointers, which the loops' state holds. "max" takes any cost;
    "auto" keeps the estimate within `budget` per cent of the whole program.
    A result whose peak is not lower than the program's is dropped.
    """
    if mode == "off":
        return program, []
    search = ChainSearch(program, kernels or {}, extension, workspace_io, pointer)
    limit = float("inf") if mode == "max" else budget / 100 * search.whole_work()
    chosen = search.choose(limit)
    tiled, shift = program, 0
    for c in chosen:  # in program order, so that an output overlaid on its input may take the next one's output too
        tiled = _apply(tiled, [k - shift for k in c.positions], c.band, c.strategy, workspace_io, c.overlay, pointer)
        shift += len(c.positions) - 1
    peak = partial(step_profile, workspace_io=workspace_io)
    if not chosen or peak(tiled)[0] >= peak(program)[0]:
        return program, []
    whole = search.whole_work()
    choices = []
    for c, op in zip(chosen, [op for op in tiled.ops if isinstance(op, BandLoop)]):
        op.choice.extra_instructions, op.choice.whole_instructions = round(c.cost), round(whole)
        choices.append(op.choice)
    return tiled, choices


def _apply(program: Program, positions: list[int], band: int, strategy: str = "sliding",
           workspace_io: bool = False, overlay: bool = True, pointer: int = 8) -> Program:
    """The program with one region fused (positions after it shift); with `overlay`, its output overwrites the
    rows of an input it has consumed where that is safe (overlay.py)."""
    fused, band_buffers = fuse(program, positions, band, strategy, pointer)
    region = region_of(program, positions)
    kept = {a.buffer for a in fused.args} | {a.buffer for k, op in enumerate(program.ops)
                                             if k not in positions for a in op.args}
    dropped = {region.buffer(i, link.output) for i, link in enumerate(region.links[:-1])} - kept
    ops = program.ops[:positions[0]] + [fused] + program.ops[positions[-1] + 1:]
    buffers = {n: b for n, b in program.buffers.items() if n not in dropped}
    buffers.update(band_buffers)
    fused_program = replace(program, ops=ops, buffers=buffers)
    return overlay_output(fused_program, region, fused, positions[0], workspace_io) if overlay else fused_program
