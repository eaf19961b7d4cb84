"""`auto`, the default: the best of the other algorithms within a time budget.

The greedy planners run first (milliseconds); when one reaches the lower
bound we are done. Otherwise the hill climb and then the exact search get
what is left of the budget, the search starting from the best plan so far.
"""
from __future__ import annotations

import time

from usmp.errors import PlanError
from usmp.planner.bounds import pool_lower_bounds
from usmp.planner.first_fit import cost
from usmp.planner.greedy import greedy_by_conflicts, greedy_by_size
from usmp.planner.hill_climb import hill_climb
from usmp.planner.indexed import index_problem
from usmp.planner.optimal import optimal
from usmp.planner.solution import Solution

DEFAULT_SECONDS = 1.5


def auto(buffers, pools, time_limit: float | None = None, progress=None, **_options) -> Solution:
    began = time.perf_counter()
    budget = DEFAULT_SECONDS if time_limit is None else time_limit
    prob = index_problem(buffers, pools)
    target = sum(pool_lower_bounds(prob))
    pool_index = {name: k for k, name in enumerate(prob.pool_names)}

    def cost_of(placements):
        return cost(prob, [pool_index[placements[n][0]] for n in prob.names], [placements[n][1] for n in prob.names])

    best, best_cost, tried, error = None, None, [], None

    def consider(name, run):
        nonlocal best, best_cost, error
        start = time.perf_counter()
        try:
            solution = run()
        except PlanError as exc:
            error = error or exc
            return
        value = cost_of(solution.placements)
        tried.append((name, value, time.perf_counter() - start))
        if best is None or value < best_cost or (value == best_cost and solution.optimal_proven):
            best, best_cost = solution, value

    consider("greedy_by_size", lambda: greedy_by_size(buffers, pools))
    consider("greedy_by_conflicts", lambda: greedy_by_conflicts(buffers, pools))
    remaining = lambda: max(budget - (time.perf_counter() - began), 0.0)  # noqa: E731
    if best_cost is None or best_cost > target:
        consider("hill_climb", lambda: hill_climb(buffers, pools, time_limit=min(0.3 * budget, remaining()),
                                                  target=target))
    if best_cost is None or best_cost > target:
        start = best.placements if best is not None else None
        consider("optimal", lambda: optimal(buffers, pools, time_limit=remaining(), start=start, progress=progress))
    if best is None:
        raise error
    proven = best.optimal_proven or best_cost <= target
    return Solution(best.placements, proven, best.bounds, tried)
