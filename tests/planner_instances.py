"""Planning problems for the planner tests: interval instances, CSV files, random ones."""
from __future__ import annotations

import csv
from pathlib import Path

from usmp.planner.problem import BufferInfo

MINIMALLOC = Path(__file__).resolve().parent / "data" / "minimalloc"  # shipped with its licence note


def interval_buffers(rows, pools=("p",)) -> list[BufferInfo]:
    """rows: (name, first_step, last_step, size[, alignment]) with inclusive steps."""
    rows = [tuple(r) + (4,) * (5 - len(r)) for r in rows]
    infos = []
    for name, first, last, size, align in rows:
        conflicts = frozenset(o[0] for o in rows if o[0] != name and o[1] <= last and first <= o[2])
        infos.append(BufferInfo(name, size, align, tuple(pools), conflicts, (first, last)))
    return infos


def minimalloc_csv_buffers(path: Path) -> list[BufferInfo]:
    with open(path) as f:
        rows = [(r["id"], int(r["lower"]), int(r["upper"]) - 1, int(r["size"]), int(r.get("alignment") or 1))
                for r in csv.DictReader(f)]
    return interval_buffers(rows)
