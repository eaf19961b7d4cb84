"""Never silently slow: a core with DSP or Helium that runs the portable kernels because CMSIS-NN was not
found gets one notice line on stderr from `usmp compile` and `usmp run`, saying how many operators fell
back and how to point at CMSIS-NN; none when CMSIS-NN is found, when the portable kernels are asked for,
or on a core without those extensions."""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir
from reference import EXAMPLE_MODELS
from usmp.cli import main as usmp_main

MICRO_SPEECH = EXAMPLE_MODELS / "micro_speech_quantized.tflite"  # DEPTHWISE_CONV_2D, FULLY_CONNECTED, SOFTMAX
NOTICE = re.compile(r"^usmp: note: CMSIS-NN was not found, so (\d+) of (\d+) operators of 'micro_speech_quantized' "
                    r"run the portable kernels on the (cortex-m\d+) instead of the faster ones for "
                    r"(the DSP extension|Helium); point at CMSIS-NN with --cmsis-nn DIR or CMSIS_NN_PATH")
ARM_MISSING = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]


@pytest.fixture
def no_cmsis_nn(monkeypatch):
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)


def compile_lines(tmp_path, capsys, *options: str) -> list[str]:
    assert usmp_main(["compile", str(MICRO_SPEECH), "-o", str(tmp_path / "out"), *options]) == 0
    return capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("cpu, extension", [("cortex-m4", "the DSP extension"), ("cortex-m7", "the DSP extension"),
                                            ("cortex-m33", "the DSP extension"), ("cortex-m55", "Helium")])
def test_compile_says_how_many_operators_fell_back(tmp_path, capsys, no_cmsis_nn, cpu, extension):
    lines = compile_lines(tmp_path, capsys, "--cpu", cpu)
    assert len(lines) == 1, lines
    fell_back, total, named_cpu, named_extension = NOTICE.match(lines[0]).groups()
    # USMP's own DSP or Helium kernels take the convolution and the fully connected layer: only SOFTMAX is left to
    # CMSIS-NN
    assert (int(fell_back), int(total), named_cpu, named_extension) == (1, 3, cpu, extension)


@pytest.mark.parametrize("options", [["--cpu", "cortex-m4", "--kernels", "portable"], ["--cpu", "cortex-m3"],
                                     ["--cpu", "cortex-m0"], []], ids=["portable", "cortex-m3", "cortex-m0", "generic"])
def test_no_notice_where_nothing_is_missed(tmp_path, capsys, no_cmsis_nn, options):
    assert compile_lines(tmp_path, capsys, *options) == []


def test_no_notice_when_cmsis_nn_is_found(tmp_path, capsys):
    found = cmsis_nn_dir()
    if found is None:
        pytest.skip(CMSIS_NN_MISSING)
    assert compile_lines(tmp_path, capsys, "--cpu", "cortex-m4", "--cmsis-nn", str(found)) == []


def test_zephyr_core_from_kconfig(tmp_path, capsys, no_cmsis_nn):
    """In a Zephyr build the core comes from .config: a Cortex-M33 with DSP gets the notice, without it none."""
    dsp = tmp_path / "dsp.config"
    dsp.write_text("CONFIG_USMP=y\nCONFIG_CPU_CORTEX_M33=y\nCONFIG_ARMV8_M_DSP=y\nCONFIG_FPU=y\nCONFIG_USMP_KERNELS_AUTO=y\n")
    lines = compile_lines(tmp_path, capsys, "--dotconfig", str(dsp))
    assert len(lines) == 1 and NOTICE.match(lines[0]).group(3) == "cortex-m33"
    plain = tmp_path / "plain.config"
    plain.write_text("CONFIG_USMP=y\nCONFIG_CPU_CORTEX_M33=y\nCONFIG_USMP_KERNELS_AUTO=y\n")
    assert compile_lines(tmp_path, capsys, "--dotconfig", str(plain)) == []


@pytest.mark.skipif(bool(ARM_MISSING), reason=f"{', '.join(ARM_MISSING)} not installed")
def test_run_on_a_dsp_target_says_it_once(tmp_path, capsys, no_cmsis_nn):
    np.save(tmp_path / "in.npy", np.zeros((1, 1960), np.int8))
    assert usmp_main(["run", str(MICRO_SPEECH), "--target", "cortex-m4", "--input", str(tmp_path / "in.npy"),
                      "--output-dir", str(tmp_path / "out"), "--json"]) == 0
    notices = [line for line in capsys.readouterr().err.splitlines() if line.startswith("usmp: note:")]
    assert len(notices) == 1 and NOTICE.match(notices[0]).groups()[:3] == ("1", "3", "cortex-m4")
