"""Cores without SIMD (Cortex-M0, Cortex-M3, RV32IMC): USMP's default build per MAC beside TFLite Micro's.

    .venv/bin/python benchmarks/scalar_cores.py [--targets cortex-m0,cortex-m3,riscv32] [--no-code-before] [MODEL ...]

Per model and core: the instructions of one inference of USMP's default build (`usmp run --target` with its
defaults: the core's kernels, USMP's scalar kernels on these cores, --tiling auto; QEMU's count), per MAC, the
peer's instructions and per MAC, the ratio, USMP's code and kernels in bytes beside those of the same model with
--kernels portable (the code before the scalar kernels) and whether the outputs equal the tflite-micro
interpreter's. The peers are TFLite Micro as its Makefile builds it for the core, measured once by
benchmarks/riscv_tflm.py (RV32: riscv32_generic, BUILD_TYPE=release, its reference kernels at -O2 and the
runtime at -Os) and benchmarks/tflm_benchmark.py (M0, M3: cortex_m_generic with OPTIMIZED_KERNEL_DIR=cmsis_nn,
release, whose kernels take CMSIS-NN's plain C paths on cores without DSP); see scalar_cores_results.md for
how each was built. Last line per core: the geometric means of instructions per MAC and of the ratio.
Default models: micro_speech, DS-CNN, MobileNetV1-0.25, ResNet-8 and person_detect (int8).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from reference import EXAMPLE_MODELS, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.report.macs import multiply_accumulates  # noqa: E402
from usmp.runner.baremetal import run_on_target, target_named  # noqa: E402
from cortex_m_targets import grid  # noqa: E402

BENCHMARK_MODELS = ROOT / "benchmarks" / "models"
DEFAULT_MODELS = [EXAMPLE_MODELS / "micro_speech_quantized.tflite", BENCHMARK_MODELS / "ds_cnn_kws.tflite",
                  BENCHMARK_MODELS / "mobilenet_v1_025_96.tflite", BENCHMARK_MODELS / "resnet8_32.tflite",
                  EXAMPLE_MODELS / "person_detect.tflite"]
TARGETS = ("cortex-m0", "cortex-m3", "riscv32")
# The peers' instructions of one Invoke() on the same inputs (seed 2024), outputs equal to tflite-micro's:
# TFLite Micro 90b983c2b built by benchmarks/riscv_tflm.py (riscv32) and benchmarks/tflm_benchmark.py
# (cortex-m0, cortex-m3; CMSIS-NN of ../shared/third_party), GCC 12.2, QEMU 7.2 (scalar_cores_results.md).
PEERS = {
    "riscv32": {"micro_speech_quantized": 8_765_792, "ds_cnn_kws": 45_555_124, "mobilenet_v1_025_96": 114_458_471,
                "resnet8_32": 127_029_632, "person_detect": 109_357_506},
    "cortex-m0": {"micro_speech_quantized": 2_597_229},  # the others do not fit its 16 KB
    "cortex-m3": {"micro_speech_quantized": 1_512_514, "ds_cnn_kws": 10_535_372, "mobilenet_v1_025_96": 32_231_243,
                  "resnet8_32": 41_849_430, "person_detect": 30_327_291},
}
PEER_NAMES = {"riscv32": "TFLM reference (release)", "cortex-m0": "TFLM + CMSIS-NN", "cortex-m3": "TFLM + CMSIS-NN"}
COLUMNS = ("model", "core", "MACs", "instructions", "per MAC", "peer", "peer per MAC", "ratio", "code B",
           "before", "code ratio", "bit-exact")


def measure(model: Path, target: str, code_before: bool) -> dict:
    """One row, or the reason there is none (a model that does not fit the board)."""
    row = {"model": model.stem, "core": target}
    cpu = target_named(target).cpu
    try:
        compiled = compile_model(model, CompileOptions(cpu=cpu))
        inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
        run = run_on_target(compiled, inputs, target, count=True)
        before = None
        if code_before:
            portable = compile_model(model, CompileOptions(cpu=cpu, kernels="portable"))
            before = _code(run_on_target(portable, inputs, target).report)
    except UsmpError as exc:
        row["note"] = str(exc)
        return row
    macs = multiply_accumulates(compiled.program.graph)
    instructions = run.report["instructions"]
    expected = reference_outputs(model, inputs)
    row.update({"MACs": macs, "instructions": instructions, "per MAC": instructions / macs,
                "code B": _code(run.report), "before": before,
                "bit-exact": len(expected) == len(run.outputs) and all(
                    outputs_match(e, g) for e, g in zip(expected, run.outputs))})
    if before:
        row["code ratio"] = row["code B"] / before
    peer = PEERS.get(target, {}).get(model.stem)
    if peer:
        row.update({"peer": peer, "peer per MAC": peer / macs, "ratio": instructions / peer})
    return row


def _code(report: dict) -> int:
    flash = report["flash_bytes"]
    return flash["generated_code"] + flash["kernels"]


def geo_mean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def table(rows: list[dict]) -> list[str]:
    measured = [r for r in rows if "note" not in r]
    lines = grid(rows, COLUMNS)
    for core in dict.fromkeys(r["core"] for r in measured):
        mine = [r for r in measured if r["core"] == core]
        per_mac = geo_mean([r["per MAC"] for r in mine])
        ratio = geo_mean([r["ratio"] for r in mine if "ratio" in r])
        lines.append(f"{core}: geo-mean {per_mac:.2f} instructions per MAC over {len(mine)} models"
                     + (f", {ratio:.2f}x {PEER_NAMES[core]}" if ratio else ""))
    lines += [f"{r['model']} on {r['core']}: not measured: {r['note']}" for r in rows if "note" in r]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: the five above)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated emulated cores")
    parser.add_argument("--no-code-before", action="store_true", help="skip the --kernels portable builds")
    args = parser.parse_args(argv)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    try:
        for target in targets:
            target_named(target)
    except UsmpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = []
    for target in targets:
        for model in args.models or DEFAULT_MODELS:
            rows.append(measure(model, target, not args.no_code_before))
            print(f"measured {model.stem} on {target}", file=sys.stderr, flush=True)
    print("USMP's default build (usmp run --target) on QEMU beside TFLite Micro as its Makefile builds it for the "
          "core; instructions of one inference")
    print("\n".join(table(rows)))
    return 0 if all(r.get("bit-exact", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
