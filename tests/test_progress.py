"""Stage progress: on a terminal (a pty here) a compile and a Cortex-M run say what they are doing; in a
pipe or under CI they say nothing beyond their results."""
from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "benchmarks/models/mobilenet_v1_025_96.tflite"
MICRO_SPEECH = ROOT / "samples/usmp/hello/model/micro_speech_quantized.tflite"


def _usmp(args: list[str], terminal: bool, ci: bool = False, tmp_cache: Path | None = None) -> tuple[str, str]:
    """(stdout, stderr) of `python -m usmp args`, stderr a pty when terminal."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    if tmp_cache is not None:
        env["USMP_CACHE_DIR"] = str(tmp_cache)  # nothing cached: the cross-build runs
    command = [sys.executable, "-m", "usmp", *args]
    if not terminal:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr
    controller, terminal_fd = pty.openpty()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=terminal_fd, env=env, text=True)
    os.close(terminal_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout = process.stdout.read()
    assert process.wait(timeout=600) == 0
    os.close(controller)
    return stdout, b"".join(chunks).decode(errors="replace")


def test_compile_shows_its_stages_on_a_terminal(tmp_path):
    out, err = _usmp(["compile", str(MODEL), "-o", str(tmp_path / "out"), "--tiling", "auto"], terminal=True)
    for stage in ("reading mobilenet_v1_025_96.tflite", "folding and lowering", "tiling (auto)", "planning",
                  "writing the C code"):
        assert f"usmp: {stage}" in err, err
    assert err.endswith("\r\x1b[K")  # the stage line is cleared before the result
    assert "usmp: wrote" in out


def test_compile_is_quiet_in_a_pipe_and_under_ci(tmp_path):
    _, err = _usmp(["compile", str(MODEL), "-o", str(tmp_path / "a")], terminal=False)
    assert err == ""
    _, err = _usmp(["compile", str(MODEL), "-o", str(tmp_path / "b")], terminal=True, ci=True)
    assert err == ""


def test_cortex_m_run_shows_the_cross_build_and_the_emulation(tmp_path):
    x = tmp_path / "in.npy"
    np.save(x, np.zeros((1, 1960), np.int8))
    args = ["run", str(MICRO_SPEECH), "--input", str(x), "--output-dir", str(tmp_path / "o"), "--target",
            "cortex-m0", "--stats"]
    _, err = _usmp(args, terminal=True, tmp_cache=tmp_path / "cache")
    for stage in ("cross-compiling the kernel library for cortex-m0", "cross-compiling and linking the model",
                  "emulating cortex-m0 (qemu -M microbit), tracing", "counting instructions in the trace"):
        assert f"usmp: {stage}" in err, err
    _, err = _usmp(args, terminal=False)
    assert "usmp: " not in err
