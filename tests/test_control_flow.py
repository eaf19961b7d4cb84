"""IF and WHILE (usmp/control): subgraphs as C functions called from an if/else and a loop.

The models (tests/models/make_control_flow_models.py) come from tf.cond and
tf.while_loop, float32 and int8 (whose IF/WHILE operands stay float32), a WHILE
with an IF in its body, and a Keras 3 LSTM (a WHILE over time steps). TFLite
Micro runs them all and is the reference, on the host and on the Cortex-M0. The
planner sees the blocks' buffers with their lifetimes: the two branches of an
IF may share memory, a WHILE's carried values live across the whole loop.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import TEST_MODELS, outputs_match, random_inputs, reference_outputs
from test_cortex_m import MISSING, run_on_smallest_board
from test_import_errors import compile_bytes
from usmp.check import check_model
from usmp.cli import main as usmp_main
from usmp.compiler import compile_model
from usmp.runner.host import run_host

OP = tflite.BuiltinOperator
MODELS = sorted((TEST_MODELS / "control_flow").glob("*.tflite"))


def model(stem):
    return TEST_MODELS / "control_flow" / f"{stem}.tflite"


def test_the_models_are_there():
    assert [m.stem for m in MODELS] == ["branches_f32", "branches_int8", "keras_lstm_f32", "loop_f32", "loop_int8",
                                        "nested_f32"]


@pytest.mark.parametrize("path", MODELS, ids=[m.stem for m in MODELS])
def test_matches_tflite_micro(path):
    compiled = compile_model(path)
    assert any(op.control is not None for op in compiled.program.ops)
    rng = np.random.default_rng(5)
    for trial in range(8):  # both branches, and loops of different trip counts
        inputs = random_inputs(compiled.program.graph, rng)
        for e, g in zip(reference_outputs(path, inputs), run_host(compiled, inputs)):
            assert outputs_match(e, g), f"{path.name} trial {trial}:\nexpected {e}\ngot      {g}"


def test_both_branches_and_several_trip_counts_are_taken():
    compiled = compile_model(model("loop_f32"))
    rng = np.random.default_rng(5)
    counts = {float(run_host(compiled, random_inputs(compiled.program.graph, rng))[1].item()) for _ in range(12)}
    assert len(counts) > 1, counts
    branch = compile_model(model("branches_f32"))
    ones = np.ones((1, 8), np.float32)
    assert not np.allclose(run_host(branch, [ones])[0], run_host(branch, [-ones])[0])


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed (scripts/bootstrap installs them)")
@pytest.mark.parametrize("path", MODELS, ids=[m.stem for m in MODELS])
def test_matches_tflite_micro_on_cortex_m0(path):
    compiled = compile_model(path)
    rng = np.random.default_rng(50)
    for _ in range(2):
        inputs = random_inputs(compiled.program.graph, rng)
        for e, g in zip(reference_outputs(path, inputs), run_on_smallest_board(compiled, inputs).outputs):
            assert outputs_match(e, g)


def test_the_generated_code_calls_subgraph_functions_from_an_if_and_a_loop():
    source = compile_model(model("nested_f32")).files["nested_f32.c"]
    assert "for (;;) {" in source and "break;" in source
    assert "if (" in source and "} else {" in source
    assert source.count("static void subgraph_") == 4  # loop condition, body, then and else


def plan_document(path, tmp_path):
    out = tmp_path / "plan.json"
    assert usmp_main(["compile", str(path), "-o", str(tmp_path / "out")]) == 0
    return json.loads((tmp_path / "out" / f"{path.stem}_plan.json").read_text())


def test_the_two_branches_share_memory(tmp_path):
    document = plan_document(model("branches_int8"), tmp_path)
    (region,) = document["control_flow"]
    then, otherwise = region["blocks"]
    assert then["last_step"] < otherwise["first_step"]
    placed = [b for b in document["buffers"] if b["pool"] == "workspace"]

    def of(block):
        return [b for b in placed if b["name"].startswith(f"sg{block['subgraph']}/")]

    overlap = [(a["name"], b["name"]) for a in of(then) for b in of(otherwise)
               if a["offset"] < b["offset"] + b["size_bytes"] and b["offset"] < a["offset"] + a["size_bytes"]]
    assert overlap, "no buffer of the else branch reuses the then branch's memory"


def test_the_carried_values_live_across_the_whole_loop(tmp_path):
    document = plan_document(model("loop_f32"), tmp_path)
    (region,) = document["control_flow"]
    cond, body = region["blocks"]
    carried = [b for b in document["buffers"] if b["name"].startswith(f"sg{body['subgraph']}/")
               and b["first_step"] == region["first_step"]]
    assert carried and all(b["last_step"] == region["last_step"] for b in carried)
    temporaries = [b for b in document["buffers"] if b["name"].startswith(f"sg{body['subgraph']}/")
                   and b["kind"] in ("tensor", "scratch") and b not in carried]
    assert temporaries and all(body["first_step"] <= b["first_step"] and b["last_step"] <= region["last_step"]
                               for b in temporaries)


def test_plan_check_and_svg_show_the_blocks(tmp_path, capsys):
    path = model("nested_f32")
    svg = tmp_path / "plan.svg"
    assert usmp_main(["plan", str(path), "--no-compare", "--svg", str(svg)]) == 0
    printed = capsys.readouterr().out
    assert "loop body" in printed and "then branch" in printed and "else branch" in printed
    assert "loop condition" in svg.read_text() and "then branch" in svg.read_text()
    report = check_model(path)
    assert report.compiles and [op.opcode for op in report.control_flow()] == ["WHILE", "IF"]


def test_an_if_whose_condition_is_not_bool_is_refused(tmp_path):
    branch = tb.Sub([tb.T("a", (1, 2), "float32"), tb.T("b", (1, 2), "float32")], [tb.Op(OP.RELU, [0], [1])], [0], [1])
    main = tb.Sub([tb.T("c", (1,), "int32"), tb.T("x", (1, 2), "float32"), tb.T("y", (1, 2), "float32")],
                  [tb.Op(OP.IF, [0, 1], [2], options=tb.options("If", ThenSubgraphIndex=1, ElseSubgraphIndex=1))],
                  [0, 1], [2])
    compile_bytes(tmp_path, tb.build([main, branch]), "operator 0 (IF)", "has type int32; it must be bool")


def test_a_subgraph_that_runs_itself_is_refused(tmp_path):
    q = [tb.T("c", (1,), "bool"), tb.T("x", (1, 2), "float32"), tb.T("y", (1, 2), "float32")]
    recursive = tb.Op(OP.IF, [0, 1], [2], options=tb.options("If", ThenSubgraphIndex=1, ElseSubgraphIndex=1))
    data = tb.build([tb.Sub(q, [recursive], [0, 1], [2]), tb.Sub(list(q), [recursive], [0, 1], [2])])
    compile_bytes(tmp_path, data, "subgraph 1 operator 0 (IF) runs subgraph 1 inside itself")


@pytest.mark.parametrize("option", [dict(reorder=True), dict(guards=True), dict(workspace_io=True),
                                    dict(user_pools=True)], ids=["reorder", "guards", "workspace_io", "user_pools"])
def test_compile_options_keep_the_results_under_the_sanitizers(option):
    """Guards check an IF's or WHILE's results only (its blocks' buffers share memory over its steps)."""
    from usmp.compiler import CompileOptions

    path = model("nested_f32")
    compiled = compile_model(path, CompileOptions(**option))
    rng = np.random.default_rng(12)
    for _ in range(2):
        inputs = random_inputs(compiled.program.graph, rng)
        for e, g in zip(reference_outputs(path, inputs), run_host(compiled, inputs, sanitize=True)):
            assert outputs_match(e, g)


def test_two_ifs_running_the_same_branches_get_their_own_blocks(tmp_path):
    """Each operator's blocks have their own buffers and functions (subgraph_1, subgraph_1_2, ...)."""
    branches = [tb.Sub([tb.T("a", (1, 3), "float32"), tb.T("b", (1, 3), "float32")], [tb.Op(op, [0], [1])], [0], [1])
                for op in (OP.RELU, OP.TANH)]
    tensors = [tb.T("c", (1,), "bool"), tb.T("x", (1, 3), "float32"), tb.T("y", (1, 3), "float32"),
               tb.T("z", (1, 3), "float32")]
    run = tb.options("If", ThenSubgraphIndex=1, ElseSubgraphIndex=2)
    main = tb.Sub(tensors, [tb.Op(OP.IF, [0, 1], [2], options=run), tb.Op(OP.IF, [0, 2], [3], options=run)],
                  [0, 1], [3])
    path = tmp_path / "twice.tflite"
    path.write_bytes(tb.build([main, *branches]))
    compiled = compile_model(path)
    source = compiled.files["twice.c"]
    assert "static void subgraph_1_2(" in source and "static void subgraph_2_2(" in source
    x = np.array([[-1.0, 0.5, 2.0]], np.float32)
    for c in (True, False):
        inputs = [np.array([c]), x]
        assert outputs_match(reference_outputs(path, inputs)[0], run_host(compiled, inputs)[0])
