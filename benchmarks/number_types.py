"""The benchmark models in every number type, side by side, per core (issue 30).

    PYTHONPATH=scripts .venv/bin/python benchmarks/number_types.py [--targets T,T] [--types int8,int16]
        [--cmsis-nn DIR] [MODEL ...]

Each model of TWINS in each of its number types, built with the defaults (`usmp run --target T`: --kernels
auto with CMSIS-NN, --tiling auto, --optimize balanced) and run once on the emulated core (QEMU's trace;
random input, seed 2024): instructions of one inference, instructions per multiply-accumulate, the ratio to
the model's int8 twin on the same core (issue 30's target for int16x8: at most 1.3x on the DSP cores, 2.0x on
the M55), the depth-first loops, the operators left on portable kernels (the compile notice's, by index), flash
of the generated code and of the kernels, the constants, and whether every output equals tflite-micro's (float:
within float rounding). A number type is one more key of a twin; a model without it is skipped.
"""
from __future__ import annotations

import argparse
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
from usmp.runner.baremetal import run_on_target  # noqa: E402
from usmp.tiling.loop import BandLoop  # noqa: E402

MODELS = ROOT / "benchmarks" / "models"
# model -> number type -> file (tests/models/make_benchmark_models.py makes them; the int8 micro_speech is TFLite
# Micro's own, and ML-zoo's int16 DS-CNN has the MLPerf DS-CNN of the same layers and MACs as its int8 twin)
TWINS = {
    "DS-CNN": {"int8": MODELS / "ds_cnn_kws.tflite", "int16": MODELS / "ds_cnn_kws_int16.tflite"},
    "MobileNetV1 0.25 96": {"int8": MODELS / "mobilenet_v1_025_96.tflite",
                            "int16": MODELS / "mobilenet_v1_025_96_int16.tflite"},
    "ResNet-8": {"int8": MODELS / "resnet8_32.tflite", "int16": MODELS / "resnet8_32_int16.tflite"},
    "DS-CNN f32": {"int8": MODELS / "ds_cnn_kws.tflite", "float32": MODELS / "ds_cnn_kws_f32.tflite"},
    "MobileNetV1 f32": {"int8": MODELS / "mobilenet_v1_025_96.tflite",
                        "float32": MODELS / "mobilenet_v1_025_96_f32.tflite"},
    "micro_speech": {"int8": EXAMPLE_MODELS / "micro_speech_quantized.tflite",
                     "int16": MODELS / "micro_speech_int16.tflite"},
    "ML-zoo DS-CNN S": {"int8": MODELS / "ds_cnn_kws.tflite", "int16": MODELS / "ds_cnn_s_mlzoo_int16.tflite"},
}
TARGETS = ("cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")
INT16_TARGET = {"cortex-m55": 2.0}  # times the int8 twin's instructions; 1.3 elsewhere


def measure(model: Path, target: str, cmsis_nn: str) -> dict:
    compiled = compile_model(model, CompileOptions(cpu=target, cmsis_nn=cmsis_nn))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
    result = run_on_target(compiled, inputs, target, count=True)
    expected = reference_outputs(model, inputs)
    flash = result.report["flash_bytes"]
    return {"instructions": result.report["instructions"], "macs": multiply_accumulates(compiled.program.graph),
            "exact": len(expected) == len(result.outputs) and all(outputs_match(e, g)
                                                                  for e, g in zip(expected, result.outputs)),
            "code": flash["generated_code"], "kernels": flash["kernels"], "constants": flash["constants"],
            "loops": sum(isinstance(op, BandLoop) for op in compiled.program.ops),
            "portable": [f"{s.index} {s.op}" for s in compiled.program.portable_steps]}


def markdown(columns: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table, the numbers right-aligned."""
    align = ["---" if i < 3 or c == "portable" else "--:" for i, c in enumerate(columns)]
    return ["| " + " | ".join(r) + " |" for r in [columns, align, *rows]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help=f"twins by name (default: all of {', '.join(TWINS)})")
    parser.add_argument("--types", default=None, help="number types, comma-separated (default: every one a twin has)")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, ...)")
    args = parser.parse_args(argv)
    wanted = set(args.types.split(",")) if args.types else None
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:  # the figures are with CMSIS-NN found
        print(f"error: {CMSIS_NN_MISSING}, or pass --cmsis-nn DIR", file=sys.stderr)
        return 2
    rows, all_exact, measured = [], True, {}
    for name in args.models or TWINS:
        for target in targets:
            twin = None
            for number_type, model in TWINS[name].items():
                if wanted is not None and number_type not in wanted | {"int8"}:
                    continue
                try:
                    if (model, target) not in measured:  # the int8 twins serve several rows
                        measured[model, target] = measure(model, target, str(cmsis_nn))
                    r = measured[model, target]
                except UsmpError as exc:
                    print(f"{name} {number_type} on {target}: not measured: {exc}", file=sys.stderr)
                    all_exact = False
                    continue
                print(f"measured {name} {number_type} on {target}: {r}", file=sys.stderr, flush=True)
                all_exact &= r["exact"]
                twin = r["instructions"] if number_type == "int8" else twin
                if wanted is not None and number_type not in wanted:
                    continue
                ratio = r["instructions"] / twin if twin else None
                within = "" if number_type != "int16" or ratio is None else (
                    " ok" if ratio <= INT16_TARGET.get(target, 1.3) else " OVER")
                rows.append([name, number_type, target, f"{r['instructions']:,}",
                             f"{r['instructions'] / r['macs']:.2f}" if r["macs"] else "-",
                             f"{ratio:.2f}x{within}" if ratio else "-", str(r["loops"]),
                             ", ".join(r["portable"]) or "none",
                             f"{r['code']:,}", f"{r['kernels']:,}", f"{r['constants']:,}",
                             "yes" if r["exact"] else "NO"])
    print("One inference on QEMU with the defaults (--kernels auto with CMSIS-NN, --tiling auto): instructions, "
          "per MAC, against the int8 twin on the same core (int16: ok within the issue's target), depth-first loops, "
          "operators on portable kernels, flash bytes")
    print("\n".join(markdown(["model", "type", "core", "instructions", "per MAC", "vs int8", "loops", "portable",
                              "code", "kernels", "constants", "matches tflite-micro"], rows)))
    return 0 if all_exact else 1


if __name__ == "__main__":
    sys.exit(main())
