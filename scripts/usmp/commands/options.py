"""Options shared by the commands that compile or plan a model."""
from __future__ import annotations

import argparse
import sys

from usmp import progress
from usmp.compiler import Compiled, CompileOptions
from usmp.errors import UsmpError
from usmp.placement import PLACEMENTS
from usmp.planner.progress import TerminalProgress
from usmp.pools import default_pools, parse_pool
from usmp.runner.targets import TARGETS
from usmp.select import CPUS, GENERIC, KERNEL_CHOICES, OPTIMIZE_CHOICES
from usmp.select.cpus import cpu_extension, float_unit
from usmp.select.fallbacks import CMSIS_NN_MISSING
from usmp.select.cmsis_nn_sources import ENV_VARIABLE
from usmp.stack.on_target import check_stack_target
from usmp.tiling.chains import DEFAULT_BUDGET
from usmp.tiling.loop import operators_run

EXTENSION_NAMES = {"dsp": "the DSP extension", "mve": "Helium"}
FLOAT_UNIT_NAMES = {"fpu": "an FPU", "mve-f": "Helium's float lanes"}


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="the .tflite model")
    parser.add_argument("--name", help="C name of the model (default: from the file name)")


def add_planning_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pool", action="append", default=[], metavar="SPEC",
        help="a memory pool NAME:KIND[:size=BYTES][:align=N][:targets=T1+T2][:region=LABEL], KIND workspace, "
             "constant or state (variables kept between runs); repeat for several, in priority order "
             "(default: workspace:workspace and constants:constant, plus state:state for a model with state)")
    parser.add_argument("--placement", choices=PLACEMENTS, default=None,
                        help="which pool of a kind each buffer prefers when the pools' wait states differ: demand "
                             "(default: the fastest pools to the buffers accessed most per byte and step, hot "
                             "constants copied at start-up into a faster pool's spare room) or order (the pools in "
                             "the order given)")
    parser.add_argument("--algorithm", default="auto",
                        help="planning algorithm: a name (see `usmp plan`) or package.module:function (default: auto)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="time budget for the planner's search")
    parser.add_argument("--reorder", action="store_true",
                        help="run operators in a memory-aware order (same results; lower peak on branching graphs)")
    parser.add_argument("--tiling", choices=("off", "auto", "max"), default=None,
                        help="depth-first loops over bands of rows of chains of convolutions, pools, element-wise "
                             "operators and a final reduction or fully connected layer: auto (default: the lowest "
                             "peak within --tiling-budget), max (the lowest peak) or off (whole tensors)")
    parser.add_argument("--tiling-budget", type=float, default=None, metavar="PERCENT",
                        help=f"the most instructions --tiling auto may add, in per cent of the whole-tensor "
                             f"program's, as the cost model counts them on the chosen kernels "
                             f"(default: {DEFAULT_BUDGET:g})")
    parser.add_argument("--workspace-io", action="store_true",
                        help="plan model inputs and outputs inside a workspace pool")
    parser.add_argument("--io-targets", metavar="ENGINE[+ENGINE]", default=None,
                        help="the engines that write the model's inputs and read its outputs (e.g. dma): they live "
                             "in a workspace pool whose targets= include them (implies --workspace-io), and are "
                             "copied into a faster pool for the operators where that pays")
    parser.add_argument("--guards", action="store_true",
                        help="debug aid: canary bytes after every workspace buffer, checked after each operator; "
                             "run() returns 1000 + the index of an operator that wrote out of bounds")
    parser.add_argument("--cpu", choices=tuple(CPUS), default=None,
                        help="the core the code is for (default: generic portable C; `usmp run --target "
                             "cortex-mX` implies cortex-mX)")
    parser.add_argument("--kernels", choices=KERNEL_CHOICES, default=None,
                        help="auto (default: on DSP cores USMP's own DSP kernels, CMSIS-NN where the CPU has DSP "
                             "or Helium and CMSIS-NN is found), portable, cmsis-nn, or usmp (USMP's own kernels "
                             "only, no CMSIS-NN)")
    parser.add_argument("--optimize", choices=OPTIMIZE_CHOICES, default=None,
                        help="the DSP kernels' filters: balanced (default: widened to int16 while the constants "
                             "stay within 1.25x what they are with int8 filters), speed (all widened) or size (none)")
    parser.add_argument("--cmsis-nn", metavar="DIR", default=None,
                        help=f"the CMSIS-NN directory (default: ${ENV_VARIABLE})")
    parser.add_argument("--user-pools", action="store_true",
                        help="the caller passes the workspace pools to run() instead of the library owning them")


def add_stack_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack-bound", metavar="TARGET", choices=tuple(TARGETS),
                        help="bound the stack of one run() in the image linked for an emulated core (its cross "
                             "compiler, as `usmp run --target` builds; implies its --cpu): the header's "
                             "USMP_<NAME>_STACK_BYTES, and RAM = pools + stack in `usmp plan`")


def compile_options(args: argparse.Namespace) -> CompileOptions:
    if args.time_limit is not None and not 0 <= args.time_limit < float("inf"):
        raise UsmpError(f"--time-limit {args.time_limit}: expected a non-negative number of seconds")
    budget = getattr(args, "tiling_budget", None)
    stack_bound = getattr(args, "stack_bound", None)
    if budget is not None and not 0 <= budget < float("inf"):
        raise UsmpError(f"--tiling-budget {budget}: expected a non-negative per cent")
    return CompileOptions(
        name=args.name,
        pools=[parse_pool(text) for text in args.pool] or default_pools(),
        algorithm=args.algorithm,
        time_limit=args.time_limit,
        workspace_io=args.workspace_io,
        user_pools=args.user_pools,
        progress=TerminalProgress() if progress.enabled() else None,  # quiet in pipes and CI
        reorder=getattr(args, "reorder", False),
        guards=getattr(args, "guards", False),
        tiling=getattr(args, "tiling", None) or "auto",
        tiling_budget=DEFAULT_BUDGET if budget is None else budget,
        cpu=(check_stack_target(stack_bound, getattr(args, "cpu", None)) if stack_bound
             else getattr(args, "cpu", None) or GENERIC),
        stack_bound=stack_bound,
        kernels=getattr(args, "kernels", None) or "auto",
        optimize=getattr(args, "optimize", None) or "balanced",
        cmsis_nn=getattr(args, "cmsis_nn", None),
        placement=getattr(args, "placement", None) or "demand",
        io_targets=io_targets(getattr(args, "io_targets", None)),
    )


def io_targets(text: str | None) -> tuple[str, ...]:
    """--io-targets dma or dma+i2s."""
    if not text:
        return ()
    engines = tuple(t for t in text.replace(",", "+").split("+") if t)
    for engine in engines:
        if not engine.replace("_", "").isalnum():
            raise UsmpError(f"--io-targets {text}: '{engine}' is not a target name (letters, digits, _)")
    return engines


def portable_fallback_notice(compiled: Compiled, options: CompileOptions) -> str | None:
    """One notice naming every operator a core with fast kernel families still runs on a portable kernel, and why
    (never silently slow: the portable kernels take several times the instructions there); none where the
    portable kernels were asked for."""
    steps = compiled.program.portable_steps
    if not steps or options.kernels == "portable":
        return None
    lines = [f"usmp: note: {len(steps)} of {operators_run(compiled.program)} operators of '{compiled.program.name}' "
             f"run portable kernels on the {options.cpu} ({core_features(options.cpu)}):"]
    lines += [f"  {s.index} {s.op} {s.type}: {s.why}" for s in steps]
    if any(CMSIS_NN_MISSING in s.why for s in steps):
        lines.append(f"  point at CMSIS-NN with --cmsis-nn DIR or {ENV_VARIABLE} (or choose --kernels portable)")
    return "\n".join(lines)


def core_features(cpu: str) -> str:
    """What makes a core fast, as a person reads it: "the DSP extension, an FPU"."""
    unit = float_unit(cpu)
    features = [EXTENSION_NAMES[e] for e in [cpu_extension(cpu)] if e in EXTENSION_NAMES]
    features += [FLOAT_UNIT_NAMES[unit]] if unit in FLOAT_UNIT_NAMES and cpu_extension(cpu) != "mve" else []
    return ", ".join(features) or "no DSP extension or Helium"


def print_portable_fallback_notice(compiled: Compiled, options: CompileOptions) -> None:
    notice = portable_fallback_notice(compiled, options)
    if notice:
        progress.clear()  # the stage line, before the notice
        print(notice, file=sys.stderr)
