"""The benchmark models (benchmarks/models/, made by tests/models/make_benchmark_models.py) compile bit-exact.

They are too big for tests/models/ (every model there also runs on the emulated Cortex-M0), so they
are checked here on the host only: random inputs over the whole int8 range and flat inputs at both
ends, once with the sanitizers. benchmarks/cortex_m_targets.py measures them on the Cortex-M targets.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reference import REPO_ROOT, outputs_match, random_inputs, reference_outputs
from usmp.compiler import compile_model
from usmp.runner.host import run_host

BENCHMARK_MODELS = sorted((REPO_ROOT / "benchmarks" / "models").glob("*.tflite"))
EXPECTED = {"ds_cnn_kws", "mobilenet_v1_025_96", "resnet8_32"}


def test_all_benchmark_models_are_there():
    assert {m.stem for m in BENCHMARK_MODELS} == EXPECTED


def _inputs(compiled, rng):
    yield from (random_inputs(compiled.program.graph, rng) for _ in range(5))
    for fill in (-128, 127):
        yield [np.full(a.shape, fill, a.dtype) for a in random_inputs(compiled.program.graph, rng)]


@pytest.mark.parametrize("model", BENCHMARK_MODELS, ids=[m.stem for m in BENCHMARK_MODELS])
def test_matches_reference(model: Path):
    compiled = compile_model(model)
    seen = set()
    for k, inputs in enumerate(_inputs(compiled, np.random.default_rng(13))):
        expected = reference_outputs(model, inputs)
        got = run_host(compiled, inputs, sanitize=(k == 0))
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert outputs_match(e, g), f"{model.name} input {k}:\nexpected {e}\ngot      {g}"
        seen.add(expected[0].tobytes())
    # A random network whose deep layers lost the input would compare only its biases.
    assert len(seen) >= 4, f"{model.name}: the output hardly depends on the input"
