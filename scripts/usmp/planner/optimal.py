"""`optimal`: a plan proven at the lower bound, or the best found and its bound.

Pools are assigned by the best greedy plan (or the `start` plan given); then
each pool's buffers are re-placed by the exact search (exact.py): first at
the pool's lower bound, which proves optimality when it fits; if the search
proves the bound impossible the bound rises by one byte; with time left the
capacity is lowered step by step below the best plan found.
"""
from __future__ import annotations

import time

from usmp.errors import PlanError
from usmp.planner.bounds import clique_bound, section_bytes, sections
from usmp.planner.exact import OutOfTime, fits_in
from usmp.planner.first_fit import first_fit, pool_sizes
from usmp.planner.greedy import conflicts_order, size_order
from usmp.planner.indexed import Indexed, index_problem
from usmp.planner.solution import Solution

DEFAULT_SECONDS = 10.0
MAX_EXACT_BUFFERS = 3000
LOWER_BOUND_SHARE = 0.85  # of the time: spent trying to fit the lower bound itself
DESCENT_SHARE = 0.3  # of the remaining time, per later attempt  # beyond this the recursion is too deep and too slow to help


def optimal(buffers, pools, time_limit: float | None = None, start: dict | None = None,
            progress=None, **_options) -> Solution:
    began = time.perf_counter()
    deadline = began + (DEFAULT_SECONDS if time_limit is None else time_limit)
    prob = index_problem(buffers, pools)
    pool_of, offsets, valid = _starting_plan(prob, start)
    sizes = pool_sizes(prob, pool_of, offsets)
    proven, bounds = [], {}
    for p in range(len(prob.pool_names)):
        members = [i for i in range(prob.n) if pool_of[i] == p]
        found, bound, done = _improve_pool(prob, p, members, offsets, sizes, deadline, progress, valid)
        bounds[prob.pool_names[p]] = bound
        pinned = all(len(prob.candidates[i]) == 1 for i in members)
        proven.append(done and (pinned or found <= _pinned_bound(prob, p)))
    return Solution(prob.placements(pool_of, offsets), all(proven), bounds)


def _starting_plan(prob: Indexed, start: dict | None) -> tuple[list[int], list[int], bool]:
    """Pools and offsets to start from, and whether they are a valid plan."""
    if start is not None:
        pool_index = {name: k for k, name in enumerate(prob.pool_names)}
        return [pool_index[start[n][0]] for n in prob.names], [start[n][1] for n in prob.names], True
    best, error = None, None
    for order in (size_order(prob), conflicts_order(prob)):
        try:
            plan = first_fit(prob, order)
        except PlanError as exc:
            error = exc
            continue
        if best is None or sum(pool_sizes(prob, *plan)) < sum(pool_sizes(prob, *best)):
            best = plan
    if best is not None:
        return best[0], best[1], True
    if all(len(c) == 1 for c in prob.candidates):
        # Greedy overflowed a limit; let the exact search try each pool at its limit.
        return [c[0] for c in prob.candidates], [0] * prob.n, False
    raise error


def _pinned_bound(prob: Indexed, pool: int) -> int:
    return clique_bound(prob, [i for i in range(prob.n) if prob.candidates[i] == [pool]])


def _colliding(conflicts: list[list[int]], extents: list[dict[int, int]]):
    """The conflicts, and their extents, whose bytes can collide: a buffer using no bytes while the other lives (its
    extent against it is 0) never does. The search must not keep such a pair: it would push the second one placed
    above the first, though it may share the first one's offset (a lost plan, and a false proof of optimality)."""
    kept = [[j for j in mine if extents[i][j] and extents[j][i]] for i, mine in enumerate(conflicts)]
    return kept, [{j: extents[i][j] for j in mine} for i, mine in enumerate(kept)]


def _improve_pool(prob, pool, members, offsets, sizes, deadline, progress, valid=True):
    """Re-place one pool's buffers; returns (size, proven bound, whether size == bound)."""
    placed = [i for i in members if prob.sizes[i] > 0]
    for i in members:
        if prob.sizes[i] == 0:
            offsets[i] = 0
    local = {g: k for k, g in enumerate(placed)}
    sub_sizes = [prob.sizes[g] for g in placed]
    sub_aligns = [prob.aligns[g] for g in placed]
    sub_conflicts = [[local[j] for j in prob.conflicts[g] if j in local] for g in placed]
    spans: list[tuple[int, int]] = []
    found_sections, ordered = sections(prob, placed, spans)
    sub_cliques = [[local[g] for g in clique] for clique in found_sections]
    widths = None
    if all(prob.live[g] is not None for g in placed):
        widths = [prob.live[g][1] - prob.live[g][0] + 1 for g in placed]
    bound = clique_bound(prob, placed)
    limit = prob.limits[pool]
    current = max((offsets[g] + prob.sizes[g] for g in placed), default=0)
    overflow = limit is not None and (current > limit or not valid)
    if overflow:
        current = limit + 1  # the starting plan does not fit: anything within the limit is better
    extents = clique_bytes = None
    profiled = any(prob.profiles[g] for g in placed)
    if profiled and ordered:  # bytes vary over time: pairwise extents and per-section bytes
        clique_bytes = [{local[g]: n for g, n in members.items()}
                        for members in section_bytes(prob, found_sections, spans)]
        extents = [{local[j]: prob.extent(g, j) for j in prob.conflicts[g] if j in local} for g in placed]
        sub_conflicts, extents = _colliding(sub_conflicts, extents)
    unsupported = profiled and not ordered
    if current <= bound or len(placed) > MAX_EXACT_BUFFERS or unsupported:
        if overflow:
            raise PlanError(f"pool '{prob.pool_names[pool]}' needs at least {bound} B (limit {limit} B)")
        return current, bound, current <= bound

    def tick():
        if progress is not None:
            progress(current, bound)

    # First the bound itself (a plan there is optimal) with most of the time;
    # then capacities between the bound and the best plan: halfway after a
    # plan or a proof, closer to the best plan after a time-out.
    capacity, share = bound, LOWER_BOUND_SHARE
    while bound < current:
        now = time.perf_counter()
        if now >= deadline:
            break
        try:
            found = fits_in(sub_sizes, sub_aligns, sub_conflicts, sub_cliques, capacity,
                            min(deadline, now + share * (deadline - now)), tick, ordered, widths, extents,
                            clique_bytes)
        except OutOfTime:
            found = False
        share = DESCENT_SHARE
        if found is None:  # proved: nothing fits in `capacity` bytes
            bound = max(bound, capacity + 1)
        elif found:
            for g, offset in zip(placed, found):
                offsets[g] = offset
            current = max(o + s for o, s in zip(found, sub_sizes))
            sizes[pool] = current
        if found is False:
            following = capacity + max((current - capacity) // 2, 1)
        else:
            following = bound + (current - bound) // 2
        if following >= current or (found is False and following == capacity):
            break
        capacity = following
    if limit is not None and current > limit:
        raise PlanError(f"pool '{prob.pool_names[pool]}' needs more than {limit} B: the search found no plan "
                        f"within the limit in time (at least {bound} B needed)")
    return current, bound, current <= bound
