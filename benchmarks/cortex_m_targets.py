"""Compare USMP on every emulated target with TFLite Micro + CMSIS-NN (issue 13) where it was measured.

    PYTHONPATH=scripts .venv/bin/python benchmarks/cortex_m_targets.py [--targets T,T] [--kernels K] [MODEL ...]

The targets are the Cortex-M cores and the RISC-V ones (riscv32, riscv32imac; benchmarks/riscv_tflm.py
compares those with TFLite Micro's reference kernels). Per model and target: the instructions of one inference (QEMU's trace, the same on every run) and
per multiply-accumulate, the code without weights (generated code + kernels), the pools (workspace
in RAM, constants in flash), the stack of one inference and whether the outputs equal
tflite-micro's. TFLite Micro + CMSIS-NN's count of the same inference (benchmarks/tflm_benchmark.py: same
QEMU, GCC 12.2, linker script, start-up and count) and ours/theirs; the Cortex-M4's count is the reference
for the M7 and M33 too (TFLite Micro runs no float in Invoke, so its code is the same for the three). Default
models: micro_speech and person_detect (tests/models/tflm) and the benchmark models (benchmarks/models/,
tests/models/make_benchmark_models.py).
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
                  *sorted(m for m in (ROOT / "benchmarks" / "models").glob("*.tflite")
                          if not m.stem.endswith("_f32")),
                  EXAMPLE_MODELS / "person_detect.tflite"]
# Instructions of one inference with TFLM + CMSIS-NN under QEMU (GCC 12.2, each TB counted from its bytes),
# measured by benchmarks/tflm_benchmark.py (TFLite Micro 90b983c2b, CMSIS-NN of ../shared/third_party,
# release build). Issue 13's figures were within 1.3 % of these (micro_speech 1,476,031 on the M4).
TFLM_CMSIS_NN = {
    "micro_speech_quantized": {"cortex-m4": 1_476_083, "cortex-m55": 1_018_393},
    "ds_cnn_kws": {"cortex-m4": 7_582_149, "cortex-m55": 1_817_888},
    "mobilenet_v1_025_96": {"cortex-m4": 24_076_679, "cortex-m55": 6_867_248},
    "resnet8_32": {"cortex-m4": 29_778_827, "cortex-m55": 4_914_143},
    "person_detect": {"cortex-m4": 22_573_001, "cortex-m55": 6_508_112},
}
# The cores whose TFLM + CMSIS-NN reference is another core's count (the same code runs on both).
TFLM_REFERENCE_CORE = {"cortex-m7": "cortex-m4", "cortex-m33": "cortex-m4"}
# TFLM + CMSIS-NN code and kernels (runtime and kernels, benchmarks/tflm_benchmark.py: 14,459 + 42,153 B)
TFLM_CMSIS_NN_CODE = {("micro_speech_quantized", "cortex-m4"): 56_612}
COLUMNS = ("model", "target", "MACs", "instructions", "instr/MAC", "code+kernels B", "workspace B",
           "constants B", "stack B", "bit-exact", "TFLM+CMSIS-NN instr", "USMP/TFLM")


def compile_options(target: str, kernels: str | None, cmsis_nn: str | None = None,
                    optimize: str | None = None) -> CompileOptions:
    """Portable kernels unless asked for others; then the compiler also learns the target's core."""
    if kernels is None:
        return CompileOptions()
    known = {f.name for f in dataclasses.fields(CompileOptions)}
    if "kernels" not in known:
        raise UsmpError(f"--kernels {kernels}: this compiler has no kernel selection (CompileOptions.kernels)")
    extra = {"cpu": target_named(target).cpu} if "cpu" in known else {}
    if cmsis_nn and "cmsis_nn" in known:
        extra["cmsis_nn"] = cmsis_nn
    if optimize and "optimize" in known:
        extra["optimize"] = optimize
    return CompileOptions(kernels=kernels, **extra)


def measure(model: Path, target: str, kernels: str | None, cmsis_nn: str | None = None,
            optimize: str | None = None) -> dict:
    """One row: the measurements of one inference of model on target, or why there are none."""
    row = {"model": model.stem, "target": target}
    try:
        compiled = compile_model(model, compile_options(target, kernels, cmsis_nn, optimize))
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
    theirs = tflm_instructions(model.stem, target)
    if theirs:
        row["TFLM+CMSIS-NN instr"] = theirs
        row["USMP/TFLM"] = report["instructions"] / theirs
    return row


def tflm_instructions(model: str, target: str) -> int | None:
    """TFLite Micro + CMSIS-NN's instructions for one inference of model on target, if measured."""
    return TFLM_CMSIS_NN.get(model, {}).get(TFLM_REFERENCE_CORE.get(target, target))


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


def grid(rows: list[dict], columns: tuple[str, ...]) -> list[str]:
    """The measured rows under their columns, the first two left-aligned, the figures right-aligned."""
    cells = [[cell(r, c) for c in columns] for r in rows if "note" not in r]
    widths = [max([len(c)] + [len(line[i]) for line in cells]) for i, c in enumerate(columns)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(columns, widths)), "-+-".join("-" * w for w in widths)]
    return lines + [" | ".join(v.rjust(w) if i >= 2 else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths)))
                    for line in cells]


def table(rows: list[dict]) -> list[str]:
    """A plain table; a row without measurements carries its reason on a line of its own."""
    measured = [r for r in rows if "note" not in r]
    lines = grid(rows, COLUMNS)
    lines += [f"{r['model']} on {r['target']}: not measured: {r['note']}" for r in rows if "note" in r]
    for (model, target), size in TFLM_CMSIS_NN_CODE.items():
        ours = next((r["code+kernels B"] for r in measured if (r["model"], r["target"]) == (model, target)), None)
        if ours is not None:
            lines.append(f"code+kernels of {model} on {target}: USMP {ours:,} B, TFLM+CMSIS-NN {size:,} B "
                         f"({ours / size:.2f}x)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: micro_speech and benchmarks/models)")
    parser.add_argument("--targets", default=",".join(TARGETS),
                        help=f"comma-separated emulated targets (default: {','.join(TARGETS)})")
    parser.add_argument("--kernels", default=None,
                        help="kernel selection passed to the compiler, if it has one (default: portable C kernels)")
    parser.add_argument("--optimize", default=None, help="the DSP kernels' filters: balanced, speed or size")
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
        compile_options(targets[0], args.kernels, args.cmsis_nn, args.optimize)
    except UsmpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = []
    for model in args.models or DEFAULT_MODELS:
        for target in targets:
            rows.append(measure(model, target, args.kernels, args.cmsis_nn, args.optimize))
            print(f"measured {model.stem} on {target}", file=sys.stderr, flush=True)
    print(f"USMP ({args.kernels or 'portable'} kernels, -Os) on QEMU; instructions of one inference")
    print("\n".join(table(rows)))
    return 0 if all(r.get("bit-exact", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
