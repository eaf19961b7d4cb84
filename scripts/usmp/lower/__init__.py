"""Lower stage: graph operators into kernel calls over buffers.

Lowering is where constants become first-class buffers (weights, and the
constants the compiler derives: requantization multipliers, folded biases,
repacked weights) and where kernels declare their scratch memory.
"""
from usmp.lower.lowering import lower_graph
from usmp.lower.program import Arg, Buffer, KernelCall, LoweredOp, Program

__all__ = ["Arg", "Buffer", "KernelCall", "LoweredOp", "Program", "lower_graph"]
