"""`usmp check`: the whole model in one report, exit 0 when it compiles and 2 when not; compile counts the problems."""
from __future__ import annotations

import json
from pathlib import Path
import types

import pytest
import tflite

import tflite_builder as tb
from test_import_errors import assert_clean_error, usmp
from test_zephyr_cli import load_west_command

OP = tflite.BuiltinOperator
TFLM_MODELS = tb.__file__.rsplit("/", 1)[0] + "/models/tflm"


def custom_model() -> tb.Sub:
    """FC -> custom MyFancyOp -> RELU -> custom DspWindow -> RELU: two custom operators between supported ones."""
    sub = tb.fc_subgraph()
    for name in ("fancy_out", "relu_out", "window_out", "output_2"):
        sub.tensors.append(tb.T(name, (1, 2), "int8", scales=[0.1]))
    sub.ops += [tb.Op(OP.CUSTOM, [3], [4], custom_code="MyFancyOp"), tb.Op(OP.RELU, [4], [5]),
                tb.Op(OP.CUSTOM, [5], [6], custom_code="DspWindow"), tb.Op(OP.RELU, [6], [7])]
    sub.outputs = [7]
    return sub


def write(tmp_path, subs, name="model.tflite"):
    path = tmp_path / name
    path.write_bytes(tb.build(subs))
    return path


def test_custom_operators_are_all_named(tmp_path):
    done = usmp("check", str(write(tmp_path, [custom_model()])))
    assert done.returncode == 2, done.stderr
    assert done.stderr == ""
    out = done.stdout
    print(out)
    assert "custom operators: MyFancyOp (operator 1), DspWindow (operator 3)" in out
    assert "control flow: none" in out and "unsupported tensor types: none" in out
    assert "  - operator 1: custom operator MyFancyOp is not supported" in out
    assert "  - operator 3: custom operator DspWindow is not supported" in out
    assert "problems (2):" in out and out.rstrip().endswith("verdict: refused (2 problems)")
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and line.split()[0].isdigit()}
    assert sorted(lines) == ["0", "1", "2", "3", "4"]
    assert lines["0"].split()[1:4] == ["FULLY_CONNECTED", "int8,int8,int32", "->"] and lines["0"].endswith("supported")
    assert lines["2"].split()[1] == "RELU" and lines["2"].endswith("supported")
    assert "NOT SUPPORTED: operator 3: custom operator DspWindow" in lines["3"]


def test_json_report_schema(tmp_path):
    done = usmp("check", "--json", str(write(tmp_path, [custom_model()])))
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert set(report) == {"model", "subgraphs", "tensors", "operators", "unsupported_tensor_types",
                           "custom_operators", "control_flow", "problems", "verdict"}
    assert report["verdict"] == "refused" and report["subgraphs"] == 1 and report["tensors"] == 8
    assert [o["opcode"] for o in report["operators"]] == ["FULLY_CONNECTED", "CUSTOM:MyFancyOp", "RELU",
                                                         "CUSTOM:DspWindow", "RELU"]
    fc, fancy = report["operators"][0], report["operators"][1]
    assert set(fc) == {"subgraph", "index", "opcode", "custom_name", "inputs", "outputs", "supported", "reason",
                       "folded"}
    assert fc["supported"] is True and fc["reason"] is None and fc["custom_name"] is None
    assert fc["inputs"] == [{"tensor": 0, "type": "int8"}, {"tensor": 1, "type": "int8"}, {"tensor": 2, "type": "int32"}]
    assert fancy["supported"] is False and fancy["custom_name"] == "MyFancyOp"
    assert fancy["reason"] == "operator 1: custom operator MyFancyOp is not supported"
    assert report["custom_operators"] == [{"name": "MyFancyOp", "operators": [{"subgraph": 0, "index": 1}]},
                                          {"name": "DspWindow", "operators": [{"subgraph": 0, "index": 3}]}]
    assert report["control_flow"] == [] and report["unsupported_tensor_types"] == []
    assert len(report["problems"]) == 2


def test_a_model_that_compiles_exits_0(tmp_path):
    done = usmp("check", f"{TFLM_MODELS}/person_detect.tflite")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("verdict: compiles")
    assert "(1 subgraph, 31 operators, 89 tensors)" in done.stdout
    report = json.loads(usmp("check", "--json", f"{TFLM_MODELS}/person_detect.tflite").stdout)
    assert report["verdict"] == "compiles" and report["problems"] == []
    assert all(o["supported"] for o in report["operators"])


def test_folded_float16_dequantize_is_marked():
    done = usmp("check", f"{TFLM_MODELS}/../float16/add_constant_f16.tflite")
    assert done.returncode == 0
    lines = [line for line in done.stdout.splitlines() if "DEQUANTIZE" in line or " ADD " in line]
    assert lines[0].split()[1:5] == ["DEQUANTIZE", "float16", "->", "float32"]
    assert lines[0].endswith("supported (folded into a constant at compile time)")
    assert lines[1].endswith(" supported")


def test_lowering_refusals_and_tensor_types_are_collected(tmp_path):
    """An operator's own lowering gives its reason; a tensor of an unknown type is listed once, by type."""
    sub = custom_model()
    sub.tensors[0].dtype = "int16"  # FULLY_CONNECTED refuses an int16 input with an int8 output
    sub.tensors.append(tb.T("text", (1, 2), "string"))  # a type the importer does not know
    sub.tensors.append(tb.T("half", (1, 2), "float16"))  # float16 is for constants only
    report = json.loads(usmp("check", "--json", str(write(tmp_path, [sub]))).stdout)
    fc = report["operators"][0]
    assert fc["supported"] is False and fc["reason"].startswith("operator 0 (FULLY_CONNECTED): ")
    assert "int16" in fc["reason"]
    assert report["unsupported_tensor_types"] == [
        {"subgraph": 0, "index": 8, "name": "text", "type": "string",
         "reason": "tensor 8 'text' has type STRING, which is not supported"},
        {"subgraph": 0, "index": 9, "name": "half", "type": "float16",
         "reason": "tensor 9 'half' has type FLOAT16 and is not a constant; float16 is supported only for constant "
                   "weights that DEQUANTIZE expands, not for activations"}]
    assert len(report["problems"]) == 5  # two tensors, two custom operators, the fully connected layer


def test_control_flow_and_other_subgraphs_are_listed(tmp_path):
    main = tb.fc_subgraph()
    main.tensors.append(tb.T("looped", (1, 2), "int8", scales=[0.1]))
    main.ops.append(tb.Op(OP.WHILE, [3], [4]))
    main.outputs = [4]
    body = tb.fc_subgraph()
    body.tensors.append(tb.T("body_out", (1, 2), "int8", scales=[0.1]))
    body.ops.append(tb.Op(OP.CUSTOM, [3], [4], custom_code="InBody"))
    body.outputs = [4]
    done = usmp("check", str(write(tmp_path, [main, body])))
    assert done.returncode == 2
    assert "control flow: WHILE (operator 1)" in done.stdout
    assert "custom operators: InBody (subgraph 1 operator 1)" in done.stdout
    assert "  - operator 1 (WHILE) runs subgraph None as its loop condition, but the model has subgraphs 0 to 1" \
        in done.stdout  # no options table: which subgraphs it runs is unknown
    assert "  - subgraph 1: operator 1: custom operator InBody is not supported" in done.stdout
    assert "(2 subgraphs, 4 operators, 10 tensors)" in done.stdout
    assert "problems (2):" in done.stdout


def test_compile_names_the_first_problem_and_counts_them(tmp_path):
    model = write(tmp_path, [custom_model()])
    line = assert_clean_error(usmp("compile", str(model), "-o", str(tmp_path / "out")))
    assert "operator 1: custom operator MyFancyOp is not supported" in line
    assert line.endswith(f"(2 problems in all; `usmp check {model}` lists them)")
    one = write(tmp_path, [tb.fc_subgraph(in_dtype="int16")], "one.tflite")
    assert assert_clean_error(usmp("compile", str(one), "-o", str(tmp_path / "o"))).endswith(
        f"(1 problem in all; `usmp check {one}` lists it)")


def test_files_that_are_no_model_are_one_line_errors(tmp_path):
    junk = tmp_path / "junk.tflite"
    junk.write_bytes(b"not a model at all")
    assert_clean_error(usmp("check", str(junk)), "not a TFLite model")
    assert_clean_error(usmp("check", str(tmp_path / "missing.tflite")), "cannot read model file")
    truncated = tmp_path / "truncated.tflite"
    truncated.write_bytes(tb.build([custom_model()])[:200])
    assert_clean_error(usmp("check", str(truncated)))


def test_west_usmp_check(tmp_path, monkeypatch, capsys):
    west_command = load_west_command(monkeypatch)
    stub = types.SimpleNamespace(die=lambda message: pytest.fail(message))
    with pytest.raises(SystemExit) as exited:
        west_command.UsmpCommand.do_run(stub, None, ["check", str(write(tmp_path, [custom_model()]))])
    assert exited.value.code == 2
    assert "custom operators: MyFancyOp (operator 1), DspWindow (operator 3)" in capsys.readouterr().out
    west_command.UsmpCommand.do_run(stub, None, ["check", f"{TFLM_MODELS}/hello_world_int8.tflite"])
    assert capsys.readouterr().out.rstrip().endswith("verdict: compiles")


def test_check_is_listed_in_help():
    done = usmp("--help")
    assert done.returncode == 0 and "report every operator, tensor type and problem of a model" in done.stdout


def test_a_model_with_state_that_compiles_is_reported_as_compiling():
    """Variable reads and writes lower in check as in compile (the state stage resolves them first)."""
    model = Path(__file__).parent / "models" / "stateful" / "kws_stream.tflite"
    done = usmp("check", str(model))
    assert done.returncode == 0, done.stdout
    assert "verdict: compiles" in done.stdout and "problems (" not in done.stdout
