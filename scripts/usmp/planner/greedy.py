"""TVM USMP's two greedy planners: one order, then first fit with pool fallback.

greedy_by_size places big buffers first (ties: more conflicts first, then
name); greedy_by_conflicts places the most constrained buffers first (ties:
bigger first, then name). Both are deterministic.
"""
from __future__ import annotations

from usmp.planner.first_fit import first_fit
from usmp.planner.indexed import Indexed, index_problem
from usmp.planner.solution import Solution


def size_order(prob: Indexed) -> list[int]:
    return sorted(range(prob.n), key=lambda i: (-prob.sizes[i], -len(prob.conflicts[i]), prob.names[i]))


def conflicts_order(prob: Indexed) -> list[int]:
    return sorted(range(prob.n), key=lambda i: (-len(prob.conflicts[i]), -prob.sizes[i], prob.names[i]))


def greedy_by_size(buffers, pools, **_options) -> Solution:
    prob = index_problem(buffers, pools)
    return Solution(prob.placements(*first_fit(prob, size_order(prob))))


def greedy_by_conflicts(buffers, pools, **_options) -> Solution:
    prob = index_problem(buffers, pools)
    return Solution(prob.placements(*first_fit(prob, conflicts_order(prob))))
