"""Print the operator coverage: per builtin operator and activation type, the test
models that use it and how many random inputs matched TFLite Micro; then how many
of TFLite Micro's builtin operators USMP compiles; then the model families beyond
them (TFLite Micro's signal library, uint8, hybrid, shapes computed in the graph,
int8 EXP/LOG/SQRT, IF/WHILE), each model against its reference: TFLite Micro where
it runs the model (over sequences for models with state), else LiteRT.

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
from reference import litert_outputs  # noqa: E402
from sequences import litert_sequence, reference_sequence  # noqa: E402
import tflite_builder  # noqa: E402,F401  (the int8 EXP/LOG/SQRT models)

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
    parser.add_argument("--families-only", action="store_true", help="only the model families table")
    parser.add_argument("models", nargs="*", type=Path)
    args = parser.parse_args()
    if args.families_only:
        print_families(args.inputs)
        return
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
    beyond = sorted(o for o in ours - tflm if not o.startswith("CUSTOM:"))
    if beyond:
        print(f"  beyond TFLite Micro's set: {' '.join(beyond)}")
    print_families(args.inputs)


SIGNAL_OPERATORS = """SignalWindow SignalFftAutoScale SignalRfft SignalIrfft SignalEnergy SignalFilterBank
SignalFilterBankSquareRoot SignalFilterBankSpectralSubtraction SignalPCAN SignalFilterBankLog SignalDelay
SignalFramer SignalOverlapAdd SignalStacker""".split()
# family, models, reference: "tflm" (one inference), "tflm-sequence", "litert", "litert-sequence", "twin"
FAMILIES = [
    ("signal library", lambda: sorted((TEST_MODELS / "signal").glob("*.tflite"))
     + sorted((TEST_MODELS / "tflm").glob("audio_preprocessor_*.tflite")), "tflm-sequence"),
    ("uint8", lambda: sorted((TEST_MODELS / "uint8").glob("*.tflite")), "litert"),
    ("hybrid", lambda: sorted((TEST_MODELS / "hybrid").glob("*.tflite")), "litert-sequence"),
    ("shapes in the graph", lambda: sorted(p for p in (TEST_MODELS / "dynamic_shapes").glob("*.tflite")
                                           if "_twin" not in p.stem), "twin"),
    ("int8 EXP/LOG/SQRT", lambda: _int8_math_models(), "litert"),
    ("IF/WHILE", lambda: sorted((TEST_MODELS / "control_flow").glob("*.tflite")), "tflm"),
]
SEQUENCE_STEPS = 6


def _int8_math_models() -> list[Path]:
    """One int8 EXP, LOG and SQRT model each (built here, as tests/test_int8_math_litert.py builds them)."""
    import tempfile

    import tflite

    import tflite_builder as tb

    directory = Path(tempfile.mkdtemp(prefix="usmp-coverage-"))
    models = []
    for opcode, q_in, q_out in (("EXP", (0.05, -20), (0.1, -128)), ("LOG", (0.05, -128), (0.04, 60)),
                                ("SQRT", (0.05, -128), (0.03, -128))):
        tensors = [tb.T("x", (256,), "int8", scales=[q_in[0]], zero_points=[q_in[1]]),
                   tb.T("y", (256,), "int8", scales=[q_out[0]], zero_points=[q_out[1]])]
        path = directory / f"{opcode.lower()}_int8.tflite"
        op = tb.Op(getattr(tflite.BuiltinOperator, opcode), [0], [1])
        path.write_bytes(tb.build([tb.Sub(tensors, [op], [0], [1])]))
        models.append(path)
    return models


def _family_inputs(graph, rng, steps: int | None):
    """Random inputs (per step, stacked, for sequences); int32 inputs small (the signal library's shifts)."""
    per_step = []
    for _ in range(steps or 1):
        arrays = random_inputs(graph, rng)
        arrays = [a if a.dtype != np.int32 else np.abs(a) % 7 for a in arrays]
        if graph.name.startswith("sqrt"):
            arrays = [np.maximum(a, -128).astype(a.dtype) for a in arrays]  # LiteRT refuses negative inputs
        per_step.append(arrays)
    if steps is None:
        return per_step[0]
    return [np.stack([s[i] for s in per_step]) for i in range(len(per_step[0]))]


def _matches(expected, got) -> bool:
    """Outputs agree; where a framer or stacker says its output is not valid only the flags are compared."""
    valid = [e for e in expected if e.dtype == np.bool_ and e.size <= SEQUENCE_STEPS]
    if valid and not valid[0].all():
        pairs = [(e[k], g[k]) for e, g in zip(expected, got) for k in range(len(e))
                 if valid[0].reshape(len(e), -1)[k].all() or e.dtype == np.bool_]
    else:
        pairs = list(zip(expected, got))
    return all(outputs_match(e, g) for e, g in pairs)


def family_coverage(count: int) -> list[tuple[str, str, str, str, int, int]]:
    """(family, model, operators, reference, inputs matched, inputs tried) per model."""
    rows = []
    for family, models, reference in FAMILIES:
        for model in models():
            try:
                compiled = compile_model(model)
            except UsmpError as exc:
                rows.append((family, model.stem, f"not compiled: {str(exc)[:80]}", reference, 0, count))
                continue
            graph = compiled.program.graph
            operators = sorted({op.opcode.removeprefix("CUSTOM:") for op in graph.operators}
                               | {op.opcode for g in graph.subgraphs.values() for op in g.operators})
            stateful = bool(compiled.program.state_buffers)
            kind = reference
            if reference == "litert-sequence":
                kind = "litert-sequence" if stateful else "litert"
            rng = np.random.default_rng(99)
            matched = 0
            for _ in range(count):
                if kind in ("tflm-sequence", "litert-sequence"):
                    inputs = _family_inputs(graph, rng, SEQUENCE_STEPS)
                    expected = (reference_sequence if kind == "tflm-sequence" else litert_sequence)(model, inputs)
                    got = run_host(compiled, inputs, steps=SEQUENCE_STEPS)
                else:
                    inputs = _family_inputs(graph, rng, None)
                    if kind == "twin":
                        twin = model.with_name(model.stem.replace("_int8", "_twin_int8") + ".tflite")
                        expected = (reference_outputs(twin, inputs) if twin != model and twin.exists()
                                    else litert_outputs(model, inputs))
                    elif kind == "tflm":
                        expected = reference_outputs(model, inputs)
                    else:
                        expected = litert_outputs(model, inputs)
                    got = run_host(compiled, inputs)
                matched += len(expected) == len(got) and _matches(expected, got)
            label = {"tflm-sequence": "TFLite Micro, sequences", "litert-sequence": "LiteRT, sequences",
                     "litert": "LiteRT", "tflm": "TFLite Micro",
                     "twin": "TFLite Micro (frozen twin) or LiteRT"}[kind]
            rows.append((family, model.stem, " ".join(operators), label, matched, count))
    return rows


def print_families(count: int) -> None:
    rows = family_coverage(count)
    print(f"\nModel families beyond TFLite Micro's builtins ({count} random inputs or sequences of "
          f"{SEQUENCE_STEPS} steps each; cells: inputs matched/tried)")
    print("| family | model | operators | reference | matched |")
    print("|---|---|---|---|---|")
    for family, model, operators, reference, matched, tried in rows:
        print(f"| {family} | {model} | {operators} | {reference} | {matched}/{tried} |")
    total = sum(r[4] for r in rows)
    print(f"\nfamily models: {len(rows)}; inputs matched {total} of {sum(r[5] for r in rows)}")
    ours = set(supported_opcodes())
    signal = [name for name in SIGNAL_OPERATORS if f"CUSTOM:{name}" in ours]
    print(f"TFLite Micro signal library operators USMP compiles: {len(signal)} of {len(SIGNAL_OPERATORS)}")


if __name__ == "__main__":
    main()
