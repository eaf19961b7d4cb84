"""`--reorder`: a memory-aware operator order that keeps every data dependency.

Two operators must keep their order when they touch the same buffer and at
least one of them writes it (read-after-write, write-after-read,
write-after-write; in-place and view buffers included), so any order we pick
computes exactly the same values. Among those orders we want the one whose
peak of live workspace bytes is lowest: an exact search over sets of done
operators (dynamic programming on the graph's down-sets) when the graph is
small enough, otherwise a greedy that runs, at each step, the ready operator
that needs the least memory. The original order is kept unless strictly
better is found.
"""
from __future__ import annotations

from dataclasses import replace

from usmp.lower.program import Program

MAX_EXACT_STATES = 200_000


def reorder_program(program: Program, workspace_io: bool = False) -> Program:
    """The program with its operators in a lower-peak order (same program when none is better)."""
    order = best_order(program, workspace_io)
    if order == list(range(len(program.ops))):
        return program
    return replace(program, ops=[program.ops[k] for k in order])


def best_order(program: Program, workspace_io: bool = False) -> list[int]:
    problem = _Problem(program, workspace_io)
    original = list(range(problem.n))
    found = problem.exact() if problem.n else original
    if found is None:
        found = problem.greedy()
    return found if problem.peak(found) < problem.peak(original) else original


def dependencies(program: Program) -> list[set[int]]:
    """For each operator, the operators that must run before it (direct hazards only)."""
    before = _Problem(program, False).before
    return [{j for j in range(len(before)) if before[k] >> j & 1} for k in range(len(before))]


def order_peak(program: Program, order: list[int], workspace_io: bool = False) -> int:
    """Peak live workspace bytes when the operators run in `order`."""
    return _Problem(program, workspace_io).peak(order)


class _Problem:
    def __init__(self, program: Program, workspace_io: bool):
        self.n = len(program.ops)
        planned = {name: b for name, b in program.buffers.items()
                   if b.kind in ("tensor", "scratch") or (workspace_io and b.kind in ("input", "output"))}
        self.sizes = {name: b.size for name, b in planned.items()}
        self.from_start = {name for name, b in planned.items() if b.kind == "input"}
        self.to_end = {name for name, b in planned.items() if b.kind == "output"}
        self.users: dict[str, int] = {name: 0 for name in planned}  # bit mask of operators
        self.touches: list[list[str]] = []
        self.before = [0] * self.n  # bit mask of operators that must run earlier
        last_write: dict[str, int] = {}
        reads_since: dict[str, list[int]] = {}
        for k, op in enumerate(program.ops):
            names = []
            for arg in op.args:
                b = arg.buffer
                if b in planned:
                    self.users[b] |= 1 << k
                    if b not in names:
                        names.append(b)
                if b in last_write:
                    self.before[k] |= 1 << last_write[b]
                if arg.writable:
                    for r in reads_since.get(b, []):
                        self.before[k] |= 1 << r
                    last_write[b] = k
                    reads_since[b] = []
                else:
                    reads_since.setdefault(b, []).append(k)
            self.before[k] &= ~(1 << k)
            self.touches.append(names)

    def step_bytes(self, done: int, k: int) -> int:
        """Live bytes while operator k runs after the operators in `done`."""
        after = done | (1 << k)
        total = 0
        for b, users in self.users.items():
            if users >> k & 1:
                total += self.sizes[b]
                continue
            started = users & done or b in self.from_start
            pending = users & ~after or b in self.to_end
            if started and pending:
                total += self.sizes[b]
        return total

    def peak(self, order: list[int]) -> int:
        done, peak = 0, 0
        for k in order:
            peak = max(peak, self.step_bytes(done, k))
            done |= 1 << k
        return peak

    def ready(self, done: int) -> list[int]:
        return [k for k in range(self.n) if not done >> k & 1 and self.before[k] & ~done == 0]

    def exact(self) -> list[int] | None:
        """Lowest-peak order by dynamic programming over down-sets; None when there are too many."""
        best: dict[int, tuple[int, int, int]] = {0: (0, -1, -1)}  # done -> (peak, previous done, last op)
        layer = [0]
        for _ in range(self.n):
            next_layer: dict[int, tuple[int, int, int]] = {}
            for done in layer:
                peak = best[done][0]
                for k in self.ready(done):
                    after = done | (1 << k)
                    value = max(peak, self.step_bytes(done, k))
                    if after not in next_layer or value < next_layer[after][0]:
                        next_layer[after] = (value, done, k)
            best.update(next_layer)
            if len(best) > MAX_EXACT_STATES:
                return None
            layer = list(next_layer)
        order, done = [], (1 << self.n) - 1
        while done:
            _, previous, k = best[done]
            order.append(k)
            done = previous
        return order[::-1]

    def greedy(self) -> list[int]:
        done, order = 0, []
        while len(order) < self.n:
            k = min(self.ready(done), key=lambda k: (self.step_bytes(done, k), k))
            order.append(k)
            done |= 1 << k
        return order
