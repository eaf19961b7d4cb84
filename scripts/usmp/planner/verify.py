"""An independent check of a plan: it shares no code with the algorithms.

Every plan the compiler uses passes through here: each buffer is placed once,
in one of its candidate pools, at a non-negative offset that honours its
alignment (relative to the pool and, through the pool's base alignment,
absolutely), within the pool's size limit, and never overlapping a buffer it
conflicts with in the same pool.
"""
from __future__ import annotations

from usmp.errors import PlanError

MAX_REPORTED = 5


def plan_problems(buffers, pools, placements) -> list[str]:
    """Everything wrong with `placements`, as one sentence each (empty: the plan is valid)."""
    problems: list[str] = []
    limit_of = {pool.name: pool.size_limit for pool in pools}
    base_alignment = {pool.name: pool.alignment for pool in pools}
    by_name = {buffer.name: buffer for buffer in buffers}
    for name in placements:
        if name not in by_name:
            problems.append(f"'{name}' is placed but is not a buffer of the problem")
    for buffer in buffers:
        where = placements.get(buffer.name)
        if where is None:
            problems.append(f"buffer '{buffer.name}' is not placed")
            continue
        pool, offset = where
        if pool not in limit_of:
            problems.append(f"buffer '{buffer.name}' is in unknown pool '{pool}'")
            continue
        if pool not in buffer.pool_candidates:
            problems.append(f"buffer '{buffer.name}' is in pool '{pool}', not one of its candidates "
                            f"{list(buffer.pool_candidates)}")
        if not isinstance(offset, int) or offset < 0:
            problems.append(f"buffer '{buffer.name}' has offset {offset!r}, not a non-negative integer")
            continue
        if offset % buffer.alignment:
            problems.append(f"buffer '{buffer.name}' at offset {offset} is not {buffer.alignment}-byte aligned")
        if base_alignment[pool] % buffer.alignment:
            problems.append(f"buffer '{buffer.name}' needs {buffer.alignment}-byte alignment but pool '{pool}' is only "
                            f"{base_alignment[pool]}-byte aligned")
        limit = limit_of[pool]
        if limit is not None and offset + buffer.size > limit:
            problems.append(f"buffer '{buffer.name}' ends at {offset + buffer.size}, beyond pool '{pool}' "
                            f"limit {limit}")
    overlapping: set[tuple[str, str]] = set()  # conflicts may be listed on one side only
    extent = {}
    for buffer in buffers:
        where = placements.get(buffer.name)
        if where is not None and buffer.size > 0 and isinstance(where[1], int):
            extent[buffer.name] = (where[0], where[1], where[1] + buffer.size)
    for buffer in buffers:
        mine = extent.get(buffer.name)
        if mine is None:
            continue
        pool, start, end = mine
        for other_name in buffer.conflicts:
            theirs = extent.get(other_name)
            if theirs is None or theirs[0] != pool:
                continue
            other = by_name[other_name]
            a_end, b_end = start + _used_while_both(buffer, other), theirs[1] + _used_while_both(other, buffer)
            # A buffer using no bytes while the other lives (its profile says 0) overlaps nothing then.
            if start < a_end and theirs[1] < b_end and start < b_end and theirs[1] < a_end:
                overlapping.add((buffer.name, other_name) if buffer.name < other_name else (other_name, buffer.name))
    for first, second in sorted(overlapping):
        pool, a = placements[first]
        b = placements[second][1]
        problems.append(f"conflicting buffers '{first}' [{a}, {a + by_name[first].size}) and '{second}' "
                        f"[{b}, {b + by_name[second].size}) overlap in pool '{pool}'")
    return problems


def _used_while_both(buffer, other) -> int:
    """The bytes of `buffer` in use while `other` lives too (all of them, unless its profile says less)."""
    if not buffer.profile or buffer.live is None or other.live is None:
        return buffer.size
    first, last = max(buffer.live[0], other.live[0]), min(buffer.live[1], other.live[1])
    used = [n for a, b, n in buffer.profile if a <= last and first <= b]
    return max(used) if used else buffer.size


def verify_plan(buffers, pools, placements, algorithm: str = "the planner") -> None:
    """Raise PlanError naming what is wrong when the plan is not valid."""
    problems = plan_problems(buffers, pools, placements)
    if problems:
        more = f" (and {len(problems) - MAX_REPORTED} more)" if len(problems) > MAX_REPORTED else ""
        raise PlanError(f"{algorithm} produced an invalid plan: {'; '.join(problems[:MAX_REPORTED])}{more}")
