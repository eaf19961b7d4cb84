"""Check stage: every problem of a model at once, not just the first.

The importer and the lowerings stop at the first problem. This stage asks the
same code item by item (each tensor, each operator, each operator's lowering)
so `usmp check` and the problem count `usmp compile` prints never disagree
with what compiling does.
"""
from usmp.check.survey import ModelReport, OperatorReport, check_model, count_problems

__all__ = ["ModelReport", "OperatorReport", "check_model", "count_problems"]
