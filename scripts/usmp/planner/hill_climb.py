"""Hill climbing over placement orders (the idea of TVM USMP's hill_climb).

Start from the greedy-by-size order; repeatedly take a buffer that sets a
pool's top, move it earlier in the order, place everything again by first
fit and keep the new order when it costs no more. Seeded (same moves in the same
order every run); stops at the lower bound, the iteration cap or the time
budget -- so on big problems how far it gets depends on the machine.
"""
from __future__ import annotations

import random
import time

from usmp.errors import PlanError
from usmp.planner.bounds import pool_lower_bounds
from usmp.planner.first_fit import first_fit, pool_sizes
from usmp.planner.greedy import size_order
from usmp.planner.indexed import index_problem
from usmp.planner.solution import Solution

DEFAULT_SECONDS = 0.5
MAX_ITERATIONS = 400
TARGET_BUFFERS = 5000  # above this, computing the bound to stop early costs more than it saves


def hill_climb(buffers, pools, time_limit: float | None = None, target: int | None = None,
               seed: int = 0, **_options) -> Solution:
    start = time.perf_counter()
    budget = DEFAULT_SECONDS if time_limit is None else time_limit
    prob = index_problem(buffers, pools)
    if target is None and prob.n <= TARGET_BUFFERS:
        target = sum(pool_lower_bounds(prob))
    rng = random.Random(seed)
    order = size_order(prob)
    pool_of, offsets = first_fit(prob, order)
    best_cost = sum(pool_sizes(prob, pool_of, offsets))
    iteration_seconds = time.perf_counter() - start
    for _ in range(MAX_ITERATIONS):
        now = time.perf_counter()
        if prob.n < 2 or (target is not None and best_cost <= target) or now - start + iteration_seconds > budget:
            break
        sizes = pool_sizes(prob, pool_of, offsets)
        tops = [i for i in range(prob.n) if prob.sizes[i] and offsets[i] + prob.sizes[i] == sizes[pool_of[i]]]
        if not tops:
            break
        position = order.index(rng.choice(tops))
        if position == 0:
            position = rng.randrange(1, prob.n)
        new_order = order[:]
        moved = new_order.pop(position)
        new_order.insert(rng.randrange(0, position), moved)
        try:
            new_pools, new_offsets = first_fit(prob, new_order)
        except PlanError:  # this order does not fit the limits: keep the old one
            continue
        new_cost = sum(pool_sizes(prob, new_pools, new_offsets))
        if new_cost <= best_cost:
            order, pool_of, offsets, best_cost = new_order, new_pools, new_offsets, new_cost
        iteration_seconds = time.perf_counter() - now
    return Solution(prob.placements(pool_of, offsets))
