"""Compile-time shape resolution: shapes the graph computes, fixed once the input shapes are.

A converter that keeps the batch dimension open writes shape signatures with
-1 (an unrolled LSTM's TRANSPOSE is [49, -1, 10]) and computes the missing
sizes in the graph itself (SHAPE -> STRIDED_SLICE -> PACK -> FILL). With the
model's input shapes fixed, every such shape is a compile-time constant: this
pass walks the operators in order, works out each output shape from its
inputs' shapes and from the constant values earlier operators compute, and
hands the rest of the pipeline static shapes. A shape that depends on data
seen only at run time is refused, naming the tensor and the operator.
"""
from __future__ import annotations

from usmp.shapes.resolve import resolve_shapes

__all__ = ["resolve_shapes"]
