"""Float16 weights (tests/models/float16/): DEQUANTIZE of a float16 constant is folded at compile time.

TFLite Micro refuses these models, so LiteRT's interpreter is the reference
(float32 within 1e-5 relative, as for every float model).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import litert_outputs as reference_litert_outputs
from reference import outputs_match, random_inputs
from test_cortex_m import MISSING, run_on_smallest_board
from test_import_errors import compile_bytes
from usmp.compiler import compile_model
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator
FLOAT16_MODELS = sorted((Path(__file__).parent / "models" / "float16").glob("*.tflite"))
INPUTS_PER_MODEL = 5


def litert_outputs(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return reference_litert_outputs(model, inputs, reference_kernels=True)


def test_the_models_are_there():
    assert {m.stem for m in FLOAT16_MODELS} == {"conv_net_f16", "fc_net_f16", "add_constant_f16"}


@pytest.mark.parametrize("model", FLOAT16_MODELS, ids=[m.stem for m in FLOAT16_MODELS])
def test_dequantize_is_folded_and_outputs_match_litert(model):
    compiled = compile_model(model)
    assert "DEQUANTIZE" not in {op.opcode for op in compiled.program.ops}
    assert "DEQUANTIZE" in {op.opcode for op in _raw_operators(model)}
    constants = [b for b in compiled.program.buffers.values() if b.is_constant]
    assert constants and all(b.c_type in ("float", "int32_t") for b in constants)
    rng = np.random.default_rng(16)
    for trial in range(INPUTS_PER_MODEL):
        inputs = random_inputs(compiled.program.graph, rng)
        expected, got = litert_outputs(model, inputs), run_host(compiled, inputs)
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert outputs_match(e, g), f"{model.name} trial {trial}:\nexpected {e}\ngot      {g}"


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("model", FLOAT16_MODELS, ids=[m.stem for m in FLOAT16_MODELS])
def test_outputs_match_litert_on_cortex_m(model):
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(61))
    for e, g in zip(litert_outputs(model, inputs), run_on_smallest_board(compiled, inputs).outputs):
        assert outputs_match(e, g)


def test_folded_values_are_the_float16_values(tmp_path):
    weights = np.array([[0.1, -2.5, 65504.0, 6e-8]], np.float16)  # largest and smallest (subnormal) float16
    sub = tb.Sub([
        tb.T("input", (1, 4), "float32"),
        tb.T("weights_f16", (1, 4), "float16", data=weights),
        tb.T("weights", (1, 4), "float32"),
        tb.T("output", (1, 4), "float32"),
    ], [tb.Op(OP.DEQUANTIZE, [1], [2]), tb.Op(OP.MUL, [0, 2], [3])], [0], [3])
    model = tmp_path / "mul.tflite"
    model.write_bytes(tb.build([sub]))
    compiled = compile_model(model)
    assert [op.opcode for op in compiled.program.ops] == ["MUL"]
    ones = np.ones((1, 4), np.float32)
    assert np.array_equal(run_host(compiled, [ones])[0], weights.astype(np.float32))


def test_float16_activation_is_refused(tmp_path):
    compile_bytes(tmp_path, tb.build([tb.fc_subgraph(in_dtype="float16")]), "tensor 0 'input' has type FLOAT16",
                  "not a constant", "not for activations")


def test_float16_constant_read_by_another_operator_is_refused_by_it(tmp_path):
    sub = tb.Sub([
        tb.T("input", (1, 4), "float32"),
        tb.T("half", (1, 4), "float16", data=np.ones((1, 4), np.float16)),
        tb.T("output", (1, 4), "float32"),
    ], [tb.Op(OP.ADD, [0, 1], [2])], [0], [2])
    compile_bytes(tmp_path, tb.build([sub]), "operator 0 (ADD)", "float16")


def _raw_operators(model: Path):
    from usmp.check import check_model

    return check_model(model).operators
