#!/usr/bin/env python3
"""Regenerate the reference vectors committed with the samples.

The samples compare their outputs on target with these files, so building a
sample needs only the module's runtime packages. Making the files needs the
tflite-micro interpreter (PyPI `tflite-micro`), which computes the expected
outputs; run this after changing a sample's model or inputs:

    python samples/usmp/update_reference_vectors.py [--check]

--check compares instead of writing and exits 1 when a file is stale
(tests/test_sample_vectors.py runs it so).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent
sys.path.insert(0, str(SAMPLES.parents[1] / "scripts"))

from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.reference_vectors import (ReferenceVectors, random_inputs, reference_files,  # noqa: E402
                                    reference_outputs)
from usmp.runner.io_files import load_inputs  # noqa: E402

# (model, C name, input .npy files or a seed for random ones); files land beside the model.
VECTORS = [
    ("hello/model/micro_speech_quantized.tflite", "micro_speech", ["hello/model/input_0.npy"]),
    ("shared_workspace/model/branchy_fc.tflite", "branchy_fc", 7),
    ("depth_first/model/ds_cnn_kws.tflite", "ds_cnn_kws", 49),
]


def vector_files(model: Path, name: str, inputs) -> dict[str, str]:
    """<name>_reference.h/.c: the inputs and the interpreter's outputs (no check function: plan-independent)."""
    compiled = compile_model(model, CompileOptions(name=name))
    if isinstance(inputs, int):
        arrays = random_inputs(compiled, inputs)
    else:
        arrays = load_inputs(compiled.program, [str(SAMPLES / f) for f in inputs])
    outputs = reference_outputs(str(model), arrays, len(compiled.program.graph.outputs))
    return reference_files(compiled, ReferenceVectors(arrays, outputs), with_check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = parser.parse_args()
    stale = []
    for model, name, inputs in VECTORS:
        model = SAMPLES / model
        for file_name, text in vector_files(model, name, inputs).items():
            path = model.parent / file_name
            if args.check:
                if not path.is_file() or path.read_text() != text:
                    stale.append(path)
            else:
                path.write_text(text)
                print(f"wrote {path.relative_to(SAMPLES)}")
    for path in stale:
        print(f"stale: {path.relative_to(SAMPLES)} (run samples/usmp/update_reference_vectors.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
