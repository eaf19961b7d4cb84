"""The CPUs `--cpu` names and the instruction-set extensions CMSIS-NN keys on.

CMSIS-NN picks its code paths from the compiler's predefined macros:
ARM_MATH_DSP on cores with the DSP extension (Cortex-M4, M7, M33 as GCC
builds it by default) and ARM_MATH_MVEI on Helium cores (Cortex-M55), which
also have DSP. Scratch sizes depend on the same choice, so the compiler must
know the CPU to plan them.
"""
from __future__ import annotations

from usmp.errors import UsmpError

GENERIC = "generic"
# cpu -> extension CMSIS-NN's int8 kernels use: None (plain C), "dsp" or "mve"
CPUS = {
    GENERIC: None,
    "cortex-m0": None,
    "cortex-m0plus": None,
    "cortex-m3": None,
    "cortex-m4": "dsp",
    "cortex-m7": "dsp",
    "cortex-m33": "dsp",
    "cortex-m55": "mve",
    # the same cores as parts without an FPU (GCC's names): DSP, soft-float
    "cortex-m4+nofp": "dsp",
    "cortex-m7+nofp": "dsp",
    "cortex-m33+nofp": "dsp",
    "cortex-m33+nodsp": None,  # an M33 built without its DSP extension, with its FPU (Zephyr's AN521)
    "riscv32": None,  # an RV32 core with the M extension (RV32IM, RV32IMC, RV32IMAC, ...)
}
# cpu -> the float unit its float32 kernels use: "fpu" (scalar single precision with fused multiply-add: VFMA),
# "mve-f" (Helium's four float lanes). Any other core computes float32 in software (soft-float ABI).
FLOAT_UNITS = {
    "cortex-m4": "fpu",
    "cortex-m7": "fpu",
    "cortex-m33": "fpu",
    "cortex-m33+nodsp": "fpu",
    "cortex-m55": "mve-f",
}
KERNEL_CHOICES = ("auto", "portable", "cmsis-nn", "usmp")


def pointer_bytes(cpu: str) -> int:
    """A data pointer's bytes in code built for the core: every named core is 32-bit; a generic build may run on
    a 64-bit host."""
    cpu_extension(cpu)
    return 8 if cpu == GENERIC else 4


def cpu_extension(cpu: str) -> str | None:
    if cpu not in CPUS:
        raise UsmpError(f"unknown --cpu '{cpu}' (known: {', '.join(CPUS)})")
    return CPUS[cpu]


def float_unit(cpu: str) -> str | None:
    cpu_extension(cpu)  # a clear error for an unknown name
    return FLOAT_UNITS.get(cpu)
