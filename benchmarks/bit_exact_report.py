"""Print, per model: its operators and how many random inputs matched TFLite Micro.

    .venv/bin/python benchmarks/bit_exact_report.py [--inputs N] [MODEL ...]

Also prints `arm-none-eabi-size` of micro_speech's generated objects and the
kernels it uses (-mcpu=cortex-m0 -mthumb -Os).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import EXAMPLE_MODELS, all_models, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.codegen import write_files  # noqa: E402
from usmp.compiler import compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR  # noqa: E402
from usmp.runner.host import run_host  # noqa: E402


def bit_exact_rows(models, count):
    rows = []
    for model in models:
        try:
            compiled = compile_model(model)
        except UsmpError as exc:
            rows.append((model.stem, "-", 0, 0, str(exc)[:60]))
            continue
        ops = Counter(op.opcode for op in compiled.program.graph.operators)
        op_text = " ".join(f"{k}x{v}" if v > 1 else k for k, v in sorted(ops.items()))
        rng = np.random.default_rng(99)
        matched = 0
        for _ in range(count):
            inputs = random_inputs(compiled.program.graph, rng)
            expected = reference_outputs(model, inputs)
            got = run_host(compiled, inputs)
            matched += all(outputs_match(e, g) for e, g in zip(expected, got))
        rows.append((model.stem, op_text, count, matched, ""))
    return rows


def arm_sizes(model: Path) -> str:
    gcc, size = shutil.which("arm-none-eabi-gcc"), shutil.which("arm-none-eabi-size")
    if not gcc or not size:
        return "arm-none-eabi-gcc not installed"
    compiled = compile_model(model)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_files(compiled.files, tmp / "gen")
        used = {call.function for op in compiled.program.ops for call in op.calls}
        sources = sorted((tmp / "gen").glob("*.c")) + [
            s for s in sorted(KERNELS_SRC_DIR.glob("*.c")) if any(f in s.read_text() for f in used)
        ]
        objects = []
        for source in sources:
            obj = tmp / f"{source.stem}.o"
            subprocess.run([gcc, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                            "-fdata-sections", f"-I{tmp / 'gen'}", f"-I{KERNELS_INCLUDE_DIR}", "-c", str(source),
                            "-o", str(obj)], check=True)
            objects.append(str(obj))
        return subprocess.run([size, *objects], capture_output=True, text=True, check=True).stdout.replace(str(tmp) + "/", "")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--inputs", type=int, default=5)
    parser.add_argument("models", nargs="*", type=Path)
    args = parser.parse_args()
    models = args.models or all_models()
    print(f"{'model':34} {'operators':58} {'tried':>5} {'matched':>7}")
    for name, ops, tried, matched, note in bit_exact_rows(models, args.inputs):
        print(f"{name:34} {ops:58} {tried:5d} {matched:7d} {note}")
    print()
    print("micro_speech, arm-none-eabi-gcc -mcpu=cortex-m0 -mthumb -Os (text = code + const data):")
    print(arm_sizes(EXAMPLE_MODELS / "micro_speech_quantized.tflite"))


if __name__ == "__main__":
    main()
