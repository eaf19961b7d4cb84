"""The planning problem in integer form, for the algorithms' inner loops.

Names become indices so that the hot loops touch lists of ints, not sets of
strings. Every algorithm starts from here; the verifier does not.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Sequence

import numpy as np

from usmp.errors import PlanError
from usmp.planner.problem import BufferInfo, PoolInfo


@dataclass
class Indexed:
    names: list[str]
    sizes: list[int]
    aligns: list[int]
    conflicts: list[list[int]]  # symmetric adjacency lists
    candidates: list[list[int]]  # pool indices, best first
    pool_names: list[str]
    limits: list[int | None]
    live: list[tuple[int, int] | None]
    profiles: list[tuple[tuple[int, int, int], ...]]  # BufferInfo.profile

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def profiled(self) -> bool:
        """Whether some buffer's bytes vary over time (then conflicting buffers have pairwise extents)."""
        return any(self.profiles)

    def extent(self, i: int, j: int) -> int:
        """Bytes of buffer i that buffer j must avoid: those i uses while both live."""
        profile = self.profiles[i]
        if not profile or self.live[i] is None or self.live[j] is None:
            return self.sizes[i]
        first, last = max(self.live[i][0], self.live[j][0]), min(self.live[i][1], self.live[j][1])
        used = [n for a, b, n in profile if a <= last and first <= b]
        return max(used) if used else self.sizes[i]

    def placements(self, pools: list[int], offsets: list[int]) -> dict[str, tuple[str, int]]:
        return {name: (self.pool_names[p], o) for name, p, o in zip(self.names, pools, offsets)}


_last: list = [None, None, None]  # buffers, pools, Indexed of the latest call


def index_problem(buffers: Sequence[BufferInfo], pools: Sequence[PoolInfo]) -> Indexed:
    """The indexed form; the latest one is remembered, since plan() and its algorithm both ask."""
    last_buffers, last_pools, last = _last
    if (last is not None and len(last_buffers) == len(buffers) and list(last_pools) == list(pools)
            and all(a is b for a, b in zip(last_buffers, buffers))):
        return last
    result = _index(buffers, pools)
    _last[:] = [list(buffers), list(pools), result]
    return result


def _index(buffers: Sequence[BufferInfo], pools: Sequence[PoolInfo]) -> Indexed:
    names = [b.name for b in buffers]
    where = {name: i for i, name in enumerate(names)}
    if len(where) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise PlanError(f"buffer '{dup}' is given twice")
    pool_index = {p.name: i for i, p in enumerate(pools)}
    listed = []
    candidates = []
    for i, b in enumerate(buffers):
        if b.size < 0:
            raise PlanError(f"buffer '{b.name}' has a negative size {b.size}")
        if b.alignment < 1:
            raise PlanError(f"buffer '{b.name}' has alignment {b.alignment}; it must be at least 1")
        try:
            listed.append(list(map(where.__getitem__, b.conflicts)))
        except KeyError as exc:
            raise PlanError(f"buffer '{b.name}' conflicts with unknown buffer {exc}") from None
        if not b.pool_candidates:
            raise PlanError(f"buffer '{b.name}' has no candidate pool")
        try:
            candidates.append([pool_index[p] for p in b.pool_candidates])
        except KeyError as exc:
            raise PlanError(f"buffer '{b.name}' names unknown pool {exc}") from None
    conflicts = symmetric_adjacency(len(names), listed)
    return Indexed(
        names=names,
        sizes=[b.size for b in buffers],
        aligns=[b.alignment for b in buffers],
        conflicts=conflicts,
        candidates=candidates,
        pool_names=[p.name for p in pools],
        limits=[p.size_limit for p in pools],
        live=[b.live for b in buffers],
        profiles=[b.profile if b.live is not None else () for b in buffers],
    )


def symmetric_adjacency(n: int, listed: list[list[int]]) -> list[list[int]]:
    """Sorted neighbour lists of the graph whose edges are listed on either side (or both).

    Done with numpy: on 10,000 buffers with half a million listed conflicts a
    Python loop costs more than the greedy planners themselves.
    """
    lengths = [len(js) for js in listed]
    total = sum(lengths)
    if not total:
        return [[] for _ in range(n)]
    cols = np.fromiter(chain.from_iterable(listed), dtype=np.int64, count=total)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    keys = np.sort(np.concatenate((rows * n + cols, cols * n + rows)))  # np.unique is far slower here
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    rows, cols = keys // n, keys % n
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    bounds = np.searchsorted(rows, np.arange(n + 1)).tolist()
    flat = cols.tolist()
    return [flat[bounds[i]:bounds[i + 1]] for i in range(n)]


def round_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment
