"""From the usmp Kconfig options to pools, an algorithm and I/O placement.

The Kconfig menu (Kconfig at the module root) has four pool slots. A slot
becomes a pool when CONFIG_USMP_POOL<n>=y; pools are tried in priority order
(lower first, then slot number). Symbols absent from the file take the
Kconfig defaults, so a bare prj.conf reads the same as the .config it yields.
Every error names the CONFIG_ symbol to change.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from usmp.errors import UsmpError
from usmp.stack.on_target import target_for_cpu
from usmp.zephyr.dotconfig import KconfigValues

POOL_SLOTS = 4
ALGORITHMS = ("auto", "greedy_by_size", "greedy_by_conflicts", "hill_climb", "optimal")
_DEFAULTS = {  # slot -> (enabled, name, kind)
    0: (True, "workspace", "workspace"),
    1: (True, "constants", "constant"),
    2: (False, "pool2", "workspace"),
    3: (False, "pool3", "workspace"),
}
DEFAULT_ALIGNMENT = 16


@dataclass(frozen=True)
class PoolRequest:
    """One enabled pool slot, before its devicetree region is looked up."""
    slot: int
    name: str
    kind: str
    region: str  # node label, `chosen:<name>`, or "" for plain RAM/flash
    size_limit: int  # 0: no limit of its own
    alignment: int
    priority: int
    wait: int = -1  # wait states of one access; -1: from the devicetree (placement.py)
    targets: tuple[str, ...] = ("c",)
    flash_wait: int = 0  # CONFIG_USMP_FLASH_WAIT_STATES: flash's wait states where the devicetree does not say

    def symbol(self, suffix: str = "") -> str:
        return f"CONFIG_USMP_POOL{self.slot}{'_' + suffix if suffix else ''}"


@dataclass(frozen=True)
class UsmpSettings:
    pools: list[PoolRequest]
    algorithm: str
    workspace_io: bool
    guard_words: int
    model: str  # CONFIG_USMP_MODEL (the Kconfig-only path), "" when unused
    tiling: str = "auto"  # CONFIG_USMP_TILING_{OFF,AUTO,MAX}
    tiling_budget: float | None = None  # CONFIG_USMP_TILING_BUDGET (per cent), None when unset
    cpu: str = "generic"  # the --cpu of CONFIG_CPU_CORTEX_M*, which picks the kernels (usmp/select)
    kernels: str = "auto"  # CONFIG_USMP_KERNELS_{AUTO,PORTABLE,CMSIS_NN,USMP}
    optimize: str = "balanced"  # CONFIG_USMP_OPTIMIZE_{BALANCED,SPEED,SIZE}
    placement: str = "demand"  # CONFIG_USMP_PLACEMENT_{DEMAND,ORDER}
    io_targets: tuple[str, ...] = ()  # CONFIG_USMP_IO_TARGETS
    stack_bound: str | None = None  # CONFIG_USMP_STACK_BOUND: the emulated core to bound the stack on


def settings_from_config(config: KconfigValues) -> UsmpSettings:
    if config.get("CONFIG_USMP") is False or ("CONFIG_USMP" not in config and _looks_like_dotconfig(config)):
        raise UsmpError(f"{config.source}: CONFIG_USMP is not enabled: add CONFIG_USMP=y to prj.conf")
    pools = [pool for pool in (_pool(config, slot) for slot in range(POOL_SLOTS)) if pool is not None]
    _check_pools(pools, config.source)
    return UsmpSettings(
        pools=sorted(pools, key=lambda p: (p.priority, p.slot)),
        algorithm=_algorithm(config),
        workspace_io=config.flag("CONFIG_USMP_WORKSPACE_IO"),
        guard_words=config.integer("CONFIG_USMP_GUARD_WORDS", 0),
        model=config.string("CONFIG_USMP_MODEL"),
        tiling=next((m for m in ("off", "max") if config.flag(f"CONFIG_USMP_TILING_{m.upper()}")), "auto"),
        tiling_budget=_tiling_budget(config),
        cpu=_cpu(config),
        kernels=next((k for k in ("portable", "cmsis-nn", "usmp")
                      if config.flag(f"CONFIG_USMP_KERNELS_{k.upper().replace('-', '_')}")), "auto"),
        optimize=next((m for m in ("speed", "size") if config.flag(f"CONFIG_USMP_OPTIMIZE_{m.upper()}")), "balanced"),
        placement="order" if config.flag("CONFIG_USMP_PLACEMENT_ORDER") else "demand",
        io_targets=_targets(config, "CONFIG_USMP_IO_TARGETS", ""),
        stack_bound=_stack_target(config) if config.flag("CONFIG_USMP_STACK_BOUND") else None,
    )


def _stack_target(config: KconfigValues) -> str:
    cpu = _cpu(config)
    target = target_for_cpu(cpu)
    if target is None:
        raise UsmpError(f"{config.source}: CONFIG_USMP_STACK_BOUND=y: no emulated core runs the code of this "
                        f"build's core (--cpu {cpu}) to bound its stack on; set CONFIG_USMP_STACK_BOUND=n")
    return target


def _targets(config: KconfigValues, symbol: str, default: str) -> tuple[str, ...]:
    """A "+"-separated list of target names."""
    text = config.string(symbol, default).strip()
    names = tuple(t for t in text.replace(",", "+").split("+") if t.strip())
    for name in names:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name.strip()):
            raise UsmpError(f"{config.source}: {symbol}=\"{text}\": '{name}' is not a target name (letters, digits, _)")
    return tuple(n.strip() for n in names)


def _tiling_budget(config: KconfigValues) -> float | None:
    if "CONFIG_USMP_TILING_BUDGET" not in config:
        return None
    value = config.integer("CONFIG_USMP_TILING_BUDGET", 0)
    if value < 0:
        raise UsmpError(f"{config.source}: CONFIG_USMP_TILING_BUDGET={value}: expected a non-negative per cent")
    return float(value)


# Zephyr's core symbols -> usmp --cpu. A Cortex-M33 built without CONFIG_ARMV8_M_DSP
# (-mcpu=cortex-m33+nodsp) has no DSP instructions, so it gets the portable kernels; a
# Cortex-M55 without CONFIG_ARMV8_1_M_MVEI has no Helium, only the DSP extension, and
# neither has one built without CONFIG_FPU: GCC enables Helium only with a floating-point
# ABI (-mfloat-abi=softfp or hard), so CMSIS-NN compiles its DSP code paths there.
# The float kernels for an FPU need CONFIG_FPU: without it Zephyr builds -mfloat-abi=soft (no
# FPU instruction may run), so a core that may have an FPU is named as GCC names it without
# one (cortex-m4+nofp), and an M33 without DSP but with its FPU as cortex-m33+nodsp (the FPU
# kernels, no DSP ones). CONFIG_FP_SOFTABI (softfp) still enables the FPU's instructions, and
# the generated library is compiled with the board's own flags, so it follows either ABI.
_CPUS = {"M0": "cortex-m0", "M0PLUS": "cortex-m0plus", "M3": "cortex-m3", "M4": "cortex-m4",
         "M7": "cortex-m7", "M33": "cortex-m33", "M55": "cortex-m55"}
_MAY_HAVE_FPU = ("cortex-m4", "cortex-m7", "cortex-m33")


def _cpu(config: KconfigValues) -> str:
    fpu, dsp = config.flag("CONFIG_FPU"), config.flag("CONFIG_ARMV8_M_DSP")
    for symbol, cpu in _CPUS.items():
        if not config.flag(f"CONFIG_CPU_CORTEX_{symbol}"):
            continue
        if symbol == "M55" and not (config.flag("CONFIG_ARMV8_1_M_MVEI") and fpu):
            cpu = "cortex-m33"  # no Helium: an ARMv8-M mainline core like the M33, with or without DSP and FPU
        if cpu == "cortex-m33" and not dsp:
            return "cortex-m33+nodsp" if fpu else "generic"
        return f"{cpu}+nofp" if cpu in _MAY_HAVE_FPU and not fpu else cpu
    if config.flag("CONFIG_RISCV_ISA_RV32I") and config.flag("CONFIG_RISCV_ISA_EXT_M"):
        return "riscv32"  # RV32E (16 registers) stays generic
    return "generic"


def _looks_like_dotconfig(config: KconfigValues) -> bool:
    return "CONFIG_KERNEL_BIN_NAME" in config or str(config.source).endswith(".config")


def _pool(config: KconfigValues, slot: int) -> PoolRequest | None:
    enabled, default_name, default_kind = _DEFAULTS[slot]
    prefix = f"CONFIG_USMP_POOL{slot}"
    if not config.get(prefix, enabled):
        return None
    if config.flag(f"{prefix}_KIND_CONSTANT"):
        kind = "constant"
    elif config.flag(f"{prefix}_KIND_WORKSPACE"):
        kind = "workspace"
    elif config.flag(f"{prefix}_KIND_STATE"):
        kind = "state"
    else:
        kind = default_kind
    name = config.string(f"{prefix}_NAME", default_name)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsmpError(f"{config.source}: {prefix}_NAME=\"{name}\" is not a C identifier: "
                        "use letters, digits and _ (not starting with a digit)")
    alignment = config.integer(f"{prefix}_ALIGNMENT", DEFAULT_ALIGNMENT)
    if alignment < 4 or alignment & (alignment - 1):
        raise UsmpError(f"{config.source}: {prefix}_ALIGNMENT={alignment} must be a power of two, at least 4")
    size_limit = config.integer(f"{prefix}_SIZE", 0)
    if size_limit < 0:
        raise UsmpError(f"{config.source}: {prefix}_SIZE={size_limit} is negative: use 0 for no limit")
    wait = config.integer(f"{prefix}_WAIT", -1)
    if wait < -1:
        raise UsmpError(f"{config.source}: {prefix}_WAIT={wait}: expected wait states (0, 1, ...) or -1 (devicetree)")
    return PoolRequest(slot, name, kind, config.string(f"{prefix}_REGION").strip(), size_limit, alignment,
                       config.integer(f"{prefix}_PRIORITY", slot), wait, _targets(config, f"{prefix}_TARGETS", "c") or ("c",),
                       config.integer("CONFIG_USMP_FLASH_WAIT_STATES", 0))


def _check_pools(pools: list[PoolRequest], source: str) -> None:
    seen: dict[str, PoolRequest] = {}
    for pool in pools:
        if pool.name in seen:
            raise UsmpError(f"{source}: {seen[pool.name].symbol('NAME')} and {pool.symbol('NAME')} are both "
                            f"'{pool.name}': give each pool its own name")
        seen[pool.name] = pool
    for kind in ("workspace", "constant"):
        if not any(p.kind == kind for p in pools):
            choice = "WORKSPACE" if kind == "workspace" else "CONSTANT"
            raise UsmpError(f"{source}: no {kind} pool is enabled: set CONFIG_USMP_POOL<n>=y with "
                            f"CONFIG_USMP_POOL<n>_KIND_{choice}=y for one of the slots 0-{POOL_SLOTS - 1}")


def _algorithm(config: KconfigValues) -> str:
    if config.flag("CONFIG_USMP_ALGORITHM_CUSTOM"):
        name = config.string("CONFIG_USMP_ALGORITHM_CUSTOM_NAME").strip()
        if not name:
            raise UsmpError(f"{config.source}: CONFIG_USMP_ALGORITHM_CUSTOM=y but CONFIG_USMP_ALGORITHM_CUSTOM_NAME "
                            "is empty: give an algorithm name or package.module:function")
        return name
    for algorithm in ALGORITHMS:
        if config.flag(f"CONFIG_USMP_ALGORITHM_{algorithm.upper()}"):
            return algorithm
    return "auto"
