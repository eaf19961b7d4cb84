"""Fuzz the importer and compile pipeline for a given time.

    .venv/bin/python tests/fuzz/run_fuzz.py --minutes 10 [--engine atheris|random] [--out DIR]

Seeds are the project's models. With atheris (coverage-guided libFuzzer)
the target runs in child processes, restarted after each finding so one
crash does not end the session; findings are copied to OUT/crashes. The
`random` engine is a seeded mutator (byte-level and schema-aware damage from
tests/malformed) for machines without atheris. The last line is a JSON
summary: engine, seconds, executions, findings.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
sys.path.insert(0, str(TESTS))

RSS_LIMIT_MB = 3072
INPUT_TIMEOUT_S = 30  # one input taking longer than this is a finding (a hang)
MAX_LEN = 64 * 1024


def seed_models() -> list[Path]:
    from reference import all_models

    return all_models()


def run_atheris(seconds: float, out: Path) -> dict:
    corpus = out / "corpus"
    crashes = out / "crashes"
    corpus.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    for model in seed_models():
        if not (corpus / model.name).exists():
            shutil.copy(model, corpus / model.name)
    deadline = time.monotonic() + seconds
    executions, runs = 0, 0
    while (remaining := deadline - time.monotonic()) > 5:
        runs += 1
        command = [sys.executable, str(HERE / "target.py"), f"-max_total_time={int(remaining)}",
                   f"-rss_limit_mb={RSS_LIMIT_MB}", f"-timeout={INPUT_TIMEOUT_S}", f"-max_len={MAX_LEN}",
                   "-print_final_stats=1", f"-artifact_prefix={crashes}/", str(corpus)]
        log = out / f"run_{runs}.log"
        with open(log, "w") as f:
            subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, cwd=out)
        text = log.read_text(errors="replace")
        counts = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
        if counts:
            executions += int(counts[-1])
        else:  # killed before the final stats: take the last progress line
            progress = re.findall(r"^#(\d+)\s", text, re.M)
            executions += int(progress[-1]) if progress else 0
    findings = sorted(p.name for p in crashes.iterdir())
    return dict(engine="atheris", seconds=round(seconds), executions=executions, restarts=runs - 1, findings=findings)


def run_random(seconds: float, out: Path, seed: int) -> dict:
    """Mutate seed models (and earlier mutants) at random; every non-UsmpError is saved."""
    from fuzz.target import compile_bytes
    from malformed import bytewise, structured

    crashes = out / "crashes"
    crashes.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    pool = [m.read_bytes() for m in seed_models()]
    deadline = time.monotonic() + seconds
    executions = 0
    findings = []
    while time.monotonic() < deadline:
        data = rng.choice(pool)
        for _ in range(rng.randrange(1, 4)):  # stack a few mutations
            mutant = structured.mutate_structured(data, rng) if rng.random() < 0.5 else None
            if mutant is None and data:
                mutant = rng.choice(bytewise.MUTATIONS)(data, rng)[0]
            data = mutant if mutant is not None else data
        executions += 1
        try:
            result = compile_bytes(data, workspace_io=rng.random() < 0.3)
        except Exception:
            name = f"crash-{executions}.tflite"
            (crashes / name).write_bytes(data)
            (crashes / f"{name}.txt").write_text(traceback.format_exc())
            findings.append(name)
            continue
        if result == "ok" and len(pool) < 2000 and rng.random() < 0.2:
            pool.append(data)  # accepted mutants are good parents
    return dict(engine="random", seconds=round(seconds), executions=executions, findings=findings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--engine", choices=["atheris", "random", "best"], default="best")
    parser.add_argument("--out", type=Path, default=None, help="work directory (default: a new temporary one)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random engine")
    args = parser.parse_args(argv)
    engine = args.engine
    if engine == "best":
        try:
            import atheris  # noqa: F401
            engine = "atheris"
        except ImportError:
            engine = "random"
    out = (args.out or Path(tempfile.mkdtemp(prefix="usmp-fuzz-"))).resolve()
    out.mkdir(parents=True, exist_ok=True)
    seconds = args.minutes * 60
    summary = run_atheris(seconds, out) if engine == "atheris" else run_random(seconds, out, args.seed)
    summary["out"] = str(out)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return 1 if summary["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
