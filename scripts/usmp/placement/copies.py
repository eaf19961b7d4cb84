"""Copies into faster pools that pay: hot constants once at start-up or before their readers each run, the
model's inputs and outputs each run.

A constant that placement by demand leaves in a slow pool (flash with wait states) may be read far more
often than it has bytes. Copying it at start-up (init(), and reset(), as init() already copies constant
pools pinned to a NOLOAD region) into a faster writable pool pays for itself within one inference when

    accesses x (wait of its pool - wait of the fast pool)  >  words x (wait of its pool + wait of the fast pool
                                                                        + COPY_INSTRUCTIONS_PER_WORD)

and the copy is then a planned buffer like any other (kind "copy"), live at every step: it competes for the
fast pool's bytes with the tensors (rank.py decides, by saving per byte and step), and the operators read it
instead of the constant. Only pools with a size budget take copies: their bytes are reserved for the model,
so a copy uses room that would stay idle, where in an unlimited pool (or one bounded only by its memory
region) it would add RAM. A model whose caller owns the workspace (--user-pools: it may share it with other
models between runs) gets no start-up copies, nor one with IF or WHILE any copy.

A constant can instead be staged: copied each inference by a COPY operator just before its first reader into
a buffer that lives only until its last (copy_offers, staged). Its words cost as much every inference as a
start-up copy's once, but the copies of constants read at different steps share the fast pool's bytes, as
tensors do: on Helium, where a layer re-reads all its constants for every pair of output pixels, DTCM can
then hold every layer's in turn. The compiler ranks with each kind of copy in turn (and without) and keeps
the plan of fewest estimated wait cycles; --user-pools gets neither kind.

An input that an engine writes (--io-targets) lives where that engine reaches, a slow pool maybe; when the
operators read it more often than it has words, a COPY operator moves it into a faster pool just before its
first reader, and they read the copy (an output: written beside the operators, moved after its last
writer). That costs each inference words x (both waits + COPY_INSTRUCTIONS_PER_WORD), so it is offered only
where the accesses saved are worth more, and made only where the ranking gives the copy a faster pool.
"""
from __future__ import annotations

import copy as shallow
from dataclasses import dataclass, replace
from math import ceil

from usmp.analysis.scopes import buffer_targets, insert_copy, op_target
from usmp.lower.program import Arg, Buffer, KernelCall, LoweredOp, Program
from usmp.placement.rank import PoolSpeed
from usmp.planner.problem import BufferInfo
from usmp.pools import PoolSpec

COPY_INSTRUCTIONS_PER_WORD = 3  # usmp_band_copy_words: a load, a store and the loop's step
COPY_OPCODE = "STARTUP_COPY"


def copy_name(constant: str) -> str:
    return f"{constant}@copy"


@dataclass(frozen=True)
class CopyOffer:
    """A copy that could be made, as the ranking sees it: a buffer that either goes to one of the fast pools
    or stays (a pseudo pool as slow as the source's own)."""

    source: str  # the constant, input or output copied
    info: BufferInfo  # the copy (copy_name or io_copy_name); its candidates: the fast pools and `stay`
    stay: PoolSpeed


def copy_offers(program: Program, buffers: list[BufferInfo], given: dict[str, str], pools: list[PoolSpec],
                accesses: dict[str, float], steps: int, staged: bool = False) -> list[CopyOffer]:
    """The copies worth considering: constants given a pool slower than a size-limited workspace pool that
    every operator reading them reaches, whose copy would pay for itself within one inference. A start-up
    copy lives at every step; staged: a copy made each inference just before the constant's first reader,
    live only until its last, so that the copies of constants read at different steps share a fast pool's
    bytes over time (each layer's constants there while that layer runs)."""
    if any(op.control is not None for op in program.ops):
        return []
    speeds = {p.name: p for p in pools}
    targets = buffer_targets(program)
    users: dict[str, list[int]] = {}
    for k, op in enumerate(program.ops):
        for arg in op.args:
            users.setdefault(arg.buffer, []).append(k)
    offers = []
    for b in buffers:
        home = given.get(b.name)
        if home is None or program.buffers[b.name].kind != "constant" or b.name not in users:
            continue
        slow = speeds[home].wait
        readers = targets[b.name] | {"c"}  # init() or a COPY operator copies it on the CPU
        fast = [p for p in pools if p.kind == "workspace" and reserved(p) and p.wait < slow
                and readers <= set(p.targets) and _pays(accesses.get(b.name, 0.0), b.size, slow, p.wait)]
        if not fast:
            continue
        stay = PoolSpeed(f"(stays in {home}{' each inference' if staged else ''}: {b.name})", None, slow)
        live = (min(users[b.name]), max(users[b.name])) if staged else (0, steps - 1)
        info = BufferInfo((staged_name if staged else copy_name)(b.name), -(-b.size // 4) * 4, b.alignment,
                          (*(p.name for p in fast), stay.name), live=live)
        offers.append(CopyOffer(b.name, info, stay))
    return offers


def staged_name(constant: str) -> str:
    return f"{constant}@staged"


def add_staged_copies(program: Program, constants: list[str]) -> Program:
    """The program with each constant copied by a COPY operator (whole words) just before its first reader into
    its staged copy, which the operators read instead."""
    buffers = dict(program.buffers)
    ops = list(program.ops)
    index = max([op.op_index for op in program.ops + program.init_ops] + [len(program.graph.operators)]) + 1
    for name in constants:
        words = -(-buffers[name].size // 4)  # a constant starts on a word and its pool ends on one
        call = KernelCall("usmp_band_copy_words", "usmp_band_copy_params", {"count": words}, ["input", "output"])
        ops, _ = insert_copy(ops, name, staged_name(name), buffers, "c", index, call=call, size=4 * words)
        buffers[staged_name(name)] = replace(buffers[staged_name(name)], data=None)
        index += 1
    return replace(program, buffers=buffers, ops=ops)


def reserved(pool: PoolSpec) -> bool:
    """Whether the pool's size is a budget the user set (size=, smaller than any memory region it is in), not
    just the region's capacity or no limit at all."""
    region = getattr(pool, "region_size", None)
    return pool.size_limit is not None and (region is None or pool.size_limit < region)


def _pays(accesses: float, size: int, slow: int, fast: int) -> bool:
    words = ceil(size / 4)
    return accesses * (slow - fast) > words * (slow + fast + COPY_INSTRUCTIONS_PER_WORD)


def add_startup_copies(program: Program, constants: list[str]) -> Program:
    """The program with each constant's copy: a buffer of kind "copy", filled by an init() operator, that the
    operators read instead of the constant."""
    if not constants:
        return program
    buffers = dict(program.buffers)
    rename = {}
    for name in constants:
        source = buffers[name]
        rename[name] = copy_name(name)
        buffers[copy_name(name)] = Buffer(copy_name(name), "copy", -(-source.size // 4) * 4, source.alignment,
                                          source.c_type, tensors=list(source.tensors))
    ops = []
    for op in program.ops:
        if not any(a.buffer in rename for a in op.args):
            ops.append(op)
            continue
        rewired = shallow.copy(op)  # keeps attributes that are not dataclass fields (a copy operator's target)
        rewired.args = [replace(a, buffer=rename.get(a.buffer, a.buffer)) for a in op.args]
        ops.append(rewired)
    index = max([op.op_index for op in program.ops + program.init_ops] + [len(program.graph.operators)]) + 1
    init = LoweredOp(index, COPY_OPCODE, [], [])
    for k, name in enumerate(constants):
        init.args += [Arg(f"constant{k}", name, False), Arg(f"copy{k}", copy_name(name), True)]
        init.calls.append(KernelCall("usmp_band_copy_words", "usmp_band_copy_params",
                                     {"count": buffers[copy_name(name)].size // 4}, [f"constant{k}", f"copy{k}"]))
    return replace(program, buffers=buffers, ops=ops, init_ops=[*program.init_ops, init])


def io_copy_name(name: str) -> str:
    return f"{name}@fast"


def io_copy_offers(program: Program, buffers: list[BufferInfo], pools: list[PoolSpec],
                   accesses: dict[str, float]) -> list[CopyOffer]:
    """Inputs and outputs of I/O engines whose operators' accesses would pay for a copy in a faster pool."""
    if not program.io_targets or any(op.control is not None for op in program.ops):
        return []
    speeds = {p.name: p for p in pools}
    info = {b.name: b for b in buffers}
    hosts = {b.inside[0] for b in program.buffers.values() if b.inside is not None}
    offers = []
    for name in (*program.inputs, *program.outputs):
        if name not in info or program.buffers[name].inside is not None or name in hosts:
            continue
        users = [k for k, op in enumerate(program.ops) if any(a.buffer == name for a in op.args)]
        if not users:
            continue
        slow = max(speeds[p].wait for p in info[name].pool_candidates)
        targets = {op_target(program.ops[k]) for k in users} | {"c"}
        fast = [p for p in pools if p.kind == "workspace" and p.wait < slow and targets <= set(p.targets)
                and _pays(accesses.get(name, 0.0), info[name].size, slow, p.wait)]
        if not fast:
            continue
        stay = PoolSpeed(f"(stays: {name})", None, slow)
        copy = BufferInfo(io_copy_name(name), -(-info[name].size // 4) * 4, info[name].alignment,
                          (*(p.name for p in fast), stay.name), live=(min(users), max(users)))
        offers.append(CopyOffer(name, copy, stay))
    return offers


def add_io_copies(program: Program, names: list[str]) -> Program:
    """The program with each input copied into its copy before its first user, or each output written into
    its copy and moved after its last user; the operators use the copy. A whole number of words is moved
    (the copy's size is rounded up to words); an output whose size is not is moved byte by byte, so that
    nothing past its end is written."""
    buffers = dict(program.buffers)
    ops = list(program.ops)
    index = max([op.op_index for op in program.ops + program.init_ops] + [len(program.graph.operators)]) + 1
    for name in names:
        size = buffers[name].size
        words = -(-size // 4)
        if name in program.outputs and size % 4:
            call = KernelCall("usmp_copy_bytes", "usmp_copy_bytes_params", {"count": size}, ["input", "output"])
        else:
            call = KernelCall("usmp_band_copy_words", "usmp_band_copy_params", {"count": words}, ["input", "output"])
        ops, _ = insert_copy(ops, name, io_copy_name(name), buffers, "c", index, before=name not in program.outputs,
                             call=call, size=4 * words)
        index += 1
    return replace(program, buffers=buffers, ops=ops)
