"""SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM beyond the converter's models (tests/models/stateful, run by
test_stateful.py): hand-built variants (no bias, extreme zero points, several batches, the 16x8
LSTM with int16 model input and output), saturating streams, TFLite Micro's own reset(), evidence
that the state and the cell clip matter, the refusals, and the hand-built forms on Cortex-M0/M3.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import outputs_match
from sequences import STATEFUL_MODELS_DIR, mismatched_steps, random_sequence, reference_sequence, \
    restarted_reference
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

sys.path.insert(0, str(Path(__file__).resolve().parent / "models"))
from make_rnn_models import _patch_cell_clip, svdf_model  # noqa: E402

OP = tflite.BuiltinOperator
BO = tflite.BuiltinOptions
STEPS = 30


def assert_stream_matches(model: Path, inputs, reset_before=None) -> list[np.ndarray]:
    """One TFLite Micro interpreter over the whole stream vs the compiled model (optionally both reset)."""
    expected = reference_sequence(model, inputs, reset_before=reset_before)
    got = run_host(compile_model(model), inputs, steps=len(inputs[0]), reset_before=reset_before)
    bad = mismatched_steps(expected, got, outputs_match)
    assert not bad, f"{model.name}: steps {bad} differ; first: expected {expected[0][bad[0]]}, got {got[0][bad[0]]}"
    return got


def stream(model: Path, seed: int, steps: int = STEPS, extreme: bool = False):
    graph = compile_model(model).program.graph
    inputs = random_sequence(graph, steps, np.random.default_rng(seed))
    if extreme:  # every input at the ends of its range: gates and states saturate
        rng = np.random.default_rng(seed)
        inputs = [np.where(rng.random(a.shape) < 0.5, np.iinfo(a.dtype).min, np.iinfo(a.dtype).max).astype(a.dtype)
                  for a in inputs]
    return inputs


# -- SVDF ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(batches=3, input_size=4, units=2, rank=1, memory=2),
    dict(batches=1, input_size=7, units=1, rank=4, memory=1),
    dict(batches=2, input_size=3, units=3, rank=2, memory=6, state_type="int8", state_zero_point=127),
    dict(batches=2, input_size=3, units=3, rank=2, memory=6, state_type="int8", state_zero_point=-128),
    dict(batches=1, input_size=5, units=4, rank=2, memory=4, state_zero_point=300),
    dict(batches=1, input_size=5, units=4, rank=2, memory=4, activation="RELU"),  # TFLite Micro ignores it for int8
], ids=["batch3_rank1_memory2", "rank4_memory1", "s8_state_zp127", "s8_state_zp-128", "s16_state_zp300", "relu"])
@pytest.mark.parametrize("extreme", [False, True], ids=["random", "extreme"])
def test_svdf_int8_shapes_and_zero_points(tmp_path, kwargs, extreme):
    model = svdf_model(tmp_path / "svdf.tflite", 11, dtype="int8", **kwargs)
    assert_stream_matches(model, stream(model, 1, extreme=extreme))


@pytest.mark.parametrize("activation", ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"])
def test_svdf_float_activations(tmp_path, activation):
    model = svdf_model(tmp_path / "svdf.tflite", 12, 2, 4, 3, 2, 5, "float32", activation=activation)
    assert_stream_matches(model, stream(model, 2))


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_svdf_without_bias_is_a_zero_bias(tmp_path, dtype):
    """TFLite Micro crashes on an SVDF without bias, so the judge is the same model with a zero bias."""
    model = svdf_model(tmp_path / "svdf.tflite", 13, 1, 4, 3, 2, 5, dtype)
    zero = _without_input(model, -1)
    bias = zero.tensors[3]
    bias.data = np.zeros_like(bias.data)
    model.write_bytes(tb.build([zero]))
    inputs = stream(model, 3)
    expected = assert_stream_matches(model, inputs)
    biasless = tmp_path / "biasless.tflite"
    biasless.write_bytes(tb.build([_without_input(model, 3)]))
    got = run_host(compile_model(biasless), inputs, steps=len(inputs[0]))
    assert not mismatched_steps(expected, got, outputs_match)


def _without_input(model: Path, position: int) -> tb.Sub:
    """Rebuild a one-operator hand-built model with one operator input left out (-1)."""
    from usmp.frontend.tflite_reader import read_tflite

    graph = read_tflite(model)
    tensors = []
    for t in graph.tensors:
        q = t.quant
        tensors.append(tb.T(t.name, t.shape, t.dtype, data=t.data, variable=t.is_variable,
                            scales=list(q.scales) if q is not None else None,
                            zero_points=list(q.zero_points) if q is not None else None))
    [op] = graph.operators
    inputs = [-1 if i == position else v for i, v in enumerate(op.inputs)]
    options = (BO.SVDFOptions, _svdf_options(op.options))
    return tb.Sub(tensors, [tb.Op(OP.SVDF, inputs, list(op.outputs), options=options)], graph.inputs, graph.outputs)


def _svdf_options(values):
    def options(b):
        tflite.SVDFOptionsStart(b)
        tflite.SVDFOptionsAddRank(b, values["rank"])
        tflite.SVDFOptionsAddFusedActivationFunction(b, values["fused_activation_function"])
        return tflite.SVDFOptionsEnd(b)

    return options


@pytest.mark.parametrize("name", ["svdf_kws", "svdf_s8_state", "lstm_i8", "lstm_i8_time_major"])
def test_tflite_micro_reset(name):
    """The states start at zero (points), so USMP's reset() and TFLite Micro's agree mid-stream."""
    model = STATEFUL_MODELS_DIR / f"{name}.tflite"
    assert_stream_matches(model, stream(model, 4, steps=40), reset_before=17)


@pytest.mark.parametrize("name", ["svdf_kws", "svdf_f32", "lstm_i8", "lstm_f32"])
def test_state_is_carried(name):
    """The same frame over and over gives changing outputs: not a stateless model in disguise."""
    model = STATEFUL_MODELS_DIR / f"{name}.tflite"
    one = stream(model, 5, steps=1)
    got = assert_stream_matches(model, [np.repeat(a, 6, axis=0) for a in one])
    assert len({g.tobytes() for g in got[0]}) > 2


@pytest.mark.parametrize("name", ["svdf_kws", "svdf_s8_state", "lstm_i8", "lstm_i8_batch_head", "lstm_i8_clip"])
def test_saturating_stream(name):
    model = STATEFUL_MODELS_DIR / f"{name}.tflite"
    assert_stream_matches(model, stream(model, 6, steps=40, extreme=True))


# -- LSTM ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["lstm_i8_clip", "lstm_f32_time_major_clip"])
def test_cell_clip_is_exercised(tmp_path, name):
    """The clipped models' outputs differ from the same model without clipping: the clip is tested."""
    model = STATEFUL_MODELS_DIR / f"{name}.tflite"
    data = bytearray(model.read_bytes())
    _patch_cell_clip(data, 0.0)
    unclipped = tmp_path / "unclipped.tflite"
    unclipped.write_bytes(bytes(data))
    inputs = stream(model, 7, steps=10, extreme=name.startswith("lstm_i8"))
    clipped = assert_stream_matches(model, inputs)
    free = assert_stream_matches(unclipped, inputs)
    assert not np.array_equal(clipped[0], free[0])


def lstm_subgraph(dtype="float32", batches=2, steps=3, features=3, units=2, extra=None, variable=True,
                  cell_scale=2.0 ** -11, activation=4, per_channel=False) -> tb.Sub:
    """A hand-built LSTM: input [batches, steps, features] -> output [batches, steps, units]."""
    rng = np.random.default_rng(21)
    quantized = dtype != "float32"
    wtype = "int8" if quantized else "float32"
    wide = dtype == "int16"  # TFLite Micro's 16x8 form: int16 activations (zero point 0), int64 biases

    def weights(name, shape):
        if quantized:
            scales = [0.01] * shape[0] if per_channel else [0.01]
            return tb.T(name, shape, wtype, data=rng.integers(-127, 128, shape).astype(np.int8), scales=scales)
        return tb.T(name, shape, wtype, data=rng.normal(0, 0.6, shape).astype(np.float32))

    def bias(name):
        if quantized:
            return tb.T(name, (units,), "int64" if wide else "int32", scales=[1e-4],
                        data=rng.integers(-2000, 2000, units).astype(np.int64 if wide else np.int32))
        return tb.T(name, (units,), "float32", data=rng.normal(0, 0.3, units).astype(np.float32))

    q = (lambda s, z: dict(scales=[s], zero_points=[z])) if quantized else (lambda s, z: {})
    act = (lambda s, z: q(s / 256, 0)) if wide else q
    tensors = [tb.T("x", (batches, steps, features), dtype, **act(0.03, 3))]
    tensors += [weights(f"w_in{g}", (units, features)) for g in range(4)]  # tensors 1..4
    tensors += [weights(f"w_rec{g}", (units, units)) for g in range(4)]  # 5..8
    tensors += [bias(f"b{g}") for g in range(4)]  # 9..12
    tensors += [tb.T("hidden", (batches, units), dtype, variable=variable, **act(0.008, -5)),  # 13
                tb.T("cell", (batches, units), "int16" if quantized else dtype, variable=variable,
                     **q(cell_scale, 0)),  # 14
                tb.T("y", (batches, steps, units), dtype, **act(0.008, -5))]  # 15
    inputs = [0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, 9, 10, 11, 12, -1, -1, 13, 14, -1, -1, -1, -1]
    for position, tensor in (extra or {}).items():
        tensors.append(tensor)
        inputs[position] = len(tensors) - 1

    def options(b):
        tflite.UnidirectionalSequenceLSTMOptionsStart(b)
        tflite.UnidirectionalSequenceLSTMOptionsAddFusedActivationFunction(b, activation)
        tflite.UnidirectionalSequenceLSTMOptionsAddCellClip(b, 0.0)
        return tflite.UnidirectionalSequenceLSTMOptionsEnd(b)

    op = tb.Op(OP.UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, [15], options=(BO.UnidirectionalSequenceLSTMOptions, options))
    return tb.Sub(tensors, [op], [0], [15])


@pytest.mark.parametrize("dtype, extreme", [("int8", False), ("int8", True), ("int16", False), ("int16", True),
                                           ("float32", False)],
                         ids=["int8_random", "int8_extreme", "int16_random", "int16_extreme", "float32"])
def test_lstm_hand_built(tmp_path, dtype, extreme):
    """Weights over the whole int8 range, a non-zero input and hidden zero point, three streams."""
    model = tmp_path / "lstm.tflite"
    model.write_bytes(tb.build([lstm_subgraph(dtype, batches=3)]))
    assert_stream_matches(model, stream(model, 8, extreme=extreme))


def compile_bytes(tmp_path, sub: tb.Sub) -> None:
    model = tmp_path / "lstm.tflite"
    model.write_bytes(tb.build([sub]))
    compile_model(model)


@pytest.mark.parametrize("sub, fragments", [
    (lambda: lstm_subgraph(extra={10: tb.T("peephole", (2,), "float32", data=np.ones(2, np.float32))}),
     ["operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)", "peephole", "input 10"]),
    (lambda: lstm_subgraph(extra={16: tb.T("projection", (2, 2), "float32", data=np.ones((2, 2), np.float32))}),
     ["projection weights", "input 16"]),
    (lambda: lstm_subgraph(variable=False), ["'hidden'", "not marked as a variable"]),
    (lambda: lstm_subgraph(activation=1), ["cell gate activation must be TANH"]),
    (lambda: lstm_subgraph("int8", cell_scale=0.0003), ["cell state 'cell'", "power of two"]),
    (lambda: lstm_subgraph("int8", per_channel=True), ["quantized per channel"]),
], ids=["peephole", "projection", "not_variable", "relu_cell_gate", "cell_scale", "per_channel_weights"])
def test_lstm_refusals(tmp_path, sub, fragments):
    with pytest.raises(ModelError) as error:
        compile_bytes(tmp_path, sub())
    message = str(error.value)
    assert "\n" not in message and all(f in message for f in fragments), message


def test_refusal_reaches_the_command_line_as_one_line(tmp_path):
    from test_import_errors import compile_bytes as cli_compile

    cli_compile(tmp_path, tb.build([lstm_subgraph("int8", cell_scale=0.0003)]),
                "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)", "cell state 'cell'", "power of two")


def test_svdf_refusals(tmp_path):
    model = svdf_model(tmp_path / "svdf.tflite", 14, 1, 4, 3, 2, 5, "int8")
    sub = _without_input(model, -1)
    sub.ops[0].options = (BO.SVDFOptions, _svdf_options(dict(rank=4, fused_activation_function=0)))
    model.write_bytes(tb.build([sub]))
    with pytest.raises(ModelError, match=r"operator 0 \(SVDF\).*rank 4"):
        compile_model(model)
    sub = _without_input(model, -1)
    sub.tensors[4].variable = False
    model.write_bytes(tb.build([sub]))
    with pytest.raises(ModelError, match=r"state tensor 4 'state' is not marked as a variable"):
        compile_model(model)


MISSING_ARM = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]


@pytest.mark.skipif(bool(MISSING_ARM), reason=f"{', '.join(MISSING_ARM)} not installed")
@pytest.mark.parametrize("target", ["cortex-m0", "cortex-m3"])
@pytest.mark.parametrize("kind", ["lstm_int16", "svdf_s8_state_zp127"])
def test_hand_built_on_cortex_m(tmp_path, kind, target):
    """The forms test_stateful.py's models lack: 16x8 LSTM (int16 model input and output), a wrapping SVDF state."""
    from usmp.runner.baremetal import run_on_target

    if kind == "lstm_int16":
        model = tmp_path / "lstm.tflite"
        model.write_bytes(tb.build([lstm_subgraph("int16", batches=2)]))
    else:
        model = svdf_model(tmp_path / "svdf.tflite", 11, 2, 3, 3, 2, 6, "int8", state_type="int8", state_zero_point=127)
    inputs = stream(model, 9, steps=24)
    run = run_on_target(compile_model(model), inputs, target, steps=24, reset_before=12)
    expected = restarted_reference(model, inputs, 12)
    assert not mismatched_steps(expected, run.outputs, outputs_match)


@pytest.mark.parametrize("source, kernels", [
    ("svdf.c", ["usmp_svdf_s8_s16", "usmp_svdf_s8_s8"]),
    ("lstm.c", ["usmp_lstm_s8", "usmp_lstm_s16"]),
])
def test_integer_kernels_use_no_float_and_no_64bit_division(tmp_path, source, kernels):
    from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, call_graph, is_float_routine, reachable

    if ARM_GCC is None or ARM_OBJDUMP is None:
        pytest.skip("arm-none-eabi toolchain not installed")
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source), "-o", str(obj)], check=True)
    graph = call_graph(obj)
    for kernel in kernels:
        assert kernel in graph, f"{kernel} not found in {source}"
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod", "__aeabi_uidivmod", "__aeabi_idivmod"}, \
            f"{kernel} divides: {sorted(used)}"


@pytest.mark.parametrize("kind", ["lstm_int16", "lstm_int8", "svdf_s8_state_zp127", "svdf_s16_state_zp300"])
def test_hand_built_sanitizers_clean(tmp_path, kind):
    """Saturating streams through ASan/UBSan: no overflow in the wrapping sums, shifts or state wrap."""
    if kind.startswith("lstm"):
        model = tmp_path / "lstm.tflite"
        model.write_bytes(tb.build([lstm_subgraph(kind.split("_")[1], batches=2)]))
    elif kind == "svdf_s8_state_zp127":
        model = svdf_model(tmp_path / "svdf.tflite", 11, 2, 3, 3, 2, 6, "int8", state_type="int8", state_zero_point=127)
    else:
        model = svdf_model(tmp_path / "svdf.tflite", 15, 1, 5, 4, 2, 4, "int8", state_zero_point=300)
    inputs = stream(model, 10, steps=8, extreme=True)
    got = run_host(compile_model(model), inputs, steps=8, reset_before=4, sanitize=True)
    assert not mismatched_steps(restarted_reference(model, inputs, 4), got, outputs_match)


def test_empty_intermediates_are_accepted_only_while_unused(tmp_path):
    """LSTM intermediates shaped [0] (the converter's gate statistics) are never read; as an input they are refused."""
    sub = lstm_subgraph()
    sub.tensors.append(tb.T("gate_statistics", (0,), "float32"))
    sub.ops[0].intermediates = [len(sub.tensors) - 1]
    model = tmp_path / "lstm.tflite"
    model.write_bytes(tb.build([sub]))
    assert_stream_matches(model, stream(model, 11, steps=4))
    sub.ops[0].inputs[9] = len(sub.tensors) - 1  # also as a peephole input
    model.write_bytes(tb.build([sub]))
    with pytest.raises(ModelError, match=r"'gate_statistics' has an empty dimension"):
        compile_model(model)
