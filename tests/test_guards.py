"""Guard mode (--guards): canaries after workspace buffers name the operator that wrote out of bounds.

The out-of-bounds write is provoked by corrupting a kernel parameter of a
compiled program (one more batch for a FULLY_CONNECTED) and emitting the C
again: the generated code must stop right after that operator, return
1000 + its index and tell the hook which operator and buffer.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reference import EXAMPLE_MODELS, outputs_match, random_inputs, reference_outputs
from usmp.codegen import emit_library
from usmp.codegen.guards import GUARD_BYTES, GUARD_STATUS_BASE
from usmp.compiler import CompileOptions, compile_model
from usmp.errors import UsmpError
from usmp.paths import KERNELS_INCLUDE_DIR
from usmp.runner.host import WARNING_FLAGS, build_kernel_library, run_host

MICRO_SPEECH = EXAMPLE_MODELS / "micro_speech_quantized.tflite"
HELLO_WORLD = EXAMPLE_MODELS / "hello_world_int8.tflite"

HOOK_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "{name}.h"

static void report(int32_t operator_index, const char *operator_name, const char *buffer_name)
{{
	printf("guard: operator %d (%s) wrote past '%s'\n", (int)operator_index, operator_name, buffer_name);
}}

int main(void)
{{
	static int8_t in[USMP_{NAME}_INPUT_{INPUT}_LENGTH], out[USMP_{NAME}_OUTPUT_{OUTPUT}_LENGTH];
	struct usmp_{name}_inputs inputs = {{ .{input} = in }};
	struct usmp_{name}_outputs outputs = {{ .{output} = out }};
	int32_t status;

	memset(in, 7, sizeof(in));
	usmp_{name}_guard_hook = report;
	status = usmp_{name}_run(&inputs, &outputs);
	printf("status %d\n", (int)status);
	return 0;
}}
"""


def corrupted(model: Path, op_index: int, field: str, delta: int):
    """Compile with guards, then make one operator's kernel write past its output."""
    compiled = compile_model(model, CompileOptions(guards=True, tiling="off"))  # the operator's own call
    op = next(o for o in compiled.program.ops if o.op_index == op_index)
    op.calls[0].params[field] += delta
    compiled.files.update(emit_library(compiled.program, compiled.layout, model.name, guards=True))
    return compiled


def run_with_hook(compiled, work: Path) -> str:
    """Build the generated library with a main() that installs the guard hook; its stdout."""
    name = compiled.program.name
    header = compiled.files[f"{name}.h"]
    member = lambda side: header.split(f"struct usmp_{name}_{side} {{")[1].split("*")[1].split(";")[0].strip()
    inp, out = member("inputs"), member("outputs")
    for file_name, text in compiled.files.items():
        (work / file_name).write_text(text)
    (work / "main.c").write_text(HOOK_MAIN.format(name=name, NAME=name.upper(), input=inp, INPUT=inp.upper(),
                                                  output=out, OUTPUT=out.upper()))
    cc = shlex.split(os.environ.get("CC", "cc"))
    flags = WARNING_FLAGS + ["-O1"]
    kernels = build_kernel_library(cc, flags)
    sources = [str(work / f) for f in compiled.files if f.endswith(".c")] + [str(work / "main.c")]
    subprocess.run(cc + flags + ["-I", str(work), "-I", str(KERNELS_INCLUDE_DIR), *sources, str(kernels), "-lm",
                                 "-o", str(work / "model")], check=True, capture_output=True, text=True)
    return subprocess.run([str(work / "model")], capture_output=True, text=True, timeout=60, check=True).stdout


def test_out_of_bounds_write_names_the_operator_and_buffer(tmp_path):
    compiled = corrupted(MICRO_SPEECH, op_index=2, field="batches", delta=1)  # FC writes a second row
    stdout = run_with_hook(compiled, tmp_path)
    assert "guard: operator 2 (FULLY_CONNECTED) wrote past 'add_1'" in stdout
    assert f"status {GUARD_STATUS_BASE + 2}" in stdout


def test_out_of_bounds_write_stops_the_run_with_the_operator_status():
    compiled = corrupted(HELLO_WORLD, op_index=1, field="out_features", delta=2)
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(3))
    with pytest.raises(UsmpError, match=f"run returned {GUARD_STATUS_BASE + 1}"):
        run_host(compiled, inputs)


def test_without_guards_the_same_corruption_goes_unnoticed(tmp_path):
    """The canaries are what catch it: without --guards the run 'succeeds' (so the test above means something)."""
    compiled = compile_model(MICRO_SPEECH, CompileOptions(tiling="off"))
    next(o for o in compiled.program.ops if o.op_index == 2).calls[0].params["batches"] += 1
    compiled.files.update(emit_library(compiled.program, compiled.layout, MICRO_SPEECH.name))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(3))
    run_host(compiled, inputs)  # no error: the write landed in the next buffer's space


@pytest.mark.parametrize("model", [MICRO_SPEECH, HELLO_WORLD], ids=lambda m: m.stem)
def test_guarded_model_runs_bit_exact_under_sanitizers(model):
    plain = compile_model(model)
    guarded = compile_model(model, CompileOptions(guards=True))
    assert "usmp_guard_check" in guarded.files[f"{guarded.program.name}.c"]
    assert "guard" not in plain.files[f"{plain.program.name}.c"]
    assert guarded.plan.pool_sizes["workspace"] >= plain.plan.pool_sizes["workspace"] + GUARD_BYTES
    inputs = random_inputs(guarded.program.graph, np.random.default_rng(11))
    for e, g in zip(reference_outputs(model, inputs), run_host(guarded, inputs, sanitize=True)):
        assert outputs_match(e, g)


def test_cli_guards_option(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "usmp", "compile", str(HELLO_WORLD), "-o", str(out), "--guards"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    header = (out / "hello_world_int8.h").read_text()
    assert "USMP_HELLO_WORLD_INT8_GUARD_STATUS_BASE 1000" in header
    assert "usmp_hello_world_int8_guard_hook" in header


def test_guard_buffer_names_are_safe_in_c_strings():
    from usmp.codegen.names import c_text

    assert c_text('a"b\\c??=d/e:0*/') == "a_b_c___d/e:0_/"


@pytest.mark.parametrize("mode", [dict(workspace_io=True), dict(user_pools=True), dict(workspace_io=True, user_pools=True)],
                         ids=["workspace_io", "user_pools", "both"])
def test_guards_in_every_library_mode(mode):
    compiled = compile_model(MICRO_SPEECH, CompileOptions(guards=True, **mode))
    inputs = random_inputs(compiled.program.graph, np.random.default_rng(5))
    for e, g in zip(reference_outputs(MICRO_SPEECH, inputs), run_host(compiled, inputs)):
        assert outputs_match(e, g)


def test_guarded_code_compiles_warning_free_for_cortex_m0(tmp_path):
    import shutil

    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        pytest.skip("arm-none-eabi-gcc not installed")
    compiled = compile_model(MICRO_SPEECH, CompileOptions(guards=True, workspace_io=True))
    for file_name, text in compiled.files.items():
        (tmp_path / file_name).write_text(text)
    source = tmp_path / f"{compiled.program.name}.c"
    done = subprocess.run([gcc, "-mcpu=cortex-m0", "-mthumb", "-Os", *WARNING_FLAGS, "-I", str(tmp_path),
                           "-I", str(KERNELS_INCLUDE_DIR), "-c", str(source), "-o", str(tmp_path / "model.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_sanitizer_suite_covers_every_model():
    """tests/test_bit_exact.py runs every example and test model under ASan+UBSan."""
    import test_bit_exact
    from reference import TEST_MODELS, example_models

    every = {p.resolve() for p in [*example_models(), *TEST_MODELS.glob("*.tflite")]}
    assert every and every <= {m.resolve() for m in test_bit_exact.MODELS}
    assert "sanitize=True" in Path(test_bit_exact.__file__).read_text()
