"""The kernel library's own expf/tanhf stay within a few ULP of the true values."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from usmp.paths import KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR

PROGRAM = r"""
#include <stdio.h>
#include "usmp_kernels/float_math.h"
int main(void) {
    float x;
    while (scanf("%a", &x) == 1) {
        printf("%a %a\n", (double)usmp_expf(x), (double)usmp_tanhf(x));
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
        values = np.array([float.fromhex(v) for v in out], dtype=np.float64).reshape(-1, 2)
        return values[:, 0], values[:, 1]

    return run


def ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(got - exact) / spacing


def test_expf_over_its_range(evaluate):
    xs = np.concatenate([np.linspace(-87.0, 88.7, 20001), np.linspace(-1, 1, 2001)]).astype(np.float32)
    got, _ = evaluate(xs)
    exact = np.exp(xs.astype(np.float64))
    assert ulps(got, exact).max() <= 2.0


def test_expf_limits(evaluate):
    got, _ = evaluate(np.array([0.0, 89.0, -110.0, -0.0], np.float32))
    assert got[0] == 1.0 and np.isinf(got[1]) and got[2] == 0.0 and got[3] == 1.0


def test_tanhf_relative_accuracy_including_tiny_inputs(evaluate):
    xs = np.concatenate([np.linspace(-10, 10, 20001), np.geomspace(1e-6, 0.5, 2000),
                         -np.geomspace(1e-6, 0.5, 2000)]).astype(np.float32)
    _, got = evaluate(xs)
    exact = np.tanh(xs.astype(np.float64))
    nonzero = exact != 0
    assert ulps(got[nonzero], exact[nonzero]).max() <= 3.0
    assert np.all(np.abs(got) <= 1.0)
