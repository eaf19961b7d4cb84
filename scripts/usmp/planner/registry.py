"""Planning algorithms by name (placeholder until the planner lands)."""
from __future__ import annotations

from usmp.errors import PlanError


def _no_reuse(buffers, pools):
    offsets = {p.name: 0 for p in pools}
    placements = {}
    for b in buffers:
        pool = b.pool_candidates[0]
        offset = -(-offsets[pool] // b.alignment) * b.alignment
        placements[b.name] = (pool, offset)
        offsets[pool] = offset + b.size
    return placements


ALGORITHMS = {"no_reuse": _no_reuse, "auto": _no_reuse}


def get_algorithm(name: str):
    if name not in ALGORITHMS:
        raise PlanError(f"unknown planning algorithm '{name}' (known: {', '.join(sorted(ALGORITHMS))})")
    return ALGORITHMS[name]
