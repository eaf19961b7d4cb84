"""The JSON form of a model's plan (`usmp plan --json`, and <name>_plan.json beside compiled code)."""
from __future__ import annotations

import json

from usmp.control.flow import control_regions, expanded_steps, step_positions
from usmp.planner.problem import BufferInfo, PlanResult
from usmp.report.operators import buffer_tensor_names, compiler_changes, operator_entries


def plan_document(program, buffers: list[BufferInfo], result: PlanResult, pools) -> dict:
    """pools: the PoolSpecs (name, kind, limit) the plan was made for."""
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
            "alignment": p.alignment, "targets": list(getattr(p, "targets", ())),
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
        "compiler": compiler_changes(program),
    }


def dumps(document: dict) -> str:
    return json.dumps(document, indent=2) + "\n"
