"""Try every .tflite under a directory (the tflite-micro repository's models) and print each result.

    .venv/bin/python benchmarks/tflm_models_report.py DIR [--inputs N] [--limit-bytes B]

Per model: "bit-exact (N/N inputs)" when the generated C matches TFLite Micro
on N random inputs, "MISMATCH (k/N inputs)" when it does not, or "refused (K
problems): <the first one `usmp check` lists>". What compiles is whatever
`lowering_for()` knows when this runs, so the list grows as operators are added.
Last, what blocks the refused models, by how many models each problem stops. Get the models from
a checkout of github.com/tensorflow/tflite-micro (`git ls-files '*.tflite'`).
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.check import check_model  # noqa: E402
from usmp.compiler import compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.host import run_host  # noqa: E402


def problem_kind(problem: str) -> str:
    """A problem without its indices and names, so models blocked by the same thing count together."""
    missing = re.search(r"(custom operator|operator) (\S+) is not supported", problem)
    if missing:
        return f"{missing.group(1)} {missing.group(2)}"
    typed = re.match(r"operator \d+ \((\S+)\): tensor \d+ '.*' has type (\w+);", problem)
    if typed:
        return f"{typed.group(1)} on {typed.group(2)}"
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'...'", problem))


def model_result(model: Path, count: int, limit_bytes: int, kinds: Counter) -> str:
    if model.stat().st_size > limit_bytes:
        return f"skipped: {model.stat().st_size} bytes, over --limit-bytes {limit_bytes}"
    try:
        compiled = compile_model(model)
    except UsmpError as exc:
        try:
            problems = check_model(model).problems
        except UsmpError:
            return f"refused: {_short(str(exc), model)}"
        kinds.update({problem_kind(p) for p in problems})
        return f"refused ({len(problems)} problem{'s' if len(problems) > 1 else ''}): {_short(problems[0], model)}"
    rng = np.random.default_rng(2026)
    matched = 0
    for _ in range(count):
        inputs = random_inputs(compiled.program.graph, rng)
        try:
            expected = reference_outputs(model, inputs)
        except Exception as exc:  # the reference interpreter itself cannot run the model
            return f"compiles; tflite-micro cannot run it ({type(exc).__name__}: {_first_line(exc)})"
        got = run_host(compiled, inputs)
        matched += len(got) == len(expected) and all(outputs_match(e, g) for e, g in zip(expected, got))
    return f"bit-exact ({matched}/{count} inputs)" if matched == count else f"MISMATCH ({matched}/{count} inputs)"


def _short(message: str, model: Path) -> str:
    return re.sub(r" \(supported: [^)]*\)", "", message.replace(f"{model}: ", ""))


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:100]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--inputs", type=int, default=3, help="random inputs per model (default 3)")
    parser.add_argument("--limit-bytes", type=int, default=8 << 20, help="skip larger model files (default 8 MB)")
    args = parser.parse_args()
    models = sorted(args.directory.rglob("*.tflite"))
    if not models:
        print(f"no .tflite files under {args.directory}", file=sys.stderr)
        return 2
    tally, kinds = Counter(), Counter()
    for model in models:
        result = model_result(model, args.inputs, args.limit_bytes, kinds)
        tally[result.split(" ", 1)[0].rstrip(":;")] += 1
        print(f"{model.relative_to(args.directory)}: {result}", flush=True)
    print(f"{len(models)} models: " + ", ".join(f"{n} {k}" for k, n in sorted(tally.items())))
    if kinds:
        print("what blocks the refused models (models with it): " + "; ".join(
            f"{kind} ({n})" for kind, n in kinds.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
