"""Memory pools as the user describes them, and the CLI syntax for them.

    --pool NAME:KIND[:size=BYTES][:align=N][:targets=a+b][:region=LABEL][:wait=N]

KIND is `workspace` (read-write: tensors, scratch, I/O in the workspace),
`constant` (read-only: weights and derived constants) or `state` (read-write,
kept from one run() to the next: the variables of stateful models). Pools are
tried in the order given; a buffer falls back to the next pool of its kind
when the first is full. wait=N is the wait states of one access to the pool's
memory (0: as fast as the core); it prices traffic (`usmp run --stats`) and
decides which buffers the fastest pools get (usmp/placement). Without --pool: one unlimited workspace pool and one
constant pool; a model with state also gets an unlimited `state` pool when
no state pool is given.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from usmp.errors import UsmpError
from usmp.planner.problem import PoolInfo

POOL_KINDS = ("workspace", "constant", "state")
REQUIRED_KINDS = ("workspace", "constant")  # a state pool is needed only by a model with state
DEFAULT_TARGETS = ("c",)  # the portable C kernels
_SIZE = re.compile(r"^(\d+)\s*([kKmM]?)$")


@dataclass(frozen=True)
class PoolSpec:
    name: str
    kind: str
    size_limit: int | None = None
    alignment: int = 16
    targets: tuple[str, ...] = DEFAULT_TARGETS
    region: str | None = None  # devicetree memory region (Zephyr builds), or the emulated board's
    wait: int = 0  # wait states of one access (a 32-bit transfer)

    def info(self) -> PoolInfo:
        return PoolInfo(self.name, self.size_limit, self.alignment)


def default_pools() -> list[PoolSpec]:
    return [PoolSpec("workspace", "workspace"), PoolSpec("constants", "constant")]


def parse_size(text: str, what: str) -> int:
    match = _SIZE.match(text.strip())
    if not match:
        raise UsmpError(f"{what}: '{text}' is not a size in bytes (examples: 12288, 12k, 1M)")
    scale = {"": 1, "k": 1024, "m": 1024 * 1024}[match.group(2).lower()]
    return int(match.group(1)) * scale


def parse_pool(text: str) -> PoolSpec:
    where = f"--pool {text}"
    parts = text.split(":")
    if len(parts) < 2:
        raise UsmpError(f"{where}: expected NAME:KIND[:size=BYTES][:align=N] (KIND: workspace, constant or state)")
    name, kind, settings = parts[0], parts[1], parts[2:]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsmpError(f"{where}: pool name '{name}' must be a C identifier (letters, digits, _)")
    if kind not in POOL_KINDS:
        raise UsmpError(f"{where}: kind '{kind}' must be one of {', '.join(POOL_KINDS)}")
    values = {"size_limit": None, "alignment": 16, "targets": DEFAULT_TARGETS, "region": None, "wait": 0}
    seen: set[str] = set()
    for setting in settings:
        key, sep, value = setting.partition("=")
        if not sep or not value:
            raise UsmpError(f"{where}: '{setting}' should be key=value")
        if key in seen:
            raise UsmpError(f"{where}: '{key}' is given twice")
        seen.add(key)
        if key == "size":
            values["size_limit"] = parse_size(value, where)
        elif key == "align":
            align = parse_size(value, where)
            if align < 1 or align & (align - 1):
                raise UsmpError(f"{where}: align={value} is not a power of two")
            values["alignment"] = align
        elif key == "targets":
            values["targets"] = tuple(t for t in value.split("+") if t)
        elif key == "region":
            values["region"] = value
        elif key == "wait":
            if not value.isdigit():
                raise UsmpError(f"{where}: wait={value} is not a number of wait states (0, 1, 2, ...)")
            values["wait"] = int(value)
        else:
            raise UsmpError(f"{where}: unknown setting '{key}' (known: size, align, targets, region, wait)")
    return PoolSpec(name, kind, **values)


def check_pools(pools: list[PoolSpec]) -> None:
    names = [p.name for p in pools]
    for name in names:
        if names.count(name) > 1:
            raise UsmpError(f"pool '{name}' is given twice")
    for kind in REQUIRED_KINDS:
        if not any(p.kind == kind for p in pools):
            raise UsmpError(f"no {kind} pool: give one with --pool NAME:{kind}")


def with_state_pool(pools: list[PoolSpec], has_state: bool) -> list[PoolSpec]:
    """The pools a model is planned in: a model with state and no state pool gets a default one."""
    if not has_state or any(p.kind == "state" for p in pools):
        return pools
    names = {p.name for p in pools}
    name = "state" if "state" not in names else next(f"state{n}" for n in range(2, len(names) + 3)
                                                     if f"state{n}" not in names)
    return [*pools, PoolSpec(name, "state")]
