"""Where CMSIS-NN is, and which of its sources the generated code needs.

CMSIS-NN is an external dependency (in Zephyr the `cmsis-nn` module): the
compiler is told its directory (`--cmsis-nn DIR` or $CMSIS_NN_PATH) and never
copies it. A build compiles only the sources the chosen functions reach:
following calls to the functions each source defines (at the start of a line)
defined in some file gives the closure.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from usmp.errors import UsmpError

ENV_VARIABLE = "CMSIS_NN_PATH"
HEADER = Path("Include") / "arm_nnfunctions.h"
ALWAYS = ("arm_nntables",)  # lookup tables some kernels read by name, not by call
_CALL = re.compile(r"\b(arm_\w+)\s*\(")
_DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \t*]*?\b(arm_\w+)\s*\(", re.MULTILINE)


@dataclass(frozen=True)
class CmsisNn:
    """A CMSIS-NN checkout: its root, include directory and the sources a program calls."""

    root: Path
    sources: tuple[Path, ...]

    @property
    def include_dir(self) -> Path:
        return self.root / "Include"


def cmsis_nn_root(given: str | os.PathLike | None) -> Path:
    """The CMSIS-NN directory given, else $CMSIS_NN_PATH; a one-line error when neither is usable."""
    text = given if given else os.environ.get(ENV_VARIABLE)
    if not text:
        raise UsmpError(f"--kernels cmsis-nn needs CMSIS-NN: pass --cmsis-nn DIR or set {ENV_VARIABLE}")
    root = Path(text).expanduser()
    if not (root / HEADER).is_file():
        where = "--cmsis-nn" if given else f"${ENV_VARIABLE}"
        raise UsmpError(f"{where} {text}: not a CMSIS-NN directory (no {HEADER.as_posix()})")
    return root.resolve()


def known_root(given: str | os.PathLike | None) -> Path | None:
    """The CMSIS-NN directory when one is given and usable, else None (for --kernels auto)."""
    try:
        return cmsis_nn_root(given)
    except UsmpError:
        return None


def sources_for(root: Path, functions: set[str]) -> tuple[Path, ...]:
    """The .c files defining `functions` and everything they call, sorted."""
    files = _source_index(root)
    missing = sorted(f for f in functions if f not in files)
    if missing:
        raise UsmpError(f"CMSIS-NN in {root} has no {missing[0]}.c; it is older or newer than USMP supports")
    todo, seen = list(functions) + [a for a in ALWAYS if a in files], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(called for called in _calls(files[name]) if called in files and called not in seen)
    return tuple(sorted({files[name] for name in seen}))


@lru_cache(maxsize=None)
def _source_index(root: Path) -> dict[str, Path]:
    """Function (and file stem) -> the source defining it."""
    index: dict[str, Path] = {}
    for path in sorted((root / "Source").rglob("*.c")):
        index.setdefault(path.stem, path)
        for name in _DEFINITION.findall(path.read_text(errors="replace")):
            index.setdefault(name, path)
    return index


@lru_cache(maxsize=None)
def _calls(path: Path) -> frozenset[str]:
    return frozenset(_CALL.findall(path.read_text(errors="replace")))
