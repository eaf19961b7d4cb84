"""What a depth-first loop costs: the cost model's estimate against the instructions QEMU counts, per chain.

    .venv/bin/python benchmarks/band_costs.py [MODEL ...] [--targets cortex-m4,cortex-m55] [--mode max]
                                              [--budget PERCENT] [--cmsis-nn DIR] [--kernels K]

`--tiling auto` spends an instruction budget on the chains its cost model (scripts/usmp/tiling/cost.py) prices;
this script checks those prices. Each model is built with whole tensors and with the mode's chains (both with
--workspace-io, as benchmarks/depth_first.py builds them), and both run one inference on the emulated core with a
per-operator profile. A chain's measured price is its loop's instructions less what its operators took as whole
tensors. Per chain: operators, band rows, bands, the kernels, estimate, measured and their ratio; per target, the
ratio of the sums. The cost model's constants come from these figures.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from depth_first import DEFAULT_MODELS  # noqa: E402
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import random_inputs  # noqa: E402

import numpy as np  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.baremetal import run_on_target, target_named  # noqa: E402


def step_counts(model: Path, target: str, mode: str, budget: float, cmsis_nn: str | None, kernels: str):
    """The compiled program and the instructions of each of its steps in one inference."""
    options = CompileOptions(tiling=mode, workspace_io=True, cpu=target_named(target).cpu, cmsis_nn=cmsis_nn,
                             tiling_budget=budget, kernels=kernels)
    compiled = compile_model(model, options)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
    report = run_on_target(compiled, inputs, target, profile=True).report
    return compiled.program, report["step_instructions"]


def chain_prices(model: Path, target: str, mode: str, budget: float, cmsis_nn: str | None, kernels: str):
    """Per chain of the mode's build: (choice, measured extra instructions, its loop's kernels)."""
    whole_program, whole_steps = step_counts(model, target, "off", budget, cmsis_nn, kernels)
    whole: dict[int, int] = {}
    for op, n in zip(whole_program.ops, whole_steps):
        whole[op.op_index] = whole.get(op.op_index, 0) + n
    program, steps = step_counts(model, target, mode, budget, cmsis_nn, kernels)
    found = []
    for op, n in zip(program.ops, steps):
        choice = getattr(op, "choice", None)
        if choice is None:
            continue
        measured = n - sum(whole.get(i, 0) for i in choice.op_indices)
        functions = sorted({call.function for call in op.calls})
        found.append((choice, measured, functions))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--targets", default="cortex-m4,cortex-m55")
    parser.add_argument("--mode", default="max", help="the chains priced: those of --tiling max (default) or auto")
    parser.add_argument("--budget", type=float, default=CompileOptions().tiling_budget)
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, a Zephyr workspace's module)")
    parser.add_argument("--kernels", default="auto")
    args = parser.parse_args(argv)
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:
        print(f"note: {CMSIS_NN_MISSING}; the DSP and Helium cores run the portable kernels", file=sys.stderr)
    cmsis_nn = str(cmsis_nn) if cmsis_nn else None
    header = ("model", "target", "operators", "band rows", "bands", "estimate", "measured", "x measured", "kernels")
    print(" | ".join(header))
    print("-|-".join("-" * len(h) for h in header))
    for target in [t for t in args.targets.split(",") if t]:
        estimated = measured_total = 0
        for model in args.models or DEFAULT_MODELS:
            try:
                prices = chain_prices(model, target, args.mode, args.budget, cmsis_nn, args.kernels)
            except UsmpError as exc:
                print(f"{model.stem} | {target} | not measured: {str(exc).splitlines()[0]}")
                continue
            for choice, measured, functions in prices:
                estimate = choice.extra_instructions
                estimated += estimate
                measured_total += measured
                ratio = f"{estimate / measured:.2f}" if measured > 0 else "-"
                print(" | ".join([model.stem, target, " ".join(map(str, choice.op_indices)), str(choice.band),
                                  str(choice.bands), f"{estimate:,}", f"{measured:,}", ratio,
                                  " ".join(f.removeprefix("usmp_") for f in functions)]), flush=True)
        if measured_total > 0:
            print(f"{target}: estimates sum to {estimated:,}, measurements to {measured_total:,} "
                  f"({estimated / measured_total:.2f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
