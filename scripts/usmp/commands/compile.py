"""usmp compile: write the C library of a model."""
from __future__ import annotations

from usmp import progress
from usmp.commands.options import (add_model_arguments, add_planning_arguments, add_stack_argument,
                                   compile_options, print_portable_fallback_notice)
from usmp.compiler import compile_to_directory
from usmp.zephyr.options import add_zephyr_arguments, zephyr_compile_options

NAME = "compile"
HELP = "compile a .tflite model into a C library"


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    parser.add_argument("-o", "--output-dir", required=True, help="directory for the generated files")
    add_planning_arguments(parser)
    add_stack_argument(parser)
    add_zephyr_arguments(parser)


def run(args) -> int:
    options = zephyr_compile_options(args, compile_options(args))
    compiled = compile_to_directory(args.model, args.output_dir, options)
    print_portable_fallback_notice(compiled, options)
    pools = ", ".join(f"{p.spec.name} {p.size} B" for p in compiled.layout.pools)
    progress.clear()  # the stage line, before the command's own output
    stack = f"; stack {compiled.stack.bytes} B at most on the {options.stack_bound}" if compiled.stack else ""
    print(f"usmp: wrote {len(compiled.files)} files for '{compiled.program.name}' to {args.output_dir} "
          f"({pools}{stack})")
    return 0
