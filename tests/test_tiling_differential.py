"""Random depth-first chains (tests/random_chains.py), their longest regions fused into loops with a band height
and strategy drawn from the seed, are bit-exact with tflite-micro: on the host with the portable kernels and
with CMSIS-NN's (DSP and Helium selections, their plain C), and on the emulated Cortex-M0, M4 and M55. A sample
runs here; benchmarks/tiling_differential.py runs hundreds."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from random_chains import longest_regions_tiler, random_chain
from reference import outputs_match, random_inputs, reference_outputs
from usmp.compiler import CompileOptions, compile_model
from usmp.runner.cortex_m import run_cortex_m
from usmp.runner.host import run_host

CMSIS_NN = cmsis_nn_dir()
QEMU = all(shutil.which(t) for t in ("arm-none-eabi-gcc", "qemu-system-arm"))
needs_cmsis_nn = pytest.mark.skipif(CMSIS_NN is None, reason=CMSIS_NN_MISSING)
needs_qemu = pytest.mark.skipif(not QEMU, reason="arm-none-eabi-gcc or qemu-system-arm not installed")


def check(tmp_path: Path, seed: int, cpu: str, run, monkeypatch) -> None:
    model = tmp_path / f"chain{seed}.tflite"
    model.write_bytes(random_chain(seed))
    monkeypatch.setattr("usmp.compiler.tile_program", longest_regions_tiler(seed))
    compiled = compile_model(model, CompileOptions(tiling="max", cpu=cpu, cmsis_nn=str(CMSIS_NN) if CMSIS_NN else None))
    assert any(op.opcode.startswith("DEPTH_FIRST_") for op in compiled.program.ops), f"seed {seed}: no chain"
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(seed))
    for k, (e, g) in enumerate(zip(reference_outputs(model, inputs), run(compiled, inputs))):
        assert outputs_match(e, g), f"seed {seed} ({cpu}) output {k}:\nexpected {e}\ngot      {g}"


def test_the_generator_is_deterministic_and_covers_the_link_kinds(tmp_path):
    assert random_chain(5) == random_chain(5)
    seen = set()
    for seed in range(24):
        model = tmp_path / f"chain{seed}.tflite"
        model.write_bytes(random_chain(seed))
        program = compile_model(model, CompileOptions(tiling="max")).program
        seen |= {link.opcode for op in program.ops for link in getattr(op, "links", [])}
    assert {"CONV_2D", "DEPTHWISE_CONV_2D", "PAD", "ADD", "CONCATENATION"} <= seen
    assert seen & {"AVERAGE_POOL_2D", "MAX_POOL_2D"} and seen & {"MEAN", "FULLY_CONNECTED"}


@pytest.mark.parametrize("seed", range(16))
def test_portable_on_the_host(tmp_path, seed, monkeypatch):
    check(tmp_path, seed, "generic", lambda c, x: run_host(c, x, sanitize=True), monkeypatch)


@needs_cmsis_nn
@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m55"])
@pytest.mark.parametrize("seed", range(16, 24))
def test_cmsis_nn_selections_on_the_host(tmp_path, seed, cpu, monkeypatch):
    """The DSP and Helium selections with CMSIS-NN's plain C (and USMP's Helium kernels' C twins)."""
    check(tmp_path, seed, cpu, lambda c, x: run_host(c, x, sanitize=True), monkeypatch)


@needs_qemu
@pytest.mark.parametrize("seed", range(24, 27))
def test_portable_on_the_cortex_m0(tmp_path, seed, monkeypatch):
    check(tmp_path, seed, "cortex-m0", lambda c, x: run_cortex_m(c, x, "cortex-m0").outputs, monkeypatch)


@needs_qemu
@needs_cmsis_nn
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m55"])
@pytest.mark.parametrize("seed", range(27, 30))
def test_fast_kernels_on_the_emulated_cores(tmp_path, seed, target, monkeypatch):
    check(tmp_path, seed, target, lambda c, x: run_cortex_m(c, x, target).outputs, monkeypatch)
