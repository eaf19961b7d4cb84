"""Constant folding: operators whose results are known at compile time become constant tensors.

Runs between import and lowering. An operator is folded when every input it
reads is a constant (SHAPE needs none: shapes are static) and none of its
outputs is a model output; its outputs then carry the computed data and the
operator is dropped, so no kernel runs for it. The converter's shape
arithmetic (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE, FILL of constants,
CAST of constants, ...) disappears this way, and the constants it feeds are
first-class constant tensors that only reach the constant pool if a kernel
reads them. A result much larger than the constants it comes from (a big
FILL or BROADCAST_TO) is left to its kernel, which costs less flash.
"""
from __future__ import annotations

from usmp.fold.fold import fold_constants

__all__ = ["fold_constants"]
