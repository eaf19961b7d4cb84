"""Depth-first execution, measured: workspace, stack, instructions and code, whole tensors against --tiling auto.

    .venv/bin/python benchmarks/depth_first.py [MODEL ...] [--targets host,cortex-m4,...] [--modes auto,max]
                                               [--budget PERCENT] [--cmsis-nn DIR] [--kernels K]

Every build plans the model's inputs and outputs in the workspace (--workspace-io), so the
tensor-level bound (the planner's lower bound with whole tensors, --tiling off) counts all of a
model's activations. Per model and target: that bound, each mode's workspace and its share of the
bound, the stack of one inference (measured by painting), the instructions of one inference (QEMU's
trace: deterministic) and the generated code + kernels in flash, each mode against whole tensors,
the outputs checked against tflite-micro, and the compile time (CPU seconds). On the DSP and Helium
cores the kernels are those --kernels auto (or --kernels K) selects (CMSIS-NN: --cmsis-nn, else $CMSIS_NN_PATH
or a Zephyr workspace's module), with TFLite Micro + CMSIS-NN's count where it is known
(benchmarks/cortex_m_targets.py). The last lines give the geometric means of the workspace shares.
Default models: micro_speech, person_detect and the benchmark models (benchmarks/models/).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from cortex_m_targets import TFLM_CMSIS_NN  # noqa: E402
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import EXAMPLE_MODELS, TEST_MODELS, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.baremetal import run_on_target, target_named  # noqa: E402
from usmp.runner.host import run_host  # noqa: E402

DEFAULT_MODELS = [EXAMPLE_MODELS / "micro_speech_quantized.tflite", TEST_MODELS / "tflm" / "person_detect.tflite",
                  *sorted(m for m in (ROOT / "benchmarks" / "models").glob("*.tflite")
                          if not m.stem.endswith("_f32"))]
DEFAULT_TARGETS = ("host", "cortex-m0", "cortex-m3", "cortex-m4", "cortex-m55")


def build(model: Path, target: str, mode: str, budget: float, cmsis_nn: str | None, kernels: str = "auto"):
    cpu = "generic" if target == "host" else target_named(target).cpu
    options = CompileOptions(tiling=mode, workspace_io=True, cpu=cpu, cmsis_nn=cmsis_nn, tiling_budget=budget,
                             kernels=kernels)
    started = time.process_time()
    compiled = compile_model(model, options)
    return compiled, time.process_time() - started


def measure(model: Path, target: str, mode: str, budget: float, cmsis_nn: str | None, inputs,
            kernels: str = "auto") -> dict:
    compiled, seconds = build(model, target, mode, budget, cmsis_nn, kernels)
    row = {"workspace": compiled.plan.pool_sizes.get("workspace", 0),
           "bound": compiled.plan.lower_bounds.get("workspace", 0), "compile s": seconds,
           "chains": [(op.choice.op_indices, op.choice.band) for op in compiled.program.ops
                      if getattr(op, "choice", None)]}
    inputs = inputs or random_inputs(compiled.program.graph, np.random.default_rng(2024))
    expected = reference_outputs(model, inputs)
    if target == "host":
        outputs = run_host(compiled, inputs)
    else:
        run = run_on_target(compiled, inputs, target, count=True)
        outputs, report = run.outputs, run.report
        flash = report["flash_bytes"]
        row.update(instructions=report["instructions"], stack=report["ram_bytes"]["stack"],
                   code=flash["generated_code"] + flash["kernels"])
    row["exact"] = len(expected) == len(outputs) and all(outputs_match(e, g) for e, g in zip(expected, outputs))
    return row


def ratio(a, b) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def number(v) -> str:
    return f"{v:,}" if isinstance(v, int) else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--targets", default=",".join(DEFAULT_TARGETS))
    parser.add_argument("--modes", default="auto", help="modes measured against --tiling off (default auto)")
    parser.add_argument("--budget", type=float, default=CompileOptions().tiling_budget,
                        help="--tiling-budget in per cent (default %(default)s)")
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, a Zephyr workspace's module)")
    parser.add_argument("--kernels", default="auto", help="--kernels of every build (auto, usmp: USMP's DSP kernels "
                                                          "only, cmsis-nn, portable)")
    args = parser.parse_args(argv)
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:
        print(f"note: {CMSIS_NN_MISSING}; the DSP and Helium cores run the portable kernels", file=sys.stderr)
    cmsis_nn = str(cmsis_nn) if cmsis_nn else None
    targets = [t for t in args.targets.split(",") if t]
    modes = [m for m in args.modes.split(",") if m]
    header = ("model", "target", "mode", "bound B", "workspace B", "share", "stack B", "instructions", "x whole",
              "code B", "x whole", "exact", "TFLM+CMSIS-NN", "x TFLM", "compile s")
    print(" | ".join(header))
    print("-|-".join("-" * len(h) for h in header))
    shares: dict[tuple[str, str], list[float]] = {}
    failed = False
    for model in args.models or DEFAULT_MODELS:
        for target in targets:
            try:
                whole = measure(model, target, "off", args.budget, cmsis_nn, None, args.kernels)
                rows = [("off", whole)] + [(m, measure(model, target, m, args.budget, cmsis_nn, None, args.kernels))
                                           for m in modes]
            except UsmpError as exc:
                print(f"{model.stem} | {target} | not measured: {str(exc).splitlines()[0]}")
                continue
            for mode, row in rows:
                failed |= not row["exact"]
                share = row["workspace"] / whole["bound"]
                if mode != "off":
                    shares.setdefault((mode, target), []).append(share)
                theirs = TFLM_CMSIS_NN.get(model.stem, {}).get(target)
                print(" | ".join([
                    model.stem, target, mode, number(whole["bound"]), number(row["workspace"]), f"{share:.2f}",
                    number(row.get("stack")), number(row.get("instructions")),
                    ratio(row.get("instructions"), whole.get("instructions")), number(row.get("code")),
                    ratio(row.get("code"), whole.get("code")), "yes" if row["exact"] else "NO",
                    number(theirs), ratio(row.get("instructions"), theirs), f"{row['compile s']:.1f}"]), flush=True)
                if mode != "off" and row["chains"]:
                    print(f"    chains (operators, band rows): {row['chains']}", flush=True)
    for (mode, target), values in sorted(shares.items()):
        geo = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"{mode} on {target}: workspace / tensor-level bound, geometric mean {geo:.2f}, "
              f"largest {max(values):.2f} ({len(values)} models)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
