"""usmp run: compile a model, run it on .npy inputs, write .npy outputs.

On an emulated target (Cortex-M, RISC-V) the model runs in QEMU; --stats and
--json report what it costs there (flash and RAM by part, stack, instructions per inference, and with
--stats or --profile the loads and stores per pool, priced by the pools' wait states).
--steps N runs a sequence: each input file holds N inputs stacked on a new
leading axis, a model with state is initialised once and run N times in
order, and each output file holds the N outputs stacked the same way.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from usmp import progress
from usmp.commands.options import (add_model_arguments, add_planning_arguments, compile_options,
                                   print_portable_fallback_notice)
from usmp.compiler import compile_model
from usmp.errors import UsmpError
from usmp.report.operators import format_profile, profile_rows
from usmp.report.traffic import format_operator_traffic, format_traffic
from usmp.runner.io_files import load_inputs, save_outputs
from usmp.runner.regions import place_pools
from usmp.runner.targets import TARGETS as EMULATED

NAME = "run"
HELP = "compile a model, run it on inputs and write its outputs as .npy files"
TARGETS = ("host", *EMULATED)


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
                             "cortex-m55 an MPS3 AN547 (512 KB ITCM for code and constants, 512 KB DTCM), "
                             "riscv32 an RV32IMC, riscv32imac an RV32IMAC and riscv32imac_zba_zbb_zbs an "
                             "RV32IMAC core with Zba, Zbb and Zbs (RP2350's Hazard3) on QEMU's virt board "
                             "(4 MB each)")
    parser.add_argument("--sanitize", action="store_true", help="host only: build with AddressSanitizer and UBSan")
    parser.add_argument("--stats", action="store_true",
                        help="emulated targets only: print flash and RAM by part, stack, instructions per "
                             "inference, and its loads and stores per pool, the stack and the rest, with the "
                             "pools' wait cycles and the estimate instructions + wait cycles")
    parser.add_argument("--profile", action="store_true",
                        help="per operator, in execution order: kernel, MACs, bytes and, on an emulated target, "
                             "the instructions it executes (its share of the inference, per MAC)")
    parser.add_argument("--json", action="store_true",
                        help="print the measurements (emulated targets) and the profile (--profile) as one JSON "
                             "object on stdout")
    add_planning_arguments(parser)


def run(args) -> int:
    if args.target not in TARGETS:
        raise UsmpError(f"unknown target '{args.target}' (known: {', '.join(TARGETS)})")
    emulated = EMULATED.get(args.target)
    if (args.stats or (args.json and not args.profile)) and not emulated:
        raise UsmpError(f"--stats and --json need an emulated target ({', '.join(EMULATED)}); "
                        f"--profile works on the host too")
    if args.sanitize and emulated:
        raise UsmpError("--sanitize works only with --target host")
    if args.steps is not None and args.steps < 1:
        raise UsmpError(f"--steps {args.steps}: expected a positive number of inferences")
    options = compile_options(args)
    if emulated:  # the target's core, unless the user named another
        if args.cpu not in (None, emulated.cpu):
            raise UsmpError(f"--cpu {args.cpu} does not match --target {args.target}")
        options.cpu = emulated.cpu
        options.pools = place_pools(options.pools, emulated)  # region=NAME: the board's memories
    compiled = compile_model(args.model, options)
    print_portable_fallback_notice(compiled, options)
    inputs = load_inputs(compiled.program, args.input, args.steps)
    report = None
    if emulated:
        from usmp.runner.baremetal import run_on_target

        result = run_on_target(compiled, inputs, args.target, count=args.stats or args.json, steps=args.steps,
                               profile=args.profile, traffic=args.stats or args.profile)
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
                            report.pop("step_instructions", None), report.get("instructions"),
                            report.pop("step_memory", None))
        print(format_profile(rows, report.get("instructions"), report.pop("outside_steps", None)), file=out)
        if rows and "memory" in rows[0]:
            print(format_operator_traffic(rows, report["memory"]), file=out)
        report["operators"] = rows
    if args.json:
        print(json.dumps(report, sort_keys=True))
    return 0


def _bound(report: dict) -> str:
    if report.get("stack_bound") is None:
        return f"unknown: {report.get('stack_bound_reason')}"
    path = " -> ".join(f"{name} {frame}" for name, frame in report["stack_bound_path"])
    return f"{report['stack_bound']} ({path})"


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
        f"  stack      {ram['stack']:>9} bytes measured, bound {_bound(report)}",
        *([f"  stack by operator (bound): " + ", ".join(f"{k} {b}" for k, b in enumerate(report["stack_bound_steps"]))]
          if report.get("stack_bound_steps") else []),
        *([f"  regions    " + ", ".join(f"{name} {r['used']} of {r['size']} bytes"
                                       for name, r in report["region_bytes"].items())]
          if report.get("region_bytes") else []),
        f"  inference  {report['instructions']:>9} instructions",
        *([format_traffic(report["memory"], report["instructions"])] if "memory" in report else []),
    ])
