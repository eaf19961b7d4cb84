"""What a built-in algorithm returns: placements plus what it proved."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Solution:
    placements: dict[str, tuple[str, int]]
    optimal_proven: bool = False
    # Per-pool lower bounds the algorithm proved beyond the live-bytes bound.
    bounds: dict[str, int] = field(default_factory=dict)
    tried: list[tuple[str, int, float]] = field(default_factory=list)  # (algorithm, cost, seconds)
