"""Raw planning problems from files: MiniMalloc CSV and JSON buffer infos.

CSV (MiniMalloc): `id,lower,upper,size[,alignment]`, lifetimes half-open
[lower, upper); buffers whose lifetimes overlap conflict; one pool.

JSON: {"pools": [{"name", "size_limit_bytes" (-1: none)}], "buffers":
[{"name", "size_bytes", "alignment", "pool_candidates", "conflicts",
optional "first_step"/"last_step"}]}; conflicts may be listed on one side only.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from usmp.errors import UsmpError
from usmp.planner.problem import BufferInfo, PoolInfo

CSV_POOL = "pool"


def read_problem(path: str | Path, capacity: int | None = None) -> tuple[list[BufferInfo], list[PoolInfo]]:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise UsmpError(f"cannot read {path}: {exc.strerror}") from None
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        buffers, pools = _from_json(text, path)
    else:
        buffers, pools = _from_csv(text, path)
    if capacity is not None:
        pools = [PoolInfo(p.name, capacity, p.alignment) for p in pools]
    return buffers, pools


def _from_csv(text: str, path: Path) -> tuple[list[BufferInfo], list[PoolInfo]]:
    rows = []
    reader = csv.DictReader(text.splitlines())
    missing = {"id", "lower", "upper", "size"} - set(reader.fieldnames or [])
    if missing:
        raise UsmpError(f"{path}: CSV header must have id,lower,upper,size[,alignment]; missing {sorted(missing)}")
    for line, row in enumerate(reader, start=2):
        try:
            lower, upper, size = int(row["lower"]), int(row["upper"]), int(row["size"])
            alignment = int(row.get("alignment") or 1)
        except (TypeError, ValueError):
            raise UsmpError(f"{path}:{line}: lower, upper, size and alignment must be integers") from None
        if upper <= lower or size < 0 or alignment < 1:
            raise UsmpError(f"{path}:{line}: need lower < upper, size >= 0 and alignment >= 1")
        rows.append((row["id"], lower, upper, size, alignment))
    conflicts = _overlaps([(r[1], r[2]) for r in rows])
    buffers = [BufferInfo(r[0], r[3], r[4], (CSV_POOL,), frozenset(rows[j][0] for j in conflicts[i]), (r[1], r[2] - 1))
               for i, r in enumerate(rows)]
    return buffers, [PoolInfo(CSV_POOL, alignment=max([b.alignment for b in buffers], default=1))]


def _overlaps(spans: list[tuple[int, int]]) -> list[list[int]]:
    """Pairs of half-open spans that overlap, by a sweep over start times."""
    result: list[list[int]] = [[] for _ in spans]
    active: list[int] = []
    for i in sorted(range(len(spans)), key=lambda k: spans[k][0]):
        start = spans[i][0]
        active = [a for a in active if spans[a][1] > start]
        for a in active:
            result[i].append(a)
            result[a].append(i)
        active.append(i)
    return result


def _from_json(text: str, path: Path) -> tuple[list[BufferInfo], list[PoolInfo]]:
    try:
        data = json.loads(text)
        buffers = []
        for b in data["buffers"]:
            live = (int(b["first_step"]), int(b["last_step"])) if "first_step" in b and "last_step" in b else None
            buffers.append(BufferInfo(b["name"], int(b["size_bytes"]), int(b.get("alignment", 1)),
                                      tuple(b["pool_candidates"]), frozenset(b.get("conflicts", [])), live))
        # A pool's base is aligned for the most demanding buffer unless the file says otherwise.
        widest = max([b.alignment for b in buffers], default=1)
        pools = [PoolInfo(p["name"], None if p.get("size_limit_bytes", -1) in (-1, None) else int(p["size_limit_bytes"]),
                          int(p.get("alignment", widest)))
                 for p in data["pools"]]
    except json.JSONDecodeError as exc:
        raise UsmpError(f"{path}: not valid JSON: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise UsmpError(f"{path}: not a buffer-info document (missing or wrong {exc}); see `usmp plan-buffers -h`") from None
    return buffers, pools
