"""Compile the malformed corpus through the real CLI, under a memory limit and a per-variant time limit.

    python tests/malformed/worker.py --seed 0 --count 1000 --report report.json [--keep DIR]

Runs in its own process (the test starts it) so the address-space limit and
the alarm apply only here. For every variant `usmp compile` must either
succeed, with C that compiles under the project's warning flags, or exit 2
with one line `usmp: error: ...`, and a failed compile must leave the output
directory exactly as it was. Anything else is a crash.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

MEMORY_LIMIT_MB = 1024  # peak RSS is ~55 MB; numpy allocating a tensor-sized array would hit this
VARIANT_SECONDS = 30  # generous: a variant needing more than this hangs
PLAN_SECONDS = "0.5"


class VariantTimeout(BaseException):
    """Raised by the alarm; a BaseException so the CLI's own `except Exception` cannot swallow it."""


@dataclass
class Outcome:
    status: str  # "ok", "error" (clean), "crash"
    message: str
    seconds: float


@dataclass
class Tally:
    tried: int = 0
    clean_errors: int = 0
    successes: int = 0
    crashes: list = field(default_factory=list)
    success_indices: list = field(default_factory=list)
    max_seconds: float = 0.0
    slowest: str = ""
    by_kind: dict = field(default_factory=dict)


def snapshot(directory: Path) -> dict | None:
    """Every file under directory with its bytes (None: it does not exist)."""
    if not directory.exists():
        return None
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    from usmp.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def compile_variant(data: bytes, work: Path, existing_output: bool, run=run_cli) -> Outcome:
    """Compile one variant into a fresh or a pre-filled output directory and judge the result."""
    model = work / "model.tflite"
    model.write_bytes(data)
    out_dir = work / "out"
    if existing_output:
        out_dir.mkdir()
        (out_dir / "keep.txt").write_text("the user's file\n")
        (out_dir / "model.c").write_text("/* from an earlier compile */\n")
    before = snapshot(out_dir)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, VARIANT_SECONDS)
    try:
        code, stdout, stderr = run(["compile", str(model), "-o", str(out_dir), "--time-limit", PLAN_SECONDS])
    except VariantTimeout:
        return Outcome("crash", f"no result within {VARIANT_SECONDS} s", time.perf_counter() - start)
    except BaseException as exc:  # noqa: BLE001 - anything escaping the CLI is a crash
        return Outcome("crash", f"escaped the CLI: {type(exc).__name__}: {exc}", time.perf_counter() - start)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seconds = time.perf_counter() - start
    lines = stderr.strip().splitlines()
    leftovers = [p.name for p in work.iterdir() if p.name.startswith(".usmp-")]
    if leftovers:
        return Outcome("crash", f"staging directory left behind: {leftovers}", seconds)
    if code == 0:
        if not (out_dir / "model.h").exists() or not (out_dir / "model_constants.c").exists():
            return Outcome("crash", "exit 0 but the C files are missing", seconds)
        if existing_output and not (out_dir / "keep.txt").exists():
            return Outcome("crash", "a successful compile deleted the user's file", seconds)
        problem = c_syntax_problem(out_dir)
        if problem:
            return Outcome("crash", f"the generated C does not compile: {problem}", seconds)
        return Outcome("ok", stdout.strip(), seconds)
    if "Traceback" in stderr + stdout or len(lines) != 1:
        return Outcome("crash", f"exit {code}, {len(lines)} lines on stderr: {stderr[:300]!r}", seconds)
    if code != 2 or not lines[0].startswith("usmp: error: "):
        return Outcome("crash", f"exit {code}: {lines[0]}", seconds)
    if snapshot(out_dir) != before:
        return Outcome("crash", f"failed compile changed the output directory ({lines[0]})", seconds)
    return Outcome("error", lines[0], seconds)


def c_syntax_problem(out_dir: Path) -> str | None:
    """The first error of the generated C under the project's warning flags (syntax only: fast), or None."""
    from usmp.paths import KERNELS_INCLUDE_DIR
    from usmp.runner.host import WARNING_FLAGS

    sources = sorted(str(p) for p in out_dir.glob("model*.c"))
    done = subprocess.run(["cc", "-fsyntax-only", *WARNING_FLAGS, "-I", str(out_dir), "-I", str(KERNELS_INCLUDE_DIR),
                           *sources], capture_output=True, text=True)
    if done.returncode == 0:
        return None
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    return (errors or done.stderr.splitlines() or ["(no output)"])[0]


def _alarm(signum, frame):
    raise VariantTimeout()


def run_corpus(seed: int, count: int, start: int, keep: Path | None) -> Tally:
    from malformed.corpus import variants

    signal.signal(signal.SIGALRM, _alarm)
    tally = Tally()
    for variant in variants(seed, count, start):
        with tempfile.TemporaryDirectory(prefix="usmp-malformed-") as tmp:
            outcome = compile_variant(variant.data, Path(tmp), existing_output=variant.index % 2 == 0)
        tally.tried += 1
        kind = tally.by_kind.setdefault(variant.kind, {"ok": 0, "error": 0, "crash": 0})
        kind[outcome.status] += 1
        if outcome.seconds > tally.max_seconds:
            tally.max_seconds, tally.slowest = outcome.seconds, variant.label
        if outcome.status == "ok":
            tally.successes += 1
            tally.success_indices.append(variant.index)
        elif outcome.status == "error":
            tally.clean_errors += 1
        else:
            tally.crashes.append(f"{variant.label}: {outcome.message}")
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                (keep / f"malformed_{seed}_{variant.index}.tflite").write_bytes(variant.data)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--memory-mb", type=int, default=MEMORY_LIMIT_MB)
    parser.add_argument("--report", type=Path, required=True)
    parser.add_argument("--keep", type=Path, default=None, help="save crashing variants here")
    args = parser.parse_args(argv)
    limit = args.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    began = time.perf_counter()
    tally = run_corpus(args.seed, args.count, args.start, args.keep)
    report = dict(vars(tally), seed=args.seed, memory_limit_mb=args.memory_mb, seconds=time.perf_counter() - began,
                  peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    args.report.write_text(json.dumps(report, indent=1))
    print(f"variants tried {tally.tried} / clean errors {tally.clean_errors} / successes {tally.successes} / "
          f"crashes {len(tally.crashes)}; slowest {tally.max_seconds:.2f} s; peak RSS {report['peak_rss_mb']} MB")
    return 1 if tally.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
