"""The functions of a linked image: each one's frame and the functions it calls, from its disassembly.

objdump -d lists every function with its instructions; the architecture (runner/arm.py, runner/riscv.py)
says what one instruction does to the stack: the bytes it takes off the stack pointer (a push, a
subtraction; None when it moves it by a register, a frame whose size is not fixed) and whether it calls a
function (directly, as a tail call, through a register, or a register-saving helper that is part of the
caller's frame, as RISC-V's __riscv_save_N). A function's frame is the sum of what its instructions take:
an upper bound, never less than the deepest point of any path through it. GCC's own numbers
(-fstack-usage, frames.py) replace it where they exist.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from usmp.errors import ToolError

_FUNCTION = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\t(\S+)(?:\t(.*))?$")
_TARGET = re.compile(r"<([^>+]+)>\s*$")  # a branch to a symbol's first instruction (no +offset)

# what an instruction is, for the call graph
CALL, TAIL, INDIRECT, SAVE = "call", "tail", "indirect", "save"


@dataclass
class Function:
    name: str
    address: int
    frame: int | None  # bytes; None: it moves the stack pointer by a register (no fixed frame)
    calls: dict[int, str] = field(default_factory=dict)  # instruction address -> callee (direct calls, tail calls)
    saves: list[str] = field(default_factory=list)  # register-saving helpers it calls (their bytes are its frame's)
    indirect: list[int] = field(default_factory=list)  # addresses of calls through a register
    tails: set[int] = field(default_factory=set)  # the addresses in calls that are tail calls (its frame is gone)


@dataclass(frozen=True)
class StackIsa:
    """What the analysis needs of an instruction set: the bytes an instruction takes off the stack
    pointer (None: by a register), and what kind of call it is, given its mnemonic and operands."""

    stack_bytes: Callable[[str, str], int | None]
    call_kind: Callable[[str, str], str | None]


def read_functions(elf: Path, objdump: str, isa: StackIsa) -> dict[str, Function]:
    """Every function of the image by name (a name defined twice, as static functions of different files may
    be, is one function with both bodies: the sum of their frames and both sets of calls, an upper bound)."""
    done = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(elf)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolError(f"{objdump} could not read {elf}: {done.stderr.strip()[:200]}")
    functions: dict[str, Function] = {}
    current: Function | None = None
    for line in done.stdout.splitlines():
        header = _FUNCTION.match(line)
        if header:
            name = header.group(2)
            current = functions.setdefault(name, Function(name, int(header.group(1), 16), 0))
            continue
        match = _INSTRUCTION.match(line) if current is not None else None
        if match is None:
            continue
        mnemonic, rest = match.group(2), match.group(3) or ""
        operands = re.split(r"[;@<]", rest, maxsplit=1)[0].strip()  # Arm's comments; RISC-V's (#) its parser drops
        taken = isa.stack_bytes(mnemonic, operands)
        if taken is None:
            current.frame = None
        elif current.frame is not None:
            current.frame += taken
        kind = isa.call_kind(mnemonic, operands)
        if kind is None:
            continue
        target = _TARGET.search(rest)
        if kind == INDIRECT:
            current.indirect.append(int(match.group(1), 16))
        elif target and kind == SAVE:
            current.saves.append(target.group(1))
        elif target and target.group(1) != current.name:
            current.calls[int(match.group(1), 16)] = target.group(1)
            if kind == TAIL:
                current.tails.add(int(match.group(1), 16))
    return functions

