"""Never silently slow, operator by operator: on a core with fast kernel families (DSP, Helium, an FPU) `usmp
compile` and `usmp run` print one notice on stderr naming every operator left on a portable kernel (index,
operator, number type) and why, the reasons coming from the families' tables: CMSIS-NN not found, a case a
family leaves (with its reason), no family for the operator and type on the core (a float operator on a part
without an FPU is reported the same way). `usmp check --cpu`, the plan JSON and the report page name them too.
No notice when the portable kernels are asked for, on a plain core, or when nothing falls back."""
from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from reference import EXAMPLE_MODELS, REPO_ROOT, TEST_MODELS
from usmp.cli import main as usmp_main

MICRO_SPEECH = EXAMPLE_MODELS / "micro_speech_quantized.tflite"  # DEPTHWISE_CONV_2D, FULLY_CONNECTED, SOFTMAX
MICRO_SPEECH_INT16 = REPO_ROOT / "benchmarks" / "models" / "micro_speech_int16.tflite"
HEADER = re.compile(r"^usmp: note: (\d+) of (\d+) operators of '(\w+)' run portable kernels on the ([\w+-]+) \((.*)\):$")
ARM_MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]


@pytest.fixture
def no_cmsis_nn(monkeypatch):
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)


def compile_lines(tmp_path, capsys, model, *options: str) -> list[str]:
    assert usmp_main(["compile", str(model), "-o", str(tmp_path / "out"), *options]) == 0
    return capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("cpu, features", [("cortex-m4", "the DSP extension, an FPU"),
                                           ("cortex-m33", "the DSP extension, an FPU")])
def test_compile_names_each_operator_and_why(tmp_path, capsys, no_cmsis_nn, cpu, features):
    """USMP's own DSP kernels take the convolution and the fully connected layer; SOFTMAX is left for CMSIS-NN,
    which is not there."""
    header, *rest = compile_lines(tmp_path, capsys, MICRO_SPEECH, "--cpu", cpu)
    assert HEADER.match(header).groups() == ("1", "3", "micro_speech_quantized", cpu, features)
    assert rest == ["  3 SOFTMAX int8: CMSIS-NN was not found",
                    "  point at CMSIS-NN with --cmsis-nn DIR or CMSIS_NN_PATH (or choose --kernels portable)"]


def test_helium_names_what_it_leaves(tmp_path, capsys, no_cmsis_nn):
    """On the Cortex-M55 USMP's Helium kernels take all of micro_speech (its SOFTMAX the portable kernel, as fast
    there as CMSIS-NN's: nothing is missed); of its int16x8 twin they take the convolution and the fully connected
    layer, and what they leave is named."""
    assert compile_lines(tmp_path, capsys, MICRO_SPEECH, "--cpu", "cortex-m55") == []
    header, *rest = compile_lines(tmp_path, capsys, MICRO_SPEECH_INT16, "--cpu", "cortex-m55")
    assert HEADER.match(header).groups() == ("1", "3", "micro_speech_int16", "cortex-m55", "Helium")
    assert rest == ["  4 SOFTMAX int16: CMSIS-NN was not found",
                    "  point at CMSIS-NN with --cmsis-nn DIR or CMSIS_NN_PATH (or choose --kernels portable)"]


def test_the_reasons_come_from_the_families(tmp_path, capsys, no_cmsis_nn):
    """No family for the operator and type on this core (float32 on a part without an FPU), a family leaving the
    case with its reason, --kernels leaving a family out."""
    lines = compile_lines(tmp_path, capsys, TEST_MODELS / "conv_f32.tflite", "--cpu", "cortex-m4+nofp")
    assert lines[1:] == ["  0 CONV_2D float32: no kernel family for float32 CONV_2D on this core"]
    lines = compile_lines(tmp_path, capsys, TEST_MODELS / "conv_grouped.tflite", "--cpu", "cortex-m4")
    assert lines[1] == ("  0 CONV_2D int8: USMP DSP: USMP's DSP kernels have no grouped convolution; "
                        "CMSIS-NN was not found")
    lines = compile_lines(tmp_path, capsys, MICRO_SPEECH, "--cpu", "cortex-m4", "--kernels", "usmp")
    assert lines[1:] == ["  3 SOFTMAX int8: --kernels usmp leaves out CMSIS-NN"]


@pytest.mark.parametrize("options", [["--cpu", "cortex-m4", "--kernels", "portable"], ["--cpu", "cortex-m3"],
                                     ["--cpu", "cortex-m0"], []], ids=["portable", "cortex-m3", "cortex-m0", "generic"])
def test_no_notice_where_nothing_is_missed(tmp_path, capsys, no_cmsis_nn, options):
    assert compile_lines(tmp_path, capsys, MICRO_SPEECH, *options) == []


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m55"])
def test_no_notice_when_every_operator_is_fast(tmp_path, capsys, cpu):
    """With CMSIS-NN found every operator of micro_speech, int8 or int16x8, runs a fast kernel."""
    found = cmsis_nn_dir()
    if found is None:
        pytest.skip(CMSIS_NN_MISSING)
    for model in (MICRO_SPEECH, MICRO_SPEECH_INT16):
        assert compile_lines(tmp_path, capsys, model, "--cpu", cpu, "--cmsis-nn", str(found)) == []


def test_zephyr_core_from_kconfig(tmp_path, capsys, no_cmsis_nn):
    """In a Zephyr build the core comes from .config: a Cortex-M33 with DSP gets the notice, without it and
    without an FPU none."""
    dsp = tmp_path / "dsp.config"
    dsp.write_text("CONFIG_USMP=y\nCONFIG_CPU_CORTEX_M33=y\nCONFIG_ARMV8_M_DSP=y\nCONFIG_USMP_KERNELS_AUTO=y\n")
    lines = compile_lines(tmp_path, capsys, MICRO_SPEECH, "--dotconfig", str(dsp))
    assert HEADER.match(lines[0]).group(4) == "cortex-m33+nofp"
    plain = tmp_path / "plain.config"
    plain.write_text("CONFIG_USMP=y\nCONFIG_CPU_CORTEX_M33=y\nCONFIG_USMP_KERNELS_AUTO=y\n")
    assert compile_lines(tmp_path, capsys, MICRO_SPEECH, "--dotconfig", str(plain)) == []


def test_check_plan_and_report_name_them(tmp_path, capsys, no_cmsis_nn):
    assert usmp_main(["check", str(MICRO_SPEECH), "--cpu", "cortex-m4"]) == 0
    text = capsys.readouterr().out
    assert "SOFTMAX" in text and "portable kernel on the cortex-m4: CMSIS-NN was not found" in text
    assert "portable kernels on the cortex-m4: 1 operator (marked above)" in text
    assert usmp_main(["check", str(MICRO_SPEECH), "--cpu", "cortex-m4", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [(s["index"], s["op"], s["type"]) for s in document["portable_kernels"]] == [(3, "SOFTMAX", "int8")]
    compile_lines(tmp_path, capsys, MICRO_SPEECH, "--cpu", "cortex-m4")
    plan = json.loads((tmp_path / "out" / "micro_speech_quantized_plan.json").read_text())
    assert plan["portable_kernels"] == document["portable_kernels"]
    page = tmp_path / "report.html"
    assert usmp_main(["report", str(MICRO_SPEECH), "--cpu", "cortex-m4", "-o", str(page)]) == 0
    assert 'id="fallbacks"' in page.read_text() and "CMSIS-NN was not found" in page.read_text()


@pytest.mark.skipif(bool(ARM_MISSING), reason=f"{', '.join(ARM_MISSING)} not installed")
def test_run_on_a_dsp_target_says_it_once(tmp_path, capsys, no_cmsis_nn):
    np.save(tmp_path / "in.npy", np.zeros((1, 1960), np.int8))
    assert usmp_main(["run", str(MICRO_SPEECH), "--target", "cortex-m4", "--input", str(tmp_path / "in.npy"),
                      "--output-dir", str(tmp_path / "out"), "--json"]) == 0
    notices = [line for line in capsys.readouterr().err.splitlines() if line.startswith("usmp: note:")]
    assert len(notices) == 1 and HEADER.match(notices[0]).groups()[:4] == ("1", "3", "micro_speech_quantized",
                                                                           "cortex-m4")
