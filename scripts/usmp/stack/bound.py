"""The most stack one inference can take: the deepest path of the call graph under run().

A function's bound is its frame plus the largest bound among the functions it calls, or the bound of a
function it tail-calls (it has released its frame before the branch: a band wrapper's jump to its kernel);
run()'s is the inference's. Each call run() makes belongs to the operator whose (inlined) code makes it, so an operator's
bound is run()'s frame plus the largest bound among its calls (its own function's, where GCC kept one). The
bound is unknown, with the reason, where the graph has a cycle (recursion), a frame of no fixed size or a
call through a register.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from usmp.stack.image import Function


class Unbounded(Exception):
    """The call graph under a function has no finite bound; the message says where."""


@dataclass
class StackBound:
    bytes: int | None  # None: not known (reason says why)
    path: list[tuple[str, int]] = field(default_factory=list)  # the deepest path: (function, its frame)
    steps: list[int] = field(default_factory=list)  # per step of the program (operator), in schedule order
    reason: str | None = None

    def describe(self) -> str:
        if self.bytes is None:
            return f"unknown ({self.reason})"
        return f"{self.bytes} B (" + " -> ".join(f"{name} {frame}" for name, frame in self.path) + ")"


class CallGraph:
    def __init__(self, functions: dict[str, Function], frames: dict[str, int | None]):
        self.functions = functions
        self.frames = frames  # GCC's (frames.py), where known; else the disassembly's
        self._memo: dict[str, tuple[int, list[tuple[str, int]]]] = {}

    def frame(self, name: str) -> int:
        f = self._function(name)
        gcc = re.sub(r"\.\d+$", "", name)  # .su files name clones without their number (f.constprop)
        if self.frames.get(gcc):
            value = self.frames[gcc]  # GCC's frame counts the registers a saving helper stores
        elif gcc in self.frames and self.frames[gcc] is None:
            value = None
        else:  # not compiled by GCC with the flag, or naked (GCC says 0 for an assembly body it never sees)
            value = f.frame
            for helper in f.saves:
                helper_frame = self._function(helper).frame
                value = None if value is None or helper_frame is None else value + helper_frame
        if value is None:
            raise Unbounded(f"{name} has a frame of no fixed size (alloca or a variable-length array)")
        return value

    def deepest(self, name: str, callers: tuple[str, ...] = ()) -> tuple[int, list[tuple[str, int]]]:
        """The bound of `name` and its deepest path."""
        if name in self._memo:
            return self._memo[name]
        if name in callers:
            raise Unbounded("recursion: " + " -> ".join(callers[callers.index(name):] + (name,)))
        f = self._function(name)
        if f.indirect:
            raise Unbounded(f"{name} calls a function through a register (at 0x{f.indirect[0]:x})")
        frame = self.frame(name)
        total, path = frame, [(name, frame)]
        for address, callee in f.calls.items():
            depth, deeper = self.deepest(callee, callers + (name,))
            tail = address in f.tails
            if depth + (0 if tail else frame) > total:
                total = depth + (0 if tail else frame)
                path = [(f"{name} (tail call)", 0) if tail else (name, frame)] + deeper
        self._memo[name] = total, path
        return self._memo[name]

    def _function(self, name: str) -> Function:
        if name not in self.functions:
            raise Unbounded(f"{name} is not in the image")
        return self.functions[name]


def stack_bound(graph: CallGraph, root: str, owners: dict[int, int], steps_by_function: dict[str, int],
                steps: int) -> StackBound:
    """The bound of `root` (run()) and of each step: owners maps the addresses of root's calls to the step whose
    code makes them (profile.owners_of); a call to an operator function GCC kept belongs to its step."""
    try:
        total, path = graph.deepest(root)
        frame = graph.frame(root)
        per_step = [frame] * steps
        for address, callee in graph.functions[root].calls.items():
            step = steps_by_function.get(callee.split(".")[0], owners.get(address, -1))
            if 0 <= step < steps:
                below = graph.deepest(callee)[0]
                per_step[step] = max(per_step[step], below + (0 if address in graph.functions[root].tails else frame))
    except Unbounded as exc:
        return StackBound(None, reason=str(exc))
    return StackBound(total, path, per_step)
