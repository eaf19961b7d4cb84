"""int8 EXP, LOG and SQRT: TFLite Micro has none; LiteRT (builtin kernels) is the reference.

Each model maps every int8 value through the operator; the generated tables
must give LiteRT's outputs for all 256 inputs (SQRT: LiteRT stops with an error
below the input zero point, so only the inputs at or above it are compared;
USMP gives sqrt(0) there), on the host and on the Cortex-M0.
"""
from __future__ import annotations

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import litert_outputs
from test_cortex_m import MISSING, run_on_smallest_board
from usmp.compiler import compile_model
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator
CASES = [  # (operator, (input scale, zero point), (output scale, zero point))
    ("EXP", (0.05, -20), (0.1, -128)), ("EXP", (0.02, 10), (0.012, -100)), ("EXP", (0.1, 0), (1.0, -128)),
    ("LOG", (0.05, -128), (0.04, 60)), ("LOG", (0.003, -100), (0.05, 100)), ("LOG", (0.5, 30), (0.02, -5)),
    ("SQRT", (0.05, -100), (0.03, -128)), ("SQRT", (0.01, -128), (0.007, -128)), ("SQRT", (1.3, 0), (0.1, -60)),
]
EVERY_INT8 = np.arange(-128, 128).astype(np.int8)


def model(tmp_path, opcode, q_in, q_out):
    tensors = [tb.T("x", (256,), "int8", scales=[q_in[0]], zero_points=[q_in[1]]),
               tb.T("y", (256,), "int8", scales=[q_out[0]], zero_points=[q_out[1]])]
    path = tmp_path / f"{opcode.lower()}.tflite"
    path.write_bytes(tb.build([tb.Sub(tensors, [tb.Op(getattr(OP, opcode), [0], [1])], [0], [1])]))
    return path


def inputs_for(opcode, q_in):
    return np.maximum(EVERY_INT8, q_in[1]).astype(np.int8) if opcode == "SQRT" else EVERY_INT8


@pytest.mark.parametrize("opcode,q_in,q_out", CASES)
def test_every_value_matches_litert(tmp_path, opcode, q_in, q_out):
    path = model(tmp_path, opcode, q_in, q_out)
    compiled = compile_model(path)
    assert [call.function for op in compiled.program.ops for call in op.calls] == ["usmp_lookup_s8"]
    x = inputs_for(opcode, q_in)
    assert np.array_equal(litert_outputs(path, [x])[0], run_host(compiled, [x])[0])


def test_sqrt_below_the_zero_point_is_sqrt_of_zero(tmp_path):
    path = model(tmp_path, "SQRT", (0.05, -100), (0.03, -128))
    out = run_host(compile_model(path), [EVERY_INT8])[0]
    assert np.all(out[:28] == -128)


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("opcode,q_in,q_out", CASES[::3])
def test_matches_litert_on_cortex_m0(tmp_path, opcode, q_in, q_out):
    path = model(tmp_path, opcode, q_in, q_out)
    x = inputs_for(opcode, q_in)
    assert np.array_equal(litert_outputs(path, [x])[0], run_on_smallest_board(compile_model(path), [x]).outputs[0])
