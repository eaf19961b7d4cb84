"""The benchmark models (benchmarks/models/, made by tests/models/make_benchmark_models.py) compile bit-exact.

They are too big for tests/models/ (every model there also runs on the emulated Cortex-M0), so they
are checked here on the host only: random inputs over the whole int8 (int16: int16) range and flat inputs
at both ends, once with the sanitizers. The int16 twins (<name>_int16) are the same networks with 16-bit
activations. benchmarks/cortex_m_targets.py measures them on the Cortex-M targets;
its table is checked here on TFLite Micro's micro_speech model, which QEMU runs quickly.
"""
from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from reference import REPO_ROOT, EXAMPLE_MODELS, outputs_match, random_inputs, reference_outputs
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.host import run_host

BENCHMARK_MODELS = sorted((REPO_ROOT / "benchmarks" / "models").glob("*.tflite"))
EXPECTED = {"ds_cnn_kws", "mobilenet_v1_025_96", "resnet8_32",
            "ds_cnn_kws_f32", "mobilenet_v1_025_96_f32",  # the float32 twins: benchmarks/float_kernels.py
            "ds_cnn_kws_int16", "mobilenet_v1_025_96_int16", "resnet8_32_int16", "micro_speech_int16",
            "ds_cnn_s_mlzoo_int16"}  # the int16x8 twins: benchmarks/number_types.py
MISSING = [t for t in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm") if shutil.which(t) is None]


def test_all_benchmark_models_are_there():
    assert {m.stem for m in BENCHMARK_MODELS} == EXPECTED


def _inputs(compiled, rng):
    yield from (random_inputs(compiled.program.graph, rng) for _ in range(5))
    for end in ("min", "max"):  # float twins: -128 and 127, as int8's
        yield [np.full(a.shape, getattr(np.iinfo(a.dtype), end) if a.dtype.kind == "i" else (-128, 127)[end == "max"],
                       a.dtype) for a in random_inputs(compiled.program.graph, rng)]


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


def _benchmark_script():
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    import cortex_m_targets

    return cortex_m_targets


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
def test_benchmark_table_on_cortex_m55(capsys):
    """The table has the measurements and the TFLM + CMSIS-NN comparison for micro_speech on the M55."""
    script = _benchmark_script()
    model = EXAMPLE_MODELS / "micro_speech_quantized.tflite"
    assert script.main(["--targets", "cortex-m55", str(model)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("micro_speech_quantized"))
    cells = [c.strip() for c in row.split("|")]
    assert cells[1] == "cortex-m55" and cells[2] == "336,000" and cells[9] == "yes"
    instructions = int(cells[3].replace(",", ""))
    tflm = script.TFLM_CMSIS_NN["micro_speech_quantized"]["cortex-m55"]  # measured by benchmarks/tflm_benchmark.py
    assert cells[10] == f"{tflm:,}" and cells[11] == f"{instructions / tflm:.2f}"


def test_benchmark_kernels_option_follows_the_compiler(capsys):
    script = _benchmark_script()
    if "kernels" in {f.name for f in dataclasses.fields(CompileOptions)}:
        assert script.compile_options("cortex-m55", "portable").kernels == "portable"
        return
    assert script.main(["--kernels", "cmsis-nn"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no kernel selection" in err[0]


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55"])
def test_int16_twins_keep_no_multiply_accumulates_on_portable_kernels(cpu):
    """Issue 30: with CMSIS-NN found and the defaults, no 16x8 operator with multiply-accumulates of the int16
    twins runs a portable kernel on the DSP and Helium cores (the compile notice's list, select/fallbacks.py;
    compiled only: benchmarks/number_types.py runs them)."""
    from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
    from usmp.compiler import analyse_model
    from usmp.report.macs import operator_macs

    found = cmsis_nn_dir()
    if found is None:
        pytest.skip(CMSIS_NN_MISSING)
    for model in [m for m in BENCHMARK_MODELS if m.stem.endswith("_int16")]:
        program, _ = analyse_model(model, CompileOptions(cpu=cpu, cmsis_nn=found))
        ops = {op.index: op for op in program.graph.operators}
        slow = [f"{s.index} {s.op}" for s in program.portable_steps if operator_macs(program.graph, ops[s.index])]
        assert not slow, f"{model.stem} on the {cpu}: {slow}"
