"""Guard mode (--guards): canary bytes after every planned workspace buffer.

The planner sees each workspace buffer GUARD_BYTES longer than it is, so the
bytes right after it belong to nobody live at the same time. Before an
operator runs, the generated code fills the guard of every buffer it writes
with a known pattern; afterwards it checks the pattern and, if an operator
wrote past its buffer, returns GUARD_STATUS_BASE + the operator's index and
calls the user's hook with the operator and buffer names. Constants are
read-only and user-owned inputs/outputs are outside the pools: no guards.
"""
from __future__ import annotations

from dataclasses import replace

from usmp.analysis.scopes import pool_kind
from usmp.codegen.names import c_text
from usmp.control.flow import control_results
from usmp.lower.program import LoweredOp, Program
from usmp.planner import BufferInfo

GUARD_BYTES = 16
GUARD_STATUS_BASE = 1000
# Not all-equal bytes, so a kernel writing a run of one value is still caught.
PATTERN = [(0xA5 + 0x3B * i) & 0xFF for i in range(GUARD_BYTES)]


def guarded_buffer_infos(program: Program, buffers: list[BufferInfo]) -> list[BufferInfo]:
    """The planner's view with room for a guard after each workspace buffer."""
    return [replace(b, size=b.size + GUARD_BYTES) if pool_kind(program.buffers[b.name]) == "workspace" else b
            for b in buffers]


def op_guards(program: Program, placements: dict[str, tuple[str, int]], op: LoweredOp) -> list[dict]:
    """Where the guards of the buffers an operator writes start: C address expression and buffer name."""
    guards, seen = [], set()
    for arg in op.args:
        if op.control is not None and arg.buffer not in control_results(op):  # a block's buffers share memory
            continue  # over the operator's steps (usmp/control): only its results, held throughout, are checked
        buffer = program.buffers[arg.buffer]
        if not arg.writable or arg.buffer in seen or arg.buffer not in placements or buffer.kind in ("constant", "state"):
            continue
        seen.add(arg.buffer)
        pool, offset = placements[arg.buffer]
        guards.append(dict(address=f"pool_{pool} + {offset + buffer.size}", buffer=c_text(arg.buffer)))
    return guards
