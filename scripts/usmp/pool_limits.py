"""Refuse a plan whose pools outgrow their size limits, saying by how much.

The planner honours limits where it can; this check is the last word before
any file is written. Pools placed in a devicetree region (see
usmp.zephyr.placement) carry `section` and `region_size`, so pools pinned to
one region are also checked together.
"""
from __future__ import annotations

from usmp.errors import PlanError
from usmp.pools import PoolSpec


def check_pool_limits(pools: list[PoolSpec], pool_sizes: dict[str, int]) -> None:
    for pool in pools:
        size = pool_sizes.get(pool.name, 0)
        if pool.size_limit is not None and size > pool.size_limit:
            where = f" (region '{pool.region}')" if pool.region else ""
            origin = getattr(pool, "origin", "") or f"--pool {pool.name}"
            raise PlanError(f"pool '{pool.name}' needs {size} B but its limit{where} is {pool.size_limit} B: "
                            f"over by {size - pool.size_limit} B; raise the limit ({origin}) or add a pool")
    _check_shared_regions(pools, pool_sizes)


def _check_shared_regions(pools: list[PoolSpec], pool_sizes: dict[str, int]) -> None:
    by_section: dict[str, list[PoolSpec]] = {}
    for pool in pools:
        section = getattr(pool, "section", None)
        if section and getattr(pool, "region_size", None):
            by_section.setdefault(section, []).append(pool)
    for section, members in by_section.items():
        total = sum(pool_sizes.get(p.name, 0) for p in members)
        capacity = members[0].region_size
        if len(members) > 1 and total > capacity:
            names = " + ".join(f"'{p.name}' {pool_sizes.get(p.name, 0)} B" for p in members)
            raise PlanError(f"pools {names} share region {section} ({capacity} B) and overflow it by "
                            f"{total - capacity} B: move one to another region")
