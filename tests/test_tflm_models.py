"""TFLite Micro's own example models (tests/models/tflm/): bit-exact with its interpreter, sanitizer clean, on Cortex-M.

person_detect is the case of the issue: its biases carry the filters'
per-channel scales and axis, which the importer once refused.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reference import outputs_match, random_inputs, reference_outputs
from test_cortex_m import MISSING, run_on_smallest_board
from usmp.compiler import compile_model
from usmp.runner.host import run_host

TFLM_MODELS = sorted((Path(__file__).parent / "models" / "tflm").glob("*.tflite"))
INPUTS_PER_MODEL = 3


def test_the_collection_is_there():
    assert {m.stem for m in TFLM_MODELS} >= {"person_detect", "micro_speech_quantized", "hello_world_int8"}


@pytest.mark.parametrize("model", TFLM_MODELS, ids=[m.stem for m in TFLM_MODELS])
def test_matches_tflite_micro(model):
    compiled = compile_model(model)
    rng = np.random.default_rng(31)
    for trial in range(INPUTS_PER_MODEL):
        inputs = random_inputs(compiled.program.graph, rng)
        expected, got = reference_outputs(model, inputs), run_host(compiled, inputs)
        assert len(got) == len(expected)
        for k, (e, g) in enumerate(zip(expected, got)):
            assert outputs_match(e, g), f"{model.name} trial {trial} output {k}:\nexpected {e}\ngot      {g}"


@pytest.mark.parametrize("model", TFLM_MODELS, ids=[m.stem for m in TFLM_MODELS])
def test_sanitizers_clean(model):
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(8))
    for e, g in zip(reference_outputs(model, inputs), run_host(compiled, inputs, sanitize=True)):
        assert outputs_match(e, g)


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("model", TFLM_MODELS, ids=[m.stem for m in TFLM_MODELS])
def test_matches_tflite_micro_on_cortex_m(model):
    """On the emulated Cortex-M0, or the Cortex-M3 when the micro:bit is too small (person_detect)."""
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(9))
    for e, g in zip(reference_outputs(model, inputs), run_on_smallest_board(compiled, inputs).outputs):
        assert outputs_match(e, g)
