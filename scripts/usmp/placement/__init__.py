"""Placement by demand: a pass between the analysis and the planner that says which pool each buffer prefers.

When pools of one kind differ in speed (`--pool ...:wait=N`), the buffers read and written most per byte
and step of their lives get the fastest pools (rank.py, pure: it sees only the planner's BufferInfos,
each buffer's accesses and each pool's limit and wait). The accesses are known at compile time from
each kernel's loops (access.py: data beside each kernel family, kernels/<family>/access.yaml;
estimate.py adds them up over the program). Constants are ranked first; a hot one left in a slow pool
may then be copied into a faster pool's spare room, at start-up or each inference just before its readers,
and an input or output an I/O engine needs in a slow pool copied each run into a faster one (copies.py),
each copy ranked with the workspace buffers.
`--placement order` keeps the user's pool order instead.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from usmp.analysis import buffer_infos
from usmp.analysis.liveness import check_insiders
from usmp.lower.program import Program
from usmp.placement.copies import (add_io_copies, add_staged_copies, add_startup_copies, copy_name, copy_offers,
                                   io_copy_name, io_copy_offers, staged_name)
from usmp.placement.estimate import program_accesses
from usmp.placement.rank import PoolSpeed, assign_pools, order_candidates, ranks_anything, steps_of
from usmp.planner.problem import BufferInfo
from usmp.pools import PoolSpec

PLACEMENTS = ("demand", "order")


@dataclass
class DemandReport:
    """What the pass did, for the plan JSON and reports."""

    ranked: bool = False  # whether any buffer had pools of different speeds to choose from
    accesses: dict[str, float] = field(default_factory=dict)  # estimated accesses per planned buffer
    unmodelled: list[str] = field(default_factory=list)  # kernels with the default access model
    copies: dict[str, str] = field(default_factory=dict)  # constant -> the pool its start-up copy was given
    io_copies: dict[str, str] = field(default_factory=dict)  # input or output -> the pool of its copy
    staged: dict[str, str] = field(default_factory=dict)  # constant -> the pool of its copy made each inference


COPIES = ("start-up", "staged")  # the kinds of copies of constants place_by_demand may offer


def place_by_demand(program: Program, buffers: list[BufferInfo], pools: list[PoolSpec], extension: str | None,
                    workspace_io: bool = False,
                    copies: str | None = "start-up") -> tuple[Program, list[BufferInfo], DemandReport]:
    """The program (with any copies that pay), its buffers with their candidate pools ranked by demand, and
    what the ranking knew. copies: which copies of constants to offer, "start-up" (made once, live
    throughout), "staged" (made each inference before their readers, live while they run) or None (I/O
    copies are made anyway: the caller asked for I/O engines). One kind at a time: a constant offered both
    would have both ranked for the same bytes."""
    speeds = {p.name: PoolSpeed(p.name, p.size_limit, p.wait) for p in pools}
    if not ranks_anything(buffers, speeds):
        return program, buffers, DemandReport()
    estimate = program_accesses(program, extension)
    accesses = {b.name: estimate.of(b.name).total for b in buffers}
    steps = steps_of(buffers)
    constants = [b for b in buffers if program.buffers[b.name].kind == "constant"]
    given = assign_pools(constants, speeds, accesses, steps)
    offers = copy_offers(program, buffers, given, pools, accesses, steps) if copies == "start-up" else []
    staged_offered = copy_offers(program, buffers, given, pools, accesses, steps, staged=True) \
        if copies == "staged" else []
    io_offers = io_copy_offers(program, buffers, pools, accesses)
    every_offer = [*offers, *staged_offered, *io_offers]
    for offer in every_offer:
        accesses[offer.info.name] = accesses[offer.source]
    rest = [b for b in buffers if program.buffers[b.name].kind != "constant"]
    extra = {o.stay.name: o.stay for o in every_offer}
    copies_offered = with_conflicts([o.info for o in every_offer], rest)
    given.update(assign_pools(rest + copies_offered, {**speeds, **extra}, accesses, steps))
    copied = {o.source: given[o.info.name] for o in offers if given.get(o.info.name) in speeds}
    staged = {o.source: given[o.info.name] for o in staged_offered if given.get(o.info.name) in speeds}
    home = {b.name: given.get(b.name, b.pool_candidates[0]) for b in buffers}
    io_copied = {o.source: given[o.info.name] for o in io_offers if given.get(o.info.name) in speeds
                 and speeds[given[o.info.name]].wait < speeds[home[o.source]].wait}
    if copied or staged or io_copied:
        program = add_startup_copies(program, list(copied))
        program = add_io_copies(add_staged_copies(program, list(staged)), list(io_copied))
        buffers = buffer_infos(program, pools, workspace_io)
        check_insiders(program, buffers)
        estimate = program_accesses(program, extension)
        given.update({copy_name(c): pool for c, pool in copied.items()})
        given.update({staged_name(c): pool for c, pool in staged.items()})
        given.update({io_copy_name(n): pool for n, pool in io_copied.items()})
    ranked = order_candidates(buffers, given, speeds)
    report = DemandReport(True, {b.name: estimate.of(b.name).total for b in buffers}, estimate.unmodelled, copied,
                          io_copied, staged)
    return program, ranked, report


def with_conflicts(offered: list[BufferInfo], workspace: list[BufferInfo]) -> list[BufferInfo]:
    """Offered copies with the buffers they would share memory with: those live at a step they are."""
    def overlap(a: BufferInfo, b: BufferInfo) -> bool:
        return a.live[0] <= b.live[1] and b.live[0] <= a.live[1]

    return [replace(o, conflicts=frozenset(b.name for b in [*workspace, *offered]
                                           if b is not o and b.live is not None and overlap(o, b)))
            for o in offered]


def estimated_wait_cycles(accesses: dict[str, float], placements: dict[str, tuple[str, int]],
                          pools: list[PoolSpec]) -> float:
    """Sum over the planned buffers of their estimated accesses times their pool's wait states."""
    waits = {p.name: p.wait for p in pools}
    return sum(accesses.get(name, 0.0) * waits[pool] for name, (pool, _) in placements.items())
