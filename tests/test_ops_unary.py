"""ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, ELU,
HARD_SWISH, LOGICAL_NOT, CAST, ZEROS_LIKE against TFLite Micro: every int8 value
for several quantizations, every int16 value, dense float ranges with special
values, every CAST pair; rejections; in place; no float in the int16 kernels.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tflite

from reference import TEST_MODELS, random_inputs
from test_ops_elementwise import (
    ARM_GCC, ARM_OBJDUMP, EVERY_INT8, assert_matches_reference, call_graph, is_float_routine, reachable, tensor,
    unary_model,
)
from tflite_builder import Op, Sub, build
from test_in_place import buffer_of
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR

EVERY_INT16 = np.arange(-32768, 32768, dtype=np.int16).reshape(1, -1)
NON_NEGATIVE_INT16 = np.arange(0, 32768, dtype=np.int16).reshape(1, -1)
SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e-30, -1e-30, 1e-40, 88.0, 89.0, -100.0, 1e5, -1e5, 65536.0,
           123456.7, 1e10, -7e22, 3e38, -3e38, np.inf, -np.inf, np.nan]
DENSE_FLOATS = np.concatenate([np.linspace(-12, 12, 4801), np.geomspace(1e-6, 1e4, 400),
                               -np.geomspace(1e-6, 1e4, 400), SPECIAL]).astype(np.float32).reshape(1, -1)
FLOAT_OPS = ["ABS", "NEG", "CEIL", "FLOOR", "ROUND", "SQRT", "RSQRT", "SQUARE", "EXP", "LOG", "SIN", "COS", "ELU",
             "HARD_SWISH"]
QUANTIZATIONS = [  # (input (scale, zero point), output (scale, zero point))
    ((0.05, 3), (0.05, 3)), ((0.1, -20), (0.03, -128)), ((0.02, 0), (0.2, 10)), ((1.0, 127), (0.004, -128)),
    ((1e-3, -128), (1e-3, 100)), ((0.25, -100), (2.0, 0)),
]


def one_op_model(tmp_path, opcode, shape, in_dtype, out_dtype=None, in_q=None, out_q=None):
    return unary_model(tmp_path, opcode, in_q, out_q, in_dtype, out_dtype or in_dtype, shape=shape)


@pytest.mark.parametrize("opcode", FLOAT_OPS)
def test_float32_dense_range_and_special_values(tmp_path, opcode):
    path = one_op_model(tmp_path, opcode, DENSE_FLOATS.shape, "float32")
    assert_matches_reference(path, [DENSE_FLOATS])


def test_float32_rounding_halves(tmp_path):
    """ROUND takes halves to the even integer, CEIL/FLOOR keep the sign of zero results."""
    halves = (np.arange(-200, 201, dtype=np.float32) / 2 + np.float32(0)).reshape(1, -1)
    for opcode in ("ROUND", "CEIL", "FLOOR"):
        assert_matches_reference(one_op_model(tmp_path, opcode, halves.shape, "float32"), [halves])


@pytest.mark.parametrize("opcode", ["ABS", "ELU", "HARD_SWISH"])
@pytest.mark.parametrize("in_q,out_q", QUANTIZATIONS)
def test_int8_every_value(tmp_path, opcode, in_q, out_q):
    path = one_op_model(tmp_path, opcode, EVERY_INT8.shape, "int8", in_q=in_q, out_q=out_q)
    if opcode == "HARD_SWISH" and in_q[0] / out_q[0] > 128:  # TFLite Micro's Prepare refuses it too
        with pytest.raises(ModelError, match="above the 128 the int8 kernel supports"):
            compile_model(path)
        return
    assert_matches_reference(path, [EVERY_INT8])


@pytest.mark.parametrize("in_q,out_q", QUANTIZATIONS)
def test_int8_rsqrt_every_value_at_or_above_the_zero_point(tmp_path, in_q, out_q):
    """TFLite Micro stops with an error below the input zero point (negative reals)."""
    values = np.arange(in_q[1], 128, dtype=np.int8).reshape(1, -1)
    path = one_op_model(tmp_path, "RSQRT", values.shape, "int8", in_q=in_q, out_q=out_q)
    assert_matches_reference(path, [values])


@pytest.mark.parametrize("in_q,out_q", [(None, None), ((0.001, 0), (0.001, 0)), ((0.001, 0), (0.0007, 0)),
                                        ((0.001, 0), (0.003, 0)), ((2.0, 0), (1e-4, 0))])
def test_int16_abs_every_value(tmp_path, in_q, out_q):
    path = one_op_model(tmp_path, "ABS", EVERY_INT16.shape, "int16", in_q=in_q, out_q=out_q)
    assert_matches_reference(path, [EVERY_INT16])


@pytest.mark.parametrize("in_q,out_q", [((0.001, 0), (0.001, 0)), ((1e-4, 0), (0.05, 0)), ((0.5, 0), (1e-4, 0)),
                                        ((3.0, 0), (3e-5, 0)), ((1e-5, 0), (1.0, 0))])
def test_int16_rsqrt_every_non_negative_value(tmp_path, in_q, out_q):
    path = one_op_model(tmp_path, "RSQRT", NON_NEGATIVE_INT16.shape, "int16", in_q=in_q, out_q=out_q)
    assert_matches_reference(path, [NON_NEGATIVE_INT16])


def test_logical_not(tmp_path):
    values = np.array([[True, False, False, True, True, False]])
    assert_matches_reference(one_op_model(tmp_path, "LOGICAL_NOT", values.shape, "bool"), [values])


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float32"])
def test_zeros_like(tmp_path, dtype):
    values = (np.arange(24).reshape(2, 3, 4) - 7).astype(dtype)
    q = (0.1, 5) if dtype == "int8" else None
    assert_matches_reference(one_op_model(tmp_path, "ZEROS_LIKE", values.shape, dtype, in_q=q, out_q=q), [values])


CAST_VALUES = {
    "float32": np.array([0, -0.0, 0.7, -0.7, 1.5, -1.5, 127.9, 128.0, -128.9, -129.0, 300.5, -300.5, 32767.9, 32768,
                         -32769, 3e9, -3e9, 2147483520, -2147483648, 16777217, 1e-30, np.nan, np.inf, -np.inf],
                        np.float32),
    "int8": np.arange(-128, 128, dtype=np.int8),
    "int16": np.arange(-32768, 32768, 7, dtype=np.int16),
    "int32": np.array([0, 1, -1, 127, 128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536, 2**31 - 1, -2**31,
                       16777217, -16777217, 123456789], np.int32),
    "bool": np.array([True, False, True]),
}


@pytest.mark.parametrize("source", list(CAST_VALUES))
@pytest.mark.parametrize("target", list(CAST_VALUES))
def test_cast_every_supported_pair(tmp_path, source, target):
    values = CAST_VALUES[source].reshape(1, -1)
    q = (0.5, 3)  # quantization is ignored by CAST; int8 and int16 tensors carry some anyway
    path = one_op_model(tmp_path, "CAST", values.shape, source, target,
                        in_q=q if source in ("int8", "int16") else None,
                        out_q=q if target in ("int8", "int16") else None)
    assert_matches_reference(path, [values])


@pytest.mark.parametrize("opcode,in_dtype,out_dtype,in_q,out_q,message", [
    ("NEG", "int8", "int8", (0.1, 0), (0.1, 0), r"operator 0 \(NEG\): tensor 0 'input' has type int8; supported here: float32"),
    ("EXP", "int16", "int16", (0.1, 0), (0.1, 0), r"tensor 0 'input' has type int16; supported here: float32, int8"),
    ("SIN", "int16", "int16", (0.1, 0), (0.1, 0), r"type int16; supported here: float32"),
    ("ELU", "int16", "int16", (0.1, 0), (0.1, 0), r"type int16; supported here: float32, int8"),
    ("HARD_SWISH", "int16", "int16", (0.1, 0), (0.1, 0), r"type int16; supported here: float32, int8"),
    ("ABS", "int32", "int32", None, None, r"type int32; supported here: float32, int8, int16"),
    ("ABS", "int8", "int8", None, None, r"int8 tensor 0 'input' has no quantization parameters"),
    ("ABS", "int16", "int16", (0.1, 3), (0.1, 0), r"int16 tensor 0 'input' has zero point 3; TFLite Micro requires 0"),
    ("RSQRT", "int16", "int16", (0.1, 0), (0.1, -2), r"int16 tensor 1 'output' has zero point -2"),
    ("RSQRT", "int16", "int16", None, None, r"int8 tensor 0 'input' has no quantization parameters"),
    ("ABS", "float32", "int8", None, (0.1, 0), r"tensor 1 'output' has type int8; supported here: float32"),
    ("HARD_SWISH", "int8", "int8", (1.0, 0), (0.001, 0), r"input scale 1 / output scale 0.001 is 1000, above the 128 the int8 kernel supports"),
    ("LOGICAL_NOT", "float32", "float32", None, None, r"type float32; supported here: bool"),
    ("ZEROS_LIKE", "int16", "int16", None, None, r"type int16; supported here: int8, int32, int64, float32"),
    ("CAST", "uint8", "float32", (0.1, 128), None, r"operator 0: uint8 CAST is not supported"),
    ("CAST", "float32", "int64", None, None, r"\(CAST\): tensor 1 'output' has type int64"),
])
def test_unsupported_cases_are_one_line_errors(tmp_path, opcode, in_dtype, out_dtype, in_q, out_q, message):
    path = one_op_model(tmp_path, opcode, (1, 4), in_dtype, out_dtype, in_q=in_q, out_q=out_q)
    with pytest.raises(ModelError, match=message) as caught:
        compile_model(path)
    assert "\n" not in str(caught.value)


def test_size_mismatch_is_refused(tmp_path):
    sub = Sub([tensor("input", (1, 4), "float32"), tensor("output", (1, 5), "float32")],
              [Op(tflite.BuiltinOperator.SIN, [0], [1])], [0], [1])
    path = tmp_path / "sin.tflite"
    path.write_bytes(build([sub]))
    with pytest.raises(ModelError, match=r"input shape \[1, 4\] and output shape \[1, 5\] differ in size"):
        compile_model(path)


@pytest.mark.parametrize("model", ["sin_cos_chain_f32", "elu_abs_chain_int8", "cast_abs_chain_int16"])
def test_chains_run_in_place(model):
    """The middle operator of each chain writes over its input, which dies there."""
    path = TEST_MODELS / f"{model}.tflite"
    compiled = compile_model(path)
    graph = compiled.program.graph
    first, middle = (graph.tensors[op.outputs[0]].name for op in graph.operators[:2])
    assert buffer_of(compiled, first) == buffer_of(compiled, middle)
    inputs = random_inputs(graph, np.random.default_rng(5))
    assert_matches_reference(path, inputs)


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
def test_int16_kernels_use_no_float_and_no_64bit_division(tmp_path):
    obj = tmp_path / "unary.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / "unary.c"), "-o", str(obj)], check=True)
    graph = call_graph(obj)
    for kernel in ("usmp_abs_s16", "usmp_rsqrt_s16", "usmp_logical_not_b8", "usmp_zero_fill"):
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod"}, f"{kernel} uses 64-bit division"
