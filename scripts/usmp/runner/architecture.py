"""What the bare-metal runner needs to know about an instruction-set architecture.

A target (targets.py) is a core on an emulated board; the architecture is
what targets of one family share: the cross toolchain and its C library,
the start-up code and linker script in templates/baremetal/<name>/, the QEMU
binary, and how long an instruction is, for counting them from the trace.
The runner (baremetal.py) has no other knowledge of an architecture.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Architecture:
    name: str  # its support code is templates/baremetal/<name>/
    toolchain_prefix: str  # e.g. arm-none-eabi-
    c_library_flags: tuple[str, ...]  # compile and link flags selecting the C library (--specs=...)
    link_libraries: tuple[str, ...]  # after the objects: the C library with semihosting, libgcc
    support_sources: tuple[str, ...]  # start-up code and stack probes in templates/baremetal/<name>/
    qemu: str  # qemu-system-*
    qemu_options: tuple[str, ...]  # options every machine of the family needs
    packages: str  # the Debian packages that provide the toolchain and C library, for a hint
    qemu_package: str
    instruction_offsets: Callable[[list[int]], list[int]]  # each instruction's byte offset in a run of 16-bit parcels
    addr2line: str  # the toolchain's addr2line, for the profile (which operator's inlined code an address is)
    stack_isa: Any = None  # usmp.stack.image.StackIsa: what an instruction does to the stack, for the stack bound

    def tool(self, name: str) -> str:
        return self.toolchain_prefix + name
