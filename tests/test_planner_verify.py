"""The independent verifier catches every kind of broken plan."""
from __future__ import annotations

import pytest

from usmp.errors import PlanError
from usmp.planner import BufferInfo, PoolInfo
from usmp.planner.verify import plan_problems, verify_plan

POOLS = [PoolInfo("sram", size_limit=64), PoolInfo("flash")]
BUFFERS = [
    BufferInfo("a", 16, 8, ("sram", "flash"), frozenset({"b"})),
    BufferInfo("b", 16, 4, ("sram",), frozenset()),  # conflict listed on a's side only
    BufferInfo("c", 8, 4, ("sram",), frozenset()),
]
GOOD = {"a": ("sram", 0), "b": ("sram", 16), "c": ("sram", 0)}


def test_a_valid_plan_has_no_problems():
    assert plan_problems(BUFFERS, POOLS, GOOD) == []
    verify_plan(BUFFERS, POOLS, GOOD)


@pytest.mark.parametrize("change, expected", [
    ({"b": ("sram", 8)}, "conflicting buffers 'a' [0, 16) and 'b' [8, 24) overlap in pool 'sram'"),
    ({"a": ("sram", 4)}, "not 8-byte aligned"),
    ({"b": ("flash", 0)}, "not one of its candidates"),
    ({"b": ("sram", 56)}, "ends at 72, beyond pool 'sram' limit 64"),
    ({"b": ("dram", 0)}, "unknown pool 'dram'"),
    ({"c": ("sram", -4)}, "not a non-negative integer"),
    ({"z": ("sram", 0)}, "'z' is placed but is not a buffer"),
])
def test_each_kind_of_mistake_is_named(change, expected):
    placements = {**GOOD, **change}
    problems = plan_problems(BUFFERS, POOLS, placements)
    assert any(expected in p for p in problems), problems
    with pytest.raises(PlanError, match="invalid plan"):
        verify_plan(BUFFERS, POOLS, placements)


def test_missing_buffer_is_named():
    placements = {k: v for k, v in GOOD.items() if k != "c"}
    assert plan_problems(BUFFERS, POOLS, placements) == ["buffer 'c' is not placed"]


def test_conflicting_buffers_in_different_pools_or_touching_are_fine():
    assert plan_problems(BUFFERS, POOLS, {**GOOD, "a": ("flash", 0), "b": ("sram", 0)}) == []
    zero = [BufferInfo("z", 0, 4, ("sram",), frozenset({"b"})), *BUFFERS[1:]]
    assert plan_problems(zero, POOLS, {"z": ("sram", 16), "b": ("sram", 16), "c": ("sram", 0)}) == []


def test_buffer_needing_more_than_the_pool_base_alignment_is_refused():
    pools = [PoolInfo("sram", alignment=4)]
    buffers = [BufferInfo("wide", 8, 16, ("sram",))]
    assert plan_problems(buffers, pools, {"wide": ("sram", 0)}) == [
        "buffer 'wide' needs 16-byte alignment but pool 'sram' is only 4-byte aligned"]


def test_compiler_raises_a_pool_alignment_for_a_demanding_buffer():
    from usmp.compiler import aligned_pools
    from usmp.pools import PoolSpec

    specs = [PoolSpec("ram", "workspace", alignment=4), PoolSpec("rom", "constant", alignment=4)]
    wide = BufferInfo("wide", 8, 32, ("ram",))
    assert [p.alignment for p in aligned_pools(specs, [wide])] == [32, 4]


@pytest.mark.parametrize("offset", [0, 1, 2, 3, 4])
def test_a_buffer_using_no_bytes_while_another_lives_overlaps_nothing_then(offset):
    """`drained` uses its 4 bytes at step 0 and none at step 1, the only step `late` shares with it: it may sit
    anywhere against `late`, even inside its bytes. `early`, live at step 0, still must keep clear of its 4 bytes."""
    drained = BufferInfo("drained", 4, 1, ("p",), frozenset({"late", "early"}), (0, 1), ((0, 0, 4), (1, 1, 0)))
    late = BufferInfo("late", 4, 1, ("p",), frozenset({"drained"}), (1, 2))
    early = BufferInfo("early", 2, 1, ("p",), frozenset({"drained"}), (0, 0))
    problem = [drained, late, early]
    assert plan_problems(problem, [PoolInfo("p")], {"drained": ("p", offset), "late": ("p", 0),
                                                    "early": ("p", offset + 4)}) == []
    clash = plan_problems(problem, [PoolInfo("p")], {"drained": ("p", 0), "late": ("p", 8), "early": ("p", offset)})
    assert bool(clash) == (offset < 4)
