"""Plan stage: give every buffer a pool and an offset.

The algorithms are pure functions of (buffers, pools) with no knowledge of
TFLite or C; see problem.py for the vocabulary and registry.py for the names.
"""
from usmp.planner.plan import plan
from usmp.planner.problem import BufferInfo, PlanResult, PoolInfo

__all__ = ["BufferInfo", "PlanResult", "PoolInfo", "plan"]
