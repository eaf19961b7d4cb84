"""The JSON form of a model's plan (`usmp plan --json`, and <name>_plan.json beside compiled code)."""
from __future__ import annotations

import json

from usmp.control.flow import control_regions, expanded_steps, step_positions
from usmp.planner.problem import BufferInfo, PlanResult
from usmp.report.operators import buffer_tensor_names, compiler_changes, operator_entries


def plan_document(program, buffers: list[BufferInfo], result: PlanResult, pools, demand=None) -> dict:
    """pools: the PoolSpecs (name, kind, limit) the plan was made for; demand: what placement by demand knew
    (placement.DemandReport), or None."""
    kinds = {p.name: p.kind for p in pools}
    workspace = [p.name for p in pools if p.kind == "workspace"]
    constant = [p.name for p in pools if p.kind == "constant"]
    state = [p.name for p in pools if p.kind == "state"]
    positions = step_positions(program)
    rows = []
    for info in sorted(buffers, key=lambda b: (result.placements[b.name][0], result.placements[b.name][1], b.name)):
        pool, offset = result.placements[info.name]
        first, last = info.live if info.live is not None else (0, 0)
        rows.append({
            "name": info.name, "kind": program.buffers[info.name].kind, "size_bytes": info.size,
            "alignment": info.alignment, "pool": pool, "offset": offset, "first_step": first, "last_step": last,
            "tensors": buffer_tensor_names(program, info.name),
            **({"accesses": round(demand.accesses.get(info.name, 0.0))} if demand and demand.ranked else {}),
        })
    return {
        "model": program.name,
        "algorithm": result.algorithm,
        "lower_bound_bytes": sum(result.lower_bounds.get(name, 0) for name in workspace),
        "workspace_bytes": sum(result.pool_sizes.get(name, 0) for name in workspace),
        "constant_bytes": sum(result.pool_sizes.get(name, 0) for name in constant),
        "state_bytes": sum(result.pool_sizes.get(name, 0) for name in state),
        "optimal_proven": result.optimal_proven,
        "steps": len(expanded_steps(program)),
        "pools": [{
            "name": p.name, "kind": kinds[p.name], "size_bytes": result.pool_sizes.get(p.name, 0),
            "limit_bytes": p.size_limit, "lower_bound_bytes": result.lower_bounds.get(p.name, 0),
            "alignment": p.alignment, "targets": list(getattr(p, "targets", ())), "wait": p.wait,
        } for p in pools],
        "buffers": rows,
        # depth-first chains (tiling/), with the schedule step each one is
        "tiling": [dict(op.report(), step=positions[k]) for k, op in enumerate(program.ops) if hasattr(op, "report")],
        # IF and WHILE operators, and the steps their blocks (subgraphs) span (usmp/control)
        "control_flow": control_regions(program),
        # No timings: the document is part of the generated files, which must be reproducible.
        "tried": [{"algorithm": a, "bytes": b} for a, b, _ in result.tried],
        # each step: operator, kernel family, tensors, MACs, buffers read and written (report/operators.py)
        "operators": operator_entries(program),
        # on a core with fast kernel families, the operators left on portable kernels and why (select/fallbacks.py)
        "portable_kernels": [step.as_dict() for step in program.portable_steps],
        "compiler": compiler_changes(program),
        # placement by demand (usmp/placement): whether pools were ranked, and kernels whose accesses were guessed
        "placement": _placement(program, result, pools, demand),
    }


def _placement(program, result: PlanResult, pools, demand) -> dict:
    """Placement by demand (usmp/placement): whether pools were ranked, each pool's estimated accesses and wait
    cycles, the start-up copies of constants and the kernels whose accesses the estimate had to guess."""
    if not demand or not demand.ranked:
        return {"ranked": False, "copies": [], "unmodelled_kernels": []}
    from usmp.placement.copies import copy_name, io_copy_name, staged_name

    waits = {p.name: p.wait for p in pools}
    accesses = {p.name: 0.0 for p in pools}
    for name, (pool, _) in result.placements.items():
        accesses[pool] += demand.accesses.get(name, 0.0)
    return {
        "ranked": True,
        "pools": [{"name": p.name, "wait": p.wait, "estimated_accesses": round(accesses[p.name]),
                   "estimated_wait_cycles": round(accesses[p.name] * waits[p.name])} for p in pools],
        "estimated_wait_cycles": round(sum(accesses[n] * waits[n] for n in accesses)),
        "copies": [_copy(program, result, demand, name, copy_name(name), "start-up") for name in demand.copies]
        + [_copy(program, result, demand, name, staged_name(name), "each inference") for name in demand.staged]
        + [_copy(program, result, demand, name, io_copy_name(name), "each inference") for name in demand.io_copies],
        "unmodelled_kernels": list(demand.unmodelled),
    }


def _copy(program, result: PlanResult, demand, name: str, copy: str, when: str) -> dict:
    """A copy placement by demand made: of what, when, the pool its bytes move from and to (an output's copy is
    written by the operators and moved to the output), and the copy's estimated accesses."""
    ends = [result.placements[name][0], result.placements[copy][0]]
    if name in program.outputs:
        ends.reverse()
    return {"buffer": name, "copy": copy, "when": when, "from_pool": ends[0], "to_pool": ends[1],
            "copy_pool": result.placements[copy][0], "size_bytes": program.buffers[copy].size,
            "estimated_accesses": round(demand.accesses.get(copy, 0.0))}


def dumps(document: dict) -> str:
    return json.dumps(document, indent=2) + "\n"
