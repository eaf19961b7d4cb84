"""usmp run: compile a model, run it on .npy inputs, write .npy outputs."""
from __future__ import annotations

from pathlib import Path

from usmp.commands.options import add_model_arguments, add_planning_arguments, compile_options
from usmp.compiler import compile_model
from usmp.errors import UsmpError
from usmp.runner.io_files import load_inputs, save_outputs

NAME = "run"
HELP = "compile a model, run it on inputs and write its outputs as .npy files"
TARGETS = ("host",)


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    parser.add_argument("--input", action="append", default=[], metavar="IN.npy",
                        help="one .npy file per model input, in order")
    parser.add_argument("--output-dir", required=True, help="where output_0.npy, output_1.npy, ... go")
    parser.add_argument("--target", default="host", help=f"where to run: {', '.join(TARGETS)} (default: host)")
    parser.add_argument("--sanitize", action="store_true", help="host only: build with AddressSanitizer and UBSan")
    add_planning_arguments(parser)


def run(args) -> int:
    if args.target not in TARGETS:
        raise UsmpError(f"unknown target '{args.target}' (known: {', '.join(TARGETS)})")
    compiled = compile_model(args.model, compile_options(args))
    inputs = load_inputs(compiled.program, args.input)
    from usmp.runner.host import run_host

    outputs = run_host(compiled, inputs, sanitize=args.sanitize)
    for path in save_outputs(outputs, Path(args.output_dir)):
        print(f"usmp: wrote {path}")
    return 0
