"""The stack bound of a compiled model on a core, for its header and `usmp plan`, without running it.

The image is the one `usmp run --target` links (runner/baremetal.py: the same compiler flags, kernels and
CMSIS-NN, cached), so the bound is that of run() as any build with those flags compiles it; no emulator is
needed, only the core's cross compiler. The header then carries it (USMP_<NAME>_STACK_BYTES), so that the
code calling run() can check its thread's stack at build time.
"""
from __future__ import annotations

import shutil

from usmp.errors import UsmpError
from usmp.stack.bound import StackBound


# Cores no target emulates whose code is another's: the Cortex-M0+ runs the M0's (Armv6-M, same frames).
SAME_CODE = {"cortex-m0plus": "cortex-m0"}


def target_for_cpu(cpu: str) -> str | None:
    """The emulated core whose image bounds the stack of code compiled for `cpu` (a Zephyr build's), if any."""
    from usmp.runner.targets import TARGETS

    cpu = SAME_CODE.get(cpu, cpu)
    return next((t.name for t in TARGETS.values() if t.cpu == cpu), None)


def missing_tool(target_name: str) -> str | None:
    """The cross compiler the target's image needs, when it is not on PATH (a Zephyr SDK has its own)."""
    from usmp.runner.targets import target_named

    arch = target_named(target_name).arch
    return next((arch.tool(t) for t in ("gcc", "nm", "ar", "objdump") if shutil.which(arch.tool(t)) is None), None)


def check_stack_target(target_name: str, cpu: str | None) -> str:
    """The --cpu a --stack-bound TARGET implies (the target's core, unless the user named the same)."""
    from usmp.runner.targets import target_named

    target = target_named(target_name)
    if cpu not in (None, target.cpu):
        raise UsmpError(f"--cpu {cpu} does not match --stack-bound {target_name} (a {target.cpu})")
    return target.cpu


def target_stack_bound(compiled, target_name: str) -> StackBound:
    """The bound of run() in the image linked for the target; an error if it has none (a call through a
    register, recursion, a frame of no fixed size: the reason says which)."""
    from usmp.runner.baremetal import build_image, stack_bound_of
    from usmp.runner.targets import target_named

    bound = stack_bound_of(build_image(compiled, target_named(target_name)), compiled.program)
    if bound.bytes is None:
        raise UsmpError(f"the stack of one inference on the {target_name} has no bound: {bound.reason}")
    return bound
