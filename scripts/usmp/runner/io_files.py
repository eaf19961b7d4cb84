"""Model inputs and outputs as .npy files, checked against the model.

With --steps N (a sequence for a model with state) every file holds N
arrays stacked on a new leading axis, and so does every output file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from usmp.errors import UsmpError
from usmp.ir.graph import numpy_dtype
from usmp.lower.program import Program


def load_inputs(program: Program, paths: list[str | Path], steps: int | None = None) -> list[np.ndarray]:
    graph = program.graph
    if len(paths) != len(graph.inputs):
        raise UsmpError(f"the model has {len(graph.inputs)} input(s) but {len(paths)} --input file(s) were given")
    arrays = []
    for position, (path, index) in enumerate(zip(paths, graph.inputs)):
        try:
            array = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise UsmpError(f"--input {path}: cannot read a .npy array ({exc})") from None
        if steps is None:
            arrays.append(check_input(program, position, array, str(path)))
        elif array.ndim < 1 or array.shape[0] != steps:
            raise UsmpError(f"--input {path}: --steps {steps} needs {steps} inputs stacked on a leading axis, "
                            f"got shape {list(array.shape)}")
        else:
            arrays.append(np.stack([check_input(program, position, a, f"{path} step {k}")
                                    for k, a in enumerate(array)]))
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


def write_harness_inputs(program: Program, inputs: list[np.ndarray], steps: int | None, work_dir: Path,
                         reset_before: int | None = None) -> None:
    """input_<i>.bin (all steps one after the other) and, for a model with state, steps.bin.

    reset_before=k makes the harness call reset() before step k (tests of reset()).
    """
    for i, array in enumerate(inputs):
        (work_dir / f"input_{i}.bin").write_bytes(np.ascontiguousarray(array).tobytes())
    if program.init_ops:
        (work_dir / "steps.bin").write_bytes(np.array([steps or 1, reset_before or 0], np.int32).tobytes())


def read_harness_outputs(program: Program, steps: int | None, work_dir: Path) -> list[np.ndarray]:
    """output_<i>.bin as arrays; with steps, each stacked on a leading axis of that many."""
    arrays = []
    for i, index in enumerate(program.graph.outputs):
        tensor = program.graph.tensors[index]
        data = np.frombuffer((work_dir / f"output_{i}.bin").read_bytes(), dtype=numpy_dtype(tensor.dtype))
        arrays.append(data.reshape(tensor.shape if steps is None else (steps, *tensor.shape)).copy())
    return arrays


def step_by_step(run_one, inputs: list[np.ndarray], steps: int) -> list[np.ndarray]:
    """A model without state run on a sequence: one independent inference per step, outputs stacked."""
    results = [run_one([a[k] for a in inputs]) for k in range(steps)]
    return [np.stack([r[i] for r in results]) for i in range(len(results[0]))]
