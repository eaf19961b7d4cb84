"""The tiling pass: fuse chains of window operators into one depth-first step.

A chain is a run of consecutive lowered operators, each a single window-kernel
call (CONV_2D, DEPTHWISE_CONV_2D, pools) on a batch-1 tensor, where each
intermediate tensor is written by one link and read only by the next. The
fused step computes the chain's output `band` rows at a time; each
intermediate tensor becomes a band buffer (scratch) holding the rows its
consumer's window needs for one band, recomputed where bands overlap (the halo).
Only the chain's input and output exist whole, so the planner sees a smaller
scratch in place of whole intermediate tensors; it stays generic.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

from usmp.analysis.liveness import live_intervals
from usmp.lower.program import MIN_ALIGNMENT, Arg, Buffer, KernelCall, LoweredOp, Program
from usmp.tiling.geometry import band_params, row_elements
from usmp.tiling.reductions import Tail, reduction_tail
from usmp.tiling.schedule import (STRATEGIES, Compute, Move, chain_schedule, computed_rows, held_rows, moved_rows,
                                  moves)

WINDOW_KERNELS = {
    "usmp_conv_s8", "usmp_conv_f32", "usmp_depthwise_conv_s8", "usmp_depthwise_conv_f32",
    "usmp_avg_pool_s8", "usmp_avg_pool_f32", "usmp_max_pool_s8", "usmp_max_pool_f32",
}
ELEMENT_BYTES = {"int8_t": 1, "float": 4}


@dataclass
class TilingChoice:
    """One fused chain: its operators, band height and the bytes it saves (for reports)."""

    op_indices: list[int]
    band: int  # output rows of the chain's last operator per band
    whole_bytes: int  # intermediate tensors, whole
    band_bytes: int  # their band buffers
    extra_rows: int  # output rows computed more than once (recompute cost)
    total_rows: int  # output rows of the chain's operators untiled
    strategy: str = "recompute"  # or "sliding": rows kept from band to band (schedule.py)
    bands: int = 1  # times the chain's last link runs
    band_buffers: list[str] = field(default_factory=list)


@dataclass
class DepthFirstOp(LoweredOp):
    """A fused chain: one step of the schedule, band after band; `choice` is for the reports."""

    choice: TilingChoice | None = None

    def report(self) -> dict:
        c = self.choice
        return {"operators": c.op_indices, "band_rows": c.band, "whole_bytes": c.whole_bytes,
                "band_bytes": c.band_bytes, "recomputed_rows": c.extra_rows, "rows": c.total_rows,
                "strategy": c.strategy, "bands": c.bands, "band_buffers": c.band_buffers}


def window_call(op: LoweredOp) -> KernelCall | None:
    if len(op.calls) != 1 or op.calls[0].function not in WINDOW_KERNELS:
        return None
    call = op.calls[0]
    return call if call.params.get("batches") == 1 else None


def _arg(op: LoweredOp, name: str) -> Arg:
    return next(a for a in op.args if a.name == name)


def find_chains(program: Program) -> list[list[int]]:
    """Maximal runs of positions in program.ops that can be fused (at least two operators)."""
    users: dict[str, list[int]] = {}
    for k, op in enumerate(program.ops):
        for a in op.args:
            users.setdefault(a.buffer, []).append(k)
    chains: list[list[int]] = []
    current: list[int] = []
    for k, op in enumerate(program.ops):
        if current and _links(program, users, current[-1], k) and _tail(program, [current[-1], k]):
            current.append(k)  # a reduction ends its chain
            if len(current) == 2:
                chains.append(current)
            current = []
            continue
        call = window_call(op)
        if call is None or program.buffers[_arg(op, call.args[0]).buffer].c_type not in ELEMENT_BYTES:
            current = []
            continue
        if current and _links(program, users, current[-1], k):
            current.append(k)
        else:
            current = [k]
        if len(current) == 2:
            chains.append(current)
    return chains


def _tail(program: Program, positions: list[int]) -> Tail | None:
    """The chain's last operator as a band-by-band reduction of the link before it, if it is one."""
    if len(positions) < 2:
        return None
    return reduction_tail(program.ops[positions[-1]], program.ops[positions[-2]].calls[0])


def _row_params(program: Program, positions: list[int]) -> tuple[list[dict], Tail | None]:
    """Each link's params as the band schedule reads them (a reducing tail as a 1x1 window)."""
    tail = _tail(program, positions)
    params = [program.ops[k].calls[0].params for k in positions]
    return (params[:-1] + [tail.row_params()], tail) if tail else (params, None)


def _links(program: Program, users: dict[str, list[int]], k: int, j: int) -> bool:
    """Operator j reads, as its window input, a tensor only operator k writes and only j reads."""
    first, second = program.ops[k], program.ops[j]
    out = _arg(first, first.calls[0].args[-1]).buffer
    inp = _arg(second, second.calls[0].args[0]).buffer
    buffer = program.buffers[out]
    return (out == inp and buffer.kind == "tensor" and users[out] == [k, j] and len(buffer.tensors) <= 1
            and not _arg(second, second.calls[0].args[0]).writable)


def plan_chain(program: Program, positions: list[int], band: int, strategy: str = "recompute") -> TilingChoice:
    calls = [program.ops[k].calls[0] for k in positions]
    params, _ = _row_params(program, positions)
    steps = chain_schedule(params, band, strategy)
    whole = band_bytes = extra = total = 0
    for i, p in enumerate(params):
        total += p["out_h"]
        extra += computed_rows(steps, i) - p["out_h"]
        if i + 1 < len(calls):
            row = row_elements(p, "out") * _element_bytes(program, calls, positions, i)
            whole += row * p["out_h"]
            band_bytes += _aligned(row * held_rows(steps, i))
    last_runs = sum(1 for s in steps if isinstance(s, Compute) and s.link == len(params) - 1)
    names = [f"op{program.ops[positions[0]].op_index}_band{i}" for i in range(len(params) - 1)]
    return TilingChoice([program.ops[k].op_index for k in positions], band, whole, band_bytes, extra, total, strategy,
                        last_runs, names)


def _element_bytes(program: Program, calls: list[KernelCall], positions: list[int], i: int) -> int:
    op = program.ops[positions[i]]
    return ELEMENT_BYTES[program.buffers[_arg(op, calls[i].args[-1]).buffer].c_type]


def _aligned(n: int) -> int:
    return (n + MIN_ALIGNMENT - 1) // MIN_ALIGNMENT * MIN_ALIGNMENT


def fuse_chain(program: Program, positions: list[int], band: int,
               strategy: str = "recompute") -> tuple[LoweredOp, dict[str, Buffer]]:
    """The depth-first step for the chain at `positions`, and its band buffers."""
    ops = [program.ops[k] for k in positions]
    calls = [op.calls[0] for op in ops]
    first = ops[0]
    args: list[Arg] = []
    renamed: list[dict[str, str]] = []
    for j, op in enumerate(ops):
        names = {}
        for a in op.args:
            if j and a.name == op.calls[0].args[0]:
                continue  # the band buffer replaces the intermediate tensor
            if j + 1 < len(ops) and a.name == op.calls[0].args[-1]:
                continue
            names[a.name] = f"l{j}_{a.name}"
            args.append(Arg(names[a.name], a.buffer, a.writable))
        renamed.append(names)
    params, tail = _row_params(program, positions)
    steps = chain_schedule(params, band, strategy)
    buffers: dict[str, Buffer] = {}
    band_names = []
    for i, call in enumerate(calls[:-1]):
        out = program.buffers[_arg(ops[i], call.args[-1]).buffer]
        name = f"op{first.op_index}_band{i}"
        buffers[name] = Buffer(name, "scratch",
                               held_rows(steps, i) * row_elements(call.params, "out") * ELEMENT_BYTES[out.c_type],
                               max(out.alignment, MIN_ALIGNMENT), out.c_type)
        band_names.append(name)
        args.append(Arg(name, name, True))
    new_calls = []
    if tail:
        acc = None
        if tail.needs_accumulator:
            acc = f"op{first.op_index}_acc"
            buffers[acc] = Buffer(acc, "scratch", 4 * tail.channels, MIN_ALIGNMENT,
                                  "int32_t" if tail.suffix == "s8" else "float")
            args.append(Arg(acc, acc, True))
        acc = tail.accumulator(renamed[-1], acc)
        new_calls.append(tail.start(acc))
    for step in steps:
        call = calls[step.link]
        i = step.link
        if isinstance(step, Move):
            row = row_elements(call.params, "out")
            new_calls.append(_move_rows(band_names[i], step.source * row, step.rows * row,
                                        ELEMENT_BYTES[buffers[band_names[i]].c_type]))
            continue
        source = renamed[0][call.args[0]] if i == 0 else band_names[i - 1]
        source = _offset(source, (step.rows_in.first - step.in_top) * row_elements(params[i], "in"))
        if tail and i + 1 == len(calls):
            new_calls.append(tail.band(source, step.out.count, acc))
            continue
        target = band_names[i] if i + 1 < len(calls) else renamed[i][call.args[-1]]
        target = _offset(target, (step.out.first - step.out_top) * row_elements(call.params, "out"))
        middle = [renamed[i][a] for a in call.args[1:-1]]
        new_calls.append(KernelCall(call.function, call.params_type, band_params(call.params, step.out, step.rows_in),
                                    [source, *middle, target]))
    if tail:
        new_calls.extend(tail.finish(acc, renamed[-1][calls[-1].args[-1]]))
    opcode = "DEPTH_FIRST_" + "_".join(op.opcode for op in ops[:1]) + f"_X{len(ops)}"
    choice = plan_chain(program, positions, band, strategy)
    return DepthFirstOp(first.op_index, opcode, args, new_calls, choice), buffers


def _move_rows(buffer: str, source: int, elements: int, element_bytes: int) -> KernelCall:
    """Copy `elements` from `source` up to the top of a band buffer (overlapping: a forward copy)."""
    count = elements * element_bytes
    words = count % 4 == 0 and source * element_bytes % 4 == 0  # band buffers are word aligned
    return KernelCall("usmp_move_words" if words else "usmp_move_bytes", "usmp_move_params",
                      dict(count=count // 4 if words else count), [_offset(buffer, source), buffer])


def _offset(pointer: str, elements: int) -> str:
    return f"{pointer} + {elements}" if elements else pointer


def step_profile(program: Program, workspace_io: bool = False) -> list[int]:
    """Live workspace bytes at each step, highest first."""
    live = [0] * max(len(program.ops), 1)
    kinds = ("tensor", "scratch", "input", "output") if workspace_io else ("tensor", "scratch")
    for name, (first, last) in live_intervals(program).items():
        if program.buffers[name].kind in kinds:
            for step in range(first, last + 1):
                live[step] += program.buffers[name].size
    return sorted(live, reverse=True)


MAX_LINKS = {"recompute": 6,  # longer chains recompute too much halo to pay off
             "sliding": 12}  # bounds the search; a sliding chain repeats no work however long
# `auto` spends at most this share of the estimated window work on recomputation: 10 % less a margin,
# as the estimate runs low (person_detect: 9.9 % estimated was 10.8 % measured on the Cortex-M3).
AUTO_EXTRA = 0.08


def tile_program(program: Program, mode: str, workspace_io: bool = False) -> tuple[Program, list[TilingChoice]]:
    """The program with chains fused, greedily where each lowers the live-bytes profile most.

    The profile (live workspace bytes per step, highest first) is compared
    as a whole, so that two steps sharing the peak can be lowered one after
    the other. Each candidate chain and band height is costed both ways,
    recomputing halos or sliding them (schedule.py). "max" takes any cost;
    "auto" keeps the added instructions (the cost model) within AUTO_EXTRA
    of the model's window work. A result whose peak is not lower is dropped.
    """
    if mode == "off":
        return program, []
    original = program
    peak = partial(step_profile, workspace_io=workspace_io)
    budget = AUTO_EXTRA * sum(_work(c.params, c.params["out_h"]) for op in program.ops
                              if (c := window_call(op))) if mode == "auto" else float("inf")
    choices: list[TilingChoice] = []
    while True:
        baseline = peak(program)
        best = None
        for chain in find_chains(program):
            for strategy in STRATEGIES:
                for i in range(len(chain) - 1):
                    for j in range(i + 2, min(len(chain), i + MAX_LINKS[strategy]) + 1):
                        positions = chain[i:j]
                        out_h = _row_params(program, positions)[0][-1]["out_h"]
                        for band in _band_heights(out_h):
                            cost = _extra_work(program, positions, band, strategy)
                            if cost > budget:
                                continue
                            value = peak(_apply(program, positions, band, strategy))
                            key = (value, cost)
                            if value < baseline and (best is None or key < best[0]):
                                best = (key, positions, band, strategy)
        if best is None:
            if not choices or peak(program)[0] >= peak(original)[0]:
                return original, []
            return program, choices
        (_, cost), positions, band, strategy = best
        budget -= cost
        choices.append(plan_chain(program, positions, band, strategy))
        program = _apply(program, positions, band, strategy)


def _band_heights(out_h: int) -> list[int]:
    heights, h = [], 1
    while h < out_h:
        heights.append(h)
        h *= 2
    return heights


# Cortex-M0 instructions, roughly: per multiply-accumulate (load, load, multiply, add), per output
# element (requantize, clamp, store) and per kernel call (setup, border walks).
MAC_COST, ELEMENT_COST, CALL_COST = 4, 80, 300
# per byte a sliding buffer keeps: a word copy's load, store and loop (a byte copy's is four times that)
MOVE_COST = 2


def _work(params: dict, rows: int) -> int:
    """The cost model's instructions for `rows` output rows of one window operator."""
    taps = params["filter_h"] * params["filter_w"] * params.get("filter_in_ch", 1)
    return rows * row_elements(params, "out") * (MAC_COST * taps + ELEMENT_COST)


def _extra_work(program: Program, positions: list[int], band: int, strategy: str = "recompute") -> int:
    """The cost model's added instructions: recomputed rows, rows moved, and the extra kernel calls."""
    calls = [program.ops[k].calls[0] for k in positions]
    params, _ = _row_params(program, positions)
    steps = chain_schedule(params, band, strategy)
    extra = CALL_COST * (sum(1 for s in steps if isinstance(s, Compute)) - len(calls))
    for i, p in enumerate(params):
        extra += _work(p, computed_rows(steps, i) - p["out_h"])
        if i + 1 < len(calls):
            row_bytes = row_elements(p, "out") * _element_bytes(program, calls, positions, i)
            extra += moved_rows(steps, i) * row_bytes * MOVE_COST + CALL_COST * moves(steps, i)
    return extra


def _apply(program: Program, positions: list[int], band: int, strategy: str = "recompute") -> Program:
    """The program with one chain fused (positions after it shift)."""
    fused, band_buffers = fuse_chain(program, positions, band, strategy)
    dropped = {program.buffers[_arg(program.ops[k], program.ops[k].calls[0].args[-1]).buffer].name
               for k in positions[:-1]}
    ops = program.ops[:positions[0]] + [fused] + program.ops[positions[-1] + 1:]
    buffers = {n: b for n, b in program.buffers.items() if n not in dropped}
    buffers.update(band_buffers)
    return replace(program, ops=ops, buffers=buffers)
