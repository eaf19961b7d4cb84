"""The DSP-core targets (Cortex-M4 on MPS2 AN386, Cortex-M7 on AN500, Cortex-M33 on AN505) run TFLite Micro's example models bit-exact.

They build and measure like the Cortex-M3 target, so two models each keep QEMU's share of the suite
small; counting twice checks that one inference costs the same instructions every run.
"""
from __future__ import annotations

import shutil

import pytest

from reference import check_on_target, example_models
from usmp.runner.baremetal import run_on_target

MISSING = [t for t in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")

MODELS = sorted(example_models())
TARGETS = ("cortex-m4", "cortex-m7", "cortex-m33")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_reference_with_steady_count(model, target):
    compiled, inputs, first = check_on_target(model, target, 7, count=True)
    assert first.report["target"] == target
    again = run_on_target(compiled, inputs, target, count=True)
    assert first.report["instructions"] > 0
    assert again.report["instructions"] == first.report["instructions"]
