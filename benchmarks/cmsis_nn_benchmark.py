"""Portable kernels against CMSIS-NN on the emulated DSP cores: instructions and flash per model.

    .venv/bin/python benchmarks/cmsis_nn_benchmark.py [--cmsis-nn DIR] [--target T ...] [MODEL ...]

Per model and target, for --kernels portable and cmsis-nn: the instructions
one inference executes (QEMU's trace, the same on every run), flash of the
generated code and of the kernels (USMP's plus the CMSIS-NN functions the
model reaches, built -O2 as TFLite Micro builds them), and the workspace.
Default models: the shared ones; default CMSIS-NN: ../shared/third_party/cmsis-nn.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from reference import random_inputs, shared_models  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.runner.cortex_m import run_cortex_m  # noqa: E402

TARGETS = ("cortex-m4", "cortex-m7", "cortex-m33")


def measure(model: Path, target: str, kernels: str, cmsis_nn: str) -> dict:
    compiled = compile_model(model, CompileOptions(cpu=target, kernels=kernels, cmsis_nn=cmsis_nn))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(0))
    report = run_cortex_m(compiled, inputs, target, count=True).report
    return dict(instructions=report["instructions"], code=report["flash_bytes"]["generated_code"],
                kernels=report["flash_bytes"]["kernels"], workspace=sum(report["ram_bytes"]["pools"].values()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--target", action="append", choices=TARGETS)
    parser.add_argument("--cmsis-nn", default=str(ROOT.parent / "shared" / "third_party" / "cmsis-nn"))
    args = parser.parse_args()
    print("| model | target | kernels | instructions | generated code B | kernels B | workspace B |")
    print("|---|---|---|---:|---:|---:|---:|")
    for model in args.models or shared_models():
        for target in args.target or TARGETS:
            for kernels in ("portable", "cmsis-nn"):
                m = measure(model, target, kernels, args.cmsis_nn)
                print(f"| {model.stem} | {target} | {kernels} | {m['instructions']} | {m['code']} | "
                      f"{m['kernels']} | {m['workspace']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
