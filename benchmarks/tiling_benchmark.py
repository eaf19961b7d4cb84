"""Workspace and instructions with --tiling off / auto / max, measured on the emulated Cortex-M.

Run: PYTHONPATH=scripts python benchmarks/tiling_benchmark.py MODEL.tflite... (prints one row per model x mode).
"""
from __future__ import annotations

import sys

import numpy as np

sys.path.insert(0, "tests")
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402
from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.runner.cortex_m import run_cortex_m  # noqa: E402

TARGET = "cortex-m3"  # the MobileNet-class models' constants do not fit the micro:bit's flash


def main(models: list[str]) -> None:
    print("model  mode  bound_B  workspace_B  instructions  bit_exact")
    for model in models:
        for mode in ("off", "auto", "max"):
            compiled = compile_model(model, CompileOptions(tiling=mode))
            inputs = random_inputs(compiled.program.graph, np.random.default_rng(0))
            run = run_cortex_m(compiled, inputs, TARGET, count=True)
            exact = all(outputs_match(e, g) for e, g in zip(reference_outputs(model, inputs), run.outputs))
            print(model, mode, sum(compiled.plan.lower_bounds.get(p, 0) for p in ("workspace",)),
                  compiled.plan.pool_sizes["workspace"], run.report["instructions"], exact, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
