"""Which pool each buffer should prefer: the fastest memories to the hottest bytes (pure: BufferInfos only).

Input: the planner's buffers (BufferInfo: size, candidate pools, live steps), each one's accesses in one
inference, and each pool's size limit and wait states. A buffer in pool p costs accesses x wait(p) cycles,
so moving it from its slowest candidate to p saves accesses x (slowest wait - wait(p)), and it occupies
size bytes of p at every step it lives. The ranking is greedy: each buffer in turn goes to the fastest of its
pools that still takes it, packed as the planner packs (first fit in size order, the greedy_by_size plan);
unlimited pools take anything. The turns go by that saving per byte and step (the "accesses per byte over
its lifetime"), per byte, or whole; of the three the assignment with the fewest wait cycles is kept.
Buffers that all live at every step (the constants) are one 0/1 knapsack per pool instead, solved exactly,
the fastest pool first.

Buffers with one candidate pool count against its room from the start.

The answer is the candidate pools of each buffer: only the pool it was given, when that is faster than its
slowest (the size-order plan is known to fit; another algorithm's plan is kept only when it fits too and
needs fewer bytes), else that pool first and the others fastest first. Buffers whose pools all have the
same wait keep the user's order: nothing to rank.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from usmp.planner.problem import BufferInfo, PoolInfo


@dataclass(frozen=True)
class PoolSpeed:
    """A pool as the ranking sees it: its limit (bytes, None for none) and the wait states of one access."""

    name: str
    size_limit: int | None
    wait: int


def round_up(value: int, alignment: int) -> int:
    return -(-value // max(alignment, 1)) * max(alignment, 1)


def ranks_anything(buffers: Sequence[BufferInfo], pools: dict[str, PoolSpeed]) -> bool:
    """Whether some buffer can choose between pools of different waits."""
    return any(len({pools[p].wait for p in b.pool_candidates}) > 1 for b in buffers)


def assign_pools(buffers: Sequence[BufferInfo], pools: dict[str, PoolSpeed], accesses: dict[str, float],
                 steps: int) -> dict[str, str]:
    """The pool each buffer with a choice of speeds is given: greedy by saving (see the module docstring), or,
    when every such buffer lives at every step (constants), exactly per pool (knapsack)."""
    def span(b: BufferInfo) -> int:
        first, last = b.live if b.live is not None else (0, steps - 1)
        return max(min(last, steps - 1) - max(first, 0) + 1, 1)

    def saving(b: BufferInfo) -> float:
        waits = [pools[p].wait for p in b.pool_candidates]
        return accesses.get(b.name, 0.0) * (max(waits) - min(waits))

    choosing = [b for b in buffers if b.size > 0 and len({pools[p].wait for p in b.pool_candidates}) > 1]
    fixed = [b for b in buffers if len(b.pool_candidates) == 1 and pools[b.pool_candidates[0]].size_limit is not None]
    if all(span(b) == steps for b in choosing + fixed):
        return _fill_fastest_first(choosing, fixed, pools, accesses)
    orders = [sorted(choosing, key=lambda b: (-key(b), b.name)) for key in (
        lambda b: saving(b) / (b.size * span(b)), lambda b: saving(b) / b.size, saving)]
    tries = [_greedy(fixed + order, pools, steps) for order in orders]
    return min(tries, key=lambda given: sum(accesses.get(b.name, 0.0) * pools[given.get(b.name, _slowest(b, pools))].wait
                                            for b in choosing))


def _slowest(b: BufferInfo, pools: dict[str, PoolSpeed]) -> str:
    return max(b.pool_candidates, key=lambda p: pools[p].wait)


def _greedy(order: list[BufferInfo], pools: dict[str, PoolSpeed], steps: int) -> dict[str, str]:
    """Each buffer in turn to the fastest of its pools that still takes it, packed as the planner packs (the
    buffers with one pool first: they are there anyway)."""
    members: dict[str, list[BufferInfo]] = {name: [] for name in pools}
    used: dict[str, list[int]] = {name: [0] * max(steps, 1) for name in pools}
    given: dict[str, str] = {}
    for b in order:
        first, last = b.live if b.live is not None else (0, steps - 1)
        live = range(max(first, 0), min(last, steps - 1) + 1)
        size = round_up(b.size, b.alignment)
        for name in sorted(b.pool_candidates, key=lambda p: pools[p].wait):  # stable: the user's order on ties
            limit = pools[name].size_limit
            if limit is not None and (any(used[name][s] + size > limit for s in live)
                                      or not packs([*members[name], b], limit)):
                continue
            given[b.name] = name
            members[name].append(b)
            for s in live:
                used[name][s] += size
            break
    return given


def packs(members: list[BufferInfo], limit: int) -> bool:
    """Whether the planner's first fit in size order (greedy_by_size's) places these buffers within limit."""
    from usmp.errors import PlanError
    from usmp.planner.first_fit import first_fit
    from usmp.planner.greedy import size_order
    from usmp.planner.indexed import index_problem

    names = {b.name for b in members}
    alignment = max(b.alignment for b in members)
    sub = [replace(b, pool_candidates=("p",), conflicts=b.conflicts & names) for b in members]
    prob = index_problem(sub, [PoolInfo("p", limit, alignment)])
    try:
        first_fit(prob, size_order(prob))
    except PlanError:
        return False
    return True


def _fill_fastest_first(buffers: list[BufferInfo], fixed: list[BufferInfo], pools: dict[str, PoolSpeed],
                        accesses: dict[str, float]) -> dict[str, str]:
    """Buffers that are all live together: the fastest limited pool takes the set that saves most and fits
    its bytes besides the fixed buffers it holds (a 0/1 knapsack, solved exactly), then the next pool from the
    rest; an unlimited pool all, and the slowest pool what is left."""
    given: dict[str, str] = {}
    for name in sorted(pools, key=lambda n: pools[n].wait):
        pool = pools[name]
        left = [b for b in buffers if b.name not in given and name in b.pool_candidates]
        slowest = {b.name: max(pools[p].wait for p in b.pool_candidates) for b in left}
        worth = [b for b in left if slowest[b.name] > pool.wait or pool.size_limit is None]
        if pool.size_limit is None:
            given.update((b.name, name) for b in worth)
            continue
        held = [b for b in fixed if b.pool_candidates[0] == name]
        room = pool.size_limit - sum(round_up(b.size, b.alignment) for b in held)
        values = [accesses.get(b.name, 0.0) * (slowest[b.name] - pool.wait) for b in worth]
        taken = sorted(knapsack([round_up(b.size, b.alignment) for b in worth], values, max(room, 0)),
                       key=lambda k: values[k] / max(worth[k].size, 1))
        while taken and not packs(held + [worth[k] for k in taken], pool.size_limit):  # alignment gaps
            taken.pop(0)
        given.update((worth[k].name, name) for k in taken)
    for b in buffers:  # the rest to their slowest pool, where nothing faster wanted them
        if b.name not in given:
            given[b.name] = max(b.pool_candidates, key=lambda p: pools[p].wait)
    return given


KNAPSACK_CELLS = 1 << 17  # capacity units at most: a coarser byte unit above this (sizes rounded up)


def knapsack(sizes: list[int], values: list[float], capacity: int) -> list[int]:
    """Indices of the items of greatest total value whose sizes fit capacity (dynamic programming over
    capacity in units of 4 bytes, or coarser for large capacities; an item's size rounded up to units)."""
    import numpy as np

    unit = 4
    while capacity // unit > KNAPSACK_CELLS:
        unit *= 2
    cells = capacity // unit
    best = np.zeros(cells + 1)
    keep = np.zeros((len(sizes), cells + 1), dtype=bool)
    for k, (size, value) in enumerate(zip(sizes, values)):
        need = -(-size // unit)
        if value <= 0 or need > cells:
            continue
        candidate = best[:cells + 1 - need] + value
        better = candidate > best[need:]
        keep[k, need:] = better
        best[need:] = np.where(better, candidate, best[need:])
    taken, room = [], cells
    for k in range(len(sizes) - 1, -1, -1):
        if keep[k, room]:
            taken.append(k)
            room -= -(-sizes[k] // unit)
    return taken


def order_candidates(buffers: Sequence[BufferInfo], given: dict[str, str],
                     pools: dict[str, PoolSpeed]) -> list[BufferInfo]:
    """Each buffer's candidates: only the pool it was given when that is faster than its slowest (the ranking
    checked that the planner's size-order first fit packs it there), else that pool first and the rest fastest
    first."""
    ranked = []
    for b in buffers:
        if b.name not in given:
            ranked.append(b)
        elif pools[given[b.name]].wait < pools[_slowest(b, pools)].wait:
            ranked.append(replace(b, pool_candidates=(given[b.name],)))
        else:
            rest = sorted((p for p in b.pool_candidates if p != given[b.name]), key=lambda p: pools[p].wait)
            ranked.append(replace(b, pool_candidates=(given[b.name], *rest)))
    return ranked


def steps_of(buffers: Sequence[BufferInfo]) -> int:
    return max((b.live[1] + 1 for b in buffers if b.live is not None), default=1)


def rank_by_demand(buffers: Sequence[BufferInfo], pools: Sequence[PoolInfo], waits: dict[str, int],
                   accesses: dict[str, float]) -> list[BufferInfo]:
    """The buffers with their candidate pools in the order the ranking prefers (see the module docstring)."""
    speeds = {p.name: PoolSpeed(p.name, p.size_limit, waits.get(p.name, 0)) for p in pools}
    return order_candidates(buffers, assign_pools(buffers, speeds, accesses, steps_of(buffers)), speeds)
