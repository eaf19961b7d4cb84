"""Hybrid (dynamic-range) models: int8 weights, float activations, as LiteRT computes them.

The models (tests/models/make_hybrid_models.py) are TensorFlow's dynamic-range
quantization of FULLY_CONNECTED (asymmetric and symmetric input quantization),
CONV_2D (per channel and per tensor), DEPTHWISE_CONV_2D, BATCH_MATMUL, SVDF and
UNIDIRECTIONAL_SEQUENCE_LSTM. TFLite Micro runs none of them; LiteRT (builtin
kernels, no delegates) is the reference: the input is quantized per batch when
the operator runs exactly as LiteRT does, the int8 sums are exact, and the float
steps agree to float rounding (outputs_match: 1e-5 relative). The models with
state run as sequences against one LiteRT interpreter.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import TEST_MODELS, litert_outputs, outputs_match, random_inputs
from sequences import litert_sequence, random_sequence
from test_cortex_m import MISSING, run_on_smallest_board
from test_import_errors import compile_bytes
from usmp.compiler import compile_model
from usmp.runner.cortex_m import run_cortex_m
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator
MODELS = sorted((TEST_MODELS / "hybrid").glob("*.tflite"))
STATEFUL = {"lstm", "svdf_asymmetric", "svdf_symmetric"}
STEPS = 6


def test_the_models_are_there():
    assert [m.stem for m in MODELS] == [
        "batch_matmul", "conv_per_channel", "conv_per_tensor", "depthwise_conv", "fully_connected_asymmetric",
        "fully_connected_symmetric", "lstm", "svdf_asymmetric", "svdf_symmetric"]


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_every_weighted_operator_is_hybrid(model):
    compiled = compile_model(model)
    functions = {call.function for op in compiled.program.ops for call in op.calls}
    assert any(f.startswith("usmp_hybrid_") and f != "usmp_hybrid_quantize" for f in functions)
    graph = compiled.program.graph
    assert all(graph.tensors[i].dtype == "float32" for i in graph.inputs + graph.outputs)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_litert(model):
    compiled = compile_model(model)
    rng = np.random.default_rng(3)
    if model.stem in STATEFUL:
        inputs = random_sequence(compiled.program.graph, STEPS, rng)
        for e, g in zip(litert_sequence(model, inputs), run_host(compiled, inputs, steps=STEPS)):
            assert outputs_match(e, g), f"{model.name}:\nexpected {e}\ngot      {g}"
        return
    for trial in range(10):
        inputs = random_inputs(compiled.program.graph, rng)
        for e, g in zip(litert_outputs(model, inputs), run_host(compiled, inputs)):
            assert outputs_match(e, g), f"{model.name} trial {trial}:\nexpected {e}\ngot      {g}"


def test_an_all_zero_input_gives_the_bias():
    """LiteRT skips the products of an all-zero input; the quantized zeros give the same."""
    model = TEST_MODELS / "hybrid" / "conv_per_channel.tflite"
    compiled = compile_model(model)
    zeros = [np.zeros(compiled.program.graph.tensors[i].shape, np.float32) for i in compiled.program.graph.inputs]
    for e, g in zip(litert_outputs(model, zeros), run_host(compiled, zeros)):
        assert outputs_match(e, g)


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_litert_on_cortex_m0(model):
    """Software float on the M0 gives the host's float results."""
    compiled = compile_model(model)
    rng = np.random.default_rng(30)
    if model.stem in STATEFUL:
        inputs = random_sequence(compiled.program.graph, 3, rng)
        expected, got = litert_sequence(model, inputs), run_cortex_m(compiled, inputs, "cortex-m0", steps=3).outputs
    else:
        inputs = random_inputs(compiled.program.graph, rng)
        expected, got = litert_outputs(model, inputs), run_on_smallest_board(compiled, inputs).outputs
    for e, g in zip(expected, got):
        assert outputs_match(e, g)


def test_a_refused_hybrid_operator_is_named_as_hybrid(tmp_path):
    """TRANSPOSE_CONV with int8 weights and float activations: no hybrid kernel; the error says hybrid first."""
    weights = np.arange(-8, 8, dtype=np.int8).reshape(1, 2, 2, 4)
    tensors = [tb.T("output_shape", (4,), "int32", data=np.array([1, 4, 4, 1], np.int32)),
               tb.T("weights", (1, 2, 2, 4), "int8", data=weights, scales=[0.05]),
               tb.T("x", (1, 2, 2, 4), "float32"), tb.T("y", (1, 4, 4, 1), "float32")]
    options = tb.options("TransposeConv", Padding=1, StrideW=2, StrideH=2)
    data = tb.build([tb.Sub(tensors, [tb.Op(OP.TRANSPOSE_CONV, [0, 1, 2], [3], options=options)], [2], [3])])
    compile_bytes(tmp_path, data, "operator 0 (TRANSPOSE_CONV), a hybrid operator (int8 weights 'weights', "
                                  "float activations)")


def test_the_kernels_build_for_the_cortex_m0_without_64_bit_division(tmp_path):
    import subprocess

    from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, call_graph, reachable
    from usmp.paths import KERNELS_DIR

    if ARM_GCC is None or ARM_OBJDUMP is None:
        pytest.skip("arm-none-eabi toolchain not installed")
    obj = tmp_path / "hybrid.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_DIR / 'include'}", "-c", str(KERNELS_DIR / "src" / "hybrid.c"), "-o", str(obj)],
                   check=True)
    graph = call_graph(obj)
    kernels = sorted(f for f in graph if f.startswith("usmp_hybrid_"))
    assert len(kernels) == 6
    for kernel in kernels:
        assert not reachable(graph, kernel) & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} divides in 64 bits"
