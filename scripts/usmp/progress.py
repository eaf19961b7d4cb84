"""Stage progress on the terminal: what a long compile or run is doing now, on one line of stderr.

Shown only when stderr is a terminal and CI is not set: pipes, logs and CI stay quiet. Each stage
overwrites the line of the one before; `clear()` removes it before anything else is printed (the
commands' own output, an error).
"""
from __future__ import annotations

import os
import sys
import time

_state = {"shown": False, "stage": None, "start": 0.0}


def enabled(stream=None) -> bool:
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("CI")


def stage(text: str) -> None:
    """Say that a stage starts (e.g. "tiling", "emulating on mps2-an386")."""
    if not enabled():
        return
    _state.update(stage=text, start=time.perf_counter())
    _write(f"usmp: {text} ...")


def detail(text: str) -> None:
    """More about the current stage (a count, a size), with the seconds it has taken so far."""
    if not enabled() or _state["stage"] is None:
        return
    _write(f"usmp: {_state['stage']}: {text} ({time.perf_counter() - _state['start']:.0f} s)")


def clear() -> None:
    if _state["shown"]:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    _state.update(shown=False, stage=None)


def _write(line: str) -> None:
    sys.stderr.write("\r\x1b[K" + line[:160])
    sys.stderr.flush()
    _state["shown"] = True
