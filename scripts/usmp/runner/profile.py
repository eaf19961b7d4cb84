"""Where one inference's instructions go, operator by operator (`usmp run --profile`).

The QEMU trace of one inference (qemu.executed_blocks) is a sequence of translation blocks. A block
is charged by the call stack, not by its address alone: kernels are functions of their own, called
from the operator functions, which GCC usually inlines into run(). So

- an instruction of run() belongs to the operator whose inlined code it is, read from the debug
  information of the generated code (addr2line -i), or to run() itself;
- a block of an operator function that stayed a function belongs to that operator;
- a block of anything else (a kernel, CMSIS-NN, the C library) belongs to the operator whose code
  called it last: the one the last instruction of run() executed before it belongs to;
- the harness's main() around the call belongs to no operator.
"""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterable

from usmp.errors import ToolError

OUTSIDE = -1  # run()'s own code and the harness around the call: no operator's


def run_function(model_name: str) -> str:
    return f"usmp_{model_name}_run"


def instruction_owners(elf: Path, run_range: tuple[int, int], steps_by_function: dict[str, int],
                       addr2line: str) -> dict[int, int]:
    """Step of the operator each halfword address of run() belongs to (OUTSIDE for run's own code).

    addr2line -i names the innermost inlined function first; the first operator function on that chain
    owns the address.
    """
    start, end = run_range
    return owners_of(elf, list(range(start, end, 2)), steps_by_function, addr2line)


def owners_of(elf: Path, addresses: list[int], steps_by_function: dict[str, int], addr2line: str) -> dict[int, int]:
    """Step of the operator each address of run() belongs to (see instruction_owners)."""
    if not addresses:
        return {}
    command = [addr2line, "-a", "-f", "-i", "-e", str(elf)]
    done = subprocess.run(command, input="\n".join(f"0x{a:x}" for a in addresses), capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolError(f"{addr2line} could not read {elf}: {done.stderr.strip()[:200]}")
    owners: dict[int, int] = {}
    current = None
    for line in done.stdout.splitlines():
        if line.startswith("0x") and ":" not in line:  # the address that starts each group
            current = int(line, 16)
            owners[current] = OUTSIDE
        elif current is not None and owners[current] == OUTSIDE and line in steps_by_function:
            owners[current] = steps_by_function[line]
    return owners


def attribute(blocks: Iterable[tuple[int, tuple[int, ...]]], steps: int, run_range: tuple[int, int],
              owners: dict[int, int], functions: dict[int, tuple[int, int]],
              outside: list[tuple[int, int]]) -> tuple[list[int], int]:
    """Instructions per step, and those of no step.

    functions: step -> address range of an operator function that GCC kept as a function;
    outside: address ranges whose blocks belong to no operator (the harness's main).
    """
    counts = [0] * steps
    unowned = 0
    current = OUTSIDE
    run_start, run_end = run_range
    place: dict[int, int | None] = {}  # pc -> operator function step, OUTSIDE, or None (a callee)
    for pc, addresses in blocks:
        if run_start <= pc < run_end:
            for address in addresses:
                owner = owners.get(address, OUTSIDE)
                if owner == OUTSIDE:
                    unowned += 1
                else:
                    counts[owner] += 1
            current = owners.get(addresses[-1], OUTSIDE) if addresses else OUTSIDE
            continue
        if pc not in place:
            place[pc] = next((s for s, (lo, hi) in functions.items() if lo <= pc < hi),
                             OUTSIDE if any(lo <= pc < hi for lo, hi in outside) else None)
        if place[pc] is not None:
            current = place[pc]
        if current == OUTSIDE:
            unowned += len(addresses)
        else:
            counts[current] += len(addresses)
    return counts, unowned


def operator_functions(symbols: dict[str, tuple[int, int]],
                       steps_by_function: dict[str, int]) -> dict[int, tuple[int, int]]:
    """Step -> address range of each operator function GCC kept as a function, possibly as a clone
    (op_16_depth_first_conv_2d_x12.constprop.0); the inlined ones have no symbol."""
    spans = {}
    for name, (address, size) in symbols.items():
        base = name.split(".")[0]
        if base in steps_by_function and size:
            spans[steps_by_function[base]] = (address & ~1, (address & ~1) + size)
    return spans


def _code_map(program, elf: Path, symbols: dict[str, tuple[int, int]], addr2line: str):
    """run()'s address range, the owner of each of its halfwords, the operator functions GCC kept and the
    ranges that belong to no operator (the harness's main)."""
    def span(name: str) -> tuple[int, int] | None:
        if name not in symbols:
            return None
        address, size = symbols[name]
        return address & ~1, (address & ~1) + size

    run_range = span(run_function(program.name))
    if run_range is None:
        raise ToolError(f"the image has no {run_function(program.name)}; cannot profile it")
    steps_by_function = {op.function_name: k for k, op in enumerate(program.ops)}
    functions = operator_functions(symbols, steps_by_function)
    outside = [r for r in (span("main"),) if r is not None]
    owners = instruction_owners(elf, run_range, steps_by_function, addr2line)
    return run_range, owners, functions, outside


def profile_inference(program, elf: Path, symbols: dict[str, tuple[int, int]],
                      blocks: Iterable[tuple[int, tuple[int, ...]]], addr2line: str) -> tuple[list[int], int]:
    """Instructions of each step of program (in schedule order) and of no step, from the executed blocks."""
    run_range, owners, functions, outside = _code_map(program, elf, symbols, addr2line)
    return attribute(blocks, len(program.ops), run_range, owners, functions, outside)


def owner_ranges(program, elf: Path, symbols: dict[str, tuple[int, int]], addr2line: str) -> list[tuple[int, int, int]]:
    """(step or OUTSIDE, start, end) of the code whose execution makes that step the current one, as
    attribute() charges it: run()'s instructions each to their own operator, an operator function to its
    step and the harness's main to none; anything else (kernels, the C library) keeps the current step.
    The memory-traffic plugin switches operators with these (runner/traffic.py)."""
    run_range, owners, functions, outside = _code_map(program, elf, symbols, addr2line)
    ranges = [(OUTSIDE, lo, hi) for lo, hi in outside]
    ranges += [(step, lo, hi) for step, (lo, hi) in functions.items()]
    start = previous = None
    for address in sorted(owners):  # run()'s halfwords, merged into runs of one owner
        if start is not None and (address != previous + 2 or owners[address] != owners[start]):
            ranges.append((owners[start], start, previous + 2))
            start = None
        if start is None:
            start = address
        previous = address
    if start is not None:
        ranges.append((owners[start], start, previous + 2))
    return ranges
