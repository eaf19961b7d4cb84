"""Memory scopes: which pools each buffer may live in, and copies where none is shared.

Every operator runs on a kernel target ("c" for the portable C kernels today;
an accelerator or DMA engine later) and every pool lists the targets that may
read and write it. A buffer's candidate pools are the pools of its kind that
all operators touching it may access, in the user's priority order. When a
producer and a consumer share no pool, the consumer gets its own copy of the
buffer, made by a COPY operator (run by a target that reaches a pool of each
side) just before the first consumer that needs it.

The model's inputs and outputs may have an engine of their own (`--io-targets dma`: a peripheral's DMA
writes the inputs and reads the outputs), which then counts among their users: an input lives in a pool
that engine reaches, copied for the operators that reach none of those, and an output that the operators
cannot write there is written beside them and copied over after its last writer. Copies into a faster pool
that only pay off (placement by demand) are made the same way (insert_copy).
"""
from __future__ import annotations

import copy
from dataclasses import replace

from usmp.errors import PlanError
from usmp.lower.program import Arg, Buffer, KernelCall, LoweredOp, Program
from usmp.pools import DEFAULT_TARGETS, PoolSpec

# The copies move bytes, whatever they mean: one kernel per element width (the scalar kernels' packed weights are
# uint32_t, moved into a faster pool by placement by demand like any constant).
COPY_KERNELS = {"int8_t": ("usmp_copy_nd_x8", 1), "uint8_t": ("usmp_copy_nd_x8", 1), "int16_t": ("usmp_copy_nd_x16", 2),
                "uint16_t": ("usmp_copy_nd_x16", 2), "int32_t": ("usmp_copy_nd_x32", 4),
                "uint32_t": ("usmp_copy_nd_x32", 4), "float": ("usmp_copy_nd_x32", 4)}
ND_DIMS = 6  # USMP_ND_DIMS of the kernel library


def op_target(op: LoweredOp) -> str:
    return getattr(op, "target", None) or DEFAULT_TARGETS[0]


def pool_kind(buffer: Buffer) -> str:
    if buffer.kind in ("constant", "state"):
        return buffer.kind
    return "workspace"


def candidate_pools(targets: set[str], kind: str, pools: list[PoolSpec]) -> tuple[str, ...]:
    """Pools of `kind` that every target in `targets` may access, best first."""
    return tuple(p.name for p in pools if p.kind == kind and targets <= set(p.targets))


def buffer_targets(program: Program) -> dict[str, set[str]]:
    """The targets of the operators touching each buffer, and the I/O engines of the model's inputs and outputs;
    a buffer holding others (Buffer.inside, the tiling overlay) has theirs too, since it is what gets planned."""
    targets: dict[str, set[str]] = {name: set() for name in program.buffers}
    for op in program.ops:
        for arg in op.args:
            targets[arg.buffer].add(op_target(op))
    for name in (*program.inputs, *program.outputs) if program.io_targets else ():
        targets[name] |= set(program.io_targets)
    for name, buffer in program.buffers.items():  # a host's bytes are its insiders': every user must reach them
        host = buffer.inside
        while host is not None:
            targets[host[0]] |= targets[name]
            host = program.buffers[host[0]].inside
    return targets


def realize_memory_scopes(program: Program, pools: list[PoolSpec]) -> Program:
    """The program with COPY operators wherever a buffer's users share no pool."""
    targets = buffer_targets(program)
    stranded = [name for name, b in program.buffers.items()
                if targets[name] and not candidate_pools(targets[name], pool_kind(b), pools)]
    if not stranded:
        return program
    buffers = dict(program.buffers)
    ops = list(program.ops)
    next_index = max([op.op_index for op in ops] + [len(program.graph.operators) - 1 if program.graph else -1]) + 1
    for name in stranded:
        buffer = buffers[name]
        if buffer.is_constant:
            raise PlanError(f"constant '{name}' is read by targets {sorted(targets[name])}, but no constant pool "
                            f"is accessible to all of them")
        if buffer.kind == "state":  # a copy would lose the update: state stays in one place
            raise PlanError(f"state '{name}' is used by targets {sorted(targets[name])}, but no state pool "
                            f"is accessible to all of them")
        if name in program.outputs and program.io_targets:
            ops, next_index = _split_output(name, buffer, buffers, ops, pools, set(program.io_targets), next_index)
            continue
        engine = set(program.io_targets) if name in program.inputs else set()
        ops, next_index = _split(name, buffer, buffers, ops, pools, next_index, engine)
    return replace(program, buffers=buffers, ops=ops)


def _split(name, buffer, buffers, ops, pools, next_index, engine=frozenset()):
    users = [k for k, op in enumerate(ops) if any(a.buffer == name for a in op.args)]
    writers = [k for k in users if any(a.buffer == name and a.writable for a in ops[k].args)]
    home = {op_target(ops[k]) for k in writers} | set(engine) or {op_target(ops[users[0]])}
    if not candidate_pools(home, "workspace", pools):
        raise PlanError(f"no workspace pool is accessible to target(s) {'+'.join(sorted(home))}, which use "
                        f"'{name}': add targets={'+'.join(sorted(home))} to a --pool NAME:workspace")
    copies: dict[str, tuple[str, int]] = {}  # consumer target -> (copy buffer, position of its first use)
    for k in users:
        target = op_target(ops[k])
        if k in writers or candidate_pools(home | {target}, "workspace", pools):
            continue
        if any(a.buffer == name and a.writable for a in ops[k].args):
            raise PlanError(f"buffer '{name}' is written on targets that share no pool: cannot copy it back")
        if target not in copies:
            copies[target] = (f"{name}@{target}", k)
            buffers[copies[target][0]] = replace(buffer, name=copies[target][0], kind="tensor", tensors=[],
                                                 io_index=None)
        copy_name = copies[target][0]
        rewired = copy.copy(ops[k])  # keeps the target, which is not a dataclass field (yet)
        rewired.args = [replace(a, buffer=copy_name) if a.buffer == name else a for a in ops[k].args]
        ops[k] = rewired
    # Insert the copies, latest first so earlier positions stay valid.
    for target, (copy_name, first_use) in sorted(copies.items(), key=lambda kv: -kv[1][1]):
        mover = _copy_target(home, target, pools)
        ops.insert(first_use, _copy_op(next_index, name, copy_name, buffer, mover))
        next_index += 1
    return ops, next_index


def _split_output(name, buffer, buffers, ops, pools, engine, next_index):
    """An output its engine reads where its writers cannot write: they write a copy beside them, moved over
    after the last of them."""
    writers = [k for k, op in enumerate(ops) if any(a.buffer == name and a.writable for a in op.args)]
    side = {op_target(ops[k]) for k in writers}
    if not candidate_pools(engine, "workspace", pools):
        raise PlanError(f"no workspace pool is accessible to target(s) {'+'.join(sorted(engine))}, which read the "
                        f"output '{name}': add targets=...+{'+'.join(sorted(engine))} to a --pool NAME:workspace")
    mover = _copy_target(engine, next(iter(side)), pools)
    ops, _ = insert_copy(ops, name, f"{name}@{'+'.join(sorted(side))}", buffers, mover, next_index, before=False)
    return ops, next_index + 1


def insert_copy(ops: list[LoweredOp], name: str, copy_name: str, buffers: dict[str, Buffer], mover: str,
                index: int, before: bool = True, call: KernelCall | None = None,
                size: int | None = None) -> tuple[list[LoweredOp], int]:
    """A copy of buffer `name` that the operators use instead: before=True, filled from it just before its
    first user (every operator using it uses the copy); else written by its users and moved into it after the
    last of them. call: the COPY's kernel call on arguments "input" and "output" (default: an element-wise
    copy), size: the copy's bytes (default: the buffer's). Returns the operators and the COPY's position."""
    buffers[copy_name] = replace(buffers[name], name=copy_name, kind="tensor", tensors=[], io_index=None,
                                 size=size or buffers[name].size)
    users = [k for k, op in enumerate(ops) if any(a.buffer == name for a in op.args)]
    rewired = []
    for k, op in enumerate(ops):
        if k in users:
            op = copy.copy(op)  # keeps the target, which is not a dataclass field (yet)
            op.args = [replace(a, buffer=copy_name) if a.buffer == name else a for a in op.args]
        rewired.append(op)
    source, target = (name, copy_name) if before else (copy_name, name)
    step = _copy_op(index, source, target, buffers[name], mover)
    if call is not None:
        step.calls = [call]
    at = users[0] if before else users[-1] + 1
    return rewired[:at] + [step] + rewired[at:], at


def _copy_target(home: set[str], target: str, pools: list[PoolSpec]) -> str:
    """A target that reaches a pool of the producer's side and one of the consumer's."""
    everyone = []
    for p in pools:
        for t in p.targets:
            if t not in everyone:
                everyone.append(t)
    for mover in everyone:
        if candidate_pools(home | {mover}, "workspace", pools) and candidate_pools({target, mover}, "workspace", pools):
            return mover
    raise PlanError(f"no pool is shared by targets {sorted(home)} and '{target}', and no target can copy between them")


def _copy_op(index: int, source: str, copy: str, buffer: Buffer, mover: str) -> LoweredOp:
    if buffer.c_type not in COPY_KERNELS:
        raise PlanError(f"buffer '{source}' ({buffer.c_type}) must be copied between pools, but there is no copy "
                        f"kernel for {buffer.c_type}")
    function, element = COPY_KERNELS[buffer.c_type]
    count = [1] * (ND_DIMS - 1) + [buffer.size // element]
    params = dict(count=count, in_step=[0] * (ND_DIMS - 1) + [1], out_step=[0] * (ND_DIMS - 1) + [1],
                  in_offset=0, out_offset=0)
    op = LoweredOp(index, "COPY", [Arg("input", source, False), Arg("output", copy, True)],
                   [KernelCall(function, "usmp_copy_nd_params", params, ["input", "output"])])
    op.target = mover
    return op
