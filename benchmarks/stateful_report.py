"""Models with state: sequences checked against TFLite Micro, and memory against its arena.

    .venv/bin/python benchmarks/stateful_report.py [--steps N] [MODEL ...]

Per model (default: tests/models/stateful/*.tflite): the steps of one
stream (N inferences, reset(), N more) that match one TFLite Micro
interpreter invoked as many times, on the host and on the emulated
Cortex-M0 and M3; then the bytes USMP plans (state pool + workspace pool)
against TFLite Micro's arena for the same model (its whole arena, and the
head where it plans the tensors of one inference), read from
print_allocations() in a subprocess, because it writes to fd 2.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import ARENA_BYTES, outputs_match  # noqa: E402
from sequences import mismatched_steps, random_sequence, restarted_reference, stateful_models  # noqa: E402

from usmp.compiler import compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.host import run_host  # noqa: E402

TARGETS = ("host", "cortex-m0", "cortex-m3")
PROBE = """
import sys, numpy as np, tflite_micro
interpreter = tflite_micro.runtime.Interpreter.from_file(sys.argv[1], arena_size=int(sys.argv[2]))
interpreter.print_allocations()
"""


def tflm_arena(model: Path) -> tuple[int, int] | None:
    """(total, head) bytes of TFLite Micro's arena after allocation, or None if the probe failed."""
    done = subprocess.run([sys.executable, "-c", PROBE, str(model), str(ARENA_BYTES)], capture_output=True,
                          text=True, timeout=120)
    text = done.stdout + done.stderr
    total = re.search(r"Arena allocation total (\d+) bytes", text)
    head = re.search(r"Arena allocation head (\d+) bytes", text)
    return (int(total.group(1)), int(head.group(1))) if total and head else None


def matched_steps(model: Path, compiled, target: str, steps: int) -> tuple[int, int] | str:
    inputs = random_sequence(compiled.program.graph, 2 * steps, np.random.default_rng(2024))
    expected = restarted_reference(model, inputs, steps)
    try:
        if target == "host":
            got = run_host(compiled, inputs, steps=2 * steps, reset_before=steps)
        else:
            from usmp.runner.baremetal import run_on_target

            got = run_on_target(compiled, inputs, target, steps=2 * steps, reset_before=steps).outputs
    except UsmpError as exc:
        return f"failed: {exc}"
    return 2 * steps - len(mismatched_steps(expected, got, outputs_match)), 2 * steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--steps", type=int, default=24, help="steps before and after reset() (default 24)")
    args = parser.parse_args(argv)
    models = args.models or stateful_models()
    print(f"Sequences: {args.steps} steps, reset(), {args.steps} more; matched / tried against TFLite Micro")
    rows = [("model", *TARGETS)]
    memory = [("model", "state B", "workspace B", "state+workspace B", "TFLM arena B", "TFLM arena head B")]
    for model in models:
        compiled = compile_model(model)
        cells = []
        for target in TARGETS:
            result = matched_steps(model, compiled, target, args.steps)
            cells.append(result if isinstance(result, str) else f"{result[0]} / {result[1]}")
        rows.append((model.stem, *cells))
        sizes = {p.spec.kind: 0 for p in compiled.layout.pools}
        for pool in compiled.layout.pools:
            sizes[pool.spec.kind] += pool.size
        arena = tflm_arena(model)
        memory.append((model.stem, str(sizes.get("state", 0)), str(sizes.get("workspace", 0)),
                       str(sizes.get("state", 0) + sizes.get("workspace", 0)),
                       str(arena[0]) if arena else "probe failed", str(arena[1]) if arena else "-"))
    print(table(rows))
    print()
    print("Memory: USMP's planned read-write pools against TFLite Micro's arena (which also holds its own")
    print("bookkeeping: tensor structs, node registrations, persistent buffers)")
    print(table(memory))
    return 0


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


if __name__ == "__main__":
    sys.exit(main())
