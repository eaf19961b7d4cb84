"""Print what each model costs on an emulated Cortex-M0 (QEMU micro:bit, -Os) or another Cortex-M target.

    .venv/bin/python benchmarks/cortex_m0.py [--target cortex-m0|cortex-m3|...|cortex-m55] [MODEL ...]

Per model: flash by part, RAM by part, the stack of one inference, the
instructions one inference executes (counted from QEMU's trace, the same on
every run) and instructions per multiply-accumulate. Default models:
TFLite Micro's examples (tests/models/tflm). A model that does not fit is reported as such.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import random_inputs, example_models  # noqa: E402

from usmp.compiler import compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.report.macs import multiply_accumulates  # noqa: E402
from usmp.runner.cortex_m import TARGETS, run_cortex_m  # noqa: E402


def report_lines(model: Path, target: str) -> list[str]:
    try:
        compiled = compile_model(model)
        inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
        report = run_cortex_m(compiled, inputs, target, count=True).report
    except UsmpError as exc:
        return [f"{model.stem}: {exc}"]
    flash, ram = report["flash_bytes"], report["ram_bytes"]
    macs = multiply_accumulates(compiled.program.graph)
    instructions = report["instructions"]
    bounds = compiled.plan.lower_bounds
    pools = ", ".join(f"{name} {size}" + (f" (planner lower bound {bounds[name]})" if name in bounds else "")
                      for name, size in ram["pools"].items()) or "none"
    per_mac = f"{instructions / macs:.1f}" if macs else "n/a"
    return [
        f"{model.stem} on {report['target']} (qemu -M {report['machine']}, -Os)",
        f"  flash {report['flash_total_bytes']} B: generated code {flash['generated_code']}, "
        f"kernels {flash['kernels']} (code without weights: {flash['generated_code'] + flash['kernels']}), "
        f"constants {flash['constants']}, harness {flash['harness']}",
        f"  RAM: pools ({pools}), stack {ram['stack']}, other {ram['other']} "
        f"(harness I/O buffers, C library data, stdio heap {report['heap_bytes']})",
        f"  stack of one inference: {ram['stack']} B",
        f"  instructions per inference: {instructions:,}",
        f"  multiply-accumulates: {macs:,}; instructions per MAC: {per_mac}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: hello_world and micro_speech)")
    parser.add_argument("--target", default="cortex-m0", choices=tuple(TARGETS))
    args = parser.parse_args(argv)
    for model in args.models or example_models():
        print("\n".join(report_lines(model, args.target)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
