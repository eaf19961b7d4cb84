"""Accesses of each planned buffer in one inference: the access model (access.py) over the program's calls.

A depth-first loop runs its links' calls once a band and its set-up and finish once; a buffer stored inside
another (Buffer.inside) counts with the one that holds it, since that is what the planner places. A kernel
whose entry does not fit its call (parameters it no longer has) is counted by the default, as one without.

A loop's state (tiling/state.py) is counted by what the band step does to it each band: every link's
struct usmp_band read and written, the band's parameter copies written and read once. The kernels read
their copy's fields more often than that (as often as their loops reload them, which no access.yaml
describes yet), so that count is a lower bound and the buffer is listed as guessed.
"""
from __future__ import annotations

from usmp.errors import UsmpError
from usmp.lower.program import Program
from usmp.paths import KERNELS_INCLUDE_DIR
from usmp.placement.access import ELEMENT_BYTES, AccessEstimate, Accesses, call_accesses, default_accesses
from usmp.tiling.loop import BandLoop
from usmp.tiling.state import STATE_ARG, band_copies, params_bytes, planned_pointer
from usmp.tiling.struct_sizes import struct_bytes


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
        state = next((a.buffer for a in op.args if a.name == STATE_ARG), None) if isinstance(op, BandLoop) else None
        if state is not None:
            total = estimate.buffers.setdefault(planned_host(program, state), Accesses())
            words = loop_state_words(program, op, state)
            total.loads += words
            total.stores += words
            estimate.guessed.append(state)
    estimate.unmodelled = list(unmodelled)
    return estimate


STEADY_BAND_WORDS = 2  # of a link's struct usmp_band a steady band surely moves on: its rows done and kept


def loop_state_words(program: Program, loop: BandLoop, state: str) -> int:
    """Words of a loop's state the band step writes (and a kernel or the step reads back) over the loop: each band,
    each link's struct usmp_band (a steady band, the band before moved on, only its rows: tiling.c) and each
    parameter copy."""
    pointer = planned_pointer(program.buffers[state])
    band = struct_bytes("usmp_band", pointer, (KERNELS_INCLUDE_DIR,)) or 4 * 9
    external = program.external_kernels
    include_dirs = (KERNELS_INCLUDE_DIR, *(external.include_dirs if external else ()))
    copies = sum(params_bytes(c, pointer, include_dirs) for c in band_copies(loop))
    rows = loop.rows
    steady = sum(times * len(bands) for bands, times, change in rows.walk() if change is not None)
    links = len(loop.links)
    return (rows.bands * (copies // 4) + (rows.bands - steady) * links * (band // 4)
            + steady * links * STEADY_BAND_WORDS)
