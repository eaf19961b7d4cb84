"""uint8 (asymmetric) models, rewritten into int8 at compile time (usmp/uint8), bit-exact with LiteRT.

The models (tests/models/make_uint8_models.py) come from TensorFlow 1's
uint8 quantization, as Coral's MobileNets do: uint8 weights with zero points,
a MobileNet block (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, FULLY_CONNECTED,
SOFTMAX), a residual block (ADD, SUB, CONCATENATION, MAX_POOL_2D, PAD, a padded
AVERAGE_POOL_2D) and a FULLY_CONNECTED. TFLite Micro does not run uint8;
LiteRT (builtin kernels, no delegates) is the reference, on the host and on the
Cortex-M0.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import TEST_MODELS, litert_outputs, outputs_match, random_inputs
from test_cortex_m import MISSING, run_on_smallest_board
from test_import_errors import compile_bytes
from usmp.compiler import compile_model
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator
MODELS = sorted((TEST_MODELS / "uint8").glob("*.tflite"))


def test_the_models_are_there():
    assert [m.stem for m in MODELS] == ["fully_connected_u8", "mobilenet_block_u8", "residual_block_u8", "upsample_u8"]


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_litert(model):
    compiled = compile_model(model)
    graph = compiled.program.graph
    assert all(graph.tensors[i].dtype == "uint8" for i in graph.inputs)  # the caller's types are the model's
    rng = np.random.default_rng(8)
    for trial in range(20):
        inputs = random_inputs(graph, rng)
        for e, g in zip(litert_outputs(model, inputs), run_host(compiled, inputs)):
            assert outputs_match(e, g), f"{model.name} trial {trial}:\nexpected {e}\ngot      {g}"


def test_the_weights_keep_their_zero_points():
    """The convolutions run the asymmetric kernels; AVERAGE_POOL_2D and SOFTMAX LiteRT's uint8 ones."""
    compiled = compile_model(TEST_MODELS / "uint8" / "mobilenet_block_u8.tflite")
    functions = [call.function for op in compiled.program.ops for call in op.calls]
    for kernel in ("usmp_conv_asym_s8", "usmp_depthwise_conv_asym_s8", "usmp_fully_connected_asym_s8",
                   "usmp_avg_pool_asym_s8", "usmp_softmax_asym_s8"):
        assert kernel in functions
    header = compiled.files["mobilenet_block_u8.h"]
    assert "uint8_t *input;" in header and "uint8_t *output;" in header


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_litert_on_cortex_m0(model):
    compiled = compile_model(model)
    rng = np.random.default_rng(80)
    for _ in range(2):
        inputs = random_inputs(compiled.program.graph, rng)
        for e, g in zip(litert_outputs(model, inputs), run_on_smallest_board(compiled, inputs).outputs):
            assert outputs_match(e, g)


def test_a_uint8_operator_litert_computes_otherwise_is_refused_by_name(tmp_path):
    q = dict(scales=[0.05], zero_points=[120])
    tensors = [tb.T("x", (1, 4), "uint8", **q), tb.T("y", (1, 4), "uint8", scales=[1 / 256], zero_points=[0])]
    data = tb.build([tb.Sub(tensors, [tb.Op(OP.LOGISTIC, [0], [1])], [0], [1])])
    compile_bytes(tmp_path, data, "operator 0: uint8 LOGISTIC is not supported", "uint8 models may use")


def test_the_kernels_build_for_the_cortex_m0_without_64_bit_division(tmp_path):
    """The integer kernels use no float at all; SOFTMAX and RESIZE_BILINEAR compute in float as LiteRT's uint8
    kernels do (software float on an M0)."""
    import subprocess

    from test_ops_elementwise import ARM_GCC, ARM_OBJDUMP, call_graph, is_float_routine, reachable
    from usmp.paths import KERNELS_DIR

    if ARM_GCC is None or ARM_OBJDUMP is None:
        pytest.skip("arm-none-eabi toolchain not installed")
    obj = tmp_path / "asymmetric.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_DIR / 'include'}", "-c", str(KERNELS_DIR / "src" / "asymmetric.c"), "-o", str(obj)],
                   check=True)
    graph = call_graph(obj)
    kernels = sorted(f for f in graph if f.startswith("usmp_") and f.endswith("_s8"))
    assert len(kernels) == 6
    for kernel in kernels:
        used = reachable(graph, kernel)
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"
        floats = [s for s in used if is_float_routine(s)]
        assert bool(floats) == (kernel in ("usmp_softmax_asym_s8", "usmp_resize_bilinear_asym_s8")), floats


def test_quantize_float_to_uint8_matches_litert(tmp_path):
    tensors = [tb.T("x", (64,), "float32"), tb.T("y", (64,), "uint8", scales=[0.037], zero_points=[131])]
    path = tmp_path / "quantize_u8.tflite"
    path.write_bytes(tb.build([tb.Sub(tensors, [tb.Op(OP.QUANTIZE, [0], [1])], [0], [1])]))
    x = np.linspace(-6, 6, 64).astype(np.float32)
    assert np.array_equal(litert_outputs(path, [x])[0], run_host(compile_model(path), [x])[0])
