"""Print the operator coverage: per builtin operator and activation type, the test
models that use it and how many random inputs matched TFLite Micro; then how many
of TFLite Micro's builtin operators USMP compiles.

    .venv/bin/python benchmarks/operator_coverage.py [--inputs N] [MODEL ...]

The activation type of an operator is its first input's type ("int16x8" for
int16 activations, whatever the weights), or its output's when the input is a
constant or a bool/index tensor feeds a typed output. Every model under
tests/models/ (top level and tflm/) is run, each on N random
inputs, on the host; a model counts for every (operator, type) it contains.
The exhaustive and edge-case tests of tests/test_ops_*.py are not counted here.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import TEST_MODELS, all_models, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.compiler import compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.lower.ops import supported_opcodes  # noqa: E402
from usmp.runner.host import run_host  # noqa: E402

# The builtin operators TFLite Micro's MicroMutableOpResolver registers
# (tensorflow/lite/micro/micro_mutable_op_resolver.h, tflite-micro commit 90b983c2b, late 2026),
# CUSTOM excluded.
TFLM_BUILTINS = """
ABS ADD ADD_N ARG_MAX ARG_MIN ASSIGN_VARIABLE AVERAGE_POOL_2D BATCH_MATMUL BATCH_TO_SPACE_ND BROADCAST_ARGS
BROADCAST_TO CALL_ONCE CAST CEIL CONCATENATION CONV_2D COS CUMSUM DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE DIV
DYNAMIC_UPDATE_SLICE ELU EMBEDDING_LOOKUP EQUAL EXP EXPAND_DIMS FILL FLOOR FLOOR_DIV FLOOR_MOD FULLY_CONNECTED
GATHER GATHER_ND GREATER GREATER_EQUAL HARD_SWISH IF L2_NORMALIZATION L2_POOL_2D LEAKY_RELU LESS LESS_EQUAL LOG
LOGICAL_AND LOGICAL_NOT LOGICAL_OR LOGISTIC LOG_SOFTMAX MAXIMUM MAX_POOL_2D MEAN MINIMUM MIRROR_PAD MUL NEG
NOT_EQUAL PACK PAD PADV2 PRELU QUANTIZE READ_VARIABLE REDUCE_ALL REDUCE_MAX REDUCE_MIN RELU RELU6 RESHAPE
RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR REVERSE_V2 ROUND RSQRT SELECT_V2 SHAPE SIN SLICE SOFTMAX SPACE_TO_BATCH_ND
SPACE_TO_DEPTH SPLIT SPLIT_V SQRT SQUARE SQUARED_DIFFERENCE SQUEEZE STRIDED_SLICE SUB SUM SVDF TANH TRANSPOSE
TRANSPOSE_CONV UNIDIRECTIONAL_SEQUENCE_LSTM UNPACK VAR_HANDLE WHILE ZEROS_LIKE
""".split()

TYPE_COLUMNS = ("int8", "int16x8", "float32")


def activation_type(graph, op) -> str:
    """The type an operator computes in, as the coverage table's columns name it."""
    tensors = [graph.tensors[i] for i in op.inputs if i is not None]
    typed = [t for t in tensors if not t.is_constant and t.dtype not in ("bool", "resource")]
    dtype = typed[0].dtype if typed else graph.tensors[op.outputs[0]].dtype if op.outputs else "-"
    return "int16x8" if dtype == "int16" else dtype


def coverage(models: list[Path], count: int):
    """(operator, type) -> [models, inputs tried, inputs matched]; and the models that did not compile."""
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    refused = []
    for model in models:
        try:
            compiled = compile_model(model)
        except UsmpError as exc:
            refused.append((model, str(exc)))
            continue
        graph = compiled.program.graph
        rng = np.random.default_rng(99)
        matched = 0
        for _ in range(count):
            inputs = random_inputs(graph, rng)
            expected = reference_outputs(model, inputs)
            got = run_host(compiled, inputs)
            matched += len(expected) == len(got) and all(outputs_match(e, g) for e, g in zip(expected, got))
        for key in {(op.opcode, activation_type(graph, op)) for op in graph.operators}:
            row = table[key]
            row[0] += 1
            row[1] += count
            row[2] += matched
    return table, refused


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--inputs", type=int, default=5)
    parser.add_argument("models", nargs="*", type=Path)
    args = parser.parse_args()
    models = args.models or sorted(set(all_models()) | set((TEST_MODELS / "tflm").glob("*.tflite")))
    table, refused = coverage(models, args.inputs)

    opcodes = sorted({opcode for opcode, _ in table})
    others = sorted({t for _, t in table} - set(TYPE_COLUMNS))
    columns = list(TYPE_COLUMNS) + others
    print(f"{len(models)} models, {args.inputs} random inputs each; cells: models, inputs matched/tried")
    print(f"| operator | {' | '.join(columns)} |")
    print(f"|---|{'---|' * len(columns)}")
    total_tried = total_matched = 0
    for opcode in opcodes:
        cells = []
        for column in columns:
            if (opcode, column) in table:
                n, tried, matched = table[(opcode, column)]
                cells.append(f"{n}: {matched}/{tried}")
            else:
                cells.append("")
        print(f"| {opcode} | {' | '.join(cells)} |")
    for n, tried, matched in table.values():
        total_tried += tried
        total_matched += matched
    print(f"\n(operator, type) pairs: {len(table)}; inputs matched {total_matched} of {total_tried} "
          f"(an input counts once per pair its model covers)")
    for model, reason in refused:
        print(f"not compiled: {model.name}: {reason[:120]}")

    ours = set(supported_opcodes())
    tflm = set(TFLM_BUILTINS)
    print(f"\nTFLite Micro builtin operators USMP compiles: {len(ours & tflm)} of {len(tflm)}")
    print(f"  not yet: {' '.join(sorted(tflm - ours)) or 'none'}")
    beyond = sorted(ours - tflm)
    if beyond:
        print(f"  beyond TFLite Micro's set: {' '.join(beyond)}")


if __name__ == "__main__":
    main()
