"""Graph IR: tensors and operators of one subgraph with static shapes.

Kept deliberately plain (dataclasses and numpy arrays) so that every later
stage can be read without knowing the TFLite flatbuffer schema.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# dtype name -> (numpy dtype, C type, bytes per element)
DTYPES = {
    "float32": (np.float32, "float", 4),
    "float16": (np.float16, "uint16_t", 2),  # constants only: folded to float32 before lowering
    "int8": (np.int8, "int8_t", 1),
    "uint8": (np.uint8, "uint8_t", 1),
    "int16": (np.int16, "int16_t", 2),
    "int32": (np.int32, "int32_t", 4),
    "int64": (np.int64, "int64_t", 8),
    "uint32": (np.uint32, "uint32_t", 4),  # TFLite Micro's signal library (energies, filter bank outputs)
    "uint64": (np.uint64, "uint64_t", 8),
    "bool": (np.bool_, "uint8_t", 1),
    "resource": (np.int32, "int32_t", 4),  # a resource variable's handle (VAR_HANDLE); never a buffer
}


def numpy_dtype(dtype: str):
    return DTYPES[dtype][0]


def c_type(dtype: str) -> str:
    return DTYPES[dtype][1]


def element_size(dtype: str) -> int:
    return DTYPES[dtype][2]


@dataclass
class Quantization:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per channel."""

    scales: np.ndarray  # float32, length 1 or number of channels
    zero_points: np.ndarray  # int64, same length as scales
    axis: int = 0  # the quantized dimension when per channel

    @property
    def per_channel(self) -> bool:
        return len(self.scales) > 1

    @property
    def scale(self) -> float:
        return float(self.scales[0])

    @property
    def zero_point(self) -> int:
        return int(self.zero_points[0])


@dataclass
class Tensor:
    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    quant: Quantization | None = None
    data: np.ndarray | None = None  # set for constant tensors, already shaped
    is_variable: bool = False  # state kept across inferences (SVDF, LSTM), see usmp/state
    # The converter's shape signature where it has unknown (-1) dimensions, else None: `shape` then holds the
    # converter's guess, which usmp/shapes replaces with the shape the fixed input shapes imply.
    signature: tuple[int, ...] | None = None

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def num_elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def nbytes(self) -> int:
        return self.num_elements * element_size(self.dtype)


@dataclass
class Operator:
    index: int
    opcode: str  # TFLite builtin name, e.g. "CONV_2D"
    inputs: list[int | None]  # tensor indices; None for an omitted optional input
    outputs: list[int]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Graph:
    name: str
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]
    # Subgraphs CALL_ONCE runs before the first inference (tf.Variable initialisers), by subgraph index.
    init_graphs: dict[int, "Graph"] = field(default_factory=dict)
    # Operators computed at compile time, with why (fold/, frontend/float16.py): for the reports only.
    folded: list[tuple[Operator, str]] = field(default_factory=list)
    # Subgraphs IF and WHILE run (branches, loop conditions and bodies), by subgraph index; each keeps its own
    # tensors. Shared by the main graph and every subgraph of one model.
    subgraphs: dict[int, "Graph"] = field(default_factory=dict)

    def tensor(self, index: int) -> Tensor:
        return self.tensors[index]

    def consumers(self, tensor_index: int) -> list[Operator]:
        return [op for op in self.operators if tensor_index in op.inputs]

    def producer(self, tensor_index: int) -> Operator | None:
        for op in self.operators:
            if tensor_index in op.outputs:
                return op
        return None
