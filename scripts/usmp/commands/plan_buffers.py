"""usmp plan-buffers: plan a raw problem (MiniMalloc CSV or JSON buffer infos)."""
from __future__ import annotations

import json

from usmp.planner import plan
from usmp.planner.problem_files import read_problem
from usmp.planner.progress import TerminalProgress
from usmp.pools import parse_size

NAME = "plan-buffers"
HELP = "plan a raw problem given as a MiniMalloc CSV or as JSON buffer infos"


def add_arguments(parser) -> None:
    parser.add_argument("file", help="id,lower,upper,size[,alignment] CSV (half-open lifetimes) or JSON buffer infos")
    parser.add_argument("--capacity", help="size limit of every pool, in bytes (k/M suffixes allowed)")
    parser.add_argument("--algorithm", default="auto", help="planning algorithm (default: auto)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS", help="planner time budget")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    capacity = parse_size(args.capacity, "--capacity") if args.capacity else None
    buffers, pools = read_problem(args.file, capacity)
    result = plan(buffers, pools, args.algorithm, args.time_limit, TerminalProgress())
    if args.json:
        print(json.dumps({
            "algorithm": result.algorithm,
            "peak_bytes": result.peak_bytes,
            "pool_sizes": result.pool_sizes,
            "lower_bound_bytes": result.lower_bound,
            "optimal_proven": result.optimal_proven,
            "seconds": round(result.seconds, 6),
            "offsets": {name: [pool, offset] for name, (pool, offset) in result.placements.items()},
        }, indent=2))
        return 0
    sizes = ", ".join(f"{pool} {size} B" for pool, size in result.pool_sizes.items())
    proven = "optimal (proven)" if result.optimal_proven else "not proven optimal"
    print(f"{args.file}: {len(buffers)} buffers, algorithm {result.algorithm}: {sizes}; "
          f"lower bound {result.lower_bound} B; {proven}; {result.seconds:.3f} s")
    return 0
