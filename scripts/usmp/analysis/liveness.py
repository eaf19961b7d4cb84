"""Live intervals and conflicts of every buffer, from the schedule.

Step k is the k-th lowered operator (an IF or WHILE counts as the steps of its
blocks and copies, see usmp/control). A buffer is live from the first step
that touches it to the last; an operator's inputs, outputs and scratch are
live together at its step, so they never share memory. Model inputs are
live from the start and outputs until the end; constants, state and the
start-up copies of constants (kept from one inference to the next) always.
"""
from __future__ import annotations

from usmp.analysis.profiles import byte_profiles
from usmp.analysis.scopes import buffer_targets, candidate_pools, pool_kind
from usmp.control.flow import expanded_steps
from usmp.errors import PlanError
from usmp.lower.program import Buffer, Program
from usmp.planner.problem import BufferInfo
from usmp.pools import PoolSpec


def live_intervals(program: Program) -> dict[str, tuple[int, int]]:
    schedule = expanded_steps(program)  # IF and WHILE unrolled into their blocks' steps (usmp/control)
    last_step = max(len(schedule) - 1, 0)
    steps: dict[str, list[int]] = {name: [] for name in program.buffers}
    for step, args in enumerate(schedule):
        for arg in args:
            steps[arg.buffer].append(step)
    intervals = {}
    for name, buffer in program.buffers.items():
        used = steps[name] or [0]
        first, last = min(used), max(used)
        if buffer.kind in ("input", "constant", "state", "copy"):
            first = 0
        if buffer.kind in ("output", "constant", "state", "copy"):
            last = last_step
        intervals[name] = (first, last)
    for name, buffer in program.buffers.items():  # a buffer is live whenever one inside it is
        host = buffer.inside
        while host is not None:
            first, last = intervals[host[0]]
            intervals[host[0]] = (min(first, intervals[name][0]), max(last, intervals[name][1]))
            host = program.buffers[host[0]].inside
    return intervals


def planned_buffers(program: Program, workspace_io: bool) -> list[str]:
    """Buffers that live in pools: all but model I/O (unless I/O is in the workspace) and buffers inside others."""
    return [
        name for name, b in program.buffers.items()
        if (workspace_io or b.kind not in ("input", "output")) and b.inside is None
    ]


def buffer_infos(program: Program, pools: list[PoolSpec], workspace_io: bool = False) -> list[BufferInfo]:
    intervals = live_intervals(program)
    names = planned_buffers(program, workspace_io)
    targets = buffer_targets(program)
    # Sweep by start step so that conflicts cost O(n log n + overlaps), not O(n^2).
    order = sorted(names, key=lambda n: intervals[n])
    conflicts: dict[str, set[str]] = {n: set() for n in names}
    active: list[str] = []
    for name in order:
        start = intervals[name][0]
        active = [a for a in active if intervals[a][1] >= start]
        for other in active:
            if program.buffers[other].is_constant == program.buffers[name].is_constant:
                conflicts[name].add(other)
                conflicts[other].add(name)
        active.append(name)
    profiles = byte_profiles(program, intervals)
    infos = []
    for name in names:
        b = program.buffers[name]
        infos.append(BufferInfo(
            name=name, size=b.size, alignment=b.alignment,
            pool_candidates=_candidates(name, b, targets[name], pools),
            conflicts=frozenset(conflicts[name]), live=intervals[name], profile=profiles.get(name, ()),
        ))
    return infos


def check_insiders(program: Program, infos: list[BufferInfo]) -> None:
    """Every buffer stored inside another (Buffer.inside) lies within the bytes its host is planned to hold
    while it lives: the host's size, or what its byte profile says at each of those steps. A plan of the hosts
    alone then keeps the insiders apart from everything else; this catches an analysis that got them wrong."""
    info = {i.name: i for i in infos}
    intervals = live_intervals(program)
    for name, buffer in program.buffers.items():
        if buffer.inside is None or buffer.inside[0] not in info:
            continue
        host, end = info[buffer.inside[0]], buffer.inside[1] + buffer.size
        first, last = intervals[name]
        held = [n for a, b, n in host.profile if a <= last and first <= b] if host.profile else [host.size]
        if end > min(held + [host.size]):
            raise PlanError(f"internal error: '{name}' ends {end} bytes into '{host.name}', which holds "
                            f"{min(held + [host.size])} while it lives")


def _candidates(name: str, buffer: Buffer, targets: set[str], pools: list[PoolSpec]) -> tuple[str, ...]:
    """Pools of the buffer's kind that every operator touching it may access (see scopes.py)."""
    found = candidate_pools(targets, pool_kind(buffer), pools)
    if not found:
        raise PlanError(f"no {pool_kind(buffer)} pool is accessible to all targets using '{name}' "
                        f"({', '.join(sorted(targets))}); give one with --pool NAME:{pool_kind(buffer)}:targets=...")
    return found
