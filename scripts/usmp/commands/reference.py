"""usmp reference: reference inputs and expected outputs as C, for on-target tests.

Takes the same planning and Zephyr options as `usmp compile` (the check
function must call the library exactly as it was generated: workspace I/O,
user pools), runs TFLite Micro's interpreter on the inputs and writes
<name>_reference.h/.c.
"""
from __future__ import annotations

from pathlib import Path

from usmp import progress
from usmp.codegen.emit import write_files
from usmp.commands.options import add_model_arguments, add_planning_arguments, compile_options
from usmp.compiler import compile_model
from usmp.reference_vectors import ReferenceVectors, random_inputs, reference_files, reference_outputs
from usmp.runner.io_files import load_inputs
from usmp.zephyr.options import add_zephyr_arguments, zephyr_compile_options

NAME = "reference"
HELP = "write reference inputs and the tflite-micro interpreter's outputs as C (for on-target tests)"


def add_arguments(parser) -> None:
    add_model_arguments(parser)
    parser.add_argument("-o", "--output-dir", required=True, help="directory for <name>_reference.h/.c")
    parser.add_argument("--input", action="append", default=[], metavar="IN.npy",
                        help="one .npy file per model input, in order (default: random inputs from --seed)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    parser.add_argument("--check", action="store_true",
                        help="also write usmp_<name>_reference_check(), which runs the model and counts "
                             "the output elements that differ")
    add_planning_arguments(parser)
    add_zephyr_arguments(parser)


def run(args) -> int:
    options = zephyr_compile_options(args, compile_options(args))
    compiled = compile_model(args.model, options)
    if args.input:
        inputs = load_inputs(compiled.program, args.input)
    else:
        inputs = random_inputs(compiled, args.seed)
    vectors = ReferenceVectors(inputs, reference_outputs(args.model, inputs, len(compiled.program.graph.outputs)))
    files = reference_files(compiled, vectors, args.check)
    write_files(files, Path(args.output_dir))
    progress.clear()  # the stage line, before the command's own output
    print(f"usmp: wrote reference vectors of '{compiled.program.name}' to {args.output_dir}")
    return 0
