"""DIV, FLOOR_DIV, FLOOR_MOD, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, the comparisons, LOGICAL_AND/OR,
SELECT_V2, PRELU and ADD_N against TFLite Micro: every pair of int8 values for several
quantizations, int16/int32 edge values, float special values, bool, broadcasting, rejections,
and no float in the int8 kernels.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tflite

from reference import outputs_match, reference_outputs
from test_ops_elementwise import (ARM_GCC, ARM_OBJDUMP, EVERY_INT8, assert_matches_reference, call_graph,
                                  is_float_routine, options, reachable)
from tflite_builder import Op, Sub, T, build
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
ROWS, COLS = EVERY_INT8.reshape(256, 1), EVERY_INT8  # [256, 1] op [1, 256]: every pair in one broadcast
COMPARISONS = ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]


def tensor(name, shape, dtype="int8", q=None):
    return T(name, shape, dtype, scales=[q[0]] if q else None, zero_points=[q[1]] if q else None)


def op_model(tmp_path, opcode, inputs, output, op_options=None):
    """One operator reading every input tensor (all model inputs) and writing `output`."""
    n = len(inputs)
    sub = Sub(inputs + [output], [Op(getattr(OPS, opcode), list(range(n)), [n], options=op_options)],
              list(range(n)), [n])
    path = tmp_path / f"{opcode.lower()}.tflite"
    path.write_bytes(build([sub]))
    return path


def pair_model(tmp_path, opcode, q1, q2, q_out, dtype="int8", out_dtype=None, shape1=(256, 1), shape2=(1, 256),
               shape_out=(256, 256), op_options=None):
    out_dtype = out_dtype or dtype
    return op_model(tmp_path, opcode, [tensor("a", shape1, dtype, q1), tensor("b", shape2, dtype, q2)],
                    tensor("out", shape_out, out_dtype, q_out), op_options)


def assert_same_with_nan(path, inputs):
    """Float results where nan is expected too (outputs_match treats nan as a mismatch)."""
    expected = reference_outputs(path, inputs)
    got = run_host(compile_model(path), inputs)
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=0, equal_nan=True)
        assert np.array_equal(np.signbit(g[g == 0]), np.signbit(e[g == 0])), "signs of zero differ"


# -- int8: every pair of values ----------------------------------------------------

PAIR_QUANTIZATIONS = [
    ((0.02, -1), (0.02, -1), (0.04, 0)),
    ((0.1, 50), (0.003, -128), (0.05, 17)),
    ((0.0078125, 0), (0.25, 127), (0.3, -128)),
    ((0.0235294, 3), (0.0301, -9), (0.047, 2)),
    ((0.5, -128), (0.9, 127), (0.007, 5)),
]


@pytest.mark.parametrize("q1,q2,q_out", PAIR_QUANTIZATIONS)
def test_div_every_int8_pair(tmp_path, q1, q2, q_out):
    assert_matches_reference(pair_model(tmp_path, "DIV", q1, q2, q_out), [ROWS, COLS])


@pytest.mark.parametrize("q1,q2,q_out", PAIR_QUANTIZATIONS)
def test_squared_difference_every_int8_pair(tmp_path, q1, q2, q_out):
    assert_matches_reference(pair_model(tmp_path, "SQUARED_DIFFERENCE", q1, q2, q_out), [ROWS, COLS])


@pytest.mark.parametrize("opcode", ["MAXIMUM", "MINIMUM"])
def test_max_min_every_int8_pair(tmp_path, opcode):
    # Different quantizations on purpose: TFLite Micro compares the stored values and ignores them.
    assert_matches_reference(pair_model(tmp_path, opcode, (0.1, 3), (0.02, -7), (0.5, 9)), [ROWS, COLS])


@pytest.mark.parametrize("opcode", COMPARISONS)
@pytest.mark.parametrize("q1,q2", [((0.02, -1), (0.02, -1)), ((0.1, 50), (0.003, -128)), ((0.0078125, 0), (0.25, 127)),
                                   ((0.05, 3), (0.05001, 3)), ((0.9, -128), (0.0001, 0))])
def test_compare_every_int8_pair(tmp_path, opcode, q1, q2):
    assert_matches_reference(pair_model(tmp_path, opcode, q1, q2, None, out_dtype="bool"), [ROWS, COLS])


@pytest.mark.parametrize("q_in,q_alpha,q_out", [((0.02, -1), (0.01, 0), (0.02, -1)),
                                                ((0.1, 50), (0.003, -128), (0.05, 17)),
                                                ((0.0078125, 0), (0.25, 127), (0.3, -128)),
                                                ((0.5, 10), (0.9, -3), (0.004, 0))])
def test_prelu_every_int8_pair(tmp_path, q_in, q_alpha, q_out):
    """Every input against every alpha (alpha as a broadcast input, not only a constant)."""
    assert_matches_reference(pair_model(tmp_path, "PRELU", q_in, q_alpha, q_out), [ROWS, COLS])


@pytest.mark.parametrize("q,q_out", [((0.02, -1), (0.04, 0)), ((0.1, 50), (0.05, 17)), ((0.003, -128), (0.3, 127))])
def test_add_n_every_int8_pair(tmp_path, q, q_out):
    a, b = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128))
    path = op_model(tmp_path, "ADD_N", [tensor("a", (256, 256), q=q), tensor("b", (256, 256), q=q)],
                    tensor("out", (256, 256), q=q_out))
    assert_matches_reference(path, [a.astype(np.int8), b.astype(np.int8)])


def test_add_n_int8_four_inputs(tmp_path):
    q = (0.05, -3)
    ins = [tensor(f"in{i}", (4, 64), q=q) for i in range(4)]
    path = op_model(tmp_path, "ADD_N", ins, tensor("out", (4, 64), q=(0.2, 1)))
    rng = np.random.default_rng(3)
    assert_matches_reference(path, [rng.integers(-128, 128, (4, 64)).astype(np.int8) for _ in range(4)])


def test_div_int8_tiny_rescale_every_pair(tmp_path):
    """A rescale of 0.04 makes the final rounding shift exceed 31 bits for small numerators."""
    assert_matches_reference(pair_model(tmp_path, "DIV", (0.01, 0), (0.5, 0), (0.5, 0)), [ROWS, COLS])


ACTIVATIONS = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_div_int8_fused_activation_every_pair(tmp_path, activation):
    path = pair_model(tmp_path, "DIV", (0.05, 3), (0.03, -20), (0.04, -6),
                      op_options=options("Div", FusedActivationFunction=ACTIVATIONS[activation]))
    assert_matches_reference(path, [ROWS, COLS])


# -- int16, int32, int64: edge values ------------------------------------------------

INT16_EDGES = np.array([-32768, -32767, -32000, -1000, -129, -128, -2, -1, 0, 1, 2, 127, 128, 1000, 32000, 32766,
                        32767], np.int16)
INT32_EDGES = np.array([-2**31, -2**31 + 1, -65536, -1000, -7, -2, -1, 0, 1, 2, 7, 1000, 65536, 2**31 - 2, 2**31 - 1],
                       np.int32)


def edge_pairs(edges):
    return [edges.reshape(-1, 1), edges.reshape(1, -1)]


@pytest.mark.parametrize("opcode", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("dtype,edges", [("int16", INT16_EDGES), ("int32", INT32_EDGES),
                                         ("int64", np.array([-2**63, -2**40, -1, 0, 1, 2**40, 2**63 - 1], np.int64))])
def test_max_min_integer_edges(tmp_path, opcode, dtype, edges):
    n = len(edges)
    q = (0.1, 0) if dtype == "int16" else None
    path = pair_model(tmp_path, opcode, q, q, q, dtype, shape1=(n, 1), shape2=(1, n), shape_out=(n, n))
    assert_matches_reference(path, edge_pairs(edges))


@pytest.mark.parametrize("q1,q2,q_out", [((0.001, 0), (0.001, 0), (0.002, 0)), ((0.5, 0), (0.0003, 0), (0.07, 0)),
                                         ((1.0 / 32768, 0), (2.0 / 32768, 0), (1.0 / 32768, 0))])
def test_squared_difference_int16(tmp_path, q1, q2, q_out):
    n = len(INT16_EDGES)
    path = pair_model(tmp_path, "SQUARED_DIFFERENCE", q1, q2, q_out, "int16", shape1=(n, 1), shape2=(1, n),
                      shape_out=(n, n))
    assert_matches_reference(path, edge_pairs(INT16_EDGES))
    rng = np.random.default_rng(11)
    path = pair_model(tmp_path, "SQUARED_DIFFERENCE", q1, q2, q_out, "int16", shape1=(64, 64), shape2=(64, 64),
                      shape_out=(64, 64))
    assert_matches_reference(path, [rng.integers(-32768, 32768, (64, 64)).astype(np.int16) for _ in range(2)])


def test_squared_difference_int32(tmp_path):
    values = np.array([-46340, -1000, -7, -1, 0, 1, 3, 1000, 46340], np.int32)
    n = len(values)
    path = pair_model(tmp_path, "SQUARED_DIFFERENCE", None, None, None, "int32", shape1=(n, 1), shape2=(1, n),
                      shape_out=(n, n))
    assert_matches_reference(path, edge_pairs(values))


@pytest.mark.parametrize("activation", [0, 1, 2, 3])
def test_div_int32_truncates(tmp_path, activation):
    """Every pair of edge values, except the divisions TFLite leaves undefined (by 0, INT32_MIN by -1)."""
    numerators = INT32_EDGES.reshape(-1, 1)
    divisors = INT32_EDGES[INT32_EDGES != 0]
    divisors = divisors[divisors != -1].reshape(1, -1)
    path = pair_model(tmp_path, "DIV", None, None, None, "int32", shape1=numerators.shape, shape2=divisors.shape,
                      shape_out=(numerators.size, divisors.size),
                      op_options=options("Div", FusedActivationFunction=activation))
    assert_matches_reference(path, [numerators, divisors])
    minus_one = pair_model(tmp_path, "DIV", None, None, None, "int32", shape1=(1, 14), shape2=(1,), shape_out=(1, 14))
    assert_matches_reference(minus_one, [INT32_EDGES[1:].reshape(1, 14), np.array([-1], np.int32)])


@pytest.mark.parametrize("opcode", COMPARISONS)
@pytest.mark.parametrize("dtype,edges", [("int32", INT32_EDGES),
                                         ("int64", np.array([-2**63, -1, 0, 1, 2**63 - 1], np.int64))])
def test_compare_integer_edges(tmp_path, opcode, dtype, edges):
    n = len(edges)
    path = pair_model(tmp_path, opcode, None, None, None, dtype, "bool", shape1=(n, 1), shape2=(1, n), shape_out=(n, n))
    assert_matches_reference(path, edge_pairs(edges))


# -- float32: special values ----------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, -7.0, 1e-30, -1e-30, 1e30, -1e30, 1e-45, 3.4e38, -3.4e38,
                    np.inf, -np.inf, np.nan, 0.1, 2.0 / 3.0], np.float32)


def float_pair_model(tmp_path, opcode, n1, n2, op_options=None, out_dtype="float32"):
    return pair_model(tmp_path, opcode, None, None, None, "float32", out_dtype, shape1=(n1, 1), shape2=(1, n2),
                      shape_out=(n1, n2), op_options=op_options)


@pytest.mark.parametrize("opcode", ["DIV", "FLOOR_MOD", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "PRELU"])
def test_float_special_values(tmp_path, opcode):
    """Zeros of both signs, tiny, huge, infinite and nan operands (DIV by zero as TFLite: clamped infinity, nan)."""
    path = float_pair_model(tmp_path, opcode, len(SPECIAL), len(SPECIAL))
    assert_same_with_nan(path, edge_pairs(SPECIAL))


@pytest.mark.parametrize("activation", [1, 2, 3])
def test_div_f32_fused_activation(tmp_path, activation):
    path = float_pair_model(tmp_path, "DIV", len(SPECIAL), len(SPECIAL),
                            op_options=options("Div", FusedActivationFunction=activation))
    assert_same_with_nan(path, edge_pairs(SPECIAL))


def test_floor_div_f32(tmp_path):
    """TFLite Micro refuses a zero divisor, so none here; the quotient is taken in double, then floored."""
    divisors = SPECIAL[SPECIAL != 0]
    path = float_pair_model(tmp_path, "FLOOR_DIV", len(SPECIAL), len(divisors))
    assert_same_with_nan(path, [SPECIAL.reshape(-1, 1), divisors.reshape(1, -1)])
    rng = np.random.default_rng(4)
    x = (rng.integers(-1000, 1000, (1, 500)) * 0.1).astype(np.float32)
    y = (rng.integers(1, 50, (1, 500)) * rng.choice([-0.1, 0.1, 1.0, -3.0], (1, 500))).astype(np.float32)
    path = pair_model(tmp_path, "FLOOR_DIV", None, None, None, "float32", shape1=(1, 500), shape2=(1, 500),
                      shape_out=(1, 500))
    assert_same_with_nan(path, [x, y])


def test_floor_mod_f32_signs(tmp_path):
    """The remainder takes the divisor's sign; exact multiples give zero."""
    x = np.array([7, -7, 7, -7, 6, -6, 0.5, -0.5, 1e10, -1e10, 5.75, 3e-40, 1e30, 0, -0.0], np.float32)
    y = np.array([3, 3, -3, -3, 3, -3, 2, 2, -2, 3, 0.25, 1e-40, 7e-3, -2, 5], np.float32)
    path = pair_model(tmp_path, "FLOOR_MOD", None, None, None, "float32", shape1=(15,), shape2=(15,),
                      shape_out=(15,))
    assert_same_with_nan(path, [x, y])
    rng = np.random.default_rng(5)
    path = pair_model(tmp_path, "FLOOR_MOD", None, None, None, "float32", shape1=(1, 1000), shape2=(1, 1000),
                      shape_out=(1, 1000))
    assert_same_with_nan(path, [rng.uniform(-100, 100, (1, 1000)).astype(np.float32),
                                rng.uniform(-10, 10, (1, 1000)).astype(np.float32)])


@pytest.mark.parametrize("opcode", COMPARISONS)
def test_compare_f32_special_values(tmp_path, opcode):
    path = float_pair_model(tmp_path, opcode, len(SPECIAL), len(SPECIAL), out_dtype="bool")
    assert_matches_reference(path, edge_pairs(SPECIAL))


def test_add_n_f32_order_and_negative_zero(tmp_path):
    """Summed left to right from +0, as TFLite does: large values cancel before small ones are added."""
    ins = [tensor(f"in{i}", (1, 6), "float32") for i in range(3)]
    path = op_model(tmp_path, "ADD_N", ins, tensor("out", (1, 6), "float32"))
    values = [np.array([[1e8, -0.0, 1.0, np.inf, 3.0, 1e-7]], np.float32),
              np.array([[-1e8, -0.0, 1e-8, 1.0, np.nan, 1.0]], np.float32),
              np.array([[1.0, -0.0, -1.0, -np.inf, 1.0, -1.0]], np.float32)]
    assert_same_with_nan(path, values)


# -- bool ---------------------------------------------------------------------------

BOOLS = np.array([False, True])


@pytest.mark.parametrize("opcode", ["LOGICAL_AND", "LOGICAL_OR", "EQUAL", "NOT_EQUAL"])
def test_bool_every_pair_broadcast(tmp_path, opcode):
    path = pair_model(tmp_path, opcode, None, None, None, "bool", shape1=(2, 1, 3), shape2=(4, 1), shape_out=(2, 4, 3))
    rng = np.random.default_rng(6)
    assert_matches_reference(path, [np.array([[[0], [1]]], bool).repeat(3, 2).reshape(2, 1, 3),
                                    rng.integers(0, 2, (4, 1)).astype(bool)])
    same = pair_model(tmp_path, opcode, None, None, None, "bool", shape1=(1, 2), shape2=(2, 1), shape_out=(2, 2))
    assert_matches_reference(same, [BOOLS.reshape(1, 2), BOOLS.reshape(2, 1)])


# -- SELECT_V2 ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("shapes", [
    ((2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4)),
    ((3, 1), (1, 4), (3, 4), (3, 4)),
    ((1, 4), (2, 3, 1), (1,), (2, 3, 4)),
    ((), (5,), (2, 5), (2, 5)),
    ((2, 1, 3, 1, 2), (1, 4, 1, 5, 1), (2, 4, 3, 5, 2), (2, 4, 3, 5, 2)),
    ((1,), (), (1, 1), (1, 1)),
])
def test_select_v2_broadcasts_three_inputs(tmp_path, dtype, shapes):
    cond_shape, x_shape, y_shape, out_shape = shapes
    q = (0.1, 3) if dtype != "float32" else None
    path = op_model(tmp_path, "SELECT_V2", [tensor("c", cond_shape, "bool"), tensor("x", x_shape, dtype, q),
                                            tensor("y", y_shape, dtype, q)], tensor("out", out_shape, dtype, q))
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype) if dtype != "float32" else None

    def values(shape):
        if info is None:
            return rng.uniform(-5, 5, shape).astype(np.float32)
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)

    assert_matches_reference(path, [rng.integers(0, 2, cond_shape).astype(bool), values(x_shape), values(y_shape)])


# -- int16 PRELU and broadcast shapes of the quantized kernels ----------------------

def test_prelu_int16_with_int8_alpha(tmp_path):
    n = len(INT16_EDGES)
    path = op_model(tmp_path, "PRELU",
                    [tensor("x", (n, 1), "int16", (0.001, 0)), tensor("alpha", (1, 256), "int8", (0.01, 5))],
                    tensor("out", (n, 256), "int16", (0.002, 0)))
    assert_matches_reference(path, [INT16_EDGES.reshape(n, 1), COLS])


def test_prelu_per_channel_constant_alpha(tmp_path):
    alpha = np.random.default_rng(8).integers(-128, 128, (1, 1, 8)).astype(np.int8)
    sub = Sub([tensor("x", (1, 4, 4, 8), q=(0.05, -3)),
               T("alpha", (1, 1, 8), "int8", data=alpha, scales=[0.02], zero_points=[1]),
               tensor("out", (1, 4, 4, 8), q=(0.04, 2))],
              [Op(OPS.PRELU, [0, 1], [2])], [0], [2])
    path = tmp_path / "prelu.tflite"
    path.write_bytes(build([sub]))
    assert_matches_reference(path, [np.resize(EVERY_INT8, (1, 4, 4, 8))])


@pytest.mark.parametrize("opcode", ["DIV", "SQUARED_DIFFERENCE", "MAXIMUM", "LESS", "PRELU"])
@pytest.mark.parametrize("shape1,shape2,shape_out", [
    ((1, 4, 4, 3), (1, 1, 1, 3), (1, 4, 4, 3)),
    ((3,), (2, 1, 3), (2, 1, 3)),
    ((2, 1, 5, 1), (1, 3, 1, 4), (2, 3, 5, 4)),
    ((1, 2, 3, 4, 5), (1, 2, 1, 4, 1), (1, 2, 3, 4, 5)),
])
def test_int8_broadcast_shapes(tmp_path, opcode, shape1, shape2, shape_out):
    out_dtype = "bool" if opcode == "LESS" else "int8"
    path = pair_model(tmp_path, opcode, (0.05, 3), (0.07, -2), None if out_dtype == "bool" else (0.1, 1),
                      out_dtype=out_dtype, shape1=shape1, shape2=shape2, shape_out=shape_out)
    rng = np.random.default_rng(9)
    assert_matches_reference(path, [rng.integers(-128, 128, s).astype(np.int8) for s in (shape1, shape2)])


# -- rejections -------------------------------------------------------------------

@pytest.mark.parametrize("opcode,dtype,q,out_dtype,message", [
    ("GREATER", "int16", (0.1, 0), "bool",
     r"operator 0 \(GREATER\): tensor 0 'a' has type int16; supported here: int8, int32"),
    ("LESS", "int8", (1.5, 0), "bool", r"operator 0 \(LESS\): the first input rescale factor 1\.5 is outside \(0, 1\)"),
    ("FLOOR_DIV", "int32", None, "int32",
     r"operator 0 \(FLOOR_DIV\): tensor 0 'a' has type int32; supported here: float32"),
    ("LOGICAL_OR", "int8", (0.1, 0), "int8",
     r"operator 0 \(LOGICAL_OR\): tensor 0 'a' has type int8; supported here: bool"),
    ("EQUAL", "int8", (0.1, 0), "int8", r"operator 0 \(EQUAL\): tensor 2 'out' has type int8; supported here: bool"),
    ("DIV", "int8", (0.5, 0), "int8", None),
])
def test_unsupported_cases_are_one_line_errors(tmp_path, opcode, dtype, q, out_dtype, message):
    q_out = (1e-9, 0) if message is None else (None if out_dtype == "bool" else q)
    path = pair_model(tmp_path, opcode, q, q, q_out, dtype, out_dtype, (1, 4), (1, 4), (1, 4))
    message = message or r"operator 0 \(DIV\): the rescale factor [\d.e+]+ .* is above the 2\^22"
    with pytest.raises(ModelError, match=message) as info:
        compile_model(path)
    assert "\n" not in str(info.value)


def test_add_n_int8_needs_one_input_quantization(tmp_path):
    path = op_model(tmp_path, "ADD_N", [tensor("a", (1, 4), q=(0.1, 0)), tensor("b", (1, 4), q=(0.2, 0))],
                    tensor("out", (1, 4), q=(0.3, 0)))
    with pytest.raises(ModelError, match=r"operator 0 \(ADD_N\): int8 inputs must share one quantization; "
                                         r"tensor 1 'b' differs from tensor 0 'a'"):
        compile_model(path)


def test_select_v2_shapes_that_do_not_broadcast(tmp_path):
    path = op_model(tmp_path, "SELECT_V2", [tensor("c", (2, 3), "bool"), tensor("x", (3, 3)), tensor("y", (1, 3))],
                    tensor("out", (3, 3)))
    with pytest.raises(ModelError, match=r"operator 0 \(SELECT_V2\): shapes \[2, 3\] and \[3, 3\] and \[1, 3\] "
                                         r"do not broadcast to the output shape \[3, 3\]"):
        compile_model(path)


# -- the kernels' own float helpers, and no float in the int8 kernels ------------------

FLOAT_HELPERS = r"""
#include <stdio.h>
#include "usmp_kernels/float_math.h"
int main(void) {
    float x, y;
    while (scanf("%a %a", &x, &y) == 2) {
        printf("%a %a\n", (double)usmp_fmodf(x, y), usmp_floor((double)x / (double)y));
    }
    return 0;
}
"""


def test_fmodf_and_floor_are_exact(tmp_path):
    (tmp_path / "main.c").write_text(FLOAT_HELPERS)
    exe = tmp_path / "helpers"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{KERNELS_INCLUDE_DIR}",
                    str(tmp_path / "main.c"), str(KERNELS_SRC_DIR / "float_math.c"), "-o", str(exe)], check=True)
    rng = np.random.default_rng(10)
    bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32)
    multiples = np.array([6, -6, 0, -0.0, 1e10, -1e10, 3e-40], np.float32)  # zero remainders of both signs
    x = np.concatenate([bits[:10000].view(np.float32), rng.uniform(-100, 100, 2000).astype(np.float32), SPECIAL,
                        multiples])
    y = np.concatenate([bits[10000:].view(np.float32), rng.uniform(-3, 3, 2000).astype(np.float32), SPECIAL[::-1],
                        np.array([3, 3, 5, -5, 2, -2, 1e-40], np.float32)])
    text = "".join(f"{float(a).hex()} {float(b).hex()}\n" for a, b in zip(x, y))
    text = text.replace("inf", "INFINITY").replace("nan", "NAN")
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.split()
    got = np.array([float.fromhex(v) if "n" not in v.lower() or "0x" in v else float(v) for v in out]).reshape(-1, 2)
    with np.errstate(all="ignore"):
        mod, floor = np.fmod(x, y), np.floor(x.astype(np.float64) / y.astype(np.float64))
    np.testing.assert_array_equal(got[:, 0].astype(np.float32), mod)
    np.testing.assert_array_equal(got[:, 1], floor)
    zeros = mod == 0
    assert np.array_equal(np.signbit(got[zeros, 0]), np.signbit(mod[zeros])), "signs of zero differ"
    assert zeros.sum() >= len(multiples)


OWN_SOURCES = ["arith_binary.c", "compare.c", "prelu.c", "add_n.c", "select.c"]


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source", OWN_SOURCES)
def test_integer_kernels_use_no_float_and_no_64bit_division(tmp_path, source):
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source), "-o", str(obj)], check=True)
    graph = call_graph(obj)
    kernels = [f for f in graph if f.startswith("usmp_") and not f.endswith("_f32") and "_f32_" not in f]
    assert kernels, f"no integer kernels found in {source}"
    for kernel in kernels:
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"


# -- in place ---------------------------------------------------------------------

def buffer_of(compiled, tensor_name):
    program = compiled.program
    index = next(t.index for t in program.graph.tensors if t.name == tensor_name)
    return next(name for name, b in program.buffers.items() if index in b.tensors)


def test_float_chain_writes_in_place(tmp_path):
    """Each intermediate dies at the next operator, which overwrites it; ADD_N reading one tensor twice does not."""
    names = ["x", "y", "c", "m", "d", "p", "s", "n", "out"]
    tensors = [tensor(name, (2, 8), "bool" if name == "c" else "float32") for name in names]
    i = {name: k for k, name in enumerate(names)}
    ops = [Op(OPS.MAXIMUM, [i["x"], i["y"]], [i["m"]]), Op(OPS.DIV, [i["m"], i["y"]], [i["d"]]),
           Op(OPS.PRELU, [i["d"], i["y"]], [i["p"]]), Op(OPS.SELECT_V2, [i["c"], i["p"], i["x"]], [i["s"]]),
           Op(OPS.ADD_N, [i["s"], i["x"], i["s"]], [i["n"]]), Op(OPS.FLOOR_MOD, [i["n"], i["y"]], [i["out"]])]
    path = tmp_path / "chain.tflite"
    path.write_bytes(build([Sub(tensors, ops, [0, 1, 2], [i["out"]])]))
    compiled = compile_model(path)
    # (A buffer is taken over once: can_write_in_place also asks about the tensor that died before.)
    assert buffer_of(compiled, "d") == buffer_of(compiled, "m") and buffer_of(compiled, "s") == buffer_of(compiled, "p")
    assert buffer_of(compiled, "n") != buffer_of(compiled, "s")
    rng = np.random.default_rng(12)
    inputs = [rng.uniform(-3, 3, (2, 8)).astype(np.float32), rng.uniform(0.5, 3, (2, 8)).astype(np.float32),
              rng.integers(0, 2, (2, 8)).astype(bool)]
    assert_same_with_nan(path, inputs)


def test_int8_add_n_writes_over_its_first_input(tmp_path):
    q = (0.05, 2)
    tensors = [tensor(name, (4, 16), q=q) for name in ("x", "y", "m", "n")] + [tensor("out", (4, 16), q=(0.3, -100))]
    ops = [Op(OPS.MINIMUM, [0, 1], [2]), Op(OPS.ADD_N, [2, 1, 1], [3]), Op(OPS.SQUARED_DIFFERENCE, [3, 1], [4])]
    path = tmp_path / "add_n.tflite"
    path.write_bytes(build([Sub(tensors, ops, [0, 1], [4])]))
    compiled = compile_model(path)
    assert buffer_of(compiled, "m") == buffer_of(compiled, "n")
    rng = np.random.default_rng(13)
    assert_matches_reference(path, [rng.integers(-128, 128, (4, 16)).astype(np.int8) for _ in range(2)])


def test_div_int8_small_quotients_match_the_reference_quirk(tmp_path):
    """Where TFLite's final rounding shift exceeds 31 bits (undefined in C), the interpreter gives
    0 / 100 -> zero point + 1 and 1 / 100 -> 127; the kernel reproduces that."""
    path = pair_model(tmp_path, "DIV", (0.01, 0), (0.5, 0), (0.5, 0), shape1=(1, 4), shape2=(1, 4), shape_out=(1, 4))
    inputs = [np.array([[0, 1, -1, 100]], np.int8), np.array([[100, 100, 100, 3]], np.int8)]
    assert run_host(compile_model(path), inputs)[0].tolist() == [[1, 127, -128, 1]]
    assert_matches_reference(path, inputs)


def test_undefined_reference_cases_run_clean_under_sanitizers(tmp_path):
    """Where TFLite's arithmetic is undefined (int32 division by 0 and of INT32_MIN by -1, int32 squares that
    overflow, int8 rounding shifts past 31 bits) the kernels stay defined: ASan and UBSan find nothing."""
    div = pair_model(tmp_path, "DIV", None, None, None, "int32", shape1=(15, 1), shape2=(1, 15), shape_out=(15, 15))
    got = run_host(compile_model(div), edge_pairs(INT32_EDGES), sanitize=True)[0]
    assert got[0, INT32_EDGES.tolist().index(-1)] == -2**31 and not got[:, INT32_EDGES.tolist().index(0)].any()
    square = pair_model(tmp_path, "SQUARED_DIFFERENCE", None, None, None, "int32", shape1=(15, 1), shape2=(1, 15),
                        shape_out=(15, 15))
    run_host(compile_model(square), edge_pairs(INT32_EDGES), sanitize=True)
    for opcode, q in [("DIV", ((0.01, 0), (0.5, 0), (0.5, 0))), ("SQUARED_DIFFERENCE", PAIR_QUANTIZATIONS[1]),
                      ("LESS", ((0.9, -128), (0.0001, 0), None)), ("PRELU", PAIR_QUANTIZATIONS[2])]:
        path = pair_model(tmp_path, opcode, *q, out_dtype="bool" if opcode == "LESS" else "int8")
        got = run_host(compile_model(path), [ROWS, COLS], sanitize=True)
        assert all(outputs_match(e, g) for e, g in zip(reference_outputs(path, [ROWS, COLS]), got))
