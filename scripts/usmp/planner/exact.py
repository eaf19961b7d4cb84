"""Exact search: can these buffers fit in `capacity` bytes of one pool?

A canonical depth-first search in the spirit of MiniMalloc (Moffitt, ASPLOS
2023), written from the paper's ideas:

* canonical placements: every plan can be pushed down until each buffer sits
  at 0 or on top of (aligned) a conflicting buffer, so a buffer is only ever
  tried at its lowest feasible offset, and buffers are placed in
  non-decreasing (offset, rank) order, so each plan is found once;
* dominance: a buffer is not placed at an offset where some other unplaced
  buffer would fit entirely below it (that gap could never be filled);
* inference over cliques (the live sets of interval problems): a clique's
  remaining buffers stack above both its highest placed buffer and the
  current offset, so floor + remaining bytes must fit the capacity;
* independent components are solved separately, and several static buffer
  rankings are tried round-robin with growing node limits, so one unlucky
  ranking cannot eat the whole budget;
* a buffer with no unplaced conflicts (nothing can go on top of it) that
  fails at its lowest offset ends the node: no other choice helps;
* (our addition) outcomes of independent parts are remembered: a part that
  failed from some min offsets fails from any higher ones, and a plan found
  from some min offsets is reused from any lower ones;
* (our addition) buffers whose bytes in use vary over time: a buffer placed
  at an offset pushes each conflict above the bytes it uses while both live
  (its extent for that one), and a clique stacks each member's fewest bytes
  during its section, so both rules stay sound.

Returns offsets, or None when the search proved that nothing fits.
"""
from __future__ import annotations

import time
from typing import Callable


class OutOfTime(Exception):
    """The deadline passed before the search finished."""


class _NodeLimit(Exception):
    pass


# Rankings tried round-robin: the keys, biggest first; "width" is the lifetime
# in time steps or in sections; "=" keeps one ranking for the whole search
# instead of re-ranking each independent part by what is left in it. Each
# solves instances the others do not (MiniMalloc's challenging set needs all).
RANKINGS = (("time", "total-width-area"), ("sections", "total-area-width"), ("sections", "=total-width-area"))


MEMO_PER_PART = 32  # remembered outcomes per independent part


def fits_in(sizes: list[int], aligns: list[int], conflicts: list[list[int]], cliques: list[list[int]],
            capacity: int, deadline: float, tick: Callable[[], None] | None = None,
            ordered: bool = False, widths: list[int] | None = None,
            extents: list[dict[int, int]] | None = None,
            clique_bytes: list[dict[int, int]] | None = None) -> list[int] | None:
    """ordered: the cliques are an interval problem's sections in time order.
    widths: each buffer's lifetime length (for the rankings), when known.
    extents: per buffer, the bytes of it each conflict must avoid, where less than its size.
    clique_bytes: per clique, each member's bytes to count in it, where less than its size."""
    n = len(sizes)
    offsets = [0] * n
    numbered = list(enumerate(cliques))
    for component, local_cliques in _components(n, conflicts, numbered):
        index = {g: k for k, g in enumerate(component)}
        sub_conflicts = [[index[j] for j in conflicts[g]] for g in component]
        sub_cliques = [[index[g] for g in clique] for _, clique in local_cliques]
        sub_widths = [widths[g] for g in component] if widths is not None else None
        sub_extents = None
        if extents is not None:
            sub_extents = [{index[j]: e for j, e in extents[g].items()} for g in component]
        sub_bytes = None
        if clique_bytes is not None:
            sub_bytes = [{index[g]: clique_bytes[c][g] for g in clique} for c, clique in local_cliques]
        found = _solve_component([sizes[g] for g in component], [aligns[g] for g in component],
                                 sub_conflicts, sub_cliques, ordered, capacity, deadline, tick, sub_widths,
                                 sub_extents, sub_bytes)
        if found is None:
            return None
        for g, offset in zip(component, found):
            offsets[g] = offset
    return offsets


def _components(n, conflicts, cliques):
    component_of = [-1] * n
    components: list[list[int]] = []
    for root in range(n):
        if component_of[root] >= 0:
            continue
        cid = len(components)
        component_of[root] = cid
        members, stack = [root], [root]
        while stack:
            for j in conflicts[stack.pop()]:
                if component_of[j] < 0:
                    component_of[j] = cid
                    members.append(j)
                    stack.append(j)
        components.append(sorted(members))
    # A clique may span components (its members all live at once, but some pairs never collide, see
    # optimal._colliding): each component takes its own members, still a clique in time order.
    per_component: list[list[tuple[int, list[int]]]] = [[] for _ in components]
    for number, clique in cliques:
        parts: dict[int, list[int]] = {}
        for i in clique:
            parts.setdefault(component_of[i], []).append(i)
        for cid, members in parts.items():
            per_component[cid].append((number, members))
    return list(zip(components, per_component))


def _ranker(sizes, widths, cliques_of, left, heuristic: str):
    """rank(members): a static order of the members, by the heuristic's keys, biggest first.

    total: the most bytes still to place in any clique the buffer is in;
    width: its lifetime length; area: size x width.
    """
    keys = heuristic.split("-")

    def rank_of(members: list[int], rank: list[int]) -> None:
        def key(i):
            total = max([left[c] for c in cliques_of[i]], default=0)
            values = {"total": total, "width": widths[i], "area": sizes[i] * widths[i]}
            return tuple(-values[k] for k in keys) + (-sizes[i], i)

        for r, i in enumerate(sorted(members, key=key)):
            rank[i] = r

    return rank_of


def _solve_component(sizes, aligns, conflicts, cliques, ordered, capacity, deadline, tick, widths,
                     extents=None, clique_bytes=None):
    n = len(sizes)
    if clique_bytes is None:
        clique_bytes = [{i: sizes[i] for i in clique} for clique in cliques]
    if extents is None:
        extents = [{} for _ in range(n)]
    if any(s > capacity for s in sizes):
        return None
    for counted in clique_bytes:
        if sum(counted.values()) > capacity:
            return None
    if n == 1:
        return [0]
    in_sections = [0] * n
    for clique in cliques:
        for i in clique:
            in_sections[i] += 1
    scales = {"time": widths or in_sections, "sections": in_sections}
    rankings = [(scale, keys) for scale, keys in RANKINGS if widths or scale == "sections"]
    # What independent parts proved impossible stays so whatever the ranking or node limit: share it.
    memo: tuple[dict, dict] = ({}, {})
    node_limit = 2 * n
    while True:
        node_limit *= 2
        for scale, keys in rankings:
            try:
                return _search(sizes, aligns, conflicts, cliques, ordered, capacity, deadline, tick, keys.lstrip("="),
                               scales[scale], node_limit, not keys.startswith("="), memo, extents, clique_bytes)
            except _NodeLimit:
                continue


def _search(sizes, aligns, conflicts, cliques, ordered, capacity, deadline, tick, heuristic, widths, node_limit,
            rerank, memo, extents, clique_bytes):
    """One complete DFS under a node limit: offsets, None (proved impossible), or _NodeLimit."""
    n = len(sizes)
    placed = [False] * n
    offsets = [0] * n
    min_offset = [0] * n
    cliques_of: list[list[int]] = [[] for _ in range(n)]
    left = [0] * len(cliques)  # bytes of unplaced buffers per clique
    for c, clique in enumerate(cliques):
        for i in clique:
            cliques_of[i].append(c)
            left[c] += clique_bytes[c][i]
    # With time-ordered sections: the section span of each buffer, and how many
    # unplaced buffers cross each boundary between two sections.
    span = [(min(cs), max(cs) + 1) if cs else (0, 0) for cs in cliques_of]
    cuts = [0] * len(cliques)
    if ordered:
        for lo, hi in span:
            for k in range(lo, hi - 1):
                cuts[k] += 1
    nodes = [0]
    clock = time.perf_counter
    clique_sets = [frozenset(cs) for cs in cliques_of]
    failures = memo[0]
    successes: dict[tuple[int, ...], list[tuple[list[int], list[int]]]] = {}  # per search: keeps rankings apart
    floor_min = [0] * len(cliques)
    floor_who = [clique[0] if clique else -1 for clique in cliques]
    shift_rank = max(n, 1).bit_length()
    shift_offset = 2 * shift_rank
    mask = (1 << shift_rank) - 1
    rank = [0] * n
    rank_of = _ranker(sizes, widths, cliques_of, left, heuristic)
    rank_of(list(range(n)), rank)

    def dfs(parent: list[int], last_offset: int, last_rank: int, lo: int, hi: int) -> bool:
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise _NodeLimit
        if not nodes[0] & 63:
            if clock() > deadline:
                raise OutOfTime
            if tick is not None:
                tick()
        # Sort by (min offset, rank) as one packed integer: much faster than tuple keys.
        keys = sorted([(min_offset[i] << shift_offset) | (rank[i] << shift_rank) | i for i in parent if not placed[i]])
        if not keys:
            return True
        order = [k & mask for k in keys]
        lowest_top = min([min_offset[i] + sizes[i] for i in order])
        sections = range(lo, hi) if ordered else range(len(cliques))
        most_left = max([left[c] for c in sections], default=0)
        hot_at: dict[int, list[int]] = {}  # offset -> cliques whose remaining bytes would not fit above it
        for b in order:
            offset = min_offset[b]
            if offset >= lowest_top:
                break  # a gap below would stay empty: dominated
            if offset < last_offset or (offset == last_offset and rank[b] < last_rank):
                continue  # not canonical: this plan is reached in another order
            size = sizes[b]
            top = offset + size
            if top > capacity:
                continue
            room = capacity - offset
            if most_left > room:
                # Later buffers sit at or above `offset`: every clique whose remaining
                # bytes exceed the room must contain b, and fit once b is placed.
                hot = hot_at.get(offset)
                if hot is None:
                    hot = hot_at[offset] = [c for c in sections if left[c] > room]
                mine = clique_sets[b]
                if any(c not in mine or left[c] - clique_bytes[c][b] > room for c in hot):
                    continue
            if any(left[c] > clique_bytes[c][b] and offset + left[c] > capacity for c in cliques_of[b]):
                continue  # what is left of b's cliques cannot stack on b
            placed[b] = True
            offsets[b] = offset
            moved = []
            reach = extents[b]
            for j in conflicts[b]:
                above = offset + reach.get(j, size)
                if not placed[j] and min_offset[j] < above:
                    moved.append((j, min_offset[j]))
                    a = aligns[j]
                    min_offset[j] = -(-above // a) * a
            for c in cliques_of[b]:
                left[c] -= clique_bytes[c][b]
            refreshed: list[tuple[int, int, int]] = []
            ok = _consistent(b, top, offset, moved, lo, hi, refreshed)
            if ok:
                ok = descend(b, order, offset, lo, hi)
            for c, old_min, old_who in reversed(refreshed):
                floor_min[c] = old_min
                floor_who[c] = old_who
            for c in cliques_of[b]:
                left[c] += clique_bytes[c][b]
            for j, old in reversed(moved):
                min_offset[j] = old
            placed[b] = False
            if ok:
                return True
            if all(placed[j] for j in conflicts[b]):
                # Nothing can ever sit on b: it was placed as low as it can go
                # without touching any later choice, so no sibling does better.
                return False
        return False

    def _consistent(b, top, offset, moved, lo, hi, refreshed) -> bool:
        # Later buffers sit at or above `offset`; a clique's remaining buffers
        # conflict with each other, so they stack above the lowest offset any
        # of them can still take (in b's cliques: above b).
        for j, _ in moved:
            if min_offset[j] + sizes[j] > capacity:
                return False
        # floor_min[c] caches the lowest min offset among the clique's unplaced
        # buffers (floor_who[c] holds it); it only needs recomputing when that
        # buffer was just placed or raised.
        dirty = {j for j, _ in moved}
        dirty.add(b)
        visited = set()
        for j in dirty:
            for c in cliques_of[j]:
                if c in visited:
                    continue
                visited.add(c)
                if floor_who[c] in dirty:
                    members = [k for k in cliques[c] if not placed[k]]
                    if members:
                        low = min([min_offset[k] for k in members])
                        who = next(k for k in members if min_offset[k] == low)
                    else:
                        low, who = 0, -1
                    refreshed.append((c, floor_min[c], floor_who[c]))
                    floor_min[c], floor_who[c] = low, who
                if left[c] and floor_min[c] + left[c] > capacity:
                    return False
        return True

    def solve_part(part, x, y) -> bool:
        """An independent part: its outcome depends only on its buffers and their min offsets,
        so remember it. Raising min offsets only makes a part harder: a part that failed fails
        again from higher offsets, and a plan found stays valid from lower ones."""
        part.sort()
        key = tuple(part)
        lows = [min_offset[i] for i in part]
        for failed_lows in failures.get(key, ()):
            if all(a >= f for a, f in zip(lows, failed_lows)):
                return False
        for solved_lows, solved_offsets in successes.get(key, ()):
            if all(a <= s for a, s in zip(lows, solved_lows)):
                for i, o in zip(part, solved_offsets):
                    offsets[i] = o
                return True
        saved = [rank[i] for i in part]
        if rerank:
            rank_of(part, rank)
        solved = dfs(part, -1, -1, x, y)
        for i, r in zip(part, saved):
            rank[i] = r
        if solved:
            memo = successes.setdefault(key, [])
            if len(memo) < MEMO_PER_PART:
                memo.append((lows, [offsets[i] for i in part]))
        else:
            memo = failures.setdefault(key, [])
            if len(memo) < MEMO_PER_PART:
                memo.append(lows)
        return solved

    def descend(b, order, offset, lo, hi) -> bool:
        if not ordered:
            return dfs(order, offset, rank[b], lo, hi)
        first, end = span[b]
        splits = []
        for k in range(first, end - 1):
            cuts[k] -= 1
            if not cuts[k]:
                splits.append(k + 1)
        try:
            if not splits:
                return dfs(order, offset, rank[b], lo, hi)
            # No unplaced buffer crosses these boundaries: the parts are independent problems.
            # Each part is ranked afresh from what is left to place in it.
            edges = [lo] + splits + [hi]
            for x, y in zip(edges, edges[1:]):
                part = [i for i in order if not placed[i] and span[i][0] < y and span[i][1] > x]
                if not part:
                    continue
                if not solve_part(part, x, y):
                    return False
            return True
        finally:
            for k in range(first, end - 1):
                cuts[k] += 1

    import sys

    if sys.getrecursionlimit() < 4 * n + 200:
        sys.setrecursionlimit(4 * n + 200)
    solution = offsets
    if dfs(list(range(n)), 0, -1, 0, len(cliques)):
        return solution
    return None
