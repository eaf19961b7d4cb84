"""Memory traffic of one inference, counted exactly in QEMU by a TCG plugin (`usmp run --stats`).

The plugin (templates/baremetal/qemu/memory_traffic.c) is built with the host compiler at first use and
cached like the builds. It sees every load and store the emulated core makes between the inference
markers and adds them up per memory (address ranges: each pool's array, the stack, the rest) and,
for `--profile`, per operator (the instructions that switch operators are the profile's own:
profile.owner_ranges). An access is one 32-bit transfer (each aligned word an instruction touches).
Memory callbacks slow emulation a few times, so the runner loads the plugin only when asked.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from usmp.errors import ToolError
from usmp.paths import TEMPLATES_DIR

PLUGIN_SOURCE = TEMPLATES_DIR / "baremetal" / "qemu" / "memory_traffic.c"
COUNTERS = ("loads", "stores", "bytes_read", "bytes_written")
NO_OWNER = -1


@dataclass(frozen=True)
class Memory:
    """An address range the plugin counts on its own: a pool's array, the stack."""

    name: str
    start: int
    end: int  # exclusive


@dataclass
class Counts:
    loads: int = 0
    stores: int = 0
    bytes_read: int = 0
    bytes_written: int = 0

    def add(self, other: "Counts") -> None:
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def accesses(self) -> int:
        return self.loads + self.stores

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in COUNTERS}


OTHER = "(other)"  # the key of every address outside the listed memories (pool names are C identifiers)
STACK = "(stack)"  # the stack's range among the memories


@dataclass
class Traffic:
    """Counts per owner (operator step, or NO_OWNER) and memory name (or OTHER)."""

    by_owner: dict[int, dict[str, Counts]] = field(default_factory=dict)

    def per_memory(self) -> dict[str, Counts]:
        total: dict[str, Counts] = {}
        for memories in self.by_owner.values():
            for name, counts in memories.items():
                total.setdefault(name, Counts()).add(counts)
        return total

    def of_owner(self, owner: int) -> dict[str, Counts]:
        return self.by_owner.get(owner, {})


def plugin_path(cache: Path) -> Path:
    """The plugin's shared object, built into the cache once per source and compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise ToolError("no host C compiler (cc) to build the memory-traffic plugin; install Debian's gcc")
    command = [cc, "-O2", "-shared", "-fPIC", "-std=c99", "-Wall", "-Wextra", "-Werror"]
    digest = hashlib.sha256(" ".join(command).encode() + b"\0" + PLUGIN_SOURCE.read_bytes()).hexdigest()[:24]
    target = cache / "qemu-plugins" / digest / "memory_traffic.so"
    if target.exists():
        return target
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent.parent))
    try:
        done = subprocess.run([*command, str(PLUGIN_SOURCE), "-o", str(staging / target.name)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["(no output)"])[0]
            raise ToolError(f"the memory-traffic plugin did not compile: {first}")
        try:
            staging.rename(target.parent)
        except OSError:  # another process built it first
            pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def write_config(path: Path, markers: tuple[int, int], memories: list[Memory],
                 owners: list[tuple[int, int, int]] = ()) -> None:
    """The plugin's configuration: the markers, the memories by index, the owner ranges (owner, start, end)."""
    lines = [f"begin 0x{markers[0]:x}", f"end 0x{markers[1]:x}"]
    spans = sorted((m.start, m.end, k) for k, m in enumerate(memories) if m.end > m.start)
    for (start, end, k), following in zip(spans, spans[1:] + [(None, None, None)]):
        if following[0] is not None and following[0] < end:
            raise ToolError(f"memories '{memories[k].name}' and '{memories[following[2]].name}' overlap")
        lines.append(f"memory {k} 0x{start:x} 0x{end:x}")
    lines += [f"owner {owner} 0x{start:x} 0x{end:x}" for owner, start, end in owners]
    path.write_text("\n".join(lines) + "\n")


def plugin_arguments(plugin: Path, config: Path, out: Path) -> list[str]:
    for p in (plugin, config, out):
        if "," in str(p):
            raise ToolError(f"QEMU cannot take a plugin path with a comma: {p}")
    return ["-plugin", f"{plugin},config={config},out={out}"]


def read_counts(out: Path, memories: list[Memory]) -> Traffic:
    """The plugin's output, by owner and memory name."""
    if not out.exists():
        raise ToolError("the memory-traffic plugin wrote no counts (did QEMU load it?)")
    traffic = Traffic()
    for line in out.read_text().splitlines():
        fields = line.split()
        if len(fields) != 6:
            continue
        owner, memory, *values = (int(f) for f in fields)
        name = memories[memory].name if memory < len(memories) else OTHER
        traffic.by_owner.setdefault(owner, {}).setdefault(name, Counts()).add(Counts(*values))
    return traffic


def memory_entries(pools, memories: dict[str, Counts]) -> dict:
    """{"pools": {name: counts, wait and wait_cycles}, "stack": counts, "other": counts, "total": counts,
    "wait_cycles": N}: the traffic of one owner (or all) by memory. A pool's wait is the wait states of one
    of its accesses (--pool ...:wait=N); the stack and the rest are the harness's own memory, priced at 0."""
    entries: dict = {"pools": {}}
    total = Counts()
    wait_cycles = 0
    for pool in pools:
        counts = memories.get(pool.spec.name, Counts())
        wait = pool.spec.wait
        entries["pools"][pool.spec.name] = {"kind": pool.spec.kind, "region": pool.spec.region, "wait": wait,
                                            **counts.as_dict(), "wait_cycles": counts.accesses * wait}
        wait_cycles += counts.accesses * wait
        total.add(counts)
    for key, name in (("stack", STACK), ("other", OTHER)):
        counts = memories.get(name, Counts())
        entries[key] = counts.as_dict()
        total.add(counts)
    entries["total"] = total.as_dict()
    entries["wait_cycles"] = wait_cycles
    return entries


def memory_report(pools, traffic: Traffic, instructions: int | None) -> dict:
    """The report's "memory" (memory_entries of the whole inference), its wait cycles and, with the
    instructions, the estimate of cycles: instructions + wait cycles (one cycle an instruction, plus the
    wait states of every access; a core's real timing differs, so this ranks placements, it times nothing)."""
    memory = memory_entries(pools, traffic.per_memory())
    report = {"memory": memory, "wait_cycles": memory["wait_cycles"]}
    if instructions is not None:
        report["estimated_cycles"] = instructions + memory["wait_cycles"]
    return report


def pool_bases(layout, symbols: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """Each pool's (address, bytes) in the image: the library's array, or the harness's with --user-pools."""
    bases = {}
    for pool in layout.pools:
        symbol = symbols.get(pool.c_symbol) or symbols.get(f"harness_pool_{pool.spec.name}")
        if symbol is not None:
            bases[pool.spec.name] = (symbol[0], max(symbol[1], pool.size, 1))
    return bases


def _stack(symbols: dict[str, tuple[int, int]]) -> list[Memory]:
    """The stack: from the end of static data to the top of RAM (nothing takes heap during the inference)."""
    end, top = symbols.get("end"), symbols.get("__stack_top__")
    return [Memory(STACK, end[0], top[0])] if end is not None and top is not None else []


def pool_memories(layout, symbols: dict[str, tuple[int, int]]) -> list[Memory]:
    """Each pool's array, and the stack."""
    return [Memory(name, address, address + size) for name, (address, size) in pool_bases(layout, symbols).items()] \
        + _stack(symbols)


def buffer_memories(program, layout, symbols: dict[str, tuple[int, int]]) -> list[Memory]:
    """Each pool cut where any planned buffer starts or ends, named "pool:start:end" (offsets): buffers that
    live at different steps share bytes, so buffer_traffic tells them apart by the operator that made the
    access."""
    cuts: dict[str, set[int]] = {}
    for name, (pool, offset) in layout.placements.items():
        cuts.setdefault(pool, set()).update((offset, offset + program.buffers[name].size))
    memories = []
    for pool, (address, size) in pool_bases(layout, symbols).items():
        points = sorted(p for p in {0, size} | cuts.get(pool, set()) if p <= size)
        memories += [Memory(f"{pool}:{a}:{b}", address + a, address + b) for a, b in zip(points, points[1:]) if b > a]
    return memories + _stack(symbols)


def buffer_traffic(traffic: Traffic, program, layout) -> dict[str, Counts]:
    """Counts per planned buffer (the one live at the accessing operator's step over those bytes), with the
    stack, the rest and what no live buffer covers under their own keys (STACK, OTHER, "(unplanned)")."""
    from usmp.analysis.liveness import live_intervals

    live = live_intervals(program)
    by_pool: dict[str, list[tuple[int, int, str]]] = {}
    for name, (pool, offset) in layout.placements.items():
        by_pool.setdefault(pool, []).append((offset, offset + program.buffers[name].size, name))
    result: dict[str, Counts] = {}
    for owner, memories in traffic.by_owner.items():
        for memory, counts in memories.items():
            key = memory
            if memory not in (STACK, OTHER):
                pool, start, end = memory.rsplit(":", 2)
                key = next((name for a, b, name in by_pool.get(pool, []) if a <= int(start) and int(end) <= b
                            and (owner == NO_OWNER or live[name][0] <= owner <= live[name][1])), "(unplanned)")
            result.setdefault(key, Counts()).add(counts)
    return result
