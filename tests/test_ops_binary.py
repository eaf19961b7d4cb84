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


@pytest.mark.parametrize("q_in,q_alpha,q_out", [((0.02, -1), (0.01, 0), (0.02, -1)), ((0.1, 50), (0.003, -128), (0.05, 17)),
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
