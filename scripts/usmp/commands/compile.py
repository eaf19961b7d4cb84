"""usmp compile: write the C library of a model."""
from __future__ import annotations

from usmp import progress
from usmp.commands.options import add_model_arguments, add_planning_arguments, compile_options
from usmp.compiler import compile_to_directory
from usmp.zephyr.options import add_zephyr_arguments, zephyr_compile_options

NAME = "compile"
HELP = "compile a .tflite model into a C library"


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    parser.add_argument("-o", "--output-dir", required=True, help="directory for the generated files")
    add_planning_arguments(parser)
    add_zephyr_arguments(parser)


def run(args) -> int:
    compiled = compile_to_directory(args.model, args.output_dir, zephyr_compile_options(args, compile_options(args)))
    pools = ", ".join(f"{p.spec.name} {p.size} B" for p in compiled.layout.pools)
    progress.clear()  # the stage line, before the command's own output
    print(f"usmp: wrote {len(compiled.files)} files for '{compiled.program.name}' to {args.output_dir} ({pools})")
    return 0
