"""usmp plan: show how a model's buffers are planned, and how each algorithm does."""
from __future__ import annotations

import time
from pathlib import Path

from usmp import progress
from usmp.commands.options import (add_model_arguments, add_planning_arguments, add_stack_argument,
                                   compile_options)
from usmp.compiler import aligned_pools, analyse_model, compile_model, model_pools, place_and_plan
from usmp.errors import PlanError
from usmp.planner import plan
from usmp.planner.registry import COMPARED
from usmp.report.plan_json import dumps, plan_document
from usmp.report.svg import plan_svg
from usmp.report.table import algorithms_table, control_flow_table, placement_table, pools_table, tiling_table
from usmp.zephyr.options import add_zephyr_arguments, zephyr_compile_options

NAME = "plan"
HELP = "plan a model's memory and compare the planning algorithms"


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    add_planning_arguments(parser)
    add_stack_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the chosen plan as JSON instead of tables")
    parser.add_argument("--svg", metavar="FILE", help="write a picture of the plan (one panel per pool)")
    parser.add_argument("--no-compare", action="store_true", help="run only the chosen algorithm")
    add_zephyr_arguments(parser)


def run(args) -> int:
    options = zephyr_compile_options(args, compile_options(args))
    program, buffers = analyse_model(args.model, options)
    specs = aligned_pools(model_pools(program, options), buffers)
    pools = [p.info() for p in specs]
    program, buffers, demand, result = place_and_plan(program, buffers, specs, options)
    document = plan_document(program, buffers, result, specs, demand)
    if options.stack_bound:  # the stack needs the code linked for the core
        document["stack"] = stack_document(compile_model(args.model, options).stack, options.stack_bound,
                                           document)
    progress.clear()  # the stage line, before the command's own output
    if args.svg:
        Path(args.svg).write_text(plan_svg(document))
    if args.json:
        print(dumps(document), end="")
        return 0
    print(f"{program.name}: {len(buffers)} buffers over {document['steps']} steps; "
          f"algorithm {result.algorithm}: workspace {document['workspace_bytes']} B "
          f"(lower bound {document['lower_bound_bytes']} B), constants {document['constant_bytes']} B"
          + (f", state {document['state_bytes']} B" if document["state_bytes"] else "")
          + (", optimal (proven)" if result.optimal_proven else ""))
    if "stack" in document:
        stack = document["stack"]
        print(f"RAM = pools {stack['pools_bytes']} B + stack {stack['bytes']} B (bound on the {stack['target']}) "
              f"= {stack['ram_bytes']} B; stack by operator: "
              + ", ".join(f"{k} {b}" for k, b in enumerate(stack["operators"])))
    print()
    print(pools_table(document))
    if document["placement"]["ranked"]:
        print()
        print(placement_table(document))
    if document["tiling"]:
        print()
        print(tiling_table(document))
    if document["control_flow"]:
        print()
        print(control_flow_table(document))
    if not args.no_compare:
        print()
        print(algorithms_table(compare(buffers, pools, options)))
    if args.svg:
        print(f"\nusmp: wrote {args.svg}")
    return 0


def stack_document(stack, target: str, document: dict) -> dict:
    """RAM = the writable pools + the stack bound, with the bound's deepest path and its value per operator."""
    pools = sum(p["size_bytes"] for p in document["pools"] if p["kind"] != "constant")
    return {"target": target, "bytes": stack.bytes, "path": [list(p) for p in stack.path],
            "operators": stack.steps, "pools_bytes": pools, "ram_bytes": pools + stack.bytes}


def compare(buffers, pools, options) -> list[tuple[str, dict | None, float, str]]:
    rows = []
    for algorithm in COMPARED:
        start = time.perf_counter()
        try:
            result = plan(buffers, pools, algorithm, options.time_limit, options.progress)
        except PlanError as exc:
            rows.append((algorithm, None, time.perf_counter() - start, f"failed: {exc}"))
            continue
        note = "optimal (proven)" if result.optimal_proven else ""
        rows.append((algorithm, result.pool_sizes, result.seconds, note))
    return rows
