"""USMP on the Cortex-M55 (Helium) against TFLite Micro + CMSIS-NN (issue 31).

    PYTHONPATH=scripts .venv/bin/python benchmarks/helium_kernels.py [--cmsis-nn DIR] [--layers] [MODEL ...]

Per model, one inference on QEMU's mps3-an547 (random input, seed 2024), built as a user builds it: --tiling auto
--workspace-io, --kernels auto with CMSIS-NN found (USMP's Helium kernels where they are chosen, CMSIS-NN for the
rest). Printed: its instructions, against TFLite Micro + CMSIS-NN's (benchmarks/tflm_benchmark.py, the same QEMU,
GCC, start-up and count) and per multiply-accumulate; the code (generated code + kernels) against the default
build before USMP's own Helium kernels (TODAY_CODE); whole tensors (--tiling off) and depth-first against them;
whether every output equals tflite-micro's; and the five operators with the largest share of the whole-tensor
inference. The last line gives the geometric mean of the ratios to TFLite Micro + CMSIS-NN.

--layers adds every operator of the whole-tensor build beside the same build with --kernels cmsis-nn (CMSIS-NN's
MVE kernels wherever they compute the operator exactly): instructions, per MAC, and the ratio of the two.
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
from cortex_m_targets import DEFAULT_MODELS, TFLM_CMSIS_NN  # noqa: E402
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from dsp_kernels import kernel, macs, shape, table  # noqa: E402
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.report.macs import multiply_accumulates  # noqa: E402
from usmp.runner.baremetal import run_on_target  # noqa: E402

TARGET = "cortex-m55"
# Generated code + kernels (flash, bytes) of the default build (--tiling auto --workspace-io, --kernels auto with
# CMSIS-NN) on the Cortex-M55 before USMP's own Helium kernels (main at 26ad8b8: benchmarks/depth_first.py).
TODAY_CODE = {"micro_speech_quantized": 7_512, "person_detect": 14_102, "ds_cnn_kws": 13_540,
              "mobilenet_v1_025_96": 15_186, "resnet8_32": 11_892}
TOP = 5


def run(model: Path, tiling: str, kernels: str, cmsis_nn: str, profile: bool = False) -> dict:
    options = CompileOptions(cpu=TARGET, kernels=kernels, cmsis_nn=cmsis_nn, tiling=tiling, workspace_io=True)
    compiled = compile_model(model, options)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
    result = run_on_target(compiled, inputs, TARGET, count=True, profile=profile)
    expected = reference_outputs(model, inputs)
    flash = result.report["flash_bytes"]
    return {
        "instructions": result.report["instructions"],
        "exact": len(expected) == len(result.outputs) and all(outputs_match(e, g)
                                                              for e, g in zip(expected, result.outputs)),
        "code": flash["generated_code"] + flash["kernels"],
        "workspace": compiled.plan.pool_sizes.get("workspace", 0),
        "layers": list(zip(compiled.program.ops, result.report.get("step_instructions", []))),
        "graph": compiled.program.graph,
    }


def number(value: int | None) -> str:
    return f"{value:,}" if value is not None else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: the int8 ones of cortex_m_targets.py)")
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, ...)")
    parser.add_argument("--layers", action="store_true", help="every operator beside CMSIS-NN's kernels")
    args = parser.parse_args(argv)
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:
        print(f"error: {CMSIS_NN_MISSING}, or pass --cmsis-nn DIR", file=sys.stderr)
        return 2
    cmsis_nn = str(cmsis_nn)
    rows, tops, layer_rows, ratios, all_exact = [], [], [], [], True
    for model in args.models or [m for m in DEFAULT_MODELS if m.stem in TFLM_CMSIS_NN]:  # the int8 models
        default = run(model, "auto", "auto", cmsis_nn)
        whole = run(model, "off", "auto", cmsis_nn, profile=True)
        print(f"measured {model.stem}", file=sys.stderr, flush=True)
        all_exact &= default["exact"] and whole["exact"]
        work = multiply_accumulates(default["graph"])
        tflm = TFLM_CMSIS_NN.get(model.stem, {}).get(TARGET)
        today = TODAY_CODE.get(model.stem)
        if tflm:
            ratios.append(default["instructions"] / tflm)
        rows.append([model.stem, f"{default['instructions']:,}", number(tflm),
                     f"{default['instructions'] / tflm:.2f}" if tflm else "-",
                     f"{default['instructions'] / work:.3f}", f"{default['code']:,}",
                     f"{default['code'] / today:.2f}" if today else "-", f"{default['workspace']:,}",
                     f"{whole['instructions']:,}", f"{default['instructions'] / whole['instructions']:.3f}",
                     "yes" if default["exact"] and whole["exact"] else "NO"])
        ranked = sorted(whole["layers"], key=lambda entry: -entry[1])[:TOP]
        tops.append(f"{model.stem}: " + "; ".join(
            f"{op.op_index} {op.opcode} {count / whole['instructions']:.1%} ({kernel(op)})" for op, count in ranked))
        if args.layers:
            theirs = run(model, "off", "cmsis-nn", cmsis_nn, profile=True)
            by_op = {op.op_index: (kernel(op), count) for op, count in theirs["layers"]}
            for op, count in whole["layers"]:
                cmsis_function, cmsis_count = by_op.get(op.op_index, ("-", 0))
                n = macs(whole["graph"], op.op_index)
                layer_rows.append([model.stem, f"{op.op_index} {op.opcode}", shape(whole["graph"], op.op_index),
                                   f"{n:,}", kernel(op), f"{count:,}", f"{count / n:.3f}" if n else "-",
                                   cmsis_function, f"{cmsis_count:,}", f"{count / cmsis_count:.2f}" if cmsis_count
                                   else "-"])
    print(f"USMP on the Cortex-M55 (QEMU mps3-an547), default build (--tiling auto --workspace-io, --kernels auto "
          f"with CMSIS-NN); one inference")
    print("\n".join(table(["model", "instructions", "TFLM+CMSIS-NN", "ratio", "per MAC", "code B", "x today",
                           "workspace B", "whole tensors", "x whole", "bit-exact"], rows)))
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"geometric mean of the ratios to TFLite Micro + CMSIS-NN: {geo:.3f} (largest {max(ratios):.2f})")
    print(f"\nThe {TOP} operators with the largest share of the whole-tensor inference:")
    print("\n".join(tops))
    if layer_rows:
        print("\nPer operator, whole tensors: USMP (--kernels auto) beside --kernels cmsis-nn (CMSIS-NN's MVE kernels)")
        print("\n".join(table(["model", "operator", "shape", "MACs", "kernel", "instructions", "per MAC",
                               "CMSIS-NN build", "CMSIS-NN instr", "USMP/CMSIS"], layer_rows)))
    return 0 if all_exact else 1


if __name__ == "__main__":
    sys.exit(main())
