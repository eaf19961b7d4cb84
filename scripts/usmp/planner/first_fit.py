"""Place buffers one by one, in a given order, at the lowest offset that fits.

The shared step of the greedy algorithms and the hill climb: each buffer goes
into its first candidate pool where a gap among its already placed conflicts
(in that same pool) holds it within the pool's limit; otherwise it falls back
to the next candidate. Conflicts in other pools are ignored, conflicts in the
chosen pool never overlapped.
"""
from __future__ import annotations

from usmp.errors import PlanError
from usmp.planner.indexed import Indexed, round_up


def lowest_offset(prob: Indexed, i: int, pool: int, pool_of: list[int], offsets: list[int]) -> int:
    """The lowest aligned offset in `pool` where buffer i overlaps none of its placed conflicts."""
    if prob.profiled:
        return _lowest_offset_profiled(prob, i, pool, pool_of, offsets)
    sizes = prob.sizes
    return _sweep([(offsets[j], offsets[j] + sizes[j]) for j in prob.conflicts[i] if pool_of[j] == pool],
                  prob.sizes[i], prob.aligns[i])


def _sweep(spans: list[tuple[int, int]], size: int, align: int) -> int:
    """The lowest aligned offset where `size` bytes miss every [start, end) of `spans`."""
    offset = 0
    for start, end in sorted(spans):
        if offset + size <= start:
            break
        if end > offset:
            offset = round_up(end, align)
    return offset


def _lowest_offset_profiled(prob: Indexed, i: int, pool: int, pool_of: list[int], offsets: list[int]) -> int:
    """The same when bytes vary over time: each pair of conflicting buffers avoids only the bytes both use while
    they both live, so the extents differ per pair. A buffer whose own bytes do not vary needs all of them
    against every other: the usual sweep, over the others' extents against it (most buffers; the pairwise
    search below is quadratic in the conflicts)."""
    if prob.profiles[i]:
        return _lowest_offset_pairwise(prob, i, pool, pool_of, offsets)
    return _sweep([(offsets[j], offsets[j] + prob.extent(j, i)) for j in prob.conflicts[i] if pool_of[j] == pool],
                  prob.sizes[i], prob.aligns[i])


def _lowest_offset_pairwise(prob: Indexed, i: int, pool: int, pool_of: list[int], offsets: list[int]) -> int:
    """The lowest offset where buffer i's bytes against each placed conflict miss that one's against it: 0 or the
    end of a placed conflict."""
    align = prob.aligns[i]
    spans = sorted(((offsets[j] + prob.extent(j, i), offsets[j], prob.extent(i, j))
                    for j in prob.conflicts[i] if pool_of[j] == pool), reverse=True)  # by end, the lowest last
    for offset in sorted({0, *(round_up(end, align) for end, _, _ in spans)}):
        while spans and spans[-1][0] <= offset:
            spans.pop()  # ends at or below this offset, so below every later one too
        if all(offset + mine <= start for _, start, mine in spans):
            return offset
    return 0  # unreachable: above every span nothing overlaps


def first_fit(prob: Indexed, order: list[int]) -> tuple[list[int], list[int]]:
    """Pools and offsets of every buffer, placed in `order`; PlanError when one fits nowhere."""
    pool_of = [-1] * prob.n
    offsets = [0] * prob.n
    limits = prob.limits
    for i in order:
        size = prob.sizes[i]
        tried = []
        for pool in prob.candidates[i]:
            offset = lowest_offset(prob, i, pool, pool_of, offsets)
            limit = limits[pool]
            if limit is None or offset + size <= limit:
                pool_of[i], offsets[i] = pool, offset
                break
            tried.append((pool, offset + size))
        else:
            raise does_not_fit(prob, i, tried)
    return pool_of, offsets


def does_not_fit(prob: Indexed, i: int, tried: list[tuple[int, int]]) -> PlanError:
    needs = "; ".join(
        f"pool '{prob.pool_names[p]}' would need {need} B (limit {prob.limits[p]} B)" for p, need in tried)
    return PlanError(f"buffer '{prob.names[i]}' ({prob.sizes[i]} B) fits in no candidate pool: {needs}")


def pool_sizes(prob: Indexed, pool_of: list[int], offsets: list[int]) -> list[int]:
    sizes = [0] * len(prob.pool_names)
    for i, p in enumerate(pool_of):
        top = offsets[i] + prob.sizes[i]
        if top > sizes[p]:
            sizes[p] = top
    return sizes


def cost(prob: Indexed, pool_of: list[int], offsets: list[int]) -> int:
    """What the algorithms minimise: the total bytes of all pools."""
    return sum(pool_sizes(prob, pool_of, offsets))
