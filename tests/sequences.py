"""Sequences for models with state: random input streams and TFLite Micro run over them.

The reference for a stream is one interpreter instance invoked once per
step, so its variables carry over exactly as they do on a device.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from reference import ARENA_BYTES, output_count, random_inputs

STATEFUL_MODELS_DIR = Path(__file__).resolve().parent / "models" / "stateful"


def stateful_models() -> list[Path]:
    return sorted(STATEFUL_MODELS_DIR.glob("*.tflite"))


def random_sequence(graph, steps: int, rng: np.random.Generator) -> list[np.ndarray]:
    """One array per model input, `steps` inputs stacked on a leading axis."""
    per_step = [random_inputs(graph, rng) for _ in range(steps)]
    return [np.stack([step[i] for step in per_step]) for i in range(len(graph.inputs))]


def reference_sequence(model: Path, inputs: list[np.ndarray], reset_before: int | None = None) -> list[np.ndarray]:
    """Outputs (stacked per step) of one TFLite Micro interpreter invoked once per step.

    reset_before=k calls the interpreter's reset() before step k.
    """
    import tflite_micro

    interpreter = tflite_micro.runtime.Interpreter.from_file(str(model), arena_size=ARENA_BYTES)
    outputs: list[list[np.ndarray]] = [[] for _ in range(output_count(model))]
    for step in range(len(inputs[0])):
        if step == reset_before:
            interpreter.reset()
        for i, array in enumerate(inputs):
            interpreter.set_input(array[step], i)
        interpreter.invoke()
        for i in range(len(outputs)):
            outputs[i].append(np.array(interpreter.get_output(i)))
    return [np.stack(o) for o in outputs]


def restarted_reference(model: Path, inputs: list[np.ndarray], restart: int) -> list[np.ndarray]:
    """What a stream restarted before step `restart` gives: a fresh interpreter for the steps from there.

    This is USMP's reset(): the state as after init(). TFLite Micro's own
    reset() refills variables with their zero points but does not run the
    initialiser subgraph again, so the two agree when the initial values are
    zero points (see test_stateful.py).
    """
    first = reference_sequence(model, [a[:restart] for a in inputs])
    second = reference_sequence(model, [a[restart:] for a in inputs])
    return [np.concatenate([a, b]) for a, b in zip(first, second)]


def mismatched_steps(expected: list[np.ndarray], got: list[np.ndarray], outputs_match) -> list[int]:
    """Steps at which any output differs."""
    steps = len(expected[0])
    return [k for k in range(steps) if not all(outputs_match(e[k], g[k]) for e, g in zip(expected, got))]


def litert_sequence(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """reference_sequence for models TFLite Micro refuses: one LiteRT interpreter (builtin kernels, no
    delegates) invoked once per step, its variables carried over."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interpreter = Interpreter(model_path=str(model),
                              experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    outputs = []
    for step in range(len(inputs[0])):
        for detail, array in zip(interpreter.get_input_details(), inputs):
            interpreter.set_tensor(detail["index"], array[step])
        interpreter.invoke()
        outputs.append([interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()])
    return [np.stack([step[k] for step in outputs]) for k in range(len(outputs[0]))]
