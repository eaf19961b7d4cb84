"""SUM, MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, ARG_MAX, ARG_MIN, CUMSUM, L2_NORMALIZATION, L2_POOL_2D, LOG_SOFTMAX:
every int8 value through each operator against TFLite Micro, for several quantizations; ties,
NaN and infinities; wrapping sums; the kernels' sqrt and log; rejections; no float in the
integer kernels. (tests/test_bit_exact.py runs the models of tests/models/make_reduce_models.py.)
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import tflite

from reference import outputs_match, reference_outputs
from test_ops_elementwise import call_graph, is_float_routine, reachable
from tflite_builder import Op, Sub, T, build, options
from usmp.compiler import compile_model
from usmp.errors import ModelError
from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.host import run_host

OPS = tflite.BuiltinOperator
EVERY_INT8 = np.arange(-128, 128, dtype=np.int8)


def assert_matches_reference(path, inputs, sanitize=False):
    expected = reference_outputs(path, inputs)
    got = run_host(compile_model(path), inputs, sanitize=sanitize)
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        if not outputs_match(e, g):
            wrong = np.flatnonzero(~np.isclose(e.ravel(), g.ravel(), rtol=1e-5, atol=1e-6, equal_nan=True)
                                   if e.dtype == np.float32 else e.ravel() != g.ravel())
            pytest.fail(f"{path.name}: {len(wrong)} of {e.size} differ, first at {wrong[:5]}: "
                        f"expected {e.ravel()[wrong[:5]]}, got {g.ravel()[wrong[:5]]}")


def tensor(name, shape, dtype="int8", q=None, data=None):
    return T(name, shape, dtype, data=data, scales=[q[0]] if q else None, zero_points=[q[1]] if q else None)


def write_model(tmp_path, tensors, op, name="model"):
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(build([Sub(tensors, [op], [0], [len(tensors) - 1])]))
    return path


def reduction_model(tmp_path, opcode, shape, axes, dtype="int8", in_q=None, out_q=None, keep_dims=False):
    axes_mod = [a % len(shape) for a in axes]
    out_shape = tuple((1 if k in axes_mod else d) for k, d in enumerate(shape) if keep_dims or k not in axes_mod)
    tensors = [tensor("input", shape, dtype, in_q),
               tensor("axes", (len(axes),), "int32", data=np.array(axes, np.int32)),
               tensor("output", out_shape, dtype, out_q)]
    return write_model(tmp_path, tensors, Op(getattr(OPS, opcode), [0, 1], [2],
                                             options=options("Reducer", KeepDims=keep_dims)))


def every_int8_rows(rows: int, seed: int = 0) -> np.ndarray:
    """rows x 256: each row holds every int8 value once, in its own order."""
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(EVERY_INT8) for _ in range(rows)])


# -- SUM, MEAN ---------------------------------------------------------------------

@pytest.mark.parametrize("opcode", ["SUM", "MEAN"])
@pytest.mark.parametrize("in_q,out_q", [((0.05, 3), (0.3, -2)), ((0.02, -128), (0.02, 127)), ((0.1, 0), (2.0, 5)),
                                        ((0.5, 10), (0.5 / 8, -7)), ((0.0235294, -1), (0.0235294 * 200, 0))])
def test_int8_sum_and_mean_of_every_int8_value(tmp_path, opcode, in_q, out_q):
    """Rows of all 256 values (sum -128 * 256 + 256 * 127.5 shifted by the zero point), and columns."""
    rows = every_int8_rows(6)
    assert_matches_reference(reduction_model(tmp_path, opcode, (6, 256), [1], "int8", in_q, out_q), [rows])
    assert_matches_reference(reduction_model(tmp_path, opcode, (256, 6), [0], "int8", in_q, out_q), [rows.T.copy()])


@pytest.mark.parametrize("opcode", ["SUM", "MEAN"])
def test_int16_sum_and_mean_saturate_and_round_like_the_reference(tmp_path, opcode):
    path = reduction_model(tmp_path, opcode, (4, 64), [-1], "int16", (0.001, 0), (0.0013, 0), keep_dims=True)
    rng = np.random.default_rng(3)
    extremes = np.array([np.full(64, 32767), np.full(64, -32768), np.tile([32767, -32768], 32),
                         rng.integers(-32768, 32768, 64)], np.int16)
    assert_matches_reference(path, [extremes])


def test_int8_sum_accumulators_are_planned_scratch(tmp_path):
    compiled = compile_model(reduction_model(tmp_path, "SUM", (3, 4, 5), [1], "int8", (0.1, 1), (0.2, 2)))
    (scratch,) = [b for b in compiled.program.buffers.values() if b.kind == "scratch"]
    assert scratch.c_type == "int32_t" and scratch.size == 4 * 15
    assert scratch.name in compiled.layout.placements


def test_float_sum_keeps_the_reference_order(tmp_path):
    """Values whose float sum depends on the order: 1e8 + 1 - 1e8 is 0 in row order."""
    path = reduction_model(tmp_path, "SUM", (2, 3, 4), [0, 2], "float32")
    x = np.zeros((2, 3, 4), np.float32)
    x[0, :, 0], x[0, :, 1], x[1, :, 0] = 1e8, 1.0, -1e8
    assert_matches_reference(path, [x])


# -- REDUCE_MAX, REDUCE_MIN ----------------------------------------------------------

@pytest.mark.parametrize("opcode", ["REDUCE_MAX", "REDUCE_MIN"])
@pytest.mark.parametrize("q", [(0.05, 3), (0.1, -128), (0.003, 127)])
def test_int8_reduce_max_min_of_every_int8_value(tmp_path, opcode, q):
    rows = every_int8_rows(4, seed=1).reshape(4, 16, 16)
    for axes in ([1, 2], [0], [-1], [0, 1, 2]):
        assert_matches_reference(reduction_model(tmp_path, opcode, (4, 16, 16), axes, "int8", q, q), [rows])


@pytest.mark.parametrize("opcode", ["REDUCE_MAX", "REDUCE_MIN"])
def test_float_reduce_max_min_special_values(tmp_path, opcode):
    """Infinities, signed zeros, and NaN (which never replaces the running value) as in the reference."""
    path = reduction_model(tmp_path, opcode, (6, 3), [1], "float32")
    inf, nan = np.inf, np.nan
    x = np.array([[-inf, -inf, -inf], [inf, inf, inf], [nan, 1.0, 2.0], [1.0, nan, -1.0], [0.0, -0.0, 0.0],
                  [-3e38, 3e38, nan]], np.float32)
    expected = reference_outputs(path, [x])[0]
    got = run_host(compile_model(path), [x])[0]
    assert np.array_equal(expected, got, equal_nan=True) and np.array_equal(np.signbit(expected), np.signbit(got))


def test_reduce_all_of_every_pattern_of_eight_bools(tmp_path):
    patterns = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(bool)  # 256 x 8: every pattern once
    assert_matches_reference(reduction_model(tmp_path, "REDUCE_ALL", (256, 8), [1], "bool"), [patterns])
    cube = patterns.reshape(256, 2, 2, 2)
    for axes in ([1, 3], [0], [0, 1, 2, 3]):
        assert_matches_reference(reduction_model(tmp_path, "REDUCE_ALL", (256, 2, 2, 2), axes, "bool", keep_dims=True),
                                 [cube])


# -- ARG_MAX, ARG_MIN ------------------------------------------------------------------

def arg_model(tmp_path, opcode, shape, axis, dtype="int8", index_type="int32"):
    axis_mod = axis % len(shape)
    out_shape = tuple(d for k, d in enumerate(shape) if k != axis_mod)
    tensors = [tensor("input", shape, dtype, (0.1, 3) if dtype == "int8" else None),
               tensor("axis", (1,), "int32", data=np.array([axis], np.int32)), tensor("output", out_shape, index_type)]
    return write_model(tmp_path, tensors, Op(getattr(OPS, opcode), [0, 1], [2]), name=f"{opcode}_{index_type}")


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_int8_arg_max_min_ties_go_to_the_first_index(tmp_path, opcode, axis):
    rng = np.random.default_rng(4)
    few_values = rng.integers(-2, 3, (9, 10, 11)).astype(np.int8)  # many ties
    assert_matches_reference(arg_model(tmp_path, opcode, (9, 10, 11), axis), [few_values])
    assert_matches_reference(arg_model(tmp_path, opcode, (9, 10, 11), axis), [np.full((9, 10, 11), -128, np.int8)])


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
def test_int8_arg_max_min_every_position_of_every_value(tmp_path, opcode):
    assert_matches_reference(arg_model(tmp_path, opcode, (12, 256), 1), [every_int8_rows(12, seed=2)])


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
def test_float_arg_max_min_with_nan_and_infinities(tmp_path, opcode):
    nan, inf = np.nan, np.inf
    x = np.array([[nan, 1, 2, 0], [1, nan, 5, 3], [nan, nan, nan, nan], [-inf, -inf, inf, inf], [0.0, -0.0, 0.0, -0.0],
                  [3, 3, 3, 3]], np.float32)
    assert_matches_reference(arg_model(tmp_path, opcode, (6, 4), -1, "float32"), [x])


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_int64_indexes_equal_the_int32_ones(tmp_path, opcode, dtype):
    """TFLite Micro writes only int32 indexes; the converter's default int64 ones are the same numbers."""
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 5, (3, 7, 5)).astype(np.int8 if dtype == "int8" else np.float32)
    expected = reference_outputs(arg_model(tmp_path, opcode, (3, 7, 5), 1, dtype, "int32"), [x])[0]
    got = run_host(compile_model(arg_model(tmp_path, opcode, (3, 7, 5), 1, dtype, "int64")), [x])[0]
    assert got.dtype == np.int64 and np.array_equal(got, expected.astype(np.int64))
    assert np.array_equal(got, (np.argmax if opcode == "ARG_MAX" else np.argmin)(x, axis=1))


# -- CUMSUM -----------------------------------------------------------------------------

def cumsum_model(tmp_path, shape, axis, dtype="int8", in_q=None, out_q=None, exclusive=False, reverse=False):
    tensors = [tensor("input", shape, dtype, in_q), tensor("axis", (), "int32", data=np.array(axis, np.int32)),
               tensor("output", shape, dtype, out_q)]
    return write_model(tmp_path, tensors, Op(OPS.CUMSUM, [0, 1], [2],
                                             options=options("Cumsum", Exclusive=exclusive, Reverse=reverse)))


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("in_q,out_q", [((0.05, 3), (0.3, -5)), ((0.02, -128), (0.5, 0)), ((0.1, 127), (0.1, 127))])
def test_int8_cumsum_of_every_int8_value(tmp_path, exclusive, reverse, in_q, out_q):
    """Lines of all 256 values: sums saturate the output and, past 16 extreme values, wrap int32 as the reference's."""
    rows = every_int8_rows(3, seed=6)
    path = cumsum_model(tmp_path, (3, 256), 1, "int8", in_q, out_q, exclusive, reverse)
    assert_matches_reference(path, [rows])
    assert_matches_reference(path, [np.sort(rows, axis=1)[:, ::-1].copy()])


def test_float_cumsum_along_every_axis(tmp_path):
    x = np.random.default_rng(7).uniform(-3, 3, (3, 4, 5)).astype(np.float32)
    for axis in (0, 1, 2, -2):
        for exclusive in (False, True):
            path = cumsum_model(tmp_path, (3, 4, 5), axis, "float32", exclusive=exclusive, reverse=axis == 1)
            assert_matches_reference(path, [x])


# -- L2_NORMALIZATION, L2_POOL_2D --------------------------------------------------------------

def l2_norm_model(tmp_path, shape, dtype="int8", in_q=None):
    out_q = (1 / 128, 0) if dtype == "int8" else None
    return write_model(tmp_path, [tensor("input", shape, dtype, in_q), tensor("output", shape, dtype, out_q)],
                       Op(OPS.L2_NORMALIZATION, [0], [1]))


@pytest.mark.parametrize("zero_point", [-128, -1, 0, 37, 127])
def test_int8_l2_normalization_of_every_int8_value(tmp_path, zero_point):
    """Rows of every value, every value alone in its row, and rows that are all zero point (a zero norm)."""
    path = l2_norm_model(tmp_path, (4, 256), "int8", (0.05, zero_point))
    rows = every_int8_rows(4, seed=8)
    rows[3] = zero_point
    assert_matches_reference(path, [rows])
    singles = l2_norm_model(tmp_path, (256, 1), "int8", (0.05, zero_point))
    assert_matches_reference(singles, [EVERY_INT8.reshape(256, 1)])
    pairs = l2_norm_model(tmp_path, (256, 2), "int8", (0.05, zero_point))
    assert_matches_reference(pairs, [np.stack([EVERY_INT8, np.roll(EVERY_INT8, 77)], axis=1)])


def test_int8_l2_normalization_of_a_sum_of_squares_above_2_to_the_29(tmp_path):
    """The inverse square root's pre-scaling loop (sums >= 2^29) runs only on long rows."""
    path = l2_norm_model(tmp_path, (3, 9000), "int8", (0.02, 127))
    rng = np.random.default_rng(9)
    spread = np.concatenate([np.full(8300, -128), np.resize(EVERY_INT8, 700)])  # outputs 0 and +-1 around the norm
    rows = np.stack([np.full(9000, -128), spread, rng.permutation(spread)]).astype(np.int8)
    assert int(((rows.astype(np.int64) - 127) ** 2).sum(axis=1).min()) >= 1 << 29
    assert_matches_reference(path, [rows])


def test_float_l2_normalization_small_and_zero_rows(tmp_path):
    path = l2_norm_model(tmp_path, (4, 5), "float32")
    x = np.array([[0, 0, 0, 0, 0], [1e-7, 0, 0, 0, -2e-7], [3, 4, 0, 0, 0], [1e18, -1e18, 5e17, 0, 1]], np.float32)
    assert_matches_reference(path, [x])


def test_l2_pool_window_covering_the_whole_input(tmp_path):
    tensors = [tensor("input", (1, 3, 5, 2), "float32"), tensor("output", (1, 1, 1, 2), "float32")]
    op = Op(OPS.L2_POOL_2D, [0], [1], options=options("Pool2D", Padding=1, StrideH=1, StrideW=1, FilterHeight=3,
                                                     FilterWidth=5, FusedActivationFunction=3))
    x = np.random.default_rng(10).uniform(-4, 4, (1, 3, 5, 2)).astype(np.float32)
    assert_matches_reference(write_model(tmp_path, tensors, op), [x], sanitize=True)


# -- LOG_SOFTMAX ------------------------------------------------------------------------------

def log_softmax_model(tmp_path, shape, dtype="int8", in_q=None, out_q=(16 / 256, 127)):
    return write_model(tmp_path, [tensor("input", shape, dtype, in_q),
                                  tensor("output", shape, dtype, out_q if dtype == "int8" else None)],
                       Op(OPS.LOG_SOFTMAX, [0], [1]))


LOG_SOFTMAX_SCALES = [(0.1, 3), (0.02, -128), (1.0, 0), (0.0039, 5), (0.3, 100), (5.0, -7), (0.0005, 0), (0.0625, 127)]
SPECIAL_ROWS = [[0] * 8, [-128] * 8, [127] * 8, [127] + [-128] * 7, [-128, 127, 0, -1, 1, 2, 3, 4],
                [5, 4, 3, 2, 1, 0, -1, -2], [-100, -101, 90, 89, 90, 89, 0, 0]]


@pytest.mark.parametrize("in_q", LOG_SOFTMAX_SCALES)
def test_int8_log_softmax_every_int8_value_and_special_rows(tmp_path, in_q):
    assert_matches_reference(log_softmax_model(tmp_path, (4, 256), "int8", in_q), [every_int8_rows(4, seed=11)])
    assert_matches_reference(log_softmax_model(tmp_path, (7, 8), "int8", in_q), [np.array(SPECIAL_ROWS, np.int8)])


def test_int8_log_softmax_long_rows(tmp_path):
    """4000 equal values sum to 4000 in Q12, close to the 4096 a Q12 sum holds."""
    path = log_softmax_model(tmp_path, (3, 4000), "int8", (0.05, 0))
    rng = np.random.default_rng(12)
    rows = np.stack([np.zeros(4000), rng.integers(-128, 128, 4000), rng.integers(100, 128, 4000)]).astype(np.int8)
    assert_matches_reference(path, [rows])


def test_float_log_softmax_wide_ranges(tmp_path):
    rng = np.random.default_rng(13)
    x = np.concatenate([rng.uniform(-50, 50, (3, 16)), rng.uniform(-1e-3, 1e-3, (2, 16)), np.zeros((1, 16))])
    assert_matches_reference(log_softmax_model(tmp_path, (6, 16), "float32"), [x.astype(np.float32)])


# -- the kernel library's sqrt and log ---------------------------------------------------------------

FLOAT_MATH_PROGRAM = r"""
#include <stdio.h>
#include "usmp_kernels/float_math.h"
int main(void) {
    float x;
    while (scanf("%a", &x) == 1) {
        printf("%a %a\n", (double)usmp_sqrtf(x), (double)usmp_logf(x));
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def sqrt_and_log(tmp_path_factory):
    work = tmp_path_factory.mktemp("sqrt_log")
    (work / "main.c").write_text(FLOAT_MATH_PROGRAM)
    exe = work / "sqrt_log"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{KERNELS_INCLUDE_DIR}",
                    str(work / "main.c"), str(KERNELS_SRC_DIR / "float_math.c"), "-o", str(exe)], check=True)

    def run(xs: np.ndarray):
        text = "\n".join(float(x).hex() for x in xs.astype(np.float32)) + "\n"
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.split()
        values = np.array([float.fromhex(v) for v in out], dtype=np.float64).reshape(-1, 2)
        return values[:, 0], values[:, 1]

    return run


POSITIVE_FLOATS = np.concatenate([np.geomspace(1.4e-45, 3.4e38, 100001), np.linspace(0.5, 2.0, 50001),
                                  np.linspace(0.999, 1.001, 20001), np.arange(1, 5000)]).astype(np.float32)


def test_sqrtf_is_correctly_rounded(sqrt_and_log):
    got, _ = sqrt_and_log(POSITIVE_FLOATS)
    assert np.array_equal(got.astype(np.float32), np.sqrt(POSITIVE_FLOATS))


def test_logf_within_two_ulp(sqrt_and_log):
    _, got = sqrt_and_log(POSITIVE_FLOATS)
    exact = np.log(POSITIVE_FLOATS.astype(np.float64))
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    nonzero = exact != 0
    assert (np.abs(got - exact)[nonzero] / spacing[nonzero]).max() <= 2.0
    assert got[~nonzero].tolist() == [0.0] * int((~nonzero).sum())


def test_sqrtf_and_logf_special_values(sqrt_and_log):
    sqrt, log = sqrt_and_log(np.array([0.0, -0.0, np.inf, -1.0, np.nan, -np.inf], np.float32))
    assert sqrt[0] == 0.0 and np.signbit(sqrt[1]) and sqrt[2] == np.inf and np.isnan(sqrt[3:]).all()
    assert log[0] == log[1] == -np.inf and log[2] == np.inf and np.isnan(log[3:]).all()


# -- rejections ---------------------------------------------------------------------------------------

def test_int8_reduce_max_with_two_quantizations_is_refused(tmp_path):
    path = reduction_model(tmp_path, "REDUCE_MAX", (2, 3), [1], "int8", (0.1, 0), (0.2, 0))
    with pytest.raises(ModelError, match=r"operator 0 \(REDUCE_MAX\): int8 input quantization \(0\.1, 0\) and output "
                                         r"quantization \(0\.2, 0\) differ") as info:
        compile_model(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("build_path,message", [
    (lambda p: log_softmax_model(p, (2, 4), "int8", (0.1, 0), (1 / 256, -128)),
     r"operator 0 \(LOG_SOFTMAX\): int8 output must have scale 16/256 and zero point 127"),
    (lambda p: log_softmax_model(p, (2, 4), "int8", (1e-9, 0)),
     r"operator 0 \(LOG_SOFTMAX\): input scale 1e-09 is too small for the int8 kernel"),
    (lambda p: reduction_model(p, "REDUCE_MAX", (2, 3), [1], "int16", (0.1, 0), (0.1, 0)),
     r"operator 0 \(REDUCE_MAX\): tensor 0 'input' has type int16; supported here: int8, float32"),
    (lambda p: reduction_model(p, "SUM", (2, 3), [2], "float32"),
     r"operator 0 \(SUM\): axis 2 is out of range for a 2-D input"),
    (lambda p: arg_model(p, "ARG_MAX", (2, 3), 1, "int8", "int16"),
     r"operator 0 \(ARG_MAX\): tensor 2 'output' has type int16; supported here: int32, int64"),
    (lambda p: cumsum_model(p, (2, 3), 1, "int8", (0.1, 0), (1e-9, 0)),
     r"operator 0 \(CUMSUM\): the output rescale factor [\d.e+]+ is outside \(0, 1\)"),
    (lambda p: write_model(p, [tensor("input", (1, 4, 4, 2), "int8", (0.1, 0)),
                               tensor("output", (1, 2, 2, 2), "int8", (0.1, 0))],
                           Op(OPS.L2_POOL_2D, [0], [1], options=options("Pool2D", Padding=1, StrideH=2, StrideW=2,
                                                                         FilterHeight=2, FilterWidth=2))),
     r"operator 0 \(L2_POOL_2D\): tensor 0 'input' has type int8; supported here: float32"),
])
def test_unsupported_cases_are_one_line_errors(tmp_path, build_path, message):
    with pytest.raises(ModelError, match=message) as info:
        compile_model(build_path(tmp_path))
    assert "\n" not in str(info.value)


def test_arg_max_over_two_axes_is_refused(tmp_path):
    tensors = [tensor("input", (2, 3), "float32"), tensor("axis", (2,), "int32", data=np.array([0, 1], np.int32)),
               tensor("output", (2,), "int32")]
    with pytest.raises(ModelError, match=r"operator 0 \(ARG_MAX\): axis tensor 1 'axis' holds 2 values"):
        compile_model(write_model(tmp_path, tensors, Op(OPS.ARG_MAX, [0, 1], [2])))


# -- no floating point and no 64-bit division in the integer kernels ---------------------------------

ARM_GCC = shutil.which("arm-none-eabi-gcc")
ARM_OBJDUMP = shutil.which("arm-none-eabi-objdump")


@pytest.mark.skipif(ARM_GCC is None or ARM_OBJDUMP is None, reason="arm-none-eabi toolchain not installed")
@pytest.mark.parametrize("source", ["reduce.c", "arg_min_max.c", "cumsum.c", "l2.c", "log_softmax.c"])
def test_integer_kernels_use_no_float_and_no_64bit_division(tmp_path, source):
    obj = tmp_path / "kernel.o"
    subprocess.run([ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                    f"-I{KERNELS_INCLUDE_DIR}", "-c", str(KERNELS_SRC_DIR / source), "-o", str(obj)], check=True)
    graph = call_graph(obj)
    integer_kernels = [f for f in graph if f.startswith("usmp_") and ("_s8" in f or "_s16" in f) and "f32" not in f]
    assert integer_kernels, f"no integer kernels found in {source}"
    for kernel in integer_kernels:
        used = reachable(graph, kernel)
        assert not [s for s in used if is_float_routine(s)], f"{kernel} uses floating point: {sorted(used)}"
        assert not used & {"__aeabi_ldivmod", "__aeabi_uldivmod", "__aeabi_idiv", "__aeabi_idivmod"}, \
            f"{kernel} divides: {sorted(used)}"

