"""Compare USMP on every emulated target with TFLite Micro + CMSIS-NN (issue 13) where it was measured.

    PYTHONPATH=scripts .venv/bin/python benchmarks/cortex_m_targets.py [--targets T,T] [--kernels K] [MODEL ...]

The targets are the Cortex-M cores and the RISC-V ones (riscv32, riscv32imac; benchmarks/riscv_tflm.py
compares those with TFLite Micro's reference kernels). Per model and target: the instructions of one inference (QEMU's trace, the same on every run) and
per multiply-accumulate, the code without weights (generated code + kernels), the pools (workspace
in RAM, constants in flash), the stack of one inference and whether the outputs equal
tflite-micro's. Where the model is one of the published TFLM + CMSIS-NN measurements (QEMU
instruction counts, GCC 12.2), their count and ours/theirs. Default models: micro_speech
(tests/models/tflm) and the benchmark models (benchmarks/models/, tests/models/make_benchmark_models.py).
A model that does not fit a board (the micro:bit's 256 KB flash / 16 KB RAM) is listed as such.

--kernels is passed to the compiler (CompileOptions.kernels, with CompileOptions.cpu set to each
target's core) when the compiler has a kernel selection; without it the portable kernels run.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import EXAMPLE_MODELS, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.report.macs import multiply_accumulates  # noqa: E402
from usmp.runner.baremetal import TARGETS, run_on_target, target_named  # noqa: E402

DEFAULT_MODELS = [EXAMPLE_MODELS / "micro_speech_quantized.tflite",
                  *sorted((ROOT / "benchmarks" / "models").glob("*.tflite"))]
# Instructions of one inference with TFLM + CMSIS-NN under QEMU (GCC 12.2), from issue 13.
TFLM_CMSIS_NN = {
    "micro_speech_quantized": {"cortex-m4": 1_476_031, "cortex-m55": 1_008_172},
    "ds_cnn_kws": {"cortex-m4": 7_580_242, "cortex-m55": 1_816_826},
    "mobilenet_v1_025_96": {"cortex-m4": 23_775_928, "cortex-m55": 6_558_004},
}
TFLM_CMSIS_NN_CODE = {("micro_speech_quantized", "cortex-m4"): 58.5 * 1024}  # TFLM + CMSIS-NN code and kernels
COLUMNS = ("model", "target", "MACs", "instructions", "instr/MAC", "code+kernels B", "workspace B",
           "constants B", "stack B", "bit-exact", "TFLM+CMSIS-NN instr", "USMP/TFLM")


def compile_options(target: str, kernels: str | None, cmsis_nn: str | None = None) -> CompileOptions:
    """Portable kernels unless asked for others; then the compiler also learns the target's core."""
    if kernels is None:
        return CompileOptions()
    known = {f.name for f in dataclasses.fields(CompileOptions)}
    if "kernels" not in known:
        raise UsmpError(f"--kernels {kernels}: this compiler has no kernel selection (CompileOptions.kernels)")
    extra = {"cpu": target_named(target).cpu} if "cpu" in known else {}
    if cmsis_nn and "cmsis_nn" in known:
        extra["cmsis_nn"] = cmsis_nn
    return CompileOptions(kernels=kernels, **extra)


def measure(model: Path, target: str, kernels: str | None, cmsis_nn: str | None = None) -> dict:
    """One row: the measurements of one inference of model on target, or why there are none."""
    row = {"model": model.stem, "target": target}
    try:
        compiled = compile_model(model, compile_options(target, kernels, cmsis_nn))
        inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
        run = run_on_target(compiled, inputs, target, count=True)
    except UsmpError as exc:
        row["note"] = str(exc)
        return row
    report = run.report
    expected = reference_outputs(model, inputs)
    macs = multiply_accumulates(compiled.program.graph)
    flash = report["flash_bytes"]
    row.update({
        "MACs": macs,
        "instructions": report["instructions"],
        "instr/MAC": report["instructions"] / macs if macs else None,
        "code+kernels B": flash["generated_code"] + flash["kernels"],
        "workspace B": sum(report["ram_bytes"]["pools"].values()),
        "constants B": flash["constants"],
        "stack B": report["ram_bytes"]["stack"],
        "bit-exact": len(expected) == len(run.outputs) and all(
            outputs_match(e, g) for e, g in zip(expected, run.outputs)),
    })
    theirs = TFLM_CMSIS_NN.get(model.stem, {}).get(target)
    if theirs:
        row["TFLM+CMSIS-NN instr"] = theirs
        row["USMP/TFLM"] = report["instructions"] / theirs
    return row


def cell(row: dict, column: str) -> str:
    value = row.get(column)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(rows: list[dict]) -> list[str]:
    """A plain table; a row without measurements carries its reason on a line of its own."""
    measured = [r for r in rows if "note" not in r]
    cells = [[cell(r, c) for c in COLUMNS] for r in measured]
    widths = [max([len(c)] + [len(line[i]) for line in cells]) for i, c in enumerate(COLUMNS)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(v.rjust(w) if i >= 2 else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths)))
              for line in cells]
    lines += [f"{r['model']} on {r['target']}: not measured: {r['note']}" for r in rows if "note" in r]
    for (model, target), size in TFLM_CMSIS_NN_CODE.items():
        ours = next((r["code+kernels B"] for r in measured if (r["model"], r["target"]) == (model, target)), None)
        if ours is not None:
            lines.append(f"code+kernels of {model} on {target}: USMP {ours:,} B, TFLM+CMSIS-NN {size / 1024:.1f} KB "
                         f"({ours / size:.2f}x)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: micro_speech and benchmarks/models)")
    parser.add_argument("--targets", default=",".join(TARGETS),
                        help=f"comma-separated emulated targets (default: {','.join(TARGETS)})")
    parser.add_argument("--kernels", default=None,
                        help="kernel selection passed to the compiler, if it has one (default: portable C kernels)")
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory for --kernels auto|cmsis-nn (default: $CMSIS_NN_PATH, "
                                           "a Zephyr workspace's cmsis-nn module)")
    args = parser.parse_args(argv)
    if args.kernels in ("auto", "cmsis-nn"):
        found = args.cmsis_nn or cmsis_nn_dir()
        if found is None:
            print(f"note: {CMSIS_NN_MISSING}, or pass --cmsis-nn DIR; the DSP and Helium cores run the portable "
                  f"kernels", file=sys.stderr)
        args.cmsis_nn = str(found) if found else None
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    try:
        for target in targets:
            target_named(target)
        compile_options(targets[0], args.kernels)
    except UsmpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = []
    for model in args.models or DEFAULT_MODELS:
        for target in targets:
            rows.append(measure(model, target, args.kernels, args.cmsis_nn))
            print(f"measured {model.stem} on {target}", file=sys.stderr, flush=True)
    print(f"USMP ({args.kernels or 'portable'} kernels, -Os) on QEMU; instructions of one inference")
    print("\n".join(table(rows)))
    return 0 if all(r.get("bit-exact", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
