"""Depth-first tiling, measured: workspace and instructions with --tiling off / auto / max.

    .venv/bin/python benchmarks/tiling_benchmark.py [MODEL.tflite ...] [--targets cortex-m0,cortex-m3]

Per model: the tensor-level lower bound (the workspace of `off`: plans sit at
it), the workspace with `auto` and `max` (and their share of the bound), and
the instructions of one inference on each emulated target with each mode
(counted by QEMU, deterministic), every run checked bit-exact against
tflite-micro. A model whose constants or workspace do not fit a target's
memory is skipped there, saying so. Without models it runs the project's
own: person_detect (TFLite Micro's example), the benchmark models of
benchmarks/models/ and the chains of tests/models/tiling/.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.baremetal import run_on_target  # noqa: E402

MODES = ("off", "auto", "max")


def default_models() -> list[Path]:
    return ([ROOT / "tests/models/tflm/person_detect.tflite"] + sorted((ROOT / "benchmarks/models").glob("*.tflite"))
            + sorted((ROOT / "tests/models/tiling").glob("*_int8.tflite")))


def measure(model: Path, targets: list[str]) -> dict:
    compiled = {mode: compile_model(model, CompileOptions(tiling=mode)) for mode in MODES}
    row = {"model": model.stem, **{mode: c.plan.pool_sizes["workspace"] for mode, c in compiled.items()}}
    inputs = random_inputs(compiled["off"].program.graph, np.random.default_rng(0))
    expected = reference_outputs(model, inputs)
    for target in targets:
        for mode, c in compiled.items():
            try:
                run = run_on_target(c, inputs, target, count=True)
            except UsmpError as exc:  # e.g. the micro:bit's 16 KB of RAM or 256 KB of flash
                print(f"{model.name} {mode} on {target}: {str(exc).splitlines()[0]}", file=sys.stderr)
                row[(target, mode)] = "does not fit"
                continue
            exact = all(outputs_match(e, g) for e, g in zip(expected, run.outputs))
            row[(target, mode)] = run.report["instructions"] if exact else "NOT BIT-EXACT"
    return row


def print_table(rows: list[dict], targets: list[str]) -> None:
    print("Workspace in bytes (bound = tensor-level lower bound = --tiling off) and instructions of one inference")
    head = ["model", "bound B", "auto B", "max B"]
    for target in targets:
        head += [f"{target} off", f"{target} auto", f"{target} max"]
    lines = [head]
    for r in rows:
        bound = r["off"]
        line = [r["model"], f"{bound:,}", f"{r['auto']:,} ({r['auto'] / bound:.2f})", f"{r['max']:,} ({r['max'] / bound:.2f})"]
        for target in targets:
            off = r[(target, "off")]
            for mode in MODES:
                value = r[(target, mode)]
                if isinstance(value, int) and isinstance(off, int) and mode != "off":
                    line.append(f"{value:,} ({(value - off) / off:+.1%})")
                else:
                    line.append(f"{value:,}" if isinstance(value, int) else value)
        lines.append(line)
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--targets", default="cortex-m0,cortex-m3")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    rows = []
    for model in args.models or default_models():
        rows.append(measure(model, targets))
        print(f"measured {model.name}", file=sys.stderr, flush=True)
    print_table(rows, targets)


if __name__ == "__main__":
    main()
