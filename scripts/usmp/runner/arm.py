"""Cortex-M (Thumb): newlib-nano with semihosting (rdimon), qemu-system-arm."""
from __future__ import annotations

from usmp.runner.architecture import Architecture


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
)
