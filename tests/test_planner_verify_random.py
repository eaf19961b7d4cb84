"""Every planning algorithm against the independent verifier on generated instances.

Instances are small (up to 9 buffers, 3 pools) so ten thousand of them run in
about a minute: live intervals or arbitrary conflict graphs (listed on one side
only, sometimes), alignments up to 64, pools with and without limits, buffers
with fallback pools, and impossible problems. The algorithms are called
directly (not through plan(), which verifies internally), so a bad plan shows
up here as the verifier's sentence. Hypothesis is derandomized: CI sees the
same instances every run.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from usmp.errors import PlanError
from usmp.planner import BufferInfo, PoolInfo, plan
from usmp.planner.registry import ALGORITHMS, call_algorithm, get_algorithm
from usmp.planner.verify import plan_problems

EXAMPLES_PER_ALGORITHM = 2000
IMPOSSIBLE_EXAMPLES = 500
SECONDS = 0.01  # search budget of the exhaustive algorithms per instance
ALIGNMENTS = [1, 2, 4, 8, 16, 32, 64]
POOL_ALIGNMENT = 64

COUNTS: dict[str, int] = {}


def _count(key: str) -> None:
    COUNTS[key] = COUNTS.get(key, 0) + 1


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    print(f"\nplanner instances verified: {sum(COUNTS.values())} {dict(sorted(COUNTS.items()))}")


@st.composite
def instances(draw, impossible: bool = False):
    n = draw(st.integers(1, 9))
    pool_names = [f"pool{k}" for k in range(draw(st.integers(1, 3)))]
    sizes = [draw(st.integers(0, 128)) for _ in range(n)]
    total = sum(sizes) + 64 * n
    pools = [PoolInfo(name, size_limit=draw(st.one_of(st.none(), st.integers(0, total))), alignment=POOL_ALIGNMENT)
             for name in pool_names]
    intervals = draw(st.booleans())
    rows = []
    for i in range(n):
        first = draw(st.integers(0, 6))
        rows.append((first, first + draw(st.integers(0, 4))))
    conflicts: list[set[str]] = [set() for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if intervals:
                clash = rows[i][0] <= rows[j][1] and rows[j][0] <= rows[i][1]
            else:
                clash = draw(st.booleans())
            if clash:
                # Sometimes listed on one side only: the conflict still holds both ways.
                side = draw(st.sampled_from(["both", "first", "second"]))
                if side != "second":
                    conflicts[i].add(f"b{j}")
                if side != "first":
                    conflicts[j].add(f"b{i}")
    buffers = []
    for i in range(n):
        order = draw(st.permutations(pool_names))
        candidates = tuple(order[:draw(st.integers(1, len(order)))])  # later ones are fallbacks
        buffers.append(BufferInfo(f"b{i}", sizes[i], draw(st.sampled_from(ALIGNMENTS)), candidates,
                                  frozenset(conflicts[i]), rows[i] if intervals else None))
    if impossible:  # one buffer bigger than every pool it may use
        victim = draw(st.integers(0, n - 1))
        limit = max(sizes[victim] - 1, 0)
        if sizes[victim] == 0:
            buffers[victim] = BufferInfo(buffers[victim].name, 1, 1, buffers[victim].pool_candidates,
                                         buffers[victim].conflicts, buffers[victim].live)
        pools = [PoolInfo(p.name, limit if p.name in buffers[victim].pool_candidates else p.size_limit,
                          POOL_ALIGNMENT) for p in pools]
    return buffers, pools


def stacked_fits(buffers, pools) -> bool:
    """True when placing every buffer in its first pool, one after another, respects the limits.

    Then a plan certainly exists and every algorithm must find one.
    """
    need = {p.name: 0 for p in pools}
    for b in buffers:
        need[b.pool_candidates[0]] += b.size + POOL_ALIGNMENT - 1
    return all(p.size_limit is None or need[p.name] <= p.size_limit for p in pools)


def must_fail_in(buffers, pools) -> list[str]:
    """Pools that cannot hold even one buffer that may live only there (so no plan exists)."""
    limit = {p.name: p.size_limit for p in pools}
    return sorted({b.pool_candidates[0] for b in buffers if len(b.pool_candidates) == 1
                   and limit[b.pool_candidates[0]] is not None and b.size > limit[b.pool_candidates[0]]})


def assert_clear_plan_error(exc: PlanError, pools) -> None:
    message = str(exc)
    assert "\n" not in message and "invalid plan" not in message, message
    assert any(f"'{p.name}'" in message for p in pools) and " B" in message, message


def check(algorithm: str, buffers, pools) -> None:
    function = get_algorithm(algorithm)
    try:
        returned = call_algorithm(function, buffers, pools, time_limit=SECONDS)
    except PlanError as exc:
        assert not stacked_fits(buffers, pools), f"{algorithm} found no plan where stacking fits: {exc}"
        assert_clear_plan_error(exc, pools)
        _count(f"{algorithm} refused")
        return
    placements = getattr(returned, "placements", returned)
    assert plan_problems(buffers, pools, placements) == []
    assert not must_fail_in(buffers, pools), "a plan for an impossible problem passed the verifier"
    _count(algorithm)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
@settings(max_examples=EXAMPLES_PER_ALGORITHM, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(problem=instances())
def test_every_plan_passes_the_independent_verifier(algorithm, problem):
    check(algorithm, *problem)


@settings(max_examples=IMPOSSIBLE_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(problem=instances(impossible=True))
def test_impossible_problems_are_a_clear_plan_error_for_every_algorithm(problem):
    buffers, pools = problem
    for algorithm in sorted(ALGORITHMS):
        with pytest.raises(PlanError) as caught:
            plan(buffers, pools, algorithm, time_limit=SECONDS)
        assert_clear_plan_error(caught.value, pools)
        _count("impossible refused")
    blocked = must_fail_in(buffers, pools)
    if blocked:  # the up-front check names each pool that is too small and the bytes it needs
        message = str(caught.value)
        assert "do not fit" in message and all(f"pool '{name}' needs at least" in message for name in blocked)


def test_the_checks_catch_a_wrong_plan():
    """The verifier and helpers used above reject what they must (else the test above proves nothing)."""
    a = BufferInfo("a", 8, 4, ("p",), frozenset({"b"}))
    b = BufferInfo("b", 8, 64, ("p",))
    pools = [PoolInfo("p", size_limit=12, alignment=POOL_ALIGNMENT)]
    assert plan_problems([a, b], pools, {"a": ("p", 0), "b": ("p", 4)})  # overlap, misaligned, over limit
    assert not stacked_fits([a, b], pools)
    assert must_fail_in([BufferInfo("c", 13, 1, ("p",))], pools) == ["p"]
    with pytest.raises(AssertionError):
        assert_clear_plan_error(PlanError("something went wrong"), pools)
