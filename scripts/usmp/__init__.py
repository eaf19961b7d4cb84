"""USMP: TensorFlow Lite models compiled to plain C with a unified static memory planner.

The pipeline reads top-down, one package per stage:
import (frontend) -> lower (constants, scratch) -> analyse liveness (analysis)
-> plan (planner) -> rewrite offsets and emit C (codegen).
"""

__version__ = "0.1.0"
