"""How many bytes of a buffer are in use at each step, when that varies.

A buffer may hold several tensors one after another: a model input and then a
depth-first chain's output written over the rows it consumed (tiling/overlay.py),
then the next chain's. Each tensor is live from the step that writes it to the
last that reads it; at a step the buffer uses the bytes of its largest live
tensor (all of them from its start), or up to the end of a buffer stored
inside it, while that is live. When that shrinks, the planner may put other
buffers in the bytes no longer used (planner/problem.py, BufferInfo.profile).
"""
from __future__ import annotations

from usmp.lower.program import Program


def operator_steps(program: Program) -> dict[int, int]:
    """Graph operator index -> the step that computes it (a depth-first loop computes several)."""
    steps = {}
    for step, op in enumerate(program.ops):
        steps[op.op_index] = step
        for link in getattr(op, "links", ()):
            steps[link.op_index] = step
    return steps


def byte_profiles(program: Program, intervals: dict[str, tuple[int, int]]) -> dict[str, tuple[tuple[int, int, int], ...]]:
    """Buffer -> (first step, last step, bytes) segments over its live interval, for the buffers whose bytes in use
    change; buffers not listed use all their bytes throughout."""
    multiple = [name for name, b in program.buffers.items() if len(set(b.tensors)) > 1 and b.kind != "constant"]
    if not multiple:
        return {}
    graph = program.graph
    at = operator_steps(program)
    last_step = max(len(program.ops) - 1, 0)
    live: dict[int, list[int]] = {}  # tensor -> steps that write or read it
    for op in graph.operators:
        if op.index not in at:
            continue
        for t in [*op.inputs, *op.outputs]:
            if t is not None:
                live.setdefault(t, []).append(at[op.index])
    for t in graph.inputs:
        live.setdefault(t, []).append(0)
    for t in graph.outputs:
        live.setdefault(t, []).append(last_step)
    inside = _insider_spans(program, intervals)
    profiles = {}
    for name in multiple:
        first, last = intervals[name]
        spans = [(min(live[t]), max(live[t]), graph.tensors[t].nbytes) for t in set(program.buffers[name].tensors)
                 if t in live] + inside.get(name, [])  # a buffer inside it (tiling/overlay.py) uses bytes up to its end
        used = [max((n for a, b, n in spans if a <= step <= b), default=program.buffers[name].size)
                for step in range(first, last + 1)]
        if len(set(used)) < 2:
            continue
        segments, start = [], first
        for step in range(first + 1, last + 2):
            if step > last or used[step - first] != used[start - first]:
                segments.append((start, step - 1, used[start - first]))
                start = step
        profiles[name] = tuple(segments)
    return profiles


def _insider_spans(program: Program, intervals: dict[str, tuple[int, int]]) -> dict[str, list[tuple[int, int, int]]]:
    """Host -> (first step, last step, bytes to its end) of each buffer stored inside it."""
    inside: dict[str, list[tuple[int, int, int]]] = {}
    for b in program.buffers.values():
        if b.inside is not None:
            inside.setdefault(b.inside[0], []).append((*intervals[b.name], b.inside[1] + b.size))
    return inside
