"""Run a bare-metal ELF under QEMU with semihosting, and count what it executed.

Instructions are counted from QEMU's own trace, which is deterministic:
`-d in_asm` logs each translation block (TB) once, with its instructions,
when it is translated; `-d exec,nochain` logs every execution of a TB (with
chaining off, no TB runs without passing through the logger). The count of
one inference is the sum of the sizes of the TBs executed after the marker
function that opens the inference and before the one that closes it: the
inference call plus the few instructions of main that pass its arguments.
A TB's size is counted from the code bytes the log shows, by the
architecture's instruction lengths (Thumb's 16/32-bit instructions, RISC-V's
compressed ones), not from its disassembly lines.
"""
from __future__ import annotations

import bisect
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from usmp.errors import ToolError

_TRACE = re.compile(r"^Trace \d+: (0x[0-9a-f]+) \[[0-9a-f]+/([0-9a-f]+)/")
_TB_START = "IN:"
# The address, then the code as 16-bit (Thumb halfwords, a compressed RISC-V instruction) or 32-bit
# (a RISC-V instruction) hexadecimal words, each followed by a space, then the disassembly.
_INSTRUCTION = re.compile(r"^0x([0-9a-f]+):(?:\s+((?:(?:[0-9a-f]{8}|[0-9a-f]{4}) )+))?")


@dataclass
class QemuRun:
    returncode: int
    stdout: str
    trace_log: Path | None


def run_qemu(qemu: str, arguments: list[str], elf: Path, work_dir: Path, timeout: float,
             trace_log: Path | None = None, package: str | None = None, plugin: list[str] = ()) -> QemuRun:
    """Run elf with `qemu arguments` (machine, CPU) and cwd=work_dir (semihosted files are relative to it);
    plugin: the -plugin arguments of a TCG plugin to load (runner/traffic.py)."""
    if shutil.which(qemu) is None:
        raise ToolError(f"{qemu} not found; install Debian's {package or qemu} (scripts/bootstrap does)")
    command = [qemu, *arguments, "-nographic", "-monitor", "none", "-serial", "null",
               "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)]
    if trace_log is not None:
        command += ["-d", "in_asm,exec,nochain", "-D", str(trace_log)]
    command += plugin
    try:
        done = subprocess.run(command, cwd=work_dir, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{qemu} {' '.join(arguments)} did not finish within {timeout:.0f} s") from None
    return QemuRun(done.returncode, done.stdout + done.stderr, trace_log)


def code_parcels(words: str) -> list[int]:
    """The 16-bit parcels of a trace line's code words, in memory order (a 32-bit word is little-endian)."""
    parcels = []
    for word in words.split():
        value = int(word, 16)
        parcels += [value & 0xFFFF, value >> 16] if len(word) == 8 else [value]
    return parcels


InstructionOffsets = Callable[[list[int]], list[int]]  # byte offset of each instruction in a run of 16-bit parcels


def executed_blocks(trace_log: Path, begin: int, end: int,
                    instruction_offsets: InstructionOffsets) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(guest pc, addresses of its instructions) of each TB executed strictly between the TB at address
    begin and the TB at address end, in execution order.

    The markers must be executed once each; a TB is identified by its host
    code address and guest pc, and takes the instructions of the latest
    translation logged for that pc (a translation is always logged just before
    its first execution, so a re-translation after a cache flush is picked up
    too). instruction_offsets splits a TB's code parcels into instructions (the
    architecture's lengths); a line whose bytes the log does not show counts as
    one instruction.
    """
    latest_translation: dict[int, tuple[int, ...]] = {}  # guest pc -> instruction addresses, not yet executed
    tb_addresses: dict[tuple[str, int], tuple[int, ...]] = {}
    counting = seen_begin = False
    in_block = False
    block_pc, parcels, unreadable = -1, [], []
    with open(trace_log, "r", errors="replace") as log:
        for line in log:
            if in_block:
                instruction = _INSTRUCTION.match(line)
                if instruction:
                    if block_pc < 0:
                        block_pc = int(instruction.group(1), 16)
                    if instruction.group(2):
                        parcels += code_parcels(instruction.group(2))
                    else:
                        unreadable.append(int(instruction.group(1), 16))
                    continue
                if not line.strip():
                    latest_translation[block_pc] = tuple(
                        [block_pc + offset for offset in instruction_offsets(parcels)] + unreadable)
                    in_block = False
                continue
            if line.startswith(_TB_START):
                in_block, block_pc, parcels, unreadable = True, -1, [], []
                continue
            match = _TRACE.match(line)
            if not match:
                continue
            pc = int(match.group(2), 16)
            key = (match.group(1), pc)
            if pc in latest_translation:
                tb_addresses[key] = latest_translation.pop(pc)
            if pc == begin:
                if seen_begin:
                    raise ToolError("the inference-begin marker ran twice; cannot count one inference")
                seen_begin = counting = True
                continue
            if pc == end and counting:
                return
            if counting:
                if key not in tb_addresses:
                    raise ToolError(f"QEMU trace: executed block at 0x{pc:08x} was never translated in the log")
                yield pc, tb_addresses[key]
    raise ToolError("QEMU trace: the inference markers were not both executed")


def count_instructions(trace_log: Path, begin: int, end: int, instruction_offsets: InstructionOffsets) -> int:
    """Instructions executed strictly between the TB at address begin and the TB at address end."""
    return sum(len(addresses) for _, addresses in executed_blocks(trace_log, begin, end, instruction_offsets))


def instructions_per_call(blocks, caller: list[tuple[int, int]], entries: set[int]) -> list[int]:
    """Instructions of each call the caller's code makes, in order: a call starts where a TB inside one of
    the caller's address ranges [start, stop) is followed by one at a function entry outside them. The
    caller's own instructions count with the call that follows them (the last ones with the last call)."""
    ranges = sorted(caller)
    starts = [start for start, _ in ranges]
    counts: list[int] = []
    pending, inside = 0, False
    for pc, addresses in blocks:
        size = len(addresses)
        k = bisect.bisect_right(starts, pc) - 1
        here = k >= 0 and pc < ranges[k][1]
        if here:
            pending += size
        elif inside and pc in entries:
            counts.append(pending + size)
            pending = 0
        elif counts:
            counts[-1] += size
        else:
            pending += size
        inside = here
    if counts:
        counts[-1] += pending
    return counts
