"""Portable kernels against CMSIS-NN on the emulated DSP cores: instructions and flash per model.

    .venv/bin/python benchmarks/cmsis_nn_benchmark.py [--cmsis-nn DIR] [--target T ...] [MODEL ...]

Per model and target, for --kernels portable and cmsis-nn: the instructions
one inference executes (QEMU's trace, the same on every run), flash of the
generated code and of the kernels (USMP's plus the CMSIS-NN functions the
model reaches, built -O2 as TFLite Micro builds them), and the workspace.
Default models: TFLite Micro's examples (tests/models/tflm), plus --ds-cnn: a DS-CNN keyword spotter of the MLPerf
Tiny shape (49x10 input, 10x4 stride-2 convolution to 64 channels, four depthwise 3x3 +
pointwise 1x1 blocks, average pool, 12 classes) built here with random int8 weights, since
the instructions do not depend on the values. CMSIS-NN: --cmsis-nn, else found as tests/dependencies.py
says ($CMSIS_NN_PATH first); without it the script says so and stops.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import tflite_builder as tb  # noqa: E402
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402
from reference import outputs_match, random_inputs, reference_outputs, example_models  # noqa: E402

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.runner.baremetal import run_on_target  # noqa: E402

TARGETS = ("cortex-m4", "cortex-m7", "cortex-m33")


def ds_cnn(path: Path) -> Path:
    """The DS-CNN KWS layer shapes with random weights (per-channel int8, ReLU after every layer)."""
    import tflite

    rng = np.random.default_rng(13)
    tensors, ops = [tb.T("input", (1, 49, 10, 1), scales=[0.5], zero_points=[0])], []

    def layer(opcode, options, filter_shape, out_shape, axis, channels, taps):
        w_scales = list(rng.uniform(0.005, 0.02, channels))
        in_scale = tensors[-1].scales[0]
        weights = rng.integers(-127, 128, filter_shape).astype(np.int8)
        bias = rng.integers(-500, 500, channels).astype(np.int32)
        out_scale = float(in_scale * np.mean(w_scales) * 64 * np.sqrt(taps) / 8)
        first = len(tensors)
        tensors.extend([
            tb.T(f"w{first}", filter_shape, data=weights, scales=w_scales, zero_points=[0] * channels, axis=axis),
            tb.T(f"b{first}", (channels,), "int32", data=bias, scales=[in_scale * s for s in w_scales],
                 zero_points=[0] * channels),
            tb.T(f"a{first}", out_shape, scales=[out_scale], zero_points=[-128]),
        ])
        ops.append(tb.Op(opcode, [first - 1, first, first + 1], [first + 2], options=options))

    conv, dw = tflite.BuiltinOperator.CONV_2D, tflite.BuiltinOperator.DEPTHWISE_CONV_2D
    layer(conv, tb.options("Conv2D", Padding=0, StrideW=2, StrideH=2, FusedActivationFunction=1),
          (64, 10, 4, 1), (1, 25, 5, 64), 0, 64, 40)
    for _ in range(4):
        layer(dw, tb.options("DepthwiseConv2D", Padding=0, StrideW=1, StrideH=1, DepthMultiplier=1,
                             FusedActivationFunction=1), (1, 3, 3, 64), (1, 25, 5, 64), 3, 64, 9)
        layer(conv, tb.options("Conv2D", Padding=0, StrideW=1, StrideH=1, FusedActivationFunction=1),
              (64, 1, 1, 64), (1, 25, 5, 64), 0, 64, 64)
    pooled = len(tensors)
    tensors.append(tb.T("pooled", (1, 1, 1, 64), scales=tensors[-1].scales, zero_points=[-128]))
    ops.append(tb.Op(tflite.BuiltinOperator.AVERAGE_POOL_2D, [pooled - 1], [pooled],
                     options=tb.options("Pool2D", Padding=1, StrideW=1, StrideH=1, FilterWidth=5, FilterHeight=25)))
    layer(tflite.BuiltinOperator.FULLY_CONNECTED, None, (12, 64), (1, 12), 0, 12, 64)
    tensors[-1] = tb.T(tensors[-1].name, (1, 12), scales=[0.1], zero_points=[0])
    tensors.append(tb.T("labels", (1, 12), scales=[1 / 256], zero_points=[-128]))
    ops.append(tb.Op(tflite.BuiltinOperator.SOFTMAX, [len(tensors) - 2], [len(tensors) - 1],
                     options=tb.options("Softmax", Beta=1.0)))
    path.write_bytes(tb.build([tb.Sub(tensors, ops, [0], [len(tensors) - 1])]))
    return path


def measure(model: Path, target: str, kernels: str, cmsis_nn: str) -> dict:
    """One inference on random inputs, checked against TFLite Micro before it counts."""
    compiled = compile_model(model, CompileOptions(cpu=target, kernels=kernels, cmsis_nn=cmsis_nn))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(0))
    run = run_on_target(compiled, inputs, target, count=True)
    if not all(outputs_match(e, g) for e, g in zip(reference_outputs(model, inputs), run.outputs)):
        raise SystemExit(f"{model.stem} on {target} with {kernels}: outputs differ from TFLite Micro")
    report = run.report
    return dict(instructions=report["instructions"], code=report["flash_bytes"]["generated_code"],
                kernels=report["flash_bytes"]["kernels"], workspace=sum(report["ram_bytes"]["pools"].values()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--target", action="append", choices=TARGETS)
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, a Zephyr workspace's module)")
    parser.add_argument("--ds-cnn", action="store_true", help="also the DS-CNN KWS shape (random weights)")
    args = parser.parse_args()
    args.cmsis_nn = args.cmsis_nn or cmsis_nn_dir()
    if args.cmsis_nn is None:
        print(f"cmsis_nn_benchmark: {CMSIS_NN_MISSING}, or pass --cmsis-nn DIR", file=sys.stderr)
        return 2
    args.cmsis_nn = str(args.cmsis_nn)
    models = list(args.models or example_models())
    if args.ds_cnn:
        work = Path(tempfile.mkdtemp(prefix="usmp-bench-"))
        models.append(ds_cnn(work / "ds_cnn_kws_shape.tflite"))
    print("| model | target | kernels | instructions | generated code B | kernels B | workspace B |")
    print("|---|---|---|---:|---:|---:|---:|")
    for model in models:
        for target in args.target or TARGETS:
            for kernels in ("portable", "cmsis-nn"):
                m = measure(model, target, kernels, args.cmsis_nn)
                print(f"| {model.stem} | {target} | {kernels} | {m['instructions']} | {m['code']} | "
                      f"{m['kernels']} | {m['workspace']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
