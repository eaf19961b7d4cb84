"""TFLite Micro's signal library (the audio front end of its micro_speech example), bit-exact with TFLite Micro.

Each custom operator is a lowering module and a kernel family; the operators
with state (spectral subtraction's noise estimate, the delay line, the framer's
and stacker's queues, overlap-add's running sum) keep it in the state pool, so
every model runs as a sequence against one TFLite Micro interpreter invoked once
per step. The models: tests/models/signal/ (tests/models/make_signal_models.py)
and the micro_speech example's own front ends (tests/models/tflm/), which also
run, with the micro_speech model after them, on the emulated Cortex-M0.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import EXAMPLE_MODELS, TEST_MODELS, outputs_match, reference_outputs
from sequences import reference_sequence, restarted_reference
from test_cortex_m import MISSING
from test_import_errors import compile_bytes
from usmp.compiler import compile_model
from usmp.runner.cortex_m import run_cortex_m
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator
MODELS = sorted((TEST_MODELS / "signal").glob("*.tflite"))
FRONT_ENDS = [EXAMPLE_MODELS / "audio_preprocessor_int8.tflite", EXAMPLE_MODELS / "audio_preprocessor_float.tflite"]
STEPS = 12
FRAME, HOP = 480, 320  # 30 ms windows every 20 ms at 16 kHz, as micro_speech


def audio(seconds: float, seed: int = 0) -> np.ndarray:
    """A fixed test signal: a rising tone with harmonics, a burst of noise in the middle, quiet edges."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(16000 * seconds)) / 16000
    tone = np.sin(2 * np.pi * (200 + 900 * t) * t) + 0.4 * np.sin(2 * np.pi * (600 + 2700 * t) * t)
    envelope = np.minimum(1.0, 4 * np.minimum(t, t[-1] - t))
    noise = rng.normal(0, 0.3, t.size) * (np.abs(t - t.mean()) < 0.1)
    return np.clip((tone * envelope + noise) * 9000, -32768, 32767).astype(np.int16)


def frames(samples: np.ndarray, count: int) -> np.ndarray:
    return np.stack([samples[k * HOP:k * HOP + FRAME].reshape(1, FRAME) for k in range(count)])


def sequence_inputs(graph, steps: int, rng) -> list[np.ndarray]:
    arrays = []
    for index in graph.inputs:
        t = graph.tensors[index]
        if t.dtype == "int16":
            arrays.append(rng.integers(-32768, 32768, (steps, *t.shape)).astype(np.int16))
        elif t.dtype == "int32":  # the FFT scale a square root shifts by
            arrays.append(rng.integers(0, 7, (steps, *t.shape)).astype(np.int32))
        else:
            arrays.append(rng.uniform(-3, 3, (steps, *t.shape)).astype(np.float32))
    return arrays


def assert_same(expected, got, name):
    """Outputs per step; where a framer or stacker says its output is not valid, TFLite Micro leaves the output
    as it was (USMP writes zeros), so only the flag is compared."""
    valid = [e for e in expected if e.dtype == np.bool_]
    for k in range(len(expected[0])):
        if valid and not valid[0][k].all():
            pairs = [(e[k], g[k]) for e, g in zip(expected, got) if e.dtype == np.bool_]
        else:
            pairs = [(e[k], g[k]) for e, g in zip(expected, got)]
        for e, g in pairs:
            assert outputs_match(e, g), f"{name} step {k}:\nexpected {e}\ngot      {g}"


def test_the_models_are_there():
    assert [m.stem for m in MODELS] == [
        "filter_bank_chain", "framer_delay_overlap_add", "framer_without_prefill", "irfft_18", "irfft_20",
        "irfft_480", "irfft_64", "overlap_add_f32", "rfft_18", "rfft_20", "rfft_480", "rfft_64", "stacker",
        "window_auto_scale"]


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_tflite_micro_over_a_sequence(model):
    compiled = compile_model(model)
    inputs = sequence_inputs(compiled.program.graph, STEPS, np.random.default_rng(7))
    assert_same(reference_sequence(model, inputs), run_host(compiled, inputs, steps=STEPS), model.name)


@pytest.mark.parametrize("model", FRONT_ENDS, ids=[m.stem for m in FRONT_ENDS])
@pytest.mark.parametrize("signal", ["tone", "noise", "silence"])
def test_the_micro_speech_front_end_matches_tflite_micro(model, signal):
    compiled = compile_model(model)
    assert {op.opcode for op in compiled.program.ops} >= {"CUSTOM:SignalRfft", "CUSTOM:SignalPCAN"}
    assert compiled.program.state_buffers  # the noise estimate
    if signal == "tone":
        x = frames(audio(0.5), 24)
    elif signal == "noise":
        x = np.random.default_rng(11).integers(-32768, 32768, (24, 1, FRAME)).astype(np.int16)
    else:
        x = np.zeros((24, 1, FRAME), np.int16)
    assert_same(reference_sequence(model, [x]), run_host(compiled, [x], steps=len(x)), model.name)


def test_reset_restarts_the_noise_estimate():
    model = FRONT_ENDS[0]
    x = frames(audio(0.5, seed=3), 16)
    got = run_host(compile_model(model), [x], steps=len(x), reset_before=9)
    assert_same(restarted_reference(model, [x], 9), got, model.name)


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
def test_front_end_and_micro_speech_on_the_cortex_m0():
    """49 frames of audio through the int8 front end, then the 49 x 40 features through micro_speech: each
    model on the emulated Cortex-M0, against TFLite Micro running the same pipeline."""
    front_end, classifier = FRONT_ENDS[0], EXAMPLE_MODELS / "micro_speech_quantized.tflite"
    x = frames(audio(1.0), 49)
    expected_features = reference_sequence(front_end, [x])[0]
    features = run_cortex_m(compile_model(front_end), [x], "cortex-m0", steps=len(x)).outputs[0]
    assert np.array_equal(expected_features, features)
    scores = run_cortex_m(compile_model(classifier), [features.reshape(1, -1)], "cortex-m0").outputs[0]
    assert np.array_equal(reference_outputs(classifier, [expected_features.reshape(1, -1)])[0], scores)


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("name", ["framer_delay_overlap_add", "stacker", "rfft_480", "irfft_20", "filter_bank_chain"])
def test_matches_tflite_micro_on_the_cortex_m0(name):
    model = TEST_MODELS / "signal" / f"{name}.tflite"
    compiled = compile_model(model)
    inputs = sequence_inputs(compiled.program.graph, 4, np.random.default_rng(9))
    got = run_cortex_m(compiled, inputs, "cortex-m0", steps=4).outputs
    assert_same(reference_sequence(model, inputs), got, model.name)


def test_the_kernels_are_integer_only_without_64_bit_division(tmp_path):
    from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, call_graph, is_float_routine, reachable
    from usmp.paths import KERNELS_DIR

    if ARM_GCC is None or ARM_OBJDUMP is None:
        pytest.skip("arm-none-eabi toolchain not installed")
    sources = sorted((KERNELS_DIR / "src").glob("signal_*.c"))
    assert len(sources) == 13  # SignalRfft and SignalIrfft share the FFT (signal_rfft.c)
    for source in sources:
        obj = tmp_path / f"{source.stem}.o"
        subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                        f"-I{KERNELS_DIR / 'include'}", "-c", str(source), "-o", str(obj)], check=True)
        graph = call_graph(obj)
        for kernel in (f for f in graph if f.startswith("usmp_signal_")):
            used = reachable(graph, kernel)
            assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} divides in 64 bits"
            if not kernel.endswith("_f32"):
                assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point"


def _custom_model(name: str, out_dtype: str) -> bytes:
    tensors = [tb.T("x", (4,), "int16"), tb.T("y", (4,), out_dtype)]
    return tb.build([tb.Sub(tensors, [tb.Op(OP.CUSTOM, [0], [1], custom_code=name)], [0], [1])])


def test_an_unknown_custom_operator_is_named_before_the_types_it_makes(tmp_path):
    message = compile_bytes(tmp_path, _custom_model("MyFeatureExtractor", "string"))
    assert message.startswith(f"usmp: error: {tmp_path / 'model.tflite'}: operator 0: custom operator "
                              "MyFeatureExtractor is not supported"), message


def test_an_fft_length_with_a_factor_above_5_is_refused(tmp_path):
    tensors = [tb.T("x", (1, 56), "int16"), tb.T("y", (1, 58), "int16")]
    op = tb.Op(OP.CUSTOM, [0], [1], custom_code="SignalRfft", custom_options=tb.flexbuffer_options(T=7, fft_length=56))
    compile_bytes(tmp_path, tb.build([tb.Sub(tensors, [op], [0], [1])]), "operator 0 (CUSTOM:SignalRfft)",
                  "prime factor 7", "radices 2, 3, 4 and 5")
