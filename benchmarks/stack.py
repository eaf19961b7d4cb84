"""RAM = pools + stack, measured: the default build's pools, its stack bound and painted stack, per model and core.

    .venv/bin/python benchmarks/stack.py [MODEL ...] [--targets cortex-m0,cortex-m3,...] [--cmsis-nn DIR]
                                         [--no-count]

Issue 33's table. Per model and core, the default build (--tiling auto, --workspace-io: the model's
input and output planned in the workspace) compiled, run on QEMU and checked bit-exact against
tflite-micro: its pools, the stack bound of one inference from the image's call graph (usmp/stack),
the stack measured by painting, and the RAM a user gives (pools + the bound) against the whole-tensor
reference (the tensor-level bound, the planner's lower bound with whole tensors, + the stack a
whole-tensor build measures). Then the instructions of one inference (QEMU's trace) unless --no-count.
A model that does not fit a core is said so in a line; one
whose whole tensors do not fit but whose default build does has no ratio. The last lines give, per core, the geometric mean
and the largest of the ratios.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from depth_first import number  # noqa: E402
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import EXAMPLE_MODELS, TEST_MODELS, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.baremetal import run_on_target, target_named  # noqa: E402

MODELS = [EXAMPLE_MODELS / "micro_speech_quantized.tflite", ROOT / "benchmarks" / "models" / "ds_cnn_kws.tflite",
          ROOT / "benchmarks" / "models" / "mobilenet_v1_025_96.tflite",
          ROOT / "benchmarks" / "models" / "resnet8_32.tflite", TEST_MODELS / "tflm" / "person_detect.tflite"]
TARGETS = ("cortex-m0", "cortex-m3", "cortex-m4", "cortex-m55", "riscv32")


def build_and_run(model: Path, target: str, tiling: str, cmsis_nn: str | None, count: bool) -> dict:
    options = CompileOptions(tiling=tiling, workspace_io=True, cpu=target_named(target).cpu, cmsis_nn=cmsis_nn)
    compiled = compile_model(model, options)
    ram_pools = compiled.layout.writable_pools  # workspace and state: the constants stay in flash
    row = {"pools": sum(p.size for p in ram_pools), "bound": sum(p.lower_bound for p in ram_pools),
           "stack": None, "stack_bound": None, "path": [], "instructions": None, "exact": True}
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(33))
    try:
        run = run_on_target(compiled, inputs, target, count=count, stack=True)
    except UsmpError as exc:
        if tiling == "off" and "does not fit" in str(exc):
            return row  # whole tensors may not fit a core that the default build fits: the bound still counts
        raise
    expected = reference_outputs(model, inputs)
    report = run.report
    row.update(stack=report["ram_bytes"]["stack"], stack_bound=report.get("stack_bound"),
               path=report.get("stack_bound_path") or [], instructions=report.get("instructions"),
               exact=len(expected) == len(run.outputs) and all(outputs_match(e, g)
                                                               for e, g in zip(expected, run.outputs)))
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, a Zephyr workspace's module)")
    parser.add_argument("--no-count", action="store_true", help="do not count instructions (faster)")
    args = parser.parse_args(argv)
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:
        print(f"note: {CMSIS_NN_MISSING}; the DSP and Helium cores run the portable kernels", file=sys.stderr)
    header = ("model", "core", "pools B", "stack bound B", "stack measured B", "pools + bound B",
              "tensor bound B", "whole stack B", "ratio", "instructions", "exact", "deepest path")
    print(" | ".join(header))
    print("|".join("-" * len(h) for h in header))
    ratios: dict[str, list[float]] = {}
    failed = False
    for model in args.models or MODELS:
        for target in (t for t in args.targets.split(",") if t):
            try:
                whole = build_and_run(model, target, "off", str(cmsis_nn) if cmsis_nn else None, False)
                row = build_and_run(model, target, "auto", str(cmsis_nn) if cmsis_nn else None, not args.no_count)
            except UsmpError as exc:
                print(f"{model.stem} | {target} | not measured: {str(exc).splitlines()[0]}", flush=True)
                continue
            failed |= not (row["exact"] and whole["exact"])
            failed |= row["stack_bound"] is None or row["stack_bound"] < row["stack"]
            ram = row["pools"] + (row["stack_bound"] or row["stack"])
            ratio = ram / (whole["bound"] + whole["stack"]) if whole["stack"] is not None else None
            if ratio is not None:
                ratios.setdefault(target, []).append(ratio)
            path = " -> ".join(f"{name} {frame}" for name, frame in row["path"])
            print(" | ".join([model.stem, target, number(row["pools"]), number(row["stack_bound"]),
                              number(row["stack"]), number(ram), number(whole["bound"]), number(whole["stack"]),
                              f"{ratio:.2f}" if ratio else "-", number(row["instructions"]),
                              "yes" if row["exact"] and whole["exact"] else "NO", path]), flush=True)
    for target, values in ratios.items():
        geo = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"{target}: (pools + stack bound) / (tensor-level bound + whole-tensor stack), geometric mean "
              f"{geo:.2f}, largest {max(values):.2f} ({len(values)} models)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
