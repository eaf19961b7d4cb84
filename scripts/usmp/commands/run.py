"""usmp run: compile a model, run it on .npy inputs, write .npy outputs.

On a Cortex-M target the model runs in QEMU; --stats and --json report what
it costs there (flash and RAM by part, stack, instructions per inference).
--steps N runs a sequence: each input file holds N inputs stacked on a new
leading axis, a model with state is initialised once and run N times in
order, and each output file holds the N outputs stacked the same way.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from usmp import progress
from usmp.commands.options import add_model_arguments, add_planning_arguments, compile_options
from usmp.compiler import compile_model
from usmp.errors import UsmpError
from usmp.report.operators import format_profile, profile_rows
from usmp.runner.io_files import load_inputs, save_outputs

NAME = "run"
HELP = "compile a model, run it on inputs and write its outputs as .npy files"
CORTEX_M_TARGETS = ("cortex-m0", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")
TARGETS = ("host",) + CORTEX_M_TARGETS


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    parser.add_argument("--input", action="append", default=[], metavar="IN.npy",
                        help="one .npy file per model input, in order")
    parser.add_argument("--output-dir", required=True, help="where output_0.npy, output_1.npy, ... go")
    parser.add_argument("--steps", type=int, default=None, metavar="N",
                        help="run a sequence of N inferences (state carried from one to the next); each --input "
                             "holds N inputs stacked on a leading axis, and each output file N outputs")
    parser.add_argument("--target", default="host",
                        help=f"where to run: {', '.join(TARGETS)} (default: host); "
                             "cortex-m0 is an emulated BBC micro:bit (256 KB flash, 16 KB RAM), "
                             "cortex-m3 an emulated MPS2 AN385 (4 MB each), cortex-m4 an MPS2 AN386 and "
                             "cortex-m7 an MPS2 AN500 (same memory), cortex-m33 an MPS2 AN505 (4 MB flash, 2 MB RAM), "
                             "cortex-m55 an MPS3 AN547 (512 KB ITCM for code and constants, 512 KB DTCM)")
    parser.add_argument("--sanitize", action="store_true", help="host only: build with AddressSanitizer and UBSan")
    parser.add_argument("--stats", action="store_true",
                        help="Cortex-M only: print flash and RAM by part, stack and instructions per inference")
    parser.add_argument("--profile", action="store_true",
                        help="per operator, in execution order: kernel, MACs, bytes and, on a Cortex-M target, "
                             "the instructions it executes (its share of the inference, per MAC)")
    parser.add_argument("--json", action="store_true",
                        help="print the measurements (Cortex-M) and the profile (--profile) as one JSON object "
                             "on stdout")
    add_planning_arguments(parser)


def run(args) -> int:
    if args.target not in TARGETS:
        raise UsmpError(f"unknown target '{args.target}' (known: {', '.join(TARGETS)})")
    on_cortex_m = args.target in CORTEX_M_TARGETS
    if (args.stats or (args.json and not args.profile)) and not on_cortex_m:
        raise UsmpError(f"--stats and --json need a Cortex-M target ({', '.join(CORTEX_M_TARGETS)}); "
                        f"--profile works on the host too")
    if args.sanitize and on_cortex_m:
        raise UsmpError("--sanitize works only with --target host")
    if args.steps is not None and args.steps < 1:
        raise UsmpError(f"--steps {args.steps}: expected a positive number of inferences")
    options = compile_options(args)
    if on_cortex_m:  # the target's core, unless the user named another
        if args.cpu not in (None, args.target):
            raise UsmpError(f"--cpu {args.cpu} does not match --target {args.target}")
        options.cpu = args.target
    compiled = compile_model(args.model, options)
    inputs = load_inputs(compiled.program, args.input, args.steps)
    report = None
    if on_cortex_m:
        from usmp.runner.cortex_m import run_cortex_m

        result = run_cortex_m(compiled, inputs, args.target, count=args.stats or args.json, steps=args.steps,
                              profile=args.profile)
        outputs, report = result.outputs, result.report
    else:
        from usmp.runner.host import run_host

        outputs = run_host(compiled, inputs, sanitize=args.sanitize, steps=args.steps)
    # With --json, stdout carries the JSON object only.
    out = sys.stderr if args.json else sys.stdout
    progress.clear()  # the stage line, before the command's own output
    for path in save_outputs(outputs, Path(args.output_dir)):
        print(f"usmp: wrote {path}", file=out)
    if args.stats:
        print(format_stats(compiled.program.name, report), file=out)
    if args.profile:
        report = report or {"target": args.target}
        rows = profile_rows(json.loads(compiled.files[f"{compiled.program.name}_plan.json"]),
                            report.pop("step_instructions", None), report.get("instructions"))
        print(format_profile(rows, report.get("instructions"), report.pop("outside_steps", None)), file=out)
        report["operators"] = rows
    if args.json:
        print(json.dumps(report, sort_keys=True))
    return 0


def format_stats(model_name: str, report: dict) -> str:
    flash, ram = report["flash_bytes"], report["ram_bytes"]
    pools = ", ".join(f"{name} {size}" for name, size in ram["pools"].items()) or "none"
    ram_total = sum(ram["pools"].values()) + ram["stack"] + ram["other"]
    return "\n".join([
        f"{model_name} on {report['target']} (qemu -M {report['machine']}):",
        f"  flash      {report['flash_total_bytes']:>9} of {report['flash_size_bytes']} bytes: "
        f"generated code {flash['generated_code']}, kernels {flash['kernels']}, "
        f"constants {flash['constants']}, harness {flash['harness']}",
        f"  RAM        {ram_total:>9} of {report['ram_size_bytes']} bytes: pools ({pools}), "
        f"stack {ram['stack']}, other {ram['other']} (harness data, I/O buffers, C library, heap)",
        f"  inference  {report['instructions']:>9} instructions",
    ])
