"""The fuzz target: import and compile arbitrary bytes as a .tflite model.

A UsmpError is a clean rejection (what a user must see for a bad model);
anything else escaping the pipeline is a bug and fails the input. Used by
run_fuzz.py (atheris, or a seeded random mutator) and by the regression test.

Run directly it is an atheris/libFuzzer binary: `python target.py [libFuzzer flags] [corpus dirs]`.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/ (malformed mutations)

# Short planner budget: the fuzzer checks robustness, not plan quality.
PLAN_SECONDS = 0.2

_scratch_dir: Path | None = None


def _scratch_file() -> Path:
    global _scratch_dir
    if _scratch_dir is None:
        _scratch_dir = Path(tempfile.mkdtemp(prefix="usmp-fuzz-"))
    return _scratch_dir / "input.tflite"


def compile_bytes(data: bytes, workspace_io: bool = False) -> str:
    """'ok' or 'rejected'; raises whatever non-UsmpError the pipeline raises."""
    from usmp.compiler import CompileOptions, compile_model
    from usmp.errors import UsmpError

    path = _scratch_file()
    path.write_bytes(data)
    options = CompileOptions(name="fuzzed", time_limit=PLAN_SECONDS, progress=None, workspace_io=workspace_io)
    try:
        compile_model(path, options)
    except UsmpError as exc:
        message = str(exc)
        if "\n" in message or not message.strip():
            raise AssertionError(f"error message is not one line: {message!r}") from None
        return "rejected"
    return "ok"


def test_one_input(data: bytes) -> None:
    # The last byte picks the I/O mode, so both layouts get fuzzed.
    compile_bytes(data, workspace_io=bool(data[-1:] and data[-1] & 1))


def _structured_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """Half the time a schema-aware mutation (real flatbuffer, wrong values), else libFuzzer's own."""
    import random

    import atheris
    from malformed.structured import mutate_structured

    rng = random.Random(seed)
    if rng.random() < 0.5:
        mutated = mutate_structured(data, rng)
        if mutated is not None and len(mutated) <= max_size:
            return mutated
    return atheris.Mutate(data, max_size)


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=["usmp", "tflite", "flatbuffers"]):
        import usmp.compiler  # noqa: F401  (instrumented for coverage feedback)
    atheris.Setup(sys.argv, test_one_input, custom_mutator=_structured_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    os.environ.setdefault("USMP_CACHE_DIR", tempfile.mkdtemp(prefix="usmp-fuzz-cache-"))
    main()
