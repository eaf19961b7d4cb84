"""RISC-V (RV32): picolibc with semihosting, qemu-system-riscv32.

Debian's gcc-riscv64-unknown-elf builds RV32 code too; its multilib for
-march=rv32imc is rv32im/ilp32 (libgcc and picolibc without compressed
instructions, which an RV32IMC core runs), for rv32imac it is rv32imac/ilp32.
picolibc prints integers only here (the harness prints nothing else), which
keeps its floating-point printf out of the harness's flash.
"""
from __future__ import annotations

import re

from usmp.errors import ToolError
from usmp.runner.architecture import Architecture
from usmp.stack.image import CALL, INDIRECT, SAVE, TAIL, StackIsa


def riscv_instructions(parcels: list[int]) -> int:
    """RISC-V instructions in a run of 16-bit parcels: one whose first parcel's two low bits are not 0b11
    is compressed (16 bits), one whose low five bits are not 0b11111 is 32 bits long; longer encodings
    belong to no extension these targets have."""
    return len(riscv_instruction_offsets(parcels))


def riscv_instruction_offsets(parcels: list[int]) -> list[int]:
    """Byte offset of each RISC-V instruction in a run of 16-bit parcels (see riscv_instructions)."""
    offsets, index = [], 0
    while index < len(parcels):
        first = parcels[index]
        offsets.append(2 * index)
        if first & 0b11 != 0b11:
            index += 1
        elif first & 0b11100 != 0b11100:
            index += 2
        else:
            raise ToolError(f"QEMU trace: an instruction longer than 32 bits (first parcel 0x{first:04x})")
    return offsets


_SP_ADD = re.compile(r"^sp,sp,(\S+)$")


def riscv_stack_bytes(mnemonic: str, operands: str) -> int | None:
    """Bytes an instruction takes off sp: addi sp,sp,-N (objdump prints c.addi16sp and addi alike, as add
    or addi); None when sp is added a register (a frame without a fixed size)."""
    operands = operands.split("#")[0].strip()
    if mnemonic not in ("add", "addi", "c.addi", "c.addi16sp") or not operands.startswith("sp,sp,"):
        return 0
    value = _SP_ADD.match(operands).group(1)
    if not re.fullmatch(r"-?\d+", value):
        return None
    return max(-int(value), 0)


def riscv_call_kind(mnemonic: str, operands: str) -> str | None:
    """jal (to ra) a call, jal t0 a register-saving helper (__riscv_save_N: its bytes are the caller's frame),
    j a tail call; jalr and jr through a register are indirect (the image's symbols cannot name them),
    but for a far call whose target objdump names."""
    fields = operands.split("#")[0].split(",")
    if mnemonic == "jal":
        return SAVE if fields[0].strip() == "t0" else CALL
    if mnemonic == "j":
        return TAIL
    if mnemonic in ("jalr", "jr"):
        if "#" in operands:  # auipc + jalr with the target resolved in the comment
            return CALL if mnemonic == "jalr" else TAIL
        if mnemonic == "jr" and fields[0].strip() in ("ra", "t0"):
            return None  # a return (t0: from a register-saving helper)
        return INDIRECT
    return None


RISCV_STACK = StackIsa(riscv_stack_bytes, riscv_call_kind)

RISCV = Architecture(
    name="riscv",
    toolchain_prefix="riscv64-unknown-elf-",
    c_library_flags=("--specs=picolibc.specs",),
    link_libraries=("--oslib=semihost", "-DPICOLIBC_INTEGER_PRINTF_SCANF"),
    support_sources=("reset.S", "startup.c", "stack_probe.S"),
    qemu="qemu-system-riscv32",
    qemu_options=("-bios", "none"),
    packages="gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf",
    qemu_package="qemu-system-misc",
    instruction_offsets=riscv_instruction_offsets,
    addr2line="riscv64-unknown-elf-addr2line",
    stack_isa=RISCV_STACK,
)
