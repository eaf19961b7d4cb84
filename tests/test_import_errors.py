"""Every rejection of the importer: one clear line, exit status 2, no traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tflite

import tflite_builder as tb
from reference import EXAMPLE_MODELS

OP = tflite.BuiltinOperator


def usmp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "usmp", *args], capture_output=True, text=True, cwd=cwd)


def assert_clean_error(done: subprocess.CompletedProcess, *fragments: str) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def compile_bytes(tmp_path: Path, data: bytes, *fragments: str) -> str:
    model = tmp_path / "model.tflite"
    model.write_bytes(data)
    out = tmp_path / "out"
    message = assert_clean_error(usmp("compile", str(model), "-o", str(out)), *fragments)
    assert not out.exists(), "a failed compile must not create the output directory"
    return message


def fc_with_extra_op(opcode: int, custom: str | None = None) -> bytes:
    sub = tb.fc_subgraph()
    sub.tensors.append(tb.T("extra_out", (1, 2), "int8", scales=[0.1]))
    sub.ops.append(tb.Op(opcode, [3], [4], custom_code=custom))
    sub.outputs = [4]
    return tb.build([sub])


def test_unsupported_builtin_names_type_and_index(tmp_path):
    compile_bytes(tmp_path, fc_with_extra_op(OP.LSH_PROJECTION), "operator 1", "LSH_PROJECTION", "not supported")


def test_custom_operator_names_its_code_and_index(tmp_path):
    compile_bytes(tmp_path, fc_with_extra_op(OP.CUSTOM, "MyFancyOp"), "operator 1", "custom operator MyFancyOp")


def test_several_subgraphs(tmp_path):
    compile_bytes(tmp_path, tb.build([tb.fc_subgraph(), tb.fc_subgraph()]), "2 subgraphs")


def test_variable_handle_that_is_not_a_resource(tmp_path):
    compile_bytes(tmp_path, fc_with_extra_op(OP.VAR_HANDLE), "operator 1 (VAR_HANDLE)", "not a resource handle")


def test_read_variable_of_a_tensor_that_is_not_a_handle(tmp_path):
    compile_bytes(tmp_path, fc_with_extra_op(OP.READ_VARIABLE), "operator 1 (READ_VARIABLE)", "tensor 3 'output'",
                  "not a variable handle")


def test_variable_tensor(tmp_path):
    compile_bytes(tmp_path, tb.build([tb.fc_subgraph(variable=True)]), "tensor 0 'input'", "variable tensor")


def test_dynamic_shape(tmp_path):
    compile_bytes(tmp_path, tb.build([tb.fc_subgraph(signature=(1, -1))]), "tensor 0 'input'", "dynamic shape")


def test_unsupported_tensor_type_names_the_tensor(tmp_path):
    compile_bytes(tmp_path, tb.build([tb.fc_subgraph(in_dtype="float16")]), "tensor 0 'input'", "FLOAT16")


def test_unsupported_type_for_operator(tmp_path):
    compile_bytes(tmp_path, tb.build([tb.fc_subgraph(in_dtype="int16")]), "operator 0", "FULLY_CONNECTED", "int16")


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.99])
def test_truncated_model(tmp_path, fraction):
    data = (EXAMPLE_MODELS / "hello_world_int8.tflite").read_bytes()
    message = compile_bytes(tmp_path, data[: int(len(data) * fraction)])
    assert "corrupt" in message or "truncated" in message or "beyond the end" in message or "not a TFLite" in message


def test_not_a_model(tmp_path):
    compile_bytes(tmp_path, b"this is not a flatbuffer at all", "not a TFLite model")


def test_empty_file(tmp_path):
    compile_bytes(tmp_path, b"", "not a TFLite model")


def test_missing_file(tmp_path):
    assert_clean_error(usmp("compile", str(tmp_path / "nope.tflite"), "-o", str(tmp_path / "o")), "cannot read model file")


def test_wrong_input_array(tmp_path):
    model = tmp_path / "fc.tflite"
    model.write_bytes(tb.build([tb.fc_subgraph()]))
    bad = tmp_path / "in.npy"
    np.save(bad, np.zeros((1, 4), np.float32))
    assert_clean_error(usmp("run", str(model), "--input", str(bad), "--output-dir", str(tmp_path / "o")),
                       "input 0 'input' needs int8[1, 4]", "float32")


def test_wrong_number_of_inputs(tmp_path):
    model = tmp_path / "fc.tflite"
    model.write_bytes(tb.build([tb.fc_subgraph()]))
    assert_clean_error(usmp("run", str(model), "--output-dir", str(tmp_path / "o")), "1 input(s) but 0")


def test_failed_compile_leaves_existing_output_untouched(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.h").write_text("mine")
    model = tmp_path / "bad.tflite"
    model.write_bytes(fc_with_extra_op(OP.LSH_PROJECTION))
    assert_clean_error(usmp("compile", str(model), "-o", str(out)), "LSH_PROJECTION")
    assert sorted(p.name for p in out.iterdir()) == ["keep.h"]
    assert (out / "keep.h").read_text() == "mine"
