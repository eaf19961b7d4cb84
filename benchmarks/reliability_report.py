"""Print the reliability figures: malformed corpus, fuzzing, planner verification, sanitizers.

    .venv/bin/python benchmarks/reliability_report.py [--variants 1000] [--fuzz-minutes 0]
                                                       [--skip-planner] [--skip-sanitizers] [--json FILE]

Each part runs what the tests run (tests/malformed/worker.py,
tests/fuzz/run_fuzz.py, tests/test_planner_verify_random.py, the sanitizer
half of tests/test_bit_exact.py) in a subprocess and reports its counts.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def malformed(variants: int, seed: int, work: Path) -> dict:
    report = work / "malformed.json"
    subprocess.run([sys.executable, str(TESTS / "malformed" / "worker.py"), "--seed", str(seed),
                    "--count", str(variants), "--report", str(report), "--keep", str(work / "crashes")],
                   capture_output=True, text=True)
    r = json.loads(report.read_text())
    return dict(variants_tried=r["tried"], clean_errors=r["clean_errors"], successes=r["successes"],
                crashes=len(r["crashes"]), crash_list=r["crashes"][:20], slowest_seconds=round(r["max_seconds"], 2),
                peak_rss_mb=r["peak_rss_mb"], memory_limit_mb=r["memory_limit_mb"], seconds=round(r["seconds"], 1))


def fuzz(minutes: float, work: Path) -> dict:
    done = subprocess.run([sys.executable, str(TESTS / "fuzz" / "run_fuzz.py"), "--minutes", str(minutes),
                           "--out", str(work / "fuzz")], capture_output=True, text=True)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return dict(minutes=minutes, engine=summary["engine"], executions=summary["executions"],
                findings=summary["findings"])


def _pytest(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, cwd=ROOT)
    return done.stdout


def _counts(output: str) -> dict:
    found = dict(re.findall(r"(\d+) (passed|failed|error|skipped)", output.splitlines()[-1] if output else ""))
    return {k: int(v) for v, k in found.items()}


def planner() -> dict:
    output = _pytest(str(TESTS / "test_planner_verify_random.py"))
    match = re.search(r"planner instances verified: (\d+) (\{.*\})", output)
    return dict(checks=int(match.group(1)) if match else 0, by_algorithm=match.group(2) if match else "",
                tests=_counts(output))


def sanitizers() -> dict:
    output = _pytest(str(TESTS / "test_bit_exact.py"), "-k", "sanitizers")
    counts = _counts(output)
    return dict(models_clean=counts.get("passed", 0), findings=counts.get("failed", 0) + counts.get("error", 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fuzz-minutes", type=float, default=0.0)
    parser.add_argument("--skip-planner", action="store_true")
    parser.add_argument("--skip-sanitizers", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="usmp-reliability-"))
    figures = {"malformed": malformed(args.variants, args.seed, work)}
    m = figures["malformed"]
    print(f"malformed models: variants tried {m['variants_tried']} / clean errors {m['clean_errors']} / "
          f"successes {m['successes']} / crashes {m['crashes']} (slowest {m['slowest_seconds']} s, "
          f"peak RSS {m['peak_rss_mb']} MB of {m['memory_limit_mb']} MB allowed)", flush=True)
    if args.fuzz_minutes > 0:
        f = figures["fuzz"] = fuzz(args.fuzz_minutes, work)
        print(f"fuzzing ({f['engine']}): {f['minutes']} minutes, {f['executions']} executions, "
              f"{len(f['findings'])} findings", flush=True)
    if not args.skip_planner:
        p = figures["planner"] = planner()
        print(f"planner: {p['checks']} plans or refusals checked by the independent verifier {p['by_algorithm']}",
              flush=True)
    if not args.skip_sanitizers:
        s = figures["sanitizers"] = sanitizers()
        print(f"ASan+UBSan: {s['models_clean']} models clean, {s['findings']} findings", flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    failed = m["crashes"] or figures.get("fuzz", {}).get("findings") or figures.get("sanitizers", {}).get("findings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
