"""The planner's whole vocabulary: buffers, pools, and a plan.

Nothing here knows about TFLite or C. A buffer has a size, an alignment, the
buffers it must not overlap (conflicts, symmetric) and the pools it may live
in, best first. A plan gives each buffer a pool and a byte offset.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PoolInfo:
    name: str
    size_limit: int | None = None  # bytes; None means unlimited
    alignment: int = 16  # alignment of the pool's base address


@dataclass(frozen=True)
class BufferInfo:
    name: str
    size: int
    alignment: int
    pool_candidates: tuple[str, ...]
    conflicts: frozenset[str] = frozenset()
    # First and last step of the live interval (inclusive), when the buffer
    # comes from a schedule; algorithms may use it, the conflicts are the truth.
    live: tuple[int, int] | None = None
    # Bytes used over time, from the buffer's start, when they vary: (first step, last step, bytes) segments
    # covering `live` (a buffer holding an input and then a smaller output written over it). `size` is the
    # most; a conflicting buffer only has to avoid what is used while both live. Empty: always `size`.
    profile: tuple[tuple[int, int, int], ...] = ()


Placement = dict  # buffer name -> (pool name, offset)


@dataclass
class PlanResult:
    algorithm: str
    placements: dict[str, tuple[str, int]]
    pool_sizes: dict[str, int]
    lower_bound: int  # bytes, largest over pools
    optimal_proven: bool = False
    seconds: float = 0.0
    lower_bounds: dict[str, int] = field(default_factory=dict)  # per pool
    tried: list[tuple[str, int, float]] = field(default_factory=list)  # (algorithm, peak, seconds)

    @property
    def peak_bytes(self) -> int:
        return max(self.pool_sizes.values(), default=0)
