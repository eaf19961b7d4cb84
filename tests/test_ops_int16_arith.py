"""int16 ("16x8") ADD, SUB and MUL against TFLite Micro: 20k random pairs of int16 values plus
every pair of extreme values per quantization (power-of-two and general scales, zero points,
extreme scale ratios, saturation, a float/double split), fused activations, broadcasting,
rejections, and no float in the int16 kernels.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tflite

from reference import reference_outputs
from test_cortex_m import MISSING, run_on_smallest_board
from test_ops_binary import pair_model, tensor
from test_ops_elementwise import (ACTIVATIONS, ARM_GCC, ARM_OBJDUMP, assert_matches_reference, call_graph,
                                  is_float_routine, options, reachable)
from tflite_builder import Op, Sub, build
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
EXTREMES = np.array([-32768, -32767, -32766, -16385, -16384, -257, -2, -1, 0, 1, 2, 255, 16383, 16384,
                     32766, 32767], np.int16)


def sampled_pairs(seed: int, count: int = 20000) -> tuple[np.ndarray, np.ndarray]:
    """`count` random pairs of int16 values, then every pair of EXTREMES, as two [1, n] inputs."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-32768, 32768, count).astype(np.int16)
    b = rng.integers(-32768, 32768, count).astype(np.int16)
    ea, eb = np.meshgrid(EXTREMES, EXTREMES)
    return np.concatenate([a, ea.ravel()]).reshape(1, -1), np.concatenate([b, eb.ravel()]).reshape(1, -1)


def flat_model(tmp_path, opcode, q1, q2, q_out, activation="NONE"):
    n = sampled_pairs(0)[0].size
    op_options = options(opcode.capitalize(), FusedActivationFunction=ACTIVATIONS[activation])
    return pair_model(tmp_path, opcode, q1, q2, q_out, "int16", shape1=(1, n), shape2=(1, n), shape_out=(1, n),
                      op_options=op_options)


# Rescales computed in float (as TFLite Micro's SUB source reads) and in double give 26 different results
# for x - 0 over every int16 x; the interpreter computes in double.
FLOAT_DOUBLE_SPLIT = ((0.0005167034, 0), (0.0009509590, 0), (0.00015271801, 0))
POT = [  # the converter's usual symmetric power-of-two scales
    ((2 ** -15, 0), (2 ** -15, 0), (2 ** -14, 0)),
    ((2 ** -12, 0), (2 ** -10, 0), (2 ** -10, 0)),
    ((2 ** -8, 0), (2 ** -8, 0), (2 ** -8, 0)),  # sums saturate
]
GENERAL = [
    ((0.001, 0), (0.002, 0), (0.003, 0)),
    ((1.7e-4, 0), (3.1e-5, 0), (2.2e-4, 0)),
    FLOAT_DOUBLE_SPLIT,
    ((3e-4, 0), (3e-8, 0), (3e-4, 0)),  # the second input is almost nothing next to the first
    ((1e-3, 0), (1e-3, 0), (1.0, 0)),  # nearly every result rounds to 0
    ((1.0, 0), (1e-30, 0), (1.0, 0)),  # a rescale below 2^-31: the second input counts for nothing
]
OFFSETS = [  # TFLite Micro takes ADD/SUB zero points as given: (x - zero point) * 2^15 still fits int32
    ((0.01, 5), (0.3, -100), (0.2, 7)),
    ((1e-4, -32768), (1e-4, 32767), (2e-4, 0)),
]


@pytest.mark.parametrize("opcode", ["ADD", "SUB"])
@pytest.mark.parametrize("q1,q2,q_out", POT + GENERAL + OFFSETS)
def test_add_sub_int16_sampled_pairs(tmp_path, opcode, q1, q2, q_out):
    assert_matches_reference(flat_model(tmp_path, opcode, q1, q2, q_out), list(sampled_pairs(1)))


@pytest.mark.parametrize("opcode", ["ADD", "SUB"])
def test_add_sub_int16_every_value_against_a_few(tmp_path, opcode):
    """[65536, 1] op [1, 5]: every int16 value against 0, +-1 and two others, on the float/double split."""
    path = pair_model(tmp_path, opcode, *FLOAT_DOUBLE_SPLIT, "int16", shape1=(65536, 1), shape2=(1, 5),
                      shape_out=(65536, 5))
    every = np.arange(-32768, 32768).astype(np.int16).reshape(65536, 1)
    assert_matches_reference(path, [every, np.array([[0, 1, -1, 5000, 12345]], np.int16)])


def rounding_divide_by_pot(x: np.ndarray, exponent: int) -> np.ndarray:
    mask = (1 << exponent) - 1
    return (x >> exponent) + ((x & mask) > (mask >> 1) + (x < 0))


def test_add_int16_power_of_two_scales_take_the_general_path(tmp_path):
    """TFLite's power-of-two shortcut (round the finer input to the output scale, then a saturating add)
    rounds once before the add; the general path rounds the sum. With scales 2^-15, 2^-13 -> 2^-13 they
    differ wherever x / 4 ends in .5 and the sum changes sign; TFLite Micro takes the general path."""
    path = pair_model(tmp_path, "ADD", (2 ** -15, 0), (2 ** -13, 0), (2 ** -13, 0), "int16", shape1=(65536, 1),
                      shape2=(1, 5), shape_out=(65536, 5))
    every = np.arange(-32768, 32768).astype(np.int16).reshape(65536, 1)
    few = np.array([[-2, -1, 0, 1, 2]], np.int16)
    expected = reference_outputs(path, [every, few])[0]
    shortcut = np.clip(rounding_divide_by_pot(every.astype(np.int32), 2) + few, -32768, 32767)
    assert (expected != shortcut).any(), "the scales no longer tell the two paths apart"
    assert_matches_reference(path, [every, few])


MUL_QUANTIZATIONS = [
    ((2 ** -15, 0), (2 ** -15, 0), (2 ** -15, 0)),
    ((2 ** -12, 0), (2 ** -12, 0), (2 ** -9, 0)),
    ((0.001, 0), (0.002, 0), (0.003, 0)),
    ((0.019839069, 0), (0.097419076, 0), (0.09175888, 0)),
    ((1e-4, 0), (1e-4, 0), (1.0, 0)),  # a tiny rescale: almost everything rounds to 0
    ((0.01, 0), (0.01, 0), (1e-5, 0)),  # a rescale of 10: the product is shifted left (and saturates)
    ((0.1, 0), (0.1, 0), (1e-5, 0)),  # 1000: the shifted product wraps in int32, as TFLite's does
]


@pytest.mark.parametrize("q1,q2,q_out", MUL_QUANTIZATIONS)
def test_mul_int16_sampled_pairs(tmp_path, q1, q2, q_out):
    assert_matches_reference(flat_model(tmp_path, "MUL", q1, q2, q_out), list(sampled_pairs(2)))


@pytest.mark.parametrize("opcode,q_out", [("ADD", (3e-4, 0)), ("SUB", (3e-4, 0)), ("MUL", (3e-4, 0)),
                                          ("ADD", (3e-4, -1000)), ("SUB", (3e-4, 2500))])
@pytest.mark.parametrize("activation", ["RELU", "RELU_N1_TO_1", "RELU6"])
def test_int16_fused_activation(tmp_path, opcode, q_out, activation):
    """Inputs reach about 6.5 and 9.8 in real terms, so every bound (0, +-1, 6) lies inside the range."""
    path = flat_model(tmp_path, opcode, (2e-4, 0), (3e-4, 0), q_out, activation)
    assert_matches_reference(path, list(sampled_pairs(3)))


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("shape1,shape2,shape_out", [
    ((1, 4, 4, 3), (1, 1, 1, 3), (1, 4, 4, 3)),
    ((3,), (2, 1, 3), (2, 1, 3)),
    ((2, 1, 5, 1), (1, 3, 1, 4), (2, 3, 5, 4)),
    ((1, 2, 3, 4, 5), (1, 2, 1, 4, 1), (1, 2, 3, 4, 5)),
    ((1, 1), (4, 6), (4, 6)),
])
def test_int16_broadcast_shapes(tmp_path, opcode, shape1, shape2, shape_out):
    path = pair_model(tmp_path, opcode, (2e-4, 0), (5e-4, 0), (6e-4, 0), "int16", shape1=shape1, shape2=shape2,
                      shape_out=shape_out)
    rng = np.random.default_rng(4)
    assert_matches_reference(path, [rng.integers(-32768, 32768, s).astype(np.int16) for s in (shape1, shape2)])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
def test_int16_one_tensor_as_both_inputs(tmp_path, opcode):
    sub = Sub([tensor("a", (1, 256), "int16", (3e-4, 0)), tensor("out", (1, 256), "int16", (4e-4, 0))],
              [Op(getattr(OPS, opcode), [0, 0], [1])], [0], [1])
    path = tmp_path / "same.tflite"
    path.write_bytes(build([sub]))
    assert_matches_reference(path, [np.linspace(-32768, 32767, 256).astype(np.int16).reshape(1, 256)])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
def test_int16_kernels_are_clean_under_sanitizers(tmp_path, opcode):
    """Extreme offsets and rescales: no signed overflow or shift UBSan would flag."""
    q = ((1e-4, -32768), (1e-4, 32767), (2e-4, 0)) if opcode != "MUL" else ((0.1, 0), (0.1, 0), (1e-5, 0))
    inputs = list(sampled_pairs(5, count=1000))
    n = inputs[0].size
    path = pair_model(tmp_path, opcode, *q, "int16", shape1=(1, n), shape2=(1, n), shape_out=(1, n))
    assert run_host(compile_model(path), inputs, sanitize=True)[0].shape == (1, n)


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("opcode,q1,q2,q_out", [
    ("ADD", (1e-4, -32768), (1e-4, 32767), (2e-4, 0)),
    ("SUB", *FLOAT_DOUBLE_SPLIT),
    ("MUL", (0.1, 0), (0.1, 0), (1e-5, 0)),
    ("MUL", (1e-4, 0), (1e-4, 0), (1.0, 0)),
])
def test_int16_extreme_pairs_on_cortex_m0(tmp_path, opcode, q1, q2, q_out):
    """Every pair of EXTREMES plus random ones, on the emulated Cortex-M0: offsets, wrap-around, rounding."""
    inputs = list(sampled_pairs(6, count=256))
    n = inputs[0].size
    path = pair_model(tmp_path, opcode, q1, q2, q_out, "int16", shape1=(1, n), shape2=(1, n), shape_out=(1, n))
    expected = reference_outputs(path, inputs)[0]
    got = run_on_smallest_board(compile_model(path), inputs).outputs[0]
    assert np.array_equal(expected, got), f"{np.count_nonzero(expected != got)} of {n} differ"


@pytest.mark.parametrize("opcode,q1,q2,q_out,message", [
    ("MUL", (0.1, 3), (0.1, 0), (0.1, 0), r"operator 0 \(MUL\): int16 tensor 0 'a' has zero point 3; int16 MUL needs 0"),
    ("MUL", (0.1, 0), (0.1, 0), (0.1, -1), r"operator 0 \(MUL\): int16 tensor 2 'out' has zero point -1"),
    ("ADD", (1.0, 0), (1.0, 0), (1e-5, 0), r"operator 0 \(ADD\): the output rescale factor [\d.e+]+ is outside \(0, 1\)"),
])
def test_int16_unsupported_quantization_is_a_one_line_error(tmp_path, opcode, q1, q2, q_out, message):
    path = pair_model(tmp_path, opcode, q1, q2, q_out, "int16", shape1=(1, 4), shape2=(1, 4), shape_out=(1, 4))
    with pytest.raises(ModelError, match=message) as info:
        compile_model(path)
    assert "\n" not in str(info.value)


def test_int16_with_int8_operand_is_refused(tmp_path):
    path = pair_model(tmp_path, "ADD", (0.1, 0), (0.1, 0), (0.1, 0), "int16", out_dtype="int8", shape1=(1, 4),
                      shape2=(1, 4), shape_out=(1, 4))
    with pytest.raises(ModelError, match=r"operator 0 \(ADD\): tensor 0 'a' has type int16; supported here: int8 "):
        compile_model(path)


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
def test_int16_kernels_use_no_float_and_no_64bit_division(tmp_path):
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / "elementwise.c"), "-o", str(obj)],
                   check=True)
    graph = call_graph(obj)
    kernels = [f"usmp_{name}_s16" for name in ("add", "sub", "mul")]
    for kernel in kernels:
        assert kernel in graph, f"{kernel} not found"
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"
