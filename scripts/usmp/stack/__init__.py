"""The stack of one inference: bounded from the image's call graph, reported beside the pools.

The bound (bound.py) is the deepest path under run() in the call graph of the linked image: the frames
GCC reports (-fstack-usage, frames.py), else the frame the disassembly shows (image.py: the C library,
libgcc, a library built without the flag, a naked function: GCC reports 0 for its assembly), and the calls the disassembly shows, direct, tail and
millicode; the instruction set's part is a StackIsa of its architecture (runner/arm.py, runner/riscv.py).
It holds for any kernel, CMSIS-NN included, without a table of them.
"""
from __future__ import annotations

from pathlib import Path

from usmp.stack.bound import CallGraph, StackBound, Unbounded, stack_bound
from usmp.stack.frames import read_frames
from usmp.stack.image import read_functions

__all__ = ["CallGraph", "StackBound", "Unbounded", "image_stack_bound", "stack_bound"]


def image_stack_bound(elf: Path, object_dirs: list[Path], arch, program) -> StackBound:
    """The bound of program's run() in a linked image, per step too; object_dirs hold the .su files of what
    was compiled with -fstack-usage."""
    from usmp.runner.profile import owners_of, run_function

    functions = read_functions(elf, arch.tool("objdump"), arch.stack_isa)
    graph = CallGraph(functions, read_frames(object_dirs))
    root = run_function(program.name)
    steps_by_function = {op.function_name: k for k, op in enumerate(program.ops)}
    calls = functions[root].calls if root in functions else {}
    owners = owners_of(elf, sorted(calls), steps_by_function, arch.addr2line)
    return stack_bound(graph, root, owners, steps_by_function, len(program.ops))
