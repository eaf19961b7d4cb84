"""Analysis stage: the lowered program's buffers as the planner sees them."""
from usmp.analysis.liveness import buffer_infos, live_intervals

__all__ = ["buffer_infos", "live_intervals"]
