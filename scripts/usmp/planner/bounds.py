"""Lower bounds: bytes no plan can beat, from groups of mutually conflicting buffers.

Buffers that all conflict with each other (a clique) must be stacked, so a
pool holding them all needs at least their summed size. With live intervals
the maximal cliques are the live sets at each step (where some buffer starts
just before another ends), which gives the classic "max over steps of live
bytes". Without intervals (or when the given conflicts do not cover every
overlap) we fall back to cliques grown greedily from the conflict graph.
"""
from __future__ import annotations

from collections import defaultdict

from usmp.planner.indexed import Indexed

GREEDY_CLIQUE_SEEDS = 300


def cliques(prob: Indexed, members: list[int], every_section: bool = False) -> list[list[int]]:
    """Groups of mutually conflicting buffers among `members` (conflicts outside ignored).

    every_section: for interval problems, all live sets between two events, not
    only the maximal ones (the exact search infers more from the smaller ones).
    """
    found = interval_cliques(prob, members, every_section)
    if found is None:
        found = greedy_cliques(prob, members)
    return found


def sections(prob: Indexed, members: list[int],
             spans: list[tuple[int, int]] | None = None) -> tuple[list[list[int]], bool]:
    """Cliques for the exact search, and whether they are time-ordered interval sections (then `spans`, where
    given, receives each section's steps)."""
    found = interval_cliques(prob, members, every_section=True, spans=spans)
    if found is not None:
        return found, True
    return greedy_cliques(prob, members), False


def section_bytes(prob: Indexed, found: list[list[int]], spans: list[tuple[int, int]]) -> list[dict[int, int]]:
    """For time-ordered sections (sections()) and their steps, each member's fewest bytes in use during the
    section: what a section's buffers must stack at least, when bytes vary over time (BufferInfo.profile)."""
    result = []
    for clique, (first, last) in zip(found, spans):
        result.append({i: min((n for a, b, n in prob.profiles[i] if a <= last and first <= b), default=prob.sizes[i])
                       for i in clique})
    return result


def interval_cliques(prob: Indexed, members: list[int], every_section: bool = False,
                     spans: list[tuple[int, int]] | None = None) -> list[list[int]] | None:
    """spans: where given, receives the steps (first, last) of each clique found."""
    if any(prob.live[i] is None for i in members):
        return None
    starts, ends = defaultdict(list), defaultdict(list)
    for i in members:
        first, last = prob.live[i]
        starts[first].append(i)
        ends[last + 1].append(i)
    conflict_sets: dict[int, set[int]] = {}
    live: set[int] = set()
    found: list[list[int]] = []
    rising = False
    previous = None
    for t in sorted(set(starts) | set(ends)):
        if live and (every_section or (ends[t] and rising)):
            found.append(sorted(live))
            if spans is not None:
                spans.append((previous, t - 1))
            rising = False
        previous = t
        live.difference_update(ends[t])
        for i in starts[t]:
            live.add(i)
        for i in starts[t]:
            mine = conflict_sets.get(i)
            if mine is None:
                mine = conflict_sets[i] = set(prob.conflicts[i])
            if any(j != i and j not in mine for j in live):
                return None  # overlapping lifetimes that may share memory: intervals are not the truth
            rising = True
    return found


def greedy_cliques(prob: Indexed, members: list[int]) -> list[list[int]]:
    inside = set(members)
    neighbours = {i: set(prob.conflicts[i]) & inside for i in members}
    seeds = sorted(members, key=lambda i: -prob.sizes[i])[:GREEDY_CLIQUE_SEEDS]
    found = []
    for seed in seeds:
        clique = [seed]
        common = set(neighbours[seed])
        for j in sorted(common, key=lambda k: -prob.sizes[k]):
            if j in common:
                clique.append(j)
                common &= neighbours[j]
        found.append(clique)
    return found


def clique_bound(prob: Indexed, members: list[int]) -> int:
    if any(prob.profiles[i] for i in members) and all(prob.live[i] is not None for i in members):
        return profile_bound(prob, members)
    best = max((prob.sizes[i] for i in members), default=0)
    for clique in cliques(prob, members):
        best = max(best, sum(prob.sizes[i] for i in clique))
    return best


def pool_lower_bounds(prob: Indexed) -> list[int]:
    """Per pool: bytes it needs for the buffers that can live nowhere else."""
    pinned: list[list[int]] = [[] for _ in prob.pool_names]
    for i, candidates in enumerate(prob.candidates):
        if len(candidates) == 1:
            pinned[candidates[0]].append(i)
    return [clique_bound(prob, members) for members in pinned]


def profile_bound(prob: Indexed, members: list[int]) -> int:
    """Most bytes in use at one step, counting each buffer's bytes at that step (BufferInfo.profile)."""
    steps = sorted({prob.live[i][0] for i in members} | {a for i in members for a, _, _ in prob.profiles[i]})
    best = 0
    for t in steps:
        used = 0
        for i in members:
            first, last = prob.live[i]
            if first <= t <= last:
                used += next((n for a, b, n in prob.profiles[i] if a <= t <= b), prob.sizes[i])
        best = max(best, used)
    return best
