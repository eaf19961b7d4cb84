"""The emulated boards `usmp run --target` runs on: each a core, its flags and a memory map.

A target is data: its architecture (toolchain, C library, start-up code,
QEMU binary: architecture.py), the compiler flags naming the core, the
`--cpu` it implies for kernel selection, the QEMU machine and CPU, and
where flash and RAM are, with the board's other memories by name (the
`region=` of a pool: regions.py). The runner (baremetal.py) treats them all alike.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from usmp.errors import UsmpError
from usmp.runner.architecture import Architecture
from usmp.runner.arm import ARM
from usmp.runner.regions import Region
from usmp.runner.riscv import RISCV

MB = 1024 * 1024


@dataclass(frozen=True)
class Target:
    name: str
    arch: Architecture
    core_flags: tuple[str, ...]  # the compiler flags naming the core and its ABI
    cpu: str  # the --cpu it implies (the kernels chosen for it)
    machine: str  # qemu -M
    board: str
    flash_origin: int
    flash_size: int
    ram_origin: int
    ram_size: int
    qemu_cpu: str | None = None  # qemu -cpu, when the machine's default core is not the target's
    # The board's memories by name, for pools' region=; those at flash_origin and ram_origin are the image's
    # own (code and constants, static data and the stack). Default: FLASH and RAM, the image's two.
    regions: tuple[Region, ...] = ()
    library_flags: tuple[str, ...] | None = None  # the core flags whose C library it links, if not core_flags

    @property
    def memory_regions(self) -> tuple[Region, ...]:
        return self.regions or (Region("FLASH", self.flash_origin, self.flash_size, writable=False),
                                Region("RAM", self.ram_origin, self.ram_size))

    @property
    def compile_flags(self) -> list[str]:
        return [*self.core_flags, "-Os", "-ffunction-sections", "-fdata-sections", *self.arch.c_library_flags]

    @property
    def link_flags(self) -> list[str]:
        """compile_flags, but naming the core whose multilib C library and libgcc the link takes."""
        return [*(self.library_flags or self.core_flags), *self.compile_flags[len(self.core_flags):]]

    @property
    def qemu_arguments(self) -> list[str]:
        cpu = ["-cpu", self.qemu_cpu] if self.qemu_cpu else []
        return ["-M", self.machine, *cpu, *self.arch.qemu_options]


def cortex_m(cpu: str, machine: str, board: str, flash: tuple[int, int], ram: tuple[int, int],
             fpu: str | None = None, regions: tuple[Region, ...] = ()) -> Target:
    """A core with an FPU (`fpu`: GCC's -mfpu, "auto" where -mcpu implies it, as for Helium) builds with the
    hard-float ABI, so floats travel in its registers and every float operation is an instruction; without
    one with the soft-float ABI. Start-up enables the FPU whenever the code is built for it."""
    abi = ("-mfloat-abi=soft",) if fpu is None else ("-mfloat-abi=hard",) + ((f"-mfpu={fpu}",) if fpu != "auto" else ())
    return Target(cpu, ARM, (f"-mcpu={cpu}", "-mthumb", *abi), cpu, machine, board, *flash, *ram, regions=regions)


def without_fpu(target: Target) -> Target:
    """The same core and board built as a part without an FPU (GCC's -mcpu=<core>+nofp, soft-float ABI): QEMU's
    core has the FPU, but soft-float code never touches it."""
    name = f"{target.name}+nofp"
    return replace(target, name=name, cpu=name, core_flags=(f"-mcpu={name}", "-mthumb", "-mfloat-abi=soft"))


# The AN547's memories at their secure addresses, named as Zephyr's mps3/corstone300/an547 devicetree names
# them (its zephyr,memory-region), plus FLASH, the board's 8 MB QSPI flash (read-only: the image loads it).
AN547_REGIONS = (
    Region("ITCM", 0x10000000, 512 * 1024),  # the image's code and constants, as Zephyr's chosen zephyr,flash
    Region("SRAM", 0x11000000, 2 * MB),
    Region("DTCM", 0x30000000, 512 * 1024),  # the image's data and stack, as Zephyr's chosen zephyr,sram
    Region("ISRAM", 0x31000000, 4 * MB),
    Region("FLASH", 0x38000000, 8 * MB, writable=False),
)


def riscv32(name: str, isa: str, qemu_cpu: str, library_isa: str | None = None) -> Target:
    """QEMU's virt board with only the target's extensions enabled, so an instruction outside them traps:
    code and constants in the first 4 MB of its DRAM, data 64 MB further (the regions are linked 64 MB long).
    library_isa: the ISA of the C library and libgcc it links, where Debian's toolchain has no multilib of isa
    (an -march with Z extensions would select the 64-bit default)."""
    library = (f"-march={library_isa}", "-mabi=ilp32") if library_isa else None
    return Target(name, RISCV, (f"-march={isa}", "-mabi=ilp32"), "riscv32", "virt", f"QEMU virt, {isa.upper()}",
                  0x80000000, 4 * MB, 0x84000000, 4 * MB, qemu_cpu=qemu_cpu, library_flags=library)


# The FPU each emulated core has (QEMU's MVFR0/MVFR1): the M4's single-precision FPv4, the M7's double-precision
# FPv5 (QEMU's M7 has the double-precision unit, as on STM32F7/H7), the M33's single-precision FPv5.
_FPU_CORES = (
    # AN386 and AN500 keep AN385's memory map; only the core differs (DSP extension, M7 pipeline).
    cortex_m("cortex-m4", "mps2-an386", "Arm MPS2 AN386", (0x00000000, 4 * MB), (0x20000000, 4 * MB),
             fpu="fpv4-sp-d16"),
    cortex_m("cortex-m7", "mps2-an500", "Arm MPS2 AN500", (0x00000000, 4 * MB), (0x20000000, 4 * MB), fpu="fpv5-d16"),
    # AN505 boots secure: code in SSRAM1's secure alias, data in SSRAM2's.
    cortex_m("cortex-m33", "mps2-an505", "Arm MPS2 AN505", (0x10000000, 4 * MB), (0x38000000, 2 * MB),
             fpu="fpv5-sp-d16"),
)
TARGETS = {target.name: target for target in (
    cortex_m("cortex-m0", "microbit", "BBC micro:bit, nRF51822", (0x00000000, 256 * 1024), (0x20000000, 16 * 1024)),
    cortex_m("cortex-m3", "mps2-an385", "Arm MPS2 AN385", (0x00000000, 4 * MB), (0x20000000, 4 * MB)),
    *_FPU_CORES,
    # AN547 (SSE-300) boots secure too: code and constants in the ITCM's secure alias, data in the DTCM's.
    # Helium (MVE) needs the hard-float ABI; -mcpu=cortex-m55 implies its FPU and MVE-F.
    cortex_m("cortex-m55", "mps3-an547", "Arm MPS3 AN547", (0x10000000, 512 * 1024), (0x30000000, 512 * 1024),
             fpu="auto", regions=AN547_REGIONS),
    # The same cores as parts without an FPU (cortex-m4+nofp, ...): soft-float, the portable float kernels.
    *(without_fpu(target) for target in _FPU_CORES),
    # RV32IMC, the small-core profile (no atomics); RV32IMAC, what Zephyr's qemu_riscv32 board builds for.
    # (QEMU 7.2's rv32 has the bit-manipulation extensions on unless told otherwise.)
    riscv32("riscv32", "rv32imc", "rv32,a=off,f=off,d=off,zba=off,zbb=off,zbc=off,zbs=off"),
    riscv32("riscv32imac", "rv32imac", "rv32,f=off,d=off,zba=off,zbb=off,zbc=off,zbs=off"),
    # RP2350's Hazard3: RV32IMAC with the bit-manipulation extensions Zba, Zbb and Zbs (not Zbc).
    riscv32("riscv32imac_zba_zbb_zbs", "rv32imac_zba_zbb_zbs", "rv32,f=off,d=off,zba=on,zbb=on,zbc=off,zbs=on",
            library_isa="rv32imac"),
)}


def target_named(name: str) -> Target:
    if name not in TARGETS:
        raise UsmpError(f"unknown target '{name}' (known: host, {', '.join(TARGETS)})")
    return TARGETS[name]
