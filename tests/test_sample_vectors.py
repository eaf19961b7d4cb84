"""The reference vectors committed with the samples are what tflite-micro computes today."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "samples" / "usmp" / "update_reference_vectors.py"


def test_committed_sample_vectors_are_current():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_reports_a_stale_file(tmp_path, monkeypatch):
    """--check fails (and names the file) when a committed vector differs from the interpreter's."""
    sys.path.insert(0, str(SCRIPT.parent))
    import update_reference_vectors as script

    model = tmp_path / "model.tflite"
    model.write_bytes((SCRIPT.parent / "hello" / "model" / "micro_speech_quantized.tflite").read_bytes())
    monkeypatch.setattr(script, "SAMPLES", tmp_path)
    monkeypatch.setattr(script, "VECTORS", [("model.tflite", "micro_speech", 3)])
    monkeypatch.setattr(sys, "argv", ["update_reference_vectors.py"])
    assert script.main() == 0
    header = tmp_path / "micro_speech_reference.c"
    header.write_text(header.read_text().replace("{", "{ 1,", 1))
    monkeypatch.setattr(sys, "argv", ["update_reference_vectors.py", "--check"])
    assert script.main() == 1
