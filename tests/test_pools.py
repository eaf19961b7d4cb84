"""Pool syntax, and memory scopes: candidates by target, copies between pools."""
from __future__ import annotations

import pytest

from usmp.analysis import buffer_infos
from usmp.analysis.scopes import op_target, realize_memory_scopes
from usmp.errors import PlanError, UsmpError
from usmp.lower.program import Arg, Buffer, LoweredOp, Program
from usmp.planner import plan
from usmp.planner.verify import plan_problems
from usmp.pools import PoolSpec, check_pools, parse_pool


def test_pool_syntax():
    pool = parse_pool("sram:workspace:size=12k:align=32:targets=c+npu:region=SRAM1")
    assert pool == PoolSpec("sram", "workspace", 12288, 32, ("c", "npu"), "SRAM1")
    assert parse_pool("flash:constant") == PoolSpec("flash", "constant")


@pytest.mark.parametrize("text, message", [
    ("sram", "expected NAME:KIND"),
    ("9x:workspace", "must be a C identifier"),
    ("s:heap", "kind 'heap'"),
    ("s:workspace:size=lots", "not a size"),
    ("s:workspace:align=12", "not a power of two"),
    ("s:workspace:colour=red", "unknown setting 'colour'"),
    ("s:workspace:size=1k:size=2k", "'size' is given twice"),
])
def test_pool_syntax_errors_name_the_problem(text, message):
    with pytest.raises(UsmpError, match=message):
        parse_pool(text)


def test_pools_must_be_distinct_and_of_both_kinds():
    with pytest.raises(UsmpError, match="given twice"):
        check_pools([PoolSpec("a", "workspace"), PoolSpec("a", "constant")])
    with pytest.raises(UsmpError, match="no constant pool"):
        check_pools([PoolSpec("a", "workspace")])


def program_over_targets() -> Program:
    """in -(c)-> a -(npu)-> b -(c)-> out, with a constant read by the npu operator."""
    buffers = {n: Buffer(n, kind, 64, 4, "int8_t") for n, kind in
               [("in", "input"), ("a", "tensor"), ("b", "tensor"), ("out", "output"), ("w", "constant")]}
    ops = [
        LoweredOp(0, "X", [Arg("x", "in", False), Arg("y", "a", True)], []),
        LoweredOp(1, "Y", [Arg("x", "a", False), Arg("w", "w", False), Arg("y", "b", True)], []),
        LoweredOp(2, "Z", [Arg("x", "b", False), Arg("y", "out", True)], []),
    ]
    ops[1].target = "npu"
    return Program("m", None, buffers, ops, ["in"], ["out"])


def test_shared_pool_needs_no_copy_and_candidates_follow_targets():
    pools = [PoolSpec("cpu_only", "workspace"), PoolSpec("shared", "workspace", targets=("c", "npu")),
             PoolSpec("flash", "constant", targets=("c", "npu"))]
    program = realize_memory_scopes(program_over_targets(), pools)
    assert [op.opcode for op in program.ops] == ["X", "Y", "Z"]
    infos = {b.name: b for b in buffer_infos(program, pools)}
    assert infos["a"].pool_candidates == ("shared",)
    assert infos["w"].pool_candidates == ("flash",)


def test_copies_are_inserted_between_pools_no_target_shares():
    pools = [PoolSpec("sram", "workspace", targets=("c", "dma")), PoolSpec("npu_ram", "workspace", targets=("npu", "dma")),
             PoolSpec("flash", "constant", targets=("c", "npu"))]
    program = realize_memory_scopes(program_over_targets(), pools)
    assert [op.opcode for op in program.ops] == ["X", "COPY", "Y", "COPY", "Z"]
    assert [op_target(op) for op in program.ops] == ["c", "dma", "npu", "dma", "c"]
    first_copy, npu_op = program.ops[1], program.ops[2]
    assert [(a.buffer, a.writable) for a in first_copy.args] == [("a", False), ("a@npu", True)]
    assert [a.buffer for a in npu_op.args] == ["a@npu", "w", "b"]
    assert first_copy.calls[0].function == "usmp_copy_nd_x8" and first_copy.calls[0].params["count"][-1] == 64
    infos = {b.name: b for b in buffer_infos(program, pools)}
    assert infos["a"].pool_candidates == ("sram",)
    assert infos["a@npu"].pool_candidates == ("npu_ram",)
    assert infos["b"].pool_candidates == ("npu_ram",)
    assert infos["b@c"].pool_candidates == ("sram",)
    result = plan(list(infos.values()), [p.info() for p in pools])
    assert plan_problems(list(infos.values()), [p.info() for p in pools], result.placements) == []


def test_no_copying_target_is_a_clear_error():
    pools = [PoolSpec("sram", "workspace"), PoolSpec("npu_ram", "workspace", targets=("npu",)),
             PoolSpec("flash", "constant", targets=("c", "npu"))]
    with pytest.raises(PlanError, match="no pool is shared by targets \\['c'\\] and 'npu', and no target can copy"):
        realize_memory_scopes(program_over_targets(), pools)


def test_constant_out_of_reach_is_a_clear_error():
    pools = [PoolSpec("shared", "workspace", targets=("c", "npu")), PoolSpec("flash", "constant")]
    with pytest.raises(PlanError, match="constant 'w' is read by targets \\['npu'\\]"):
        realize_memory_scopes(program_over_targets(), pools)


def test_no_pool_for_the_writers_target_is_a_clear_error():
    pools = [PoolSpec("npu_only", "workspace", targets=("npu",)), PoolSpec("flash", "constant", targets=("c", "npu"))]
    with pytest.raises(PlanError, match="no workspace pool is accessible to target\\(s\\) c, which use 'in'"):
        realize_memory_scopes(program_over_targets(), pools)
