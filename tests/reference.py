"""The numerical reference: TFLite Micro's interpreter (PyPI tflite-micro)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
TEST_MODELS = REPO_ROOT / "tests" / "models"
# TFLite Micro's example models the suites run most (shipped in tests/models/tflm with their licence note)
EXAMPLE_MODELS = TEST_MODELS / "tflm"
EXAMPLE_NAMES = ("hello_world_int8", "micro_speech_quantized")
ARENA_BYTES = 4 * 1024 * 1024


def example_models() -> list[Path]:
    return [EXAMPLE_MODELS / f"{name}.tflite" for name in EXAMPLE_NAMES]


def test_models() -> list[Path]:
    return sorted(TEST_MODELS.glob("*.tflite"))


def all_models() -> list[Path]:
    return example_models() + test_models()


def reference_outputs(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    import tflite_micro

    Interpreter = tflite_micro.runtime.Interpreter

    interpreter = Interpreter.from_file(str(model), arena_size=ARENA_BYTES)
    for i, array in enumerate(inputs):
        interpreter.set_input(array, i)
    interpreter.invoke()
    return [np.array(interpreter.get_output(i)) for i in range(output_count(model))]


def output_count(model: Path) -> int:
    """Read from the flatbuffer, so the interpreter is never asked for an output it lacks."""
    import tflite

    return tflite.Model.GetRootAsModel(Path(model).read_bytes(), 0).Subgraphs(0).OutputsLength()


def random_inputs(graph, rng: np.random.Generator) -> list[np.ndarray]:
    """Inputs spread over the whole integer range of their type, or over a few units for float."""
    arrays = []
    for index in graph.inputs:
        t = graph.tensors[index]
        if t.dtype in ("int8", "uint8", "int16"):
            info = np.iinfo(t.dtype)
            arrays.append(rng.integers(int(info.min), int(info.max) + 1, t.shape).astype(t.dtype))
        elif t.dtype in ("int32", "int64"):
            arrays.append(rng.integers(-1000, 1001, t.shape).astype(t.dtype))
        elif t.dtype == "bool":
            arrays.append(rng.integers(0, 2, t.shape).astype(np.bool_))
        elif t.dtype == "float32":
            arrays.append(rng.uniform(-3.0, 3.0, t.shape).astype(np.float32))
        else:
            raise ValueError(f"no random input for {t.dtype}")
    return arrays


# float32 "within float rounding": USMP's float kernels sum the same terms as TFLite Micro's in another order
# (the bias first, blocks of taps, vector lanes) with fused multiply-adds (one rounding a product-add, not two).
# Reordering an n-term sum moves it by about sqrt(n) * 2^-24 of its terms' magnitudes (n * 2^-24 at worst): at
# most 3e-6 for the deepest sums of the test and benchmark models (n = 2,304 in MobileNetV1's last 1x1 layers),
# measured 2e-7 on their outputs. A wrong tap or weight moves an output by about 1/n of it, 4e-4 or more: so
# 1e-5 relative (1e-6 absolute, for outputs near 0) passes every rounding and catches every such mistake.
FLOAT_RTOL, FLOAT_ATOL = 1e-5, 1e-6


def outputs_match(expected: np.ndarray, got: np.ndarray) -> bool:
    if expected.dtype != got.dtype or expected.shape != got.shape:
        return False
    if expected.dtype == np.float32:  # equal_nan: SQRT, LOG of negatives
        return bool(np.allclose(got, expected, rtol=FLOAT_RTOL, atol=FLOAT_ATOL, equal_nan=True))
    return bool(np.array_equal(expected, got))


def litert_outputs(model: Path, inputs: list[np.ndarray], reference_kernels: bool = False) -> list[np.ndarray]:
    """LiteRT's outputs, for models TFLite Micro refuses (uint8, hybrid, shapes computed in the graph, ...).

    Without delegates (XNNPACK moves int8 results by many LSB), with LiteRT's builtin kernels, or with its
    reference kernels when `reference_kernels`.
    """
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.BUILTIN_REF if reference_kernels else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    for detail, array in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], array)
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()]


def check_on_target(model: Path, target: str, seed: int, count: bool = False):
    """Compile model, run it on the emulated target with random inputs from seed and assert every output
    matches the tflite-micro interpreter's; (compiled, inputs, run)."""
    from usmp.compiler import compile_model
    from usmp.runner.baremetal import run_on_target

    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(seed))
    run = run_on_target(compiled, inputs, target, count=count)
    expected = reference_outputs(model, inputs)
    assert len(run.outputs) == len(expected)
    for k, (e, g) in enumerate(zip(expected, run.outputs)):
        assert outputs_match(e, g), f"{model.name} on {target} output {k}:\nexpected {e}\ngot      {g}"
    return compiled, inputs, run
