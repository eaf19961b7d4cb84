"""Run a planning algorithm and measure what it achieved."""
from __future__ import annotations

import time
from typing import Sequence

from usmp.errors import PlanError
from usmp.planner.problem import BufferInfo, PlanResult, PoolInfo


def plan(buffers: Sequence[BufferInfo], pools: Sequence[PoolInfo], algorithm: str = "auto",
         time_limit: float | None = None) -> PlanResult:
    from usmp.planner.registry import get_algorithm

    start = time.perf_counter()
    placements = get_algorithm(algorithm)(list(buffers), list(pools))
    sizes = pool_sizes(buffers, pools, placements)
    return PlanResult(algorithm, placements, sizes, 0, False, time.perf_counter() - start)


def pool_sizes(buffers, pools, placements) -> dict[str, int]:
    sizes = {p.name: 0 for p in pools}
    for b in buffers:
        if b.name not in placements:
            raise PlanError(f"buffer '{b.name}' was not placed")
        pool, offset = placements[b.name]
        sizes[pool] = max(sizes[pool], offset + b.size)
    return sizes
