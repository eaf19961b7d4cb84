"""The kernel library's own float functions stay within a few ULP of the true values."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR

FUNCTIONS = ("exp", "tanh", "expm1", "sqrt", "log", "sin", "cos")
PROGRAM = r"""
#include <stdio.h>
#include "usmp_kernels/float_math.h"
int main(void) {
    float x;
    while (scanf("%a", &x) == 1) {
        printf("%a %a %a %a %a %a %a\n", (double)usmp_expf(x), (double)usmp_tanhf(x), (double)usmp_expm1f(x),
               (double)usmp_sqrtf(x), (double)usmp_logf(x), (double)usmp_sinf(x), (double)usmp_cosf(x));
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def evaluate(tmp_path_factory):
    work = tmp_path_factory.mktemp("float_math")
    (work / "main.c").write_text(PROGRAM)
    exe = work / "float_math"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{KERNELS_INCLUDE_DIR}",
                    str(work / "main.c"), str(KERNELS_SRC_DIR / "float_math.c"), "-o", str(exe)], check=True)

    def run(xs: np.ndarray):
        text = "\n".join(float(x).hex() for x in xs.astype(np.float32)) + "\n"
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.split()
        values = np.array([float.fromhex(v) for v in out], dtype=np.float64).reshape(-1, len(FUNCTIONS))
        if len(xs) and values.shape[0] != len(xs):
            raise AssertionError("the program printed the wrong number of lines")
        return values.T

    return run


def ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(got - exact) / spacing


def test_expf_over_its_range(evaluate):
    xs = np.concatenate([np.linspace(-87.0, 88.7, 20001), np.linspace(-1, 1, 2001)]).astype(np.float32)
    got = evaluate(xs)[0]
    exact = np.exp(xs.astype(np.float64))
    assert ulps(got, exact).max() <= 2.0


def test_expf_limits(evaluate):
    got = evaluate(np.array([0.0, 89.0, -110.0, -0.0], np.float32))[0]
    assert got[0] == 1.0 and np.isinf(got[1]) and got[2] == 0.0 and got[3] == 1.0


def test_tanhf_relative_accuracy_including_tiny_inputs(evaluate):
    xs = np.concatenate([np.linspace(-10, 10, 20001), np.geomspace(1e-6, 0.5, 2000),
                         -np.geomspace(1e-6, 0.5, 2000)]).astype(np.float32)
    got = evaluate(xs)[1]
    exact = np.tanh(xs.astype(np.float64))
    nonzero = exact != 0
    assert ulps(got[nonzero], exact[nonzero]).max() <= 3.0
    assert np.all(np.abs(got) <= 1.0)


def test_expm1f_relative_accuracy_near_zero_and_saturation(evaluate):
    xs = np.concatenate([np.linspace(-30, 80, 20001), np.geomspace(1e-30, 1, 2000), -np.geomspace(1e-30, 1, 2000)])
    xs = xs.astype(np.float32)
    got = evaluate(xs)[2]
    exact = np.expm1(xs.astype(np.float64))
    assert ulps(got, exact).max() <= 3.0
    limits = evaluate(np.array([-100.0, 89.0, -0.0, np.nan], np.float32))[2]
    assert limits[0] == -1.0 and np.isposinf(limits[1]) and limits[2] == 0.0 and np.isnan(limits[3])


def test_sqrtf_is_correctly_rounded(evaluate):
    rng = np.random.default_rng(1)
    xs = np.concatenate([np.linspace(0, 100, 50001), np.geomspace(1e-45, 3.4e38, 50001),
                         rng.uniform(0, 4, 50000)]).astype(np.float32)
    assert np.array_equal(evaluate(xs)[3].astype(np.float32), np.sqrt(xs))
    special = evaluate(np.array([-1.0, -0.0, np.inf, -np.inf, np.nan], np.float32))[3]
    assert np.isnan(special[0]) and special[1] == 0 and np.signbit(special[1])
    assert np.isposinf(special[2]) and np.isnan(special[3]) and np.isnan(special[4])


def test_logf_over_every_binade(evaluate):
    rng = np.random.default_rng(2)
    xs = np.concatenate([np.geomspace(1e-45, 3.4e38, 100001), np.linspace(0.5, 2, 20001),
                         rng.uniform(0, 10, 50000)]).astype(np.float32)
    xs = xs[xs > 0]
    got = evaluate(xs)[4]
    exact = np.log(xs.astype(np.float64))
    nonzero = exact != 0
    assert ulps(got[nonzero], exact[nonzero]).max() <= 2.0
    assert np.all(got[~nonzero] == 0)
    special = evaluate(np.array([0.0, -0.0, -1.0, np.inf, np.nan], np.float32))[4]
    assert np.isneginf(special[0]) and np.isneginf(special[1]) and np.isnan(special[2])
    assert np.isposinf(special[3]) and np.isnan(special[4])


def test_sinf_cosf_accuracy_for_every_magnitude(evaluate):
    rng = np.random.default_rng(3)
    huge = np.concatenate([np.geomspace(1e5, 3.4e38, 20001), rng.uniform(6e4, 2e5, 20000)])
    xs = np.concatenate([np.linspace(-10, 10, 100001), np.linspace(-1e5, 1e5, 100001), huge, -huge,
                         np.geomspace(1e-30, 1, 2000), -np.geomspace(1e-30, 1, 2000)]).astype(np.float32)
    values = evaluate(xs)
    x64 = xs.astype(np.float64)
    for got, exact in ((values[5], np.sin(x64)), (values[6], np.cos(x64))):
        assert np.abs(got - exact).max() <= 2e-7
        relative = (np.abs(x64) <= 100) | (np.abs(x64) >= 65536)  # small, and Payne-Hanek reduced
        assert ulps(got[relative], exact[relative]).max() <= 3.0  # also for tiny sin(x)
    special = evaluate(np.array([np.inf, -np.inf, np.nan], np.float32))
    assert np.all(np.isnan(special[5:]))
