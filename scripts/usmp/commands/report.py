"""usmp report: one HTML page about a compiled model (memory, placement, constants, operators).

Takes the options of `usmp compile` (and a Zephyr build's, like `usmp plan`). With --target
cortex-mX the model also runs on the emulated core (on --input files, else random inputs from
--seed) and the page gains flash, RAM, stack and the instructions of every operator.
"""
from __future__ import annotations

import json
from pathlib import Path

from usmp import progress
from usmp.commands.options import add_model_arguments, add_planning_arguments, compile_options
from usmp.compiler import compile_model
from usmp.errors import UsmpError
from usmp.reference_vectors import random_inputs
from usmp.report.page import report_page
from usmp.runner.io_files import load_inputs
from usmp.runner.regions import place_pools
from usmp.runner.targets import target_named
from usmp.select.cpus import CPUS
from usmp.zephyr.options import add_zephyr_arguments, zephyr_compile_options

NAME = "report"
HELP = "write one self-contained HTML page showing where a model's bytes (and instructions) go"
CORTEX_M_TARGETS = ("cortex-m0", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the page to write")
    parser.add_argument("--target", default=None,
                        help=f"also run the model on an emulated core ({', '.join(CORTEX_M_TARGETS)}) and show "
                             "its flash, RAM, stack and instructions per operator")
    parser.add_argument("--input", action="append", default=[], metavar="IN.npy",
                        help="with --target: one .npy file per model input (default: random inputs from --seed)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    add_planning_arguments(parser)
    add_zephyr_arguments(parser)


def run(args) -> int:
    if args.target is not None and args.target not in CORTEX_M_TARGETS:
        raise UsmpError(f"--target {args.target}: expected one of {', '.join(CORTEX_M_TARGETS)} "
                        f"(without --target the page shows the plan only)")
    options = zephyr_compile_options(args, compile_options(args))
    if args.target:
        if args.cpu not in (None, args.target):
            raise UsmpError(f"--cpu {args.cpu} does not match --target {args.target}")
        options.cpu = args.target
        options.pools = place_pools(options.pools, target_named(args.target))  # region=NAME: the board's memories
    compiled = compile_model(args.model, options)
    document = json.loads(compiled.files[f"{compiled.program.name}_plan.json"])
    measurements = None
    if args.target:
        from usmp.runner.baremetal import run_on_target

        inputs = load_inputs(compiled.program, args.input) if args.input else random_inputs(compiled, args.seed)
        measurements = run_on_target(compiled, inputs, args.target, profile=True, traffic=True).report
    settings = {"model_file": Path(args.model).name, "cpu": options.cpu if options.cpu != "generic" else None,
                "extension": CPUS.get(options.cpu),
                "options": _options_text(options)}
    page = report_page(document, measurements, settings, document["portable_kernels"])
    output = Path(args.output)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page)
    except OSError as exc:
        raise UsmpError(f"cannot write {output}: {exc.strerror or exc}") from None
    progress.clear()  # the stage line, before the command's own output
    print(f"usmp: wrote {output} ({len(page.encode()) // 1024} KB)")
    return 0


def _options_text(options) -> str:
    """The compile options that shape the plan and the code, for the page's header."""
    words = [f"--algorithm {options.algorithm}", f"--tiling {options.tiling}", f"--kernels {options.kernels}"]
    words += [flag for flag, on in (("--workspace-io", options.workspace_io), ("--reorder", options.reorder),
                                    ("--user-pools", options.user_pools), ("--guards", options.guards)) if on]
    return " ".join(words)
