"""Every model: the generated C equals TFLite Micro bit-exactly (float: 1e-5 relative)."""
from __future__ import annotations

import numpy as np
import pytest

from reference import all_models, outputs_match, random_inputs, reference_outputs
from usmp.compiler import compile_model
from usmp.runner.host import run_host

INPUTS_PER_MODEL = 5
MODELS = all_models()


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_reference(model):
    compiled = compile_model(model)
    rng = np.random.default_rng(1234)
    for trial in range(INPUTS_PER_MODEL):
        inputs = random_inputs(compiled.program.graph, rng)
        expected = reference_outputs(model, inputs)
        got = run_host(compiled, inputs)
        assert len(got) == len(expected)
        for k, (e, g) in enumerate(zip(expected, got)):
            assert outputs_match(e, g), f"{model.name} trial {trial} output {k}:\nexpected {e}\ngot      {g}"


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_sanitizers_clean(model):
    """The generated code and kernels run under ASan and UBSan without a finding."""
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(7))
    got = run_host(compiled, inputs, sanitize=True)
    for e, g in zip(reference_outputs(model, inputs), got):
        assert outputs_match(e, g)
