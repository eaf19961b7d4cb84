"""Run a planning algorithm, check its plan, and measure what it achieved."""
from __future__ import annotations

import time
from typing import Callable, Sequence

from usmp.errors import PlanError
from usmp.planner.bounds import pool_lower_bounds
from usmp.planner.indexed import index_problem
from usmp.planner.problem import BufferInfo, PlanResult, PoolInfo
from usmp.planner.solution import Solution
from usmp.planner.verify import verify_plan


def plan(buffers: Sequence[BufferInfo], pools: Sequence[PoolInfo], algorithm: str = "auto",
         time_limit: float | None = None, progress: Callable[[int, int], None] | None = None) -> PlanResult:
    """The verified plan of `algorithm`; PlanError when the buffers cannot fit the pools."""
    from usmp.planner.registry import call_algorithm, get_algorithm

    buffers, pools = list(buffers), list(pools)
    bounds = lower_bounds(buffers, pools)
    check_limits(pools, bounds)
    function = get_algorithm(algorithm)
    start = time.perf_counter()
    try:
        returned = call_algorithm(function, buffers, pools, time_limit=time_limit, progress=progress)
    finally:
        if progress is not None and hasattr(progress, "finish"):
            progress.finish()
    seconds = time.perf_counter() - start
    solution = returned if isinstance(returned, Solution) else Solution(dict(returned))
    verify_plan(buffers, pools, solution.placements, f"algorithm '{algorithm}'")
    sizes = pool_sizes(buffers, pools, solution.placements)
    for name, proved in solution.bounds.items():
        if proved > bounds[name] and proved <= sizes[name]:
            bounds[name] = proved
    at_bound = all(sizes[p.name] <= bounds[p.name] for p in pools)
    tried = solution.tried or [(algorithm, sum(sizes.values()), seconds)]
    return PlanResult(algorithm, dict(solution.placements), sizes, max(bounds.values(), default=0),
                      solution.optimal_proven or at_bound, seconds, bounds, tried)


def lower_bounds(buffers: Sequence[BufferInfo], pools: Sequence[PoolInfo]) -> dict[str, int]:
    """Per pool: bytes no plan can beat (buffers that may live only there, stacked where they conflict)."""
    prob = index_problem(buffers, pools)
    return dict(zip(prob.pool_names, pool_lower_bounds(prob)))


def check_limits(pools: Sequence[PoolInfo], bounds: dict[str, int]) -> None:
    too_small = [p for p in pools if p.size_limit is not None and bounds[p.name] > p.size_limit]
    if too_small:
        raise PlanError("the buffers do not fit: " + "; ".join(
            f"pool '{p.name}' needs at least {bounds[p.name]} B (limit {p.size_limit} B)" for p in too_small))


def pool_sizes(buffers, pools, placements) -> dict[str, int]:
    sizes = {p.name: 0 for p in pools}
    for b in buffers:
        pool, offset = placements[b.name]
        sizes[pool] = max(sizes[pool], offset + b.size)
    return sizes
