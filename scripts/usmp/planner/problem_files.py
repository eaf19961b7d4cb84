"""Raw planning problems from files: MiniMalloc CSV and JSON buffer infos.

CSV (MiniMalloc): `id,lower,upper,size[,alignment]`, lifetimes half-open
[lower, upper); buffers whose lifetimes overlap conflict; one pool.

JSON: {"pools": [{"name", "size_limit_bytes" (-1: none)}], "buffers":
[{"name", "size_bytes", "alignment", "pool_candidates", "conflicts",
optional "first_step"/"last_step"}]}; conflicts may be listed on one side only.

A file is checked like a model before any algorithm sees it: a bad name,
size or alignment is a one-line error naming it, a buffer listed among its
own conflicts is ignored and one-sided conflicts are made symmetric, so an
invalid plan can only mean a bug in an algorithm.
"""
from __future__ import annotations

import csv
import json
from dataclasses import replace
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
    return checked_problem(buffers, pools, str(path))


def checked_problem(buffers: list[BufferInfo], pools: list[PoolInfo], source: str
                    ) -> tuple[list[BufferInfo], list[PoolInfo]]:
    """The problem as the algorithms may assume it, or a UsmpError naming the first bad item."""
    def fail(message: str) -> UsmpError:
        return UsmpError(f"{source}: {message}")

    if not pools:
        raise fail("the problem has no pools")
    by_pool: dict[str, PoolInfo] = {}
    for p in pools:
        if p.name in by_pool:
            raise fail(f"pool '{p.name}' is listed twice")
        if p.size_limit is not None and p.size_limit < 0:
            raise fail(f"pool '{p.name}' has size limit {p.size_limit}; give -1 for no limit")
        if p.alignment < 1:
            raise fail(f"pool '{p.name}' has alignment {p.alignment}; it must be at least 1")
        by_pool[p.name] = p
    partners: dict[str, set[str]] = {}
    for b in buffers:
        if b.name in partners:
            raise fail(f"buffer '{b.name}' is listed twice")
        partners[b.name] = set()
    for b in buffers:
        if b.size < 0:
            raise fail(f"buffer '{b.name}' has negative size {b.size}")
        if b.alignment < 1:
            raise fail(f"buffer '{b.name}' has alignment {b.alignment}; it must be at least 1")
        if b.live is not None and b.live[0] > b.live[1]:
            raise fail(f"buffer '{b.name}' has first_step {b.live[0]} after last_step {b.live[1]}")
        if not b.pool_candidates:
            raise fail(f"buffer '{b.name}' has no candidate pool")
        for name in b.pool_candidates:
            pool = by_pool.get(name)
            if pool is None:
                raise fail(f"buffer '{b.name}' names unknown pool '{name}'")
            if pool.alignment % b.alignment:
                raise fail(f"buffer '{b.name}' needs {b.alignment}-byte alignment but its candidate pool "
                           f"'{name}' is only {pool.alignment}-byte aligned")
        for other in b.conflicts:
            if other not in partners:
                raise fail(f"buffer '{b.name}' conflicts with unknown buffer '{other}'")
            if other != b.name:  # a buffer never overlaps itself: listing it says nothing
                partners[b.name].add(other)
                partners[other].add(b.name)
    checked = [replace(b, pool_candidates=tuple(dict.fromkeys(b.pool_candidates)),
                       conflicts=frozenset(partners[b.name])) for b in buffers]
    return checked, list(pools)


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
            name = _name(b["name"], "buffer name")
            live = ((_integer(b["first_step"], f"buffer '{name}' first_step"),
                     _integer(b["last_step"], f"buffer '{name}' last_step"))
                    if "first_step" in b and "last_step" in b else None)
            buffers.append(BufferInfo(
                name, _integer(b["size_bytes"], f"buffer '{name}' size_bytes"),
                _integer(b.get("alignment", 1), f"buffer '{name}' alignment"),
                tuple(_names(b["pool_candidates"], f"buffer '{name}' pool_candidates")),
                frozenset(_names(b.get("conflicts", []), f"buffer '{name}' conflicts")), live))
        # A pool's base is aligned for the most demanding buffer unless the file says otherwise.
        widest = max([b.alignment for b in buffers], default=1)
        pools = []
        for p in data["pools"]:
            name = _name(p["name"], "pool name")
            limit = p.get("size_limit_bytes", -1)
            pools.append(PoolInfo(name, None if limit in (-1, None) else _integer(limit, f"pool '{name}' size_limit_bytes"),
                                  _integer(p.get("alignment", widest), f"pool '{name}' alignment")))
    except json.JSONDecodeError as exc:
        raise UsmpError(f"{path}: not valid JSON: {exc}") from None
    except _Malformed as exc:
        raise UsmpError(f"{path}: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UsmpError(f"{path}: not a buffer-info document (missing or wrong {exc}); see `usmp plan-buffers -h`") from None
    return buffers, pools


class _Malformed(ValueError):
    """A value of the wrong kind, already described for the user."""


def _integer(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Malformed(f"{what} is {json.dumps(value)}, not an integer")
    return value


def _name(value, what: str) -> str:
    if not isinstance(value, str):
        raise _Malformed(f"{what} {json.dumps(value)} is not a string")
    return value


def _names(values, what: str) -> list[str]:
    if not isinstance(values, list):
        raise _Malformed(f"{what} must be a list of names, not {json.dumps(values)}")
    return [_name(v, f"{what}: name") for v in values]
