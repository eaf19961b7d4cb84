"""float32 models on the FPU cores: USMP's float kernels against TFLite Micro's float path (issue 30).

    PYTHONPATH=scripts .venv/bin/python benchmarks/float_kernels.py [--targets T,T] [--kernels K] [MODEL ...]

Per model and core, one inference (QEMU's trace; random input, seed 2024) with the defaults (--kernels auto,
--tiling auto): instructions and per multiply-accumulate, code (generated code + kernels), constants, workspace,
whether every output is within float rounding of tflite-micro's (tests/reference.py), and TFLite Micro's count
of the same inference with ours/theirs. TFLite Micro's float32 operators run its reference kernels also in an
OPTIMIZED_KERNEL_DIR=cmsis_nn build (CMSIS-NN has no float32 kernels that TFLite Micro calls), built by
benchmarks/tflm_benchmark.py for the same hard-float core, the same QEMU and count. Default models: the
float32 twins of DS-CNN and MobileNetV1 0.25 96x96 (tests/models/make_benchmark_models.py). The targets are
the cores with an FPU (hard-float ABI) and the M4 as a part without one (cortex-m4+nofp: soft-float, the
portable kernels).

MobileNetV1's float constants (850 KB) do not fit the AN547's 512 KB ITCM that holds the M55 image's code and
constants: there the constant pool goes to the board's QSPI flash (--pool constants:constant:region=FLASH),
which changes no instruction.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402

from cortex_m_targets import cell  # noqa: E402
from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.pools import parse_pool  # noqa: E402
from usmp.report.macs import multiply_accumulates  # noqa: E402
from usmp.runner.baremetal import run_on_target, target_named  # noqa: E402
from usmp.runner.regions import place_pools  # noqa: E402

MODELS = [ROOT / "benchmarks" / "models" / f"{name}_f32.tflite" for name in ("ds_cnn_kws", "mobilenet_v1_025_96")]
TARGETS = ("cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55", "cortex-m4+nofp")
ITCM_BYTES = 512 * 1024
# Instructions of one Invoke() of TFLite Micro (90b983c2b, OPTIMIZED_KERNEL_DIR=cmsis_nn, release build: its
# reference float32 kernels) for the same input, measured by benchmarks/tflm_benchmark.py on the hard-float
# targets (benchmarks/float_kernels_results.md).
TFLM = {}
COLUMNS = ("model", "target", "MACs", "instructions", "instr/MAC", "code+kernels B", "constants B", "workspace B",
           "within rounding", "TFLM instr", "USMP/TFLM")


def pools_for(model: Path, target: str) -> list:
    """The default pools, but constants in the AN547's QSPI flash when they cannot share the ITCM with the code."""
    if target == "cortex-m55" and model.stat().st_size > ITCM_BYTES * 3 // 4:
        pools = [parse_pool("workspace:workspace"), parse_pool("constants:constant:region=FLASH")]
        return place_pools(pools, target_named(target))
    return []


def measure(model: Path, target: str, kernels: str) -> dict:
    row = {"model": model.stem, "target": target}
    options = dict(cpu=target_named(target).cpu, kernels=kernels)
    pools = pools_for(model, target)
    try:
        compiled = compile_model(model, CompileOptions(**options, **({"pools": pools} if pools else {})))
        inputs = random_inputs(compiled.program.graph, np.random.default_rng(2024))
        report = run_on_target(compiled, inputs, target, count=True)
    except UsmpError as exc:
        row["note"] = str(exc)
        return row
    expected = reference_outputs(model, inputs)
    macs = multiply_accumulates(compiled.program.graph)
    flash, instructions = report.report["flash_bytes"], report.report["instructions"]
    row.update({"MACs": macs, "instructions": instructions, "instr/MAC": instructions / macs,
                "code+kernels B": flash["generated_code"] + flash["kernels"],
                "constants B": sum(p.size for p in compiled.layout.pools if p.spec.kind == "constant"),
                "workspace B": sum(report.report["ram_bytes"]["pools"].values()),
                "within rounding": all(outputs_match(e, g) for e, g in zip(expected, report.outputs))})
    theirs = TFLM.get((model.stem, target.removesuffix("+nofp")))
    if theirs and not target.endswith("+nofp"):
        row.update({"TFLM instr": theirs, "USMP/TFLM": instructions / theirs})
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--kernels", default="auto")
    args = parser.parse_args(argv)
    rows = []
    for model in args.models or MODELS:
        for target in [t.strip() for t in args.targets.split(",") if t.strip()]:
            rows.append(measure(model, target, args.kernels))
            print(f"measured {model.stem} on {target}", file=sys.stderr, flush=True)
    measured = [r for r in rows if "note" not in r]
    cells = [[cell(r, c) for c in COLUMNS] for r in measured]
    widths = [max([len(c)] + [len(line[i]) for line in cells]) for i, c in enumerate(COLUMNS)]
    print(f"USMP float32 (--kernels {args.kernels}, --tiling auto) on QEMU; instructions of one inference")
    print(" | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)))
    print("-+-".join("-" * w for w in widths))
    for line in cells:
        print(" | ".join(v.rjust(w) if i >= 2 else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths))))
    for r in rows:
        if "note" in r:
            print(f"{r['model']} on {r['target']}: not measured: {r['note']}")
    return 0 if measured and all(r["within rounding"] for r in measured) and len(measured) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
