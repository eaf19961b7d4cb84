"""The project's own graph IR: what a model is, independent of its file format."""
from usmp.ir.graph import Graph, Operator, Quantization, Tensor

__all__ = ["Graph", "Operator", "Quantization", "Tensor"]
