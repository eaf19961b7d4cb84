"""Compile time, whole tensors against --tiling auto: `usmp compile`, then the C it writes, as a build runs them.

    .venv/bin/python benchmarks/compile_time.py [MODEL] [--cpu cortex-m4] [--cmsis-nn DIR] [--repeat 3]

Default model: a MobileNetV2 of width 0.35 at 224x224 (tests/mobilenet_v2_like.py, 72 operators, random
weights from a fixed seed), written to a temporary directory. Per mode, CPU seconds (user + system, the
least of --repeat runs) of `python -m usmp compile --cpu CPU` in a fresh process, and of arm-none-eabi-gcc
-Os compiling the generated C files (model and constants) for that CPU, one file after another on one core;
the kernel library is the same in both modes and is left out, so the ratio is the least favourable to
tiling. The issue's target: the build with tiling within 1.5x of the build without.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from dependencies import cmsis_nn_dir  # noqa: E402


def _cpu_seconds(command: list[str], **kwargs) -> float:
    """CPU seconds the command and its children took (it must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _workspace(out: Path) -> int:
    import json

    plan = json.loads(next(out.glob("*_plan.json")).read_text())
    return plan["workspace_bytes"]


def measure(model: Path, mode: str, cpu: str, cmsis: str | None, work: Path) -> dict:
    out = work / mode
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "usmp", "compile", str(model), "--cpu", cpu, "--tiling", mode, "-o", str(out)]
    if cmsis:
        command += ["--cmsis-nn", cmsis]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "scripts"))
    usmp = _cpu_seconds(command, env=env)
    includes = ["-I", str(ROOT / "kernels" / "include"), "-I", str(out)]
    if cmsis:
        includes += ["-I", str(Path(cmsis) / "Include")]
    c = 0.0
    for source in sorted(out.glob("*.c")):
        c += _cpu_seconds(["arm-none-eabi-gcc", f"-mcpu={cpu}", "-mthumb", "-Os", "-std=c99", *includes, "-c",
                           str(source), "-o", str(work / f"{mode}_{source.stem}.o")])
    return {"usmp": usmp, "c": c, "workspace": _workspace(out),
            "lines": sum(len(p.read_text().splitlines()) for p in out.glob(f"{model.stem}.c"))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", type=Path)
    parser.add_argument("--cpu", default="cortex-m4")
    parser.add_argument("--cmsis-nn", help="CMSIS-NN directory (default: $CMSIS_NN_PATH, a Zephyr workspace's module)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if shutil.which("arm-none-eabi-gcc") is None:
        print("arm-none-eabi-gcc is not installed: sudo apt-get install gcc-arm-none-eabi")
        return 1
    cmsis = args.cmsis_nn or cmsis_nn_dir()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model = args.model
        if model is None:
            from mobilenet_v2_like import mobilenet_v2_like

            model = mobilenet_v2_like(work / "mobilenet_v2_224.tflite", size=224)
        print(f"{model.name} on the {args.cpu}, CMSIS-NN {'at ' + str(cmsis) if cmsis else 'not found'}: "
              f"CPU seconds, the least of {args.repeat} runs")
        print("mode | usmp compile s | C compile s | build s | model.c lines | workspace B")
        rows = {}
        for mode in ("off", "auto"):
            runs = [measure(model, mode, args.cpu, str(cmsis) if cmsis else None, work) for _ in range(args.repeat)]
            row = {key: min(r[key] for r in runs) for key in ("usmp", "c")}
            row.update(workspace=runs[0]["workspace"], lines=runs[0]["lines"])
            rows[mode] = row
            print(f"{mode} | {row['usmp']:.2f} | {row['c']:.2f} | {row['usmp'] + row['c']:.2f} | {row['lines']:,} | "
                  f"{row['workspace']:,}")
        off, auto = rows["off"], rows["auto"]
        print(f"auto / off: usmp compile {auto['usmp'] / off['usmp']:.2f}x, "
              f"build {(auto['usmp'] + auto['c']) / (off['usmp'] + off['c']):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
