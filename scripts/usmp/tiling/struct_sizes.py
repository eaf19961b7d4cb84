"""The size of a kernel's parameter struct, read from the kernel headers, for the loop's copy of it.

A loop copies a link's parameters into its state buffer (state.py), so the planner must know how many bytes
a struct usmp_<x>_params takes on the core, including the members a lowering leaves at zero and the structs
of an external library (CMSIS-NN's cmsis_nn_dims ...). The headers are plain C: struct definitions and
typedefs of int32_t, float, arrays sized by a number or a #define, pointers and other such structs, laid out
with natural alignment. A struct this reader cannot size is None; the generated code checks the size it was
planned with either way.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_SCALARS = {"int8_t": 1, "uint8_t": 1, "char": 1, "bool": 1, "_Bool": 1, "int16_t": 2, "uint16_t": 2, "short": 2,
            "int32_t": 4, "uint32_t": 4, "int": 4, "unsigned": 4, "float": 4, "q31_t": 4, "q15_t": 2, "q7_t": 1,
            "int64_t": 8, "uint64_t": 8, "double": 8}
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+\(?\s*(\d+)\s*\)?\s*$", re.M)
_STRUCT = re.compile(r"(typedef\s+)?struct\s*(\w*)\s*\{([^{}]*)\}\s*(\w*)\s*;")
_TYPEDEF = re.compile(r"typedef\s+(?:const\s+)?(\w+)\s+(\w+)\s*;")
_MEMBER = re.compile(r"^(?:const\s+)?(?:(struct)\s+)?(\w+)\s+(.+)$")


def struct_bytes(type_name: str, pointer: int, include_dirs: tuple[Path, ...]) -> int | None:
    """Bytes of `struct type_name` (or a typedef of that name) with `pointer`-byte pointers, or None."""
    return _sizes(tuple(include_dirs), pointer).get(type_name, (None, None))[0]


@lru_cache(maxsize=16)
def _sizes(include_dirs: tuple[Path, ...], pointer: int) -> dict[str, tuple[int, int]]:
    """name -> (size, alignment) of every struct the headers define that can be sized."""
    text = "\n".join(path.read_text(errors="replace") for d in include_dirs for path in sorted(Path(d).rglob("*.h")))
    text = _COMMENTS.sub(" ", text)
    constants = {name: int(value) for name, value in _DEFINE.findall(text)}
    aliases = dict((alias, base) for base, alias in _TYPEDEF.findall(text))
    known: dict[str, tuple[int, int]] = {name: (size, size) for name, size in _SCALARS.items()}
    pending = _STRUCT.findall(text)
    while pending:  # a struct may use one defined after it in another header: size until nothing changes
        left = []
        for _, tag, body, alias in pending:
            layout = _layout(body, known, aliases, constants, pointer)
            if layout is None:
                left.append((_, tag, body, alias))
                continue
            for name in (tag, alias):
                if name:
                    known[name] = layout
        if len(left) == len(pending):
            break
        pending = left
    return known


def _layout(body: str, known, aliases, constants, pointer: int) -> tuple[int, int] | None:
    offset, widest = 0, 1
    for declaration in (d.strip() for d in body.split(";") if d.strip()):
        member = _MEMBER.match(" ".join(declaration.split()))
        if member is None:
            return None
        type_name = member.group(2)
        while type_name in aliases and type_name not in known:
            type_name = aliases[type_name]
        for declarator in member.group(3).split(","):
            stars = declarator.count("*")
            dims = re.findall(r"\[\s*(\w+)\s*\]", declarator)
            if stars:
                size = align = pointer
            elif type_name in known:
                size, align = known[type_name]
            else:
                return None
            count = 1
            for dim in dims:
                if not dim.isdigit() and dim not in constants:
                    return None
                count *= int(dim) if dim.isdigit() else constants[dim]
            offset = -(-offset // align) * align + size * count
            widest = max(widest, align)
    return -(-offset // widest) * widest, widest
