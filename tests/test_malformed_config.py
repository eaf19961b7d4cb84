"""Wrong compile options: one line naming the option and, for a model that does not fit, each pool and its bytes.

Through the real CLI (in-process, like the malformed corpus): exit status 2,
no traceback, and the output directory left exactly as it was.
"""
from __future__ import annotations

import pytest

from malformed.worker import run_cli, snapshot
from reference import EXAMPLE_MODELS

MICRO_SPEECH = EXAMPLE_MODELS / "micro_speech_quantized.tflite"
WORKSPACE_BYTES = 4004  # what micro_speech needs with whole tensors (--tiling off; checked below)
CONSTANT_BYTES = 16792


def compile_error(tmp_path, *options: str) -> str:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "mine.txt").write_text("keep me")
    before = snapshot(out)
    code, stdout, stderr = run_cli(["compile", str(MICRO_SPEECH), "-o", str(out), *options])
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0].startswith("usmp: error: ")
    assert snapshot(out) == before
    return lines[0]


@pytest.mark.parametrize("spec, fragment", [
    ("ws", "--pool ws: expected NAME:KIND"),
    ("ws:heap", "kind 'heap' must be one of workspace, constant"),
    ("ws:workspace:size=12q", "'12q' is not a size in bytes"),
    ("ws:workspace:size=-5", "'-5' is not a size in bytes"),
    ("ws:workspace:align=3", "align=3 is not a power of two"),
    ("9ws:workspace", "pool name '9ws' must be a C identifier"),
    ("ws:workspace:colour=red", "unknown setting 'colour'"),
    ("ws:workspace:size", "'size' should be key=value"),
])
def test_wrong_pool_spec_names_the_option(tmp_path, spec, fragment):
    message = compile_error(tmp_path, "--pool", spec, "--pool", "c:constant")
    assert fragment in message


def test_missing_and_repeated_pools(tmp_path):
    assert "no workspace pool" in compile_error(tmp_path, "--pool", "c:constant")
    assert "pool 'w' is given twice" in compile_error(tmp_path, "--pool", "w:workspace", "--pool", "w:constant")


def test_model_that_does_not_fit_names_the_pool_bytes_needed_and_limit(tmp_path):
    message = compile_error(tmp_path, "--tiling", "off", "--pool", "ws:workspace:size=3000", "--pool", "c:constant")
    assert f"pool 'ws' needs at least {WORKSPACE_BYTES} B (limit 3000 B)" in message


def test_constants_that_do_not_fit(tmp_path):
    message = compile_error(tmp_path, "--pool", "ws:workspace", "--pool", "c:constant:size=1k")
    assert f"pool 'c' needs at least {CONSTANT_BYTES} B (limit 1024 B)" in message


def test_every_pool_too_small_is_named_with_its_bytes(tmp_path):
    message = compile_error(tmp_path, "--tiling", "off", "--pool", "a:workspace:size=1000",
                            "--pool", "b:workspace:size=2000", "--pool", "c:constant")
    assert "pool 'a' would need 4000 B (limit 1000 B)" in message
    assert "pool 'b' would need 4000 B (limit 2000 B)" in message


def test_a_pool_of_size_zero(tmp_path):
    assert "pool 'ws' needs at least" in compile_error(tmp_path, "--pool", "ws:workspace:size=0", "--pool", "c:constant")


def test_the_needed_bytes_quoted_above_are_what_a_fitting_compile_reports(tmp_path):
    code, stdout, _ = run_cli(["compile", str(MICRO_SPEECH), "-o", str(tmp_path / "ok"), "--tiling", "off",
                               "--pool", f"ws:workspace:size={WORKSPACE_BYTES}", "--pool", f"c:constant:size={CONSTANT_BYTES}"])
    assert code == 0 and f"ws {WORKSPACE_BYTES} B" in stdout and f"c {CONSTANT_BYTES} B" in stdout


@pytest.mark.parametrize("options, fragment", [
    (["--algorithm", "nope"], "unknown planning algorithm 'nope'"),
    (["--algorithm", "os:nothing"], "module 'os' has no function 'nothing'"),
    (["--time-limit", "-1"], "--time-limit -1.0: expected a non-negative number of seconds"),
    (["--time-limit", "nan"], "--time-limit nan"),
    (["--name", "a-b"], "--name 'a-b' must be a C identifier"),
    (["--name", "9lives"], "--name '9lives' must be a C identifier"),
])
def test_other_wrong_options(tmp_path, options, fragment):
    assert fragment in compile_error(tmp_path, *options)


def test_output_path_that_is_a_file(tmp_path):
    target = tmp_path / "model_out"
    target.write_text("not a directory")
    for out in (target, target / "sub"):
        code, _, stderr = run_cli(["compile", str(MICRO_SPEECH), "-o", str(out)])
        assert code == 2 and len(stderr.strip().splitlines()) == 1, stderr
        assert str(target) in stderr
    assert target.read_text() == "not a directory"
    assert [p.name for p in tmp_path.iterdir()] == ["model_out"]  # no staging directory left behind
