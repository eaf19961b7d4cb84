"""GCC's own frame sizes: the .su files -fstack-usage writes beside each object.

A line is `file:line:column:function<TAB>bytes<TAB>qualifiers`, qualifiers "static" (the frame is always
that size), "dynamic" (it grows at run time: alloca, a variable-length array) or "dynamic,bounded" (it grows, but never beyond that size). A name
defined by several files (static functions) keeps the largest frame.
"""
from __future__ import annotations

from pathlib import Path


def read_frames(directories: list[Path]) -> dict[str, int | None]:
    """function name (as the image's symbol: GCC's clone suffixes kept) -> bytes, None for a dynamic frame."""
    frames: dict[str, int | None] = {}
    for directory in directories:
        for path in sorted(Path(directory).rglob("*.su")):
            for line in path.read_text().splitlines():
                fields = line.rsplit("\t", 2)
                if len(fields) != 3:
                    continue
                name, size, qualifiers = fields[0].rsplit(":", 1)[-1], int(fields[1]), fields[2]
                value = None if qualifiers == "dynamic" else size  # "dynamic,bounded": at most `size`
                if name in frames and (frames[name] is None or value is None):
                    frames[name] = None
                else:
                    frames[name] = max(frames.get(name, 0), value)
    return frames
