"""Accesses of each planned buffer in one inference: the access model (access.py) over the program's calls.

A depth-first loop runs its links' calls once a band and its set-up and finish once; a buffer stored inside
another (Buffer.inside) counts with the one that holds it, since that is what the planner places. A kernel
whose entry does not fit its call (parameters it no longer has) is counted by the default, as one without.
"""
from __future__ import annotations

from usmp.errors import UsmpError
from usmp.lower.program import Program
from usmp.placement.access import ELEMENT_BYTES, AccessEstimate, Accesses, call_accesses, default_accesses
from usmp.tiling.loop import BandLoop


def call_counts(op) -> list[int]:
    """How many times each of the operator's kernel calls runs in one inference."""
    if not isinstance(op, BandLoop):
        return [1] * len(op.calls)
    counts = [1] * len(op.calls)
    bands = op.bands
    for link in op.links:
        for position in link.calls:
            counts[position] = bands
    return counts


def planned_host(program: Program, name: str) -> str:
    while program.buffers[name].inside is not None:
        name = program.buffers[name].inside[0]
    return name


def program_accesses(program: Program, extension: str | None = None) -> AccessEstimate:
    """The estimate for every buffer the program's operators touch (init() aside: it runs before the first
    inference); extension: the core's (select.cpus.cpu_extension), which some kernels' loops depend on."""
    estimate = AccessEstimate()
    unmodelled: dict[str, None] = {}
    for op in program.ops:
        buffer_of = {a.name: a.buffer for a in op.args}
        writable = {a.name: a.writable for a in op.args}
        for call, runs in zip(op.calls, call_counts(op)):
            names = [buffer_of[a] for a in call.args]
            elements = [ELEMENT_BYTES.get(program.buffers[n].c_type, 1) for n in names]
            sizes = [program.buffers[n].size for n in names]
            try:
                counted = call_accesses(call.function, call.params, names, runs, sizes, extension)
            except UsmpError:  # an entry that does not fit this call's parameters (a kernel changed): guessed
                counted = None
            if counted is None:
                unmodelled[call.function] = None
                counted = default_accesses([writable[a] for a in call.args], elements, sizes, runs)
            for position, accesses in counted.items():
                total = estimate.buffers.setdefault(planned_host(program, names[position]), Accesses())
                total.loads += accesses.loads
                total.stores += accesses.stores
    estimate.unmodelled = list(unmodelled)
    return estimate
