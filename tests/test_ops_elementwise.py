"""ADD, SUB, MUL, RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH, SOFTMAX, QUANTIZE, DEQUANTIZE:
every int8 input value (and every pair, for the binary operators) against TFLite Micro,
for several quantizations; broadcasting plans; rejections; no float in int8 kernels.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
import tflite

from reference import TEST_MODELS, outputs_match, reference_outputs
from tflite_builder import Op, Sub, T, build, options
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.lower.ops.elementwise import broadcast_walk
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

EVERY_INT8 = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
OPS = tflite.BuiltinOperator


def assert_matches_reference(path, inputs):
    expected = reference_outputs(path, inputs)
    got = run_host(compile_model(path), inputs)
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        if not outputs_match(e, g):
            wrong = np.flatnonzero(e.ravel() != g.ravel())
            pytest.fail(f"{path.name}: {len(wrong)} of {e.size} differ, first at {wrong[:5]}: "
                        f"expected {e.ravel()[wrong[:5]]}, got {g.ravel()[wrong[:5]]}")


def tensor(name, shape, dtype="int8", q=None):
    return T(name, shape, dtype, scales=[q[0]] if q else None, zero_points=[q[1]] if q else None)


def unary_model(tmp_path, opcode, in_q, out_q, in_dtype="int8", out_dtype="int8", shape=(1, 256), op_options=None):
    """input -> opcode -> output: a model of one operator."""
    sub = Sub([tensor("input", shape, in_dtype, in_q), tensor("output", shape, out_dtype, out_q)],
              [Op(getattr(OPS, opcode), [0], [1], options=op_options)], [0], [1])
    path = tmp_path / f"{opcode.lower()}.tflite"
    path.write_bytes(build([sub]))
    return path


def binary_model(tmp_path, opcode, q1, q2, q_out, shape1=(256, 1), shape2=(1, 256), shape_out=(256, 256)):
    sub = Sub([tensor("a", shape1, q=q1), tensor("b", shape2, q=q2), tensor("out", shape_out, q=q_out)],
              [Op(getattr(OPS, opcode), [0, 1], [2])], [0, 1], [2])
    path = tmp_path / f"{opcode.lower()}.tflite"
    path.write_bytes(build([sub]))
    return path


INPUT_QUANTIZATIONS = [(0.0235294, -1), (0.003, -128), (0.0625, 0), (0.1, 77), (0.5, 127), (1.7, -20),
                       (0.0004, 3), (4.0, 0), (20.0, -7), (0.0117647, 12), (0.0390625, -128)]


@pytest.mark.parametrize("in_q", INPUT_QUANTIZATIONS)
def test_logistic_every_int8_input(tmp_path, in_q):
    assert_matches_reference(unary_model(tmp_path, "LOGISTIC", in_q, (1 / 256, -128)), [EVERY_INT8])


@pytest.mark.parametrize("in_q", INPUT_QUANTIZATIONS)
def test_tanh_every_int8_input(tmp_path, in_q):
    assert_matches_reference(unary_model(tmp_path, "TANH", in_q, (1 / 128, 0)), [EVERY_INT8])


# Scales whose in/out multiplier computed in float and in double give different results for input 14.
FLOAT_DOUBLE_SPLIT = ((0.0348277, -128), (0.030813294, -128))


@pytest.mark.parametrize("in_q,out_q", [((0.02, -1), (0.01, -128)), ((0.05, 30), (0.07, -100)), ((0.1, -128), (0.3, 5)),
                                        FLOAT_DOUBLE_SPLIT])
def test_relu_requantizes_every_int8_input(tmp_path, in_q, out_q):
    assert_matches_reference(unary_model(tmp_path, "RELU", in_q, out_q), [EVERY_INT8])


# The last scale makes 6 / scale exactly 6.5 in float (rounds to 7) but 6.49.. in double.
@pytest.mark.parametrize("in_q", [(0.02, -1), (0.1, 100), (0.07, -128), (0.01, 0), (0.9230769, 0)])
def test_relu6_clamps_every_int8_input(tmp_path, in_q):
    # The output quantization differs on purpose: TFLite Micro ignores it for int8 RELU6.
    assert_matches_reference(unary_model(tmp_path, "RELU6", in_q, (0.5, 3)), [EVERY_INT8])


@pytest.mark.parametrize("in_q,out_q,alpha", [
    FLOAT_DOUBLE_SPLIT + (0.2,),
    ((0.0348277, 91), (0.030813294, 0), 0.45852715),  # alpha multiplier: float and double split at input -128
    ((0.05, -10), (0.02, 20), -0.3),
    ((0.01, 0), (0.01, 0), 1.5),
])
def test_leaky_relu_every_int8_input(tmp_path, in_q, out_q, alpha):
    path = unary_model(tmp_path, "LEAKY_RELU", in_q, out_q, op_options=options("LeakyRelu", Alpha=alpha))
    assert_matches_reference(path, [EVERY_INT8])


@pytest.mark.parametrize("in_q,out_q", [((0.02, -1), (0.05, 10)), ((0.1, 50), (0.01, -128)), ((0.3, 0), (0.3, 0)),
                                        FLOAT_DOUBLE_SPLIT])
def test_int8_requantize_every_input(tmp_path, in_q, out_q):
    assert_matches_reference(unary_model(tmp_path, "QUANTIZE", in_q, out_q), [EVERY_INT8])


def test_dequantize_every_int8_input(tmp_path):
    path = unary_model(tmp_path, "DEQUANTIZE", (0.0371, -7), None, out_dtype="float32")
    assert_matches_reference(path, [EVERY_INT8])


def test_quantize_rounds_halves_away_from_zero_and_saturates(tmp_path):
    path = unary_model(tmp_path, "QUANTIZE", None, (0.5, -3), in_dtype="float32", shape=(1, 12))
    values = np.array([[0.25, -0.25, 0.75, -0.75, 10.25, -10.25, 63.0, -66.25, 1e9, -1e9, 0.0, 3.3]], np.float32)
    assert_matches_reference(path, [values])


def test_quantize_divides_in_float(tmp_path):
    """6 / 0.9230769 is exactly 6.5 in float (rounds to 7) but below 6.5 in double."""
    path = unary_model(tmp_path, "QUANTIZE", None, (0.9230769, 0), in_dtype="float32", shape=(1, 4))
    assert_matches_reference(path, [np.array([[6.0, -6.0, 0.9230769, 117.0]], np.float32)])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("q1,q2,q_out", [
    ((0.02, -1), (0.02, -1), (0.04, 0)),
    ((0.1, 50), (0.003, -128), (0.05, 17)),
    ((0.0078125, 0), (0.25, 127), (0.3, -128)),
    ((0.0235294, 3), (0.0301, -9), (0.047, 2)),  # ADD/SUB: float and double multipliers split here
    ((0.019839069, 0), (0.097419076, 0), (0.09175888, -128)),  # MUL: they split at 59 * 105
])
def test_binary_every_int8_pair(tmp_path, opcode, q1, q2, q_out):
    """[256, 1] op [1, 256]: every pair of int8 values in one broadcast."""
    path = binary_model(tmp_path, opcode, q1, q2, q_out)
    assert_matches_reference(path, [EVERY_INT8.reshape(256, 1), EVERY_INT8])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
def test_binary_with_one_tensor_as_both_inputs(tmp_path, opcode):
    sub = Sub([tensor("a", (1, 256), q=(0.05, 3)), tensor("out", (1, 256), q=(0.1, -6))],
              [Op(getattr(OPS, opcode), [0, 0], [1])], [0], [1])
    path = tmp_path / "same.tflite"
    path.write_bytes(build([sub]))
    assert_matches_reference(path, [EVERY_INT8])


def test_softmax_long_rows(tmp_path):
    """Rows longer than the 4095 ones a Q12 sum holds; spread values keep the sum in range.

    (Rows of equal values would wrap it: TFLite Micro then aborts, the kernel stays defined.)
    """
    path = unary_model(tmp_path, "SOFTMAX", (0.1, 0), (1 / 256, -128), shape=(2, 5000),
                       op_options=options("Softmax", Beta=1.0))
    rows = np.random.default_rng(8).integers(-128, 128, (2, 5000)).astype(np.int8)
    assert_matches_reference(path, [rows])
    assert run_host(compile_model(path), [rows], sanitize=True)[0].shape == (2, 5000)


ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("activation", ["RELU", "RELU_N1_TO_1", "RELU6"])
def test_binary_fused_activation_every_int8_pair(tmp_path, opcode, activation):
    kind = opcode.capitalize()
    sub = Sub([tensor("a", (256, 1), q=(0.05, 3)), tensor("b", (1, 256), q=(0.03, -20)),
               tensor("out", (256, 256), q=(0.04, -6))],
              [Op(getattr(OPS, opcode), [0, 1], [2],
                  options=options(kind, FusedActivationFunction=ACTIVATIONS[activation]))], [0, 1], [2])
    path = tmp_path / "fused.tflite"
    path.write_bytes(build([sub]))
    assert_matches_reference(path, [EVERY_INT8.reshape(256, 1), EVERY_INT8])


@pytest.mark.parametrize("beta", [0.25, 1.0, 3.0])
@pytest.mark.parametrize("in_q", [(0.1, 5), (0.0235294, -1)])
def test_softmax_beta(tmp_path, beta, in_q):
    path = unary_model(tmp_path, "SOFTMAX", in_q, (1 / 256, -128), shape=(8, 32),
                       op_options=options("Softmax", Beta=beta))
    rows = np.random.default_rng(5).integers(-128, 128, (8, 32)).astype(np.int8)
    assert_matches_reference(path, [EVERY_INT8.reshape(8, 32)])
    assert_matches_reference(path, [rows])


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_softmax_f32_beta(tmp_path, beta):
    path = unary_model(tmp_path, "SOFTMAX", None, None, "float32", "float32", shape=(3, 9),
                       op_options=options("Softmax", Beta=beta))
    assert_matches_reference(path, [np.random.default_rng(6).uniform(-5, 5, (3, 9)).astype(np.float32)])


@pytest.mark.parametrize("model", ["relu_int8", "relu6_int8", "leaky_relu_int8", "logistic_int8", "tanh_int8",
                                   "tanh_int8_wide"])
def test_converted_activation_every_int8_input(model):
    assert_matches_reference(TEST_MODELS / f"{model}.tflite", [EVERY_INT8])


SOFTMAX_ROWS = [
    [0, 0, 0, 0], [-128, -128, -128, -128], [127, 127, 127, 127], [127, -128, -128, -128],
    [-128, 127, 0, -1], [5, 4, 3, 2], [-100, -101, 90, 89],
]


@pytest.mark.parametrize("model", ["softmax_1x4", "softmax_1x10"])
def test_softmax_special_rows(model):
    path = TEST_MODELS / f"{model}.tflite"
    depth = 4 if model == "softmax_1x4" else 10
    for row in SOFTMAX_ROWS:
        values = np.resize(np.array(row, np.int8), (1, depth))
        assert_matches_reference(path, [values])


def stub_ctx():
    return SimpleNamespace(fail=lambda message: ModelError(f"operator 0 (ADD): {message}"))


@pytest.mark.parametrize("shape1,shape2,out,rank,shape,stride1,stride2", [
    ((1, 4, 4, 3), (1, 4, 4, 3), (1, 4, 4, 3), 1, [48], [1], [1]),
    ((1, 4, 4, 3), (1, 1, 1, 3), (1, 4, 4, 3), 2, [16, 3], [3, 1], [0, 1]),
    ((1, 4, 4, 3), (3,), (1, 4, 4, 3), 2, [16, 3], [3, 1], [0, 1]),
    ((1, 4, 1, 3), (1, 1, 5, 1), (1, 4, 5, 3), 3, [4, 5, 3], [3, 0, 1], [0, 1, 0]),
    ((2, 3), (), (2, 3), 1, [6], [1], [0]),
    ((1,), (1,), (1,), 1, [1], [1], [1]),
])
def test_broadcast_walk_merges_dimensions(shape1, shape2, out, rank, shape, stride1, stride2):
    walk = broadcast_walk(stub_ctx(), shape1, shape2, out)
    assert walk["rank"] == rank
    assert walk["shape"][:rank] == shape
    assert walk["stride1"][:rank] == stride1
    assert walk["stride2"][:rank] == stride2
    assert len(walk["shape"]) == len(walk["stride1"]) == len(walk["stride2"]) == 6


def test_broadcast_walk_rejects_incompatible_shapes():
    with pytest.raises(ModelError, match=r"operator 0 \(ADD\): shapes \[1, 3\] and \[1, 4\] do not broadcast"):
        broadcast_walk(stub_ctx(), (1, 3), (1, 4), (1, 4))


@pytest.mark.parametrize("opcode,out_q,message", [
    ("SOFTMAX", (1 / 256, 0), r"operator 0 \(SOFTMAX\): int8 output must have scale 1/256 and zero point -128"),
    ("SOFTMAX", (1 / 128, -128), r"operator 0 \(SOFTMAX\): int8 output must have scale 1/256"),
    ("LOGISTIC", (1 / 256, 0), r"operator 0 \(LOGISTIC\): int8 output zero point must be -128, not 0"),
])
def test_unsupported_output_quantization_is_a_one_line_error(tmp_path, opcode, out_q, message):
    path = unary_model(tmp_path, opcode, (0.05, 0), out_q, shape=(1, 4))
    with pytest.raises(ModelError, match=message) as info:
        compile_model(path)
    assert "\n" not in str(info.value)


def test_add_output_scale_too_small_is_a_one_line_error(tmp_path):
    path = binary_model(tmp_path, "ADD", (0.05, 0), (0.05, 0), (1e-9, 0), (1, 4), (1, 4), (1, 4))
    with pytest.raises(ModelError, match=r"operator 0 \(ADD\): the output rescale factor 95\.\d+ is outside \(0, 1\)"):
        compile_model(path)


@pytest.mark.parametrize("opcode,in_dtype,out_dtype,message", [
    ("QUANTIZE", "float32", "int32", r"operator 0 \(QUANTIZE\): tensor 1 'output' has type int32; supported here: int8, int16"),
    ("DEQUANTIZE", "int32", "float32", r"operator 0 \(DEQUANTIZE\): tensor 0 'input' has type int32; supported here: int8, uint8, int16"),
    ("TANH", "int32", "int32", r"operator 0 \(TANH\): tensor 0 'input' has type int32; supported here: int8, int16, float32"),
])
def test_unsupported_types_are_one_line_errors(tmp_path, opcode, in_dtype, out_dtype, message):
    in_q = None if in_dtype == "float32" else (0.05, 0)
    out_q = None if out_dtype == "float32" else (0.05, 0)
    path = unary_model(tmp_path, opcode, in_q, out_q, in_dtype, out_dtype, shape=(1, 4))
    with pytest.raises(ModelError, match=message):
        compile_model(path)


# -- no floating point and no 64-bit division in the int8 kernels -----------------

ARM_GCC = shutil.which("arm-none-eabi-gcc")
ARM_OBJDUMP = shutil.which("arm-none-eabi-objdump")
OWN_SOURCES = ["elementwise.c", "activations.c", "softmax.c", "quantize.c"]
LIBM = {"expf", "tanhf", "exp", "tanh", "roundf", "round", "floorf", "floor", "logf", "sqrtf"}


def is_float_routine(symbol: str) -> bool:
    return (symbol.startswith(("__aeabi_f", "__aeabi_d")) or re.fullmatch(r"__aeabi_u?[il]2[fd]", symbol) is not None
            or symbol in LIBM)


def call_graph(obj) -> dict[str, set[str]]:
    """function -> symbols its code references (relocations), from objdump -dr."""
    text = subprocess.run([ARM_OBJDUMP, "-dr", str(obj)], capture_output=True, text=True, check=True).stdout
    graph, current = {}, None
    for line in text.splitlines():
        start = re.match(r"^[0-9a-f]+ <([\w.]+)>:$", line)
        if start:
            current = graph.setdefault(start.group(1), set())
            continue
        reloc = re.search(r"R_ARM_\w+\s+([\w.]+)", line)
        if reloc and current is not None:
            current.add(reloc.group(1))
    return graph


def reachable(graph, root) -> set[str]:
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source", OWN_SOURCES)
def test_int8_kernels_use_no_float_and_no_64bit_division(tmp_path, source):
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source), "-o", str(obj)], check=True)
    graph = call_graph(obj)
    int8_kernels = [f for f in graph if f.startswith("usmp_") and f.endswith("_s8") and "f32" not in f]
    assert int8_kernels, f"no int8 kernels found in {source}"
    for kernel in int8_kernels:
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"
