"""Cortex-M (Thumb): newlib-nano with semihosting (rdimon), qemu-system-arm."""
from __future__ import annotations

import re

from usmp.runner.architecture import Architecture
from usmp.stack.image import CALL, INDIRECT, TAIL, StackIsa


def thumb_instructions(halfwords: list[int]) -> int:
    """Thumb instructions in a run of code halfwords: one whose first halfword starts 0b11101, 0b11110 or
    0b11111 is 32 bits long, any other 16.

    A TB's size is counted from its bytes, not from its disassembly lines: QEMU 7.2's disassembler does
    not know some Helium instructions (VMLADAV, VMOV of two lanes, ...) and prints each as two lines, a
    ".byte" and its second half misread as a 16-bit instruction.
    """
    return len(thumb_instruction_offsets(halfwords))


def thumb_instruction_offsets(halfwords: list[int]) -> list[int]:
    """Byte offset of each Thumb instruction in a run of code halfwords (see thumb_instructions)."""
    offsets, index = [], 0
    while index < len(halfwords):
        offsets.append(2 * index)
        index += 2 if halfwords[index] >> 11 >= 0b11101 else 1
    return offsets


def _registers(operands: str) -> list[str]:
    """The registers of a register list "{r4, r5, r8-r11, lr}" (ranges expanded)."""
    listed = operands[operands.index("{") + 1:operands.index("}")] if "{" in operands else ""
    names = []
    for item in (i.strip() for i in listed.split(",") if i.strip()):
        first, _, last = item.partition("-")
        if last:
            bank = first.rstrip("0123456789")
            names += [f"{bank}{n}" for n in range(int(first[len(bank):]), int(last[len(bank):]) + 1)]
        else:
            names.append(first)
    return names


def _register_bytes(name: str) -> int:
    return 8 if name.startswith("d") else 16 if name.startswith("q") else 4


_SP_MINUS = re.compile(r"^sp, (?:sp, )?#(\d+)$")  # sub sp, #N / sub(.w|w) sp, sp, #N
_STORE_PUSH = re.compile(r"\[sp, #-(\d+)\]!$")  # str rX, [sp, #-N]!


def thumb_stack_bytes(mnemonic: str, operands: str) -> int | None:
    """Bytes a Thumb instruction takes off sp (push, vpush, store-multiple or store with pre-decrement of sp,
    subtraction of a constant); None when it subtracts a register (a frame without a fixed size)."""
    op = mnemonic.split(".")[0]
    if op in ("push", "vpush") or (op in ("stmdb", "stmfd", "vstmdb") and operands.startswith("sp!")):
        return sum(_register_bytes(r) for r in _registers(operands))
    if op.startswith("str") and _STORE_PUSH.search(operands):
        return int(_STORE_PUSH.search(operands).group(1))
    if op in ("sub", "subw") and operands.startswith("sp,"):
        constant = _SP_MINUS.match(operands)
        return int(constant.group(1)) if constant else None
    return 0


def thumb_call_kind(mnemonic: str, operands: str) -> str | None:
    """bl/blx to a symbol: a call; blx to a register: indirect; any other branch (b, b.w, beq.w...) that
    leaves the function for another's first instruction: a tail call (image.py tells the targets apart)."""
    op = mnemonic.split(".")[0]
    if op in ("bl", "blx"):
        return INDIRECT if re.fullmatch(r"r\d+|lr|ip|sl|fp", operands) else CALL
    if op.startswith("b") and op not in ("bic", "bics", "bfi", "bfc", "bkpt", "bx", "blx") and operands:
        return TAIL
    return None


THUMB = StackIsa(thumb_stack_bytes, thumb_call_kind)

ARM = Architecture(
    name="arm",
    toolchain_prefix="arm-none-eabi-",
    c_library_flags=("--specs=nano.specs",),
    link_libraries=("-Wl,--start-group", "-lc_nano", "-lrdimon_nano", "-lgcc", "-Wl,--end-group"),
    support_sources=("startup.c", "stack_probe.S"),
    qemu="qemu-system-arm",
    qemu_options=(),
    packages="gcc-arm-none-eabi and libnewlib-arm-none-eabi",
    qemu_package="qemu-system-arm",
    instruction_offsets=thumb_instruction_offsets,
    addr2line="arm-none-eabi-addr2line",
    stack_isa=THUMB,
)
