"""Model inputs and outputs as .npy files, checked against the model."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from usmp.errors import UsmpError
from usmp.ir.graph import numpy_dtype
from usmp.lower.program import Program


def load_inputs(program: Program, paths: list[str | Path]) -> list[np.ndarray]:
    graph = program.graph
    if len(paths) != len(graph.inputs):
        raise UsmpError(f"the model has {len(graph.inputs)} input(s) but {len(paths)} --input file(s) were given")
    arrays = []
    for position, (path, index) in enumerate(zip(paths, graph.inputs)):
        try:
            array = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise UsmpError(f"--input {path}: cannot read a .npy array ({exc})") from None
        arrays.append(check_input(program, position, array, str(path)))
    return arrays


def check_input(program: Program, position: int, array: np.ndarray, what: str) -> np.ndarray:
    tensor = program.graph.tensors[program.graph.inputs[position]]
    expected = np.dtype(numpy_dtype(tensor.dtype))
    if array.dtype != expected or array.size != tensor.num_elements:
        raise UsmpError(
            f"{what}: input {position} '{tensor.name}' needs {expected.name}{list(tensor.shape)}, "
            f"got {array.dtype.name}{list(array.shape)}"
        )
    return np.ascontiguousarray(array.reshape(tensor.shape))


def output_arrays(program: Program, raw: list[bytes]) -> list[np.ndarray]:
    arrays = []
    for index, data in zip(program.graph.outputs, raw):
        tensor = program.graph.tensors[index]
        arrays.append(np.frombuffer(data, dtype=numpy_dtype(tensor.dtype)).reshape(tensor.shape).copy())
    return arrays


def save_outputs(arrays: list[np.ndarray], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, array in enumerate(arrays):
        path = out_dir / f"output_{i}.npy"
        np.save(path, array)
        paths.append(path)
    return paths
