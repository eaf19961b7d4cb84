"""Shapes the graph computes, resolved at compile time (usmp/shapes) once the input shapes are fixed.

The models (tests/models/make_dynamic_shape_models.py) keep the batch open: the
converter writes -1 in their shape signatures and computes the batch in the
graph (SHAPE -> STRIDED_SLICE -> PACK -> FILL/RESHAPE, BROADCAST_ARGS ->
BROADCAST_TO, an unrolled LSTM's TRANSPOSE [8, -1, 6] and UNPACK). TFLite Micro
refuses them (FILL with dims computed in the graph), so the references are: the
float models in LiteRT (without delegates); the int8 LSTM TFLite Micro running
its twin (the same file, each computed shape operand of FILL, BROADCAST_TO and
RESHAPE replaced by a constant of its value, each tensor's recorded shape the one
LiteRT ran with; TFLite Micro computes the rest, the shape arithmetic included);
the other int8 model LiteRT too (TFLite Micro has no int32 GATHER; LiteRT's
reference kernels take one scale for a per-channel FULLY_CONNECTED, its builtin
ones compute its FULLY_CONNECTED, ADD and MUL as TFLite Micro does).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import TEST_MODELS, litert_outputs, outputs_match, random_inputs, reference_outputs
from test_cortex_m import MISSING, run_on_smallest_board
from test_import_errors import compile_bytes
from test_ops_data_movement import const
from usmp.compiler import compile_model
from usmp.frontend import read_tflite
from usmp.runner.host import run_host
from usmp.shapes import resolve_shapes

OP = tflite.BuiltinOperator
MODELS_DIR = TEST_MODELS / "dynamic_shapes"
MODELS = sorted(p for p in MODELS_DIR.glob("*.tflite") if "_twin" not in p.stem)


def expected_outputs(model: Path, inputs):
    twin = model.with_name(model.stem.replace("_int8", "_twin_int8") + ".tflite")
    if twin != model and twin.exists():
        return reference_outputs(twin, inputs)
    return litert_outputs(model, inputs)


def test_the_models_are_there():
    assert [m.stem for m in MODELS] == ["lstm_unrolled_f32", "lstm_unrolled_int8", "reshape_fill_broadcast_f32",
                                        "reshape_fill_broadcast_int8"]


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_the_importer_sees_open_dimensions_and_the_pass_fixes_them(model):
    graph = read_tflite(model)
    open_tensors = [t for t in graph.tensors if t.signature is not None and any(d < 0 for d in t.signature[1:])]
    assert open_tensors, "the model should have a tensor with an open non-batch dimension"
    resolved = resolve_shapes(graph)
    assert all(t.signature is None for t in resolved.tensors)
    assert all(min(t.shape, default=1) > 0 for t in resolved.tensors)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_reference(model):
    compiled = compile_model(model)
    computed = {op.opcode for op in compiled.program.ops}
    assert not computed & {"SHAPE", "PACK", "FILL", "BROADCAST_ARGS", "GATHER", "STRIDED_SLICE"}  # all folded
    rng = np.random.default_rng(20)
    for trial in range(5):
        inputs = random_inputs(compiled.program.graph, rng)
        expected, got = expected_outputs(model, inputs), run_host(compiled, inputs)
        for e, g in zip(expected, got):
            assert outputs_match(e, g), f"{model.name} trial {trial}:\nexpected {e}\ngot      {g}"


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_matches_reference_on_cortex_m0(model):
    compiled = compile_model(model)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(21))
    for e, g in zip(expected_outputs(model, inputs), run_on_smallest_board(compiled, inputs).outputs):
        assert outputs_match(e, g)


def _reshape_by(shape_source_ops, extra_tensors, signature=(-1, 4)):
    """x[1,8] -> RESHAPE(x, shape) -> y[2,4] (signature as given), the shape made by the ops given."""
    tensors = [tb.T("x", (1, 8), "float32"), tb.T("y", (2, 4), "float32", signature=signature), *extra_tensors]
    ops = [*shape_source_ops, tb.Op(OP.RESHAPE, [0, 2], [1])]
    return tb.build([tb.Sub(tensors, ops, [0], [1])])


def test_a_shape_from_constants_resolves(tmp_path):
    """RESHAPE's shape is PACK(-1, 4): the pass computes [2, 4]; the graph folds to a view."""
    data = _reshape_by([tb.Op(OP.PACK, [3, 4], [2], options=tb.options("Pack", ValuesCount=2, Axis=0))],
                       [tb.T("shape", (2,), "int32"), const("minus_one", -1), const("four", 4)])
    model = tmp_path / "m.tflite"
    model.write_bytes(data)
    graph = resolve_shapes(read_tflite(model))
    assert graph.tensors[1].shape == (2, 4)


def test_a_shape_that_depends_on_data_is_refused_naming_the_tensor(tmp_path):
    """RESHAPE's shape is an input's values: known only at run time."""
    tensors = [tb.T("x", (1, 8), "float32"), tb.T("y", (2, 4), "float32", signature=(-1, 4)),
               tb.T("wanted", (2,), "int32")]
    data = tb.build([tb.Sub(tensors, [tb.Op(OP.RESHAPE, [0, 2], [1])], [0, 2], [1])])
    compile_bytes(tmp_path, data, "tensor 1 'y' has a dynamic shape [-1, 4] that depends on data",
                  "operator 0 (RESHAPE)", "tensor 2 'wanted'", "computed at run time")


def test_an_open_input_dimension_other_than_the_batch_is_refused(tmp_path):
    tensors = [tb.T("x", (1, 8), "float32", signature=(1, -1)), tb.T("y", (1, 8), "float32")]
    data = tb.build([tb.Sub(tensors, [tb.Op(OP.RELU, [0], [1])], [0], [1])])
    compile_bytes(tmp_path, data, "model input tensor 0 'x' has a dynamic shape [1, -1]", "only its batch")


def test_an_operator_without_a_shape_rule_names_the_tensor(tmp_path):
    """An open non-batch dimension out of an operator the pass has no rule for (here L2_POOL_2D)."""
    tensors = [tb.T("x", (1, 4, 4, 2), "float32"), tb.T("y", (1, 2, 2, 2), "float32", signature=(1, -1, -1, 2))]
    pool = tb.options("Pool2D", Padding=1, StrideW=2, StrideH=2, FilterWidth=2, FilterHeight=2)
    data = tb.build([tb.Sub(tensors, [tb.Op(OP.L2_POOL_2D, [0], [1], options=pool)], [0], [1])])
    compile_bytes(tmp_path, data, "tensor 1 'y' has a dynamic shape [1, -1, -1, 2]", "operator 0 (L2_POOL_2D)",
                  "cannot work out")
