"""Planner figures: every algorithm on the MiniMalloc challenging instances,
on 10,000 random buffers, and on the project's models (prints; not a test).

    .venv/bin/python benchmarks/planner_minimalloc.py [--time-limit 30] [--only A,B] [--skip-models]

The instances live in tests/data/minimalloc/challenging/ (MiniMalloc's, with their licence note);
the capacity (the figure the instance was made for) is in each
file name and printed for comparison.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from usmp.errors import UsmpError  # noqa: E402
from usmp.planner import BufferInfo, PoolInfo, plan  # noqa: E402
from usmp.planner.problem_files import read_problem  # noqa: E402
from usmp.report.table import format_rows  # noqa: E402

INSTANCES = REPO / "tests" / "data" / "minimalloc" / "challenging"
ALGORITHMS = ("greedy_by_size", "greedy_by_conflicts", "hill_climb", "optimal")


def minimalloc_table(time_limit: float, only: set[str] | None) -> str:
    rows = [("instance", "buffers", "capacity", "lower bound", *[f"{a} B" for a in ALGORITHMS],
             "optimal s", "proven")]
    reached = 0
    for path in sorted(INSTANCES.glob("*.csv")):
        letter = path.name.split(".")[0]
        if only and letter not in only:
            continue
        buffers, pools = read_problem(path)
        cells, proven, optimal_seconds = [], "", 0.0
        bound = None
        for algorithm in ALGORITHMS:
            result = plan(buffers, pools, algorithm, time_limit if algorithm == "optimal" else None)
            bound = result.lower_bound if bound is None else bound
            cells.append(str(result.peak_bytes))
            if algorithm == "optimal":
                proven = "yes" if result.optimal_proven else "no"
                optimal_seconds = result.seconds
                reached += result.peak_bytes <= bound
        capacity = path.name.split(".")[1]
        rows.append((letter, str(len(buffers)), capacity, str(bound), *cells, f"{optimal_seconds:.2f}", proven))
        print(format_rows(rows[:1] + rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return format_rows(rows) + f"\noptimal at the lower bound on {reached} of {len(rows) - 1} instances"


def random_buffers(n: int, seed: int = 1) -> list[BufferInfo]:
    rng = random.Random(seed)
    spans = []
    for _ in range(n):
        first = rng.randrange(0, n // 4)
        spans.append((first, first + rng.randrange(0, 12)))
    order = sorted(range(n), key=lambda i: spans[i])
    conflicts = [set() for _ in range(n)]
    active: list[int] = []
    for i in order:
        active = [a for a in active if spans[a][1] >= spans[i][0]]
        for a in active:
            conflicts[i].add(a)
            conflicts[a].add(i)
        active.append(i)
    return [BufferInfo(f"b{i}", rng.choice([16, 64, 256, 1024, 4096]) + rng.randrange(0, 64), 4, ("ram",),
                       frozenset(f"b{j}" for j in conflicts[i]), spans[i]) for i in range(n)]


def random_table(n: int) -> str:
    """Each algorithm alone (cold: it indexes the problem itself) and through plan() (bound + verifier too).

    CPU seconds are shown too: on a shared machine wall-clock time mostly measures the neighbours.
    """
    from usmp.planner import indexed
    from usmp.planner.registry import ALGORITHMS

    buffers = random_buffers(n)
    pools = [PoolInfo("ram")]
    rows = [("algorithm", "buffers", "peak B", "lower bound B", "algorithm s", "algorithm CPU s", "plan() s")]
    for algorithm in ("greedy_by_size", "greedy_by_conflicts", "hill_climb"):
        indexed._last[:] = [None, None, None]  # no help from an earlier run
        start, cpu = time.perf_counter(), time.process_time()
        ALGORITHMS[algorithm](buffers, pools)
        alone, alone_cpu = time.perf_counter() - start, time.process_time() - cpu
        indexed._last[:] = [None, None, None]
        start = time.perf_counter()
        result = plan(buffers, pools, algorithm)
        total = time.perf_counter() - start
        rows.append((algorithm, str(n), str(result.peak_bytes), str(result.lower_bound), f"{alone:.3f}",
                     f"{alone_cpu:.3f}", f"{total:.3f}"))
    return format_rows(rows)


def models_table() -> str:
    from usmp.compiler import CompileOptions, analyse_model

    models = sorted((REPO / "tests" / "models").glob("*.tflite"))
    models += sorted((REPO / "samples").rglob("*.tflite"))
    rows = [("model", "buffers", "steps", "lower bound B", "auto B", "ratio", "proven", "seconds")]
    at_bound = total = 0
    for model in models:
        try:
            program, buffers = analyse_model(model, CompileOptions())
        except UsmpError:
            continue  # an operator not supported yet
        pools = [p.info() for p in CompileOptions().pools]
        result = plan(buffers, pools)
        bound = result.lower_bounds["workspace"]
        size = result.pool_sizes["workspace"]
        total += 1
        at_bound += size <= bound
        ratio = f"{size / bound:.3f}" if bound else "-"
        rows.append((model.stem, str(len(buffers)), str(len(program.ops)), str(bound), str(size), ratio,
                     "yes" if result.optimal_proven else "no", f"{result.seconds:.3f}"))
    return format_rows(rows) + f"\nworkspace at the lower bound on {at_bound} of {total} models"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds for `optimal` per instance")
    parser.add_argument("--only", help="instance letters, e.g. A,B")
    parser.add_argument("--skip-models", action="store_true")
    parser.add_argument("--random", type=int, default=10000, help="buffers in the random instance")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    print("MiniMalloc challenging instances (bytes; optimal limited to "
          f"{args.time_limit:g} s each)\n")
    print(minimalloc_table(args.time_limit, only))
    print(f"\nRandom interval instance\n\n{random_table(args.random)}")
    if not args.skip_models:
        print(f"\nProject models (default pools, algorithm auto)\n\n{models_table()}")


if __name__ == "__main__":
    main()
