"""USMP's own DSP kernels against CMSIS-NN and TFLite Micro + CMSIS-NN on the Cortex-M4, M7 and M33 (issue 23).

    PYTHONPATH=scripts .venv/bin/python benchmarks/dsp_kernels.py [--targets T,T] [--optimize O] [--cmsis-nn DIR]
        [--layers] [MODEL ...]

Per model and core, one inference (QEMU's trace; random input, seed 2024) built three ways: USMP's own
kernels only (--kernels usmp: the DSP kernels, the portable ones for the rest, no CMSIS-NN), the default
(--kernels auto: the DSP kernels, CMSIS-NN for the rest) and USMP calling CMSIS-NN (--kernels cmsis-nn); each
against TFLite Micro + CMSIS-NN's count (benchmarks/tflm_benchmark.py on the Cortex-M4, the reference for all
three cores); whether every output equals tflite-micro's; flash by part (generated code, kernels, constants) of
the own and the CMSIS-NN builds, and how much the constants grow. --layers adds, on the first target, every
operator's instructions with each build (and its multiply-accumulates): where the instructions go (a depth-first
loop is one row, its first operator's; usmp run --profile's attribution).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402

from cortex_m_targets import DEFAULT_MODELS, tflm_instructions  # noqa: E402
from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.baremetal import run_on_target  # noqa: E402
from usmp.tiling.loop import BandLoop  # noqa: E402

BUILDS = ("usmp", "auto", "cmsis-nn")
DSP_TARGETS = ("cortex-m4", "cortex-m7", "cortex-m33")


def run(model: Path, target: str, kernels: str, optimize: str, cmsis_nn: str | None, profile: bool) -> dict:
    compiled = compile_model(model, CompileOptions(cpu=target, kernels=kernels, optimize=optimize, cmsis_nn=cmsis_nn))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
    result = run_on_target(compiled, inputs, target, count=True, profile=profile)
    expected = reference_outputs(model, inputs)
    flash = result.report["flash_bytes"]
    return {
        "instructions": result.report["instructions"],
        "exact": len(expected) == len(result.outputs) and all(outputs_match(e, g)
                                                              for e, g in zip(expected, result.outputs)),
        "flash": (flash["generated_code"], flash["kernels"], flash["constants"]),
        "layers": list(zip(compiled.program.ops, result.report.get("step_instructions", []))),
        "graph": compiled.program.graph,
    }


def kernel(op) -> str:
    """An operator's kernel, or a depth-first loop's (its links' kernels, one row for the chain)."""
    if isinstance(op, BandLoop):
        return f"{op.bands} bands: " + ", ".join(sorted({c.function for c in op.calls}))
    return ", ".join(c.function for c in op.calls) or "-"


def macs(graph, op_index: int) -> int:
    """Multiply-accumulates of a convolution, depthwise convolution or fully connected operator (else 0)."""
    op = next(o for o in graph.operators if o.index == op_index)
    if op.opcode not in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
        return 0
    out = graph.tensors[op.outputs[0]].shape
    weights = graph.tensors[op.inputs[1]].shape
    per_output = int(np.prod(weights[1:])) if op.opcode != "DEPTHWISE_CONV_2D" else int(np.prod(weights[1:3]))
    return int(np.prod(out)) * per_output


def shape(graph, op_index: int) -> str:
    op = next(o for o in graph.operators if o.index == op_index)
    dims = lambda t: "x".join(str(d) for d in graph.tensors[t].shape[1:])  # noqa: E731
    text = f"{dims(op.inputs[0])} -> {dims(op.outputs[0])}"
    if op.opcode in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        w = graph.tensors[op.inputs[1]].shape
        text += f" {w[1]}x{w[2]}/{op.options.get('stride_h', 1)}"
    return text


def table(columns: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(columns, widths)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(v.rjust(w) if i >= 2 else v.ljust(w) for i, (v, w) in enumerate(zip(r, widths)))
              for r in rows]
    return lines


def ratio(ours: int, theirs: int | None) -> str:
    return f"{ours / theirs:.2f}" if theirs else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: those of cortex_m_targets.py)")
    parser.add_argument("--targets", default=",".join(DSP_TARGETS))
    parser.add_argument("--optimize", default="balanced", help="the DSP kernels' filters: balanced, speed or size")
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, ...)")
    parser.add_argument("--layers", action="store_true", help="every operator's instructions on the first target")
    args = parser.parse_args(argv)
    cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if cmsis_nn is None:
        print(f"error: {CMSIS_NN_MISSING}, or pass --cmsis-nn DIR", file=sys.stderr)
        return 2
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    rows, layer_rows, growth, all_exact = [], [], [], True
    for model in args.models or DEFAULT_MODELS:
        for n, target in enumerate(targets):
            try:
                runs = {k: run(model, target, k, args.optimize, str(cmsis_nn), args.layers and n == 0) for k in BUILDS}
            except UsmpError as exc:
                print(f"{model.stem} on {target}: not measured: {exc}", file=sys.stderr)
                all_exact = False
                continue
            print(f"measured {model.stem} on {target}", file=sys.stderr, flush=True)
            tflm = tflm_instructions(model.stem, target)
            own, auto, cmsis = (runs[k] for k in BUILDS)
            all_exact &= all(r["exact"] for r in runs.values())
            rows.append([model.stem, target, f"{own['instructions']:,}", ratio(own["instructions"], tflm),
                         f"{auto['instructions']:,}", ratio(auto["instructions"], tflm),
                         f"{cmsis['instructions']:,}", ratio(cmsis["instructions"], tflm),
                         f"{tflm:,}" if tflm else "-",
                         "/".join("yes" if r["exact"] else "NO" for r in runs.values()),
                         "/".join(f"{b:,}" for b in own["flash"]), "/".join(f"{b:,}" for b in cmsis["flash"])])
            if n == 0:
                growth.append(f"{model.stem}: constants {own['flash'][2]:,} B with USMP's own kernels, "
                              f"{cmsis['flash'][2]:,} B with CMSIS-NN ({own['flash'][2] / cmsis['flash'][2]:.2f}x)")
            if args.layers and n == 0:
                by_op = {k: {op.op_index: (kernel(op), count) for op, count in runs[k]["layers"]}
                         for k in ("usmp", "cmsis-nn")}
                for op, count in own["layers"]:
                    cmsis_function, cmsis_count = by_op["cmsis-nn"].get(op.op_index, ("-", 0))
                    work = macs(own["graph"], op.op_index)
                    layer_rows.append([model.stem, f"{op.op_index} {op.opcode}", shape(own["graph"], op.op_index),
                                       f"{work:,}", kernel(op), f"{count:,}", cmsis_function, f"{cmsis_count:,}",
                                       ratio(count, cmsis_count), f"{count / work:.2f}" if work else "-"])
    print(f"USMP's own DSP kernels (--optimize {args.optimize}) against CMSIS-NN and TFLite Micro + CMSIS-NN; "
          f"instructions of one inference on QEMU")
    print("\n".join(table(["model", "core", "own (usmp)", "/TFLM", "auto", "/TFLM", "USMP+CMSIS-NN", "/TFLM",
                           "TFLM+CMSIS-NN", "bit-exact u/a/c", "own flash code/kernels/const",
                           "CMSIS-NN flash code/kernels/const"], rows)))
    print("\n".join(growth))
    if layer_rows:
        print(f"\nPer operator on {targets[0]} (instructions of each kernel call; own = --kernels usmp)")
        print("\n".join(table(["model", "operator", "shape", "MACs", "own kernel", "own instr", "CMSIS-NN build",
                               "CMSIS-NN instr", "own/CMSIS", "own instr/MAC"], layer_rows)))
    return 0 if all_exact else 1


if __name__ == "__main__":
    sys.exit(main())
