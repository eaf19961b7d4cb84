"""The whole pipeline, top-down, as the USMP RFC describes it.

    import -> resolve shapes -> uint8 as int8 -> fold constants -> lower (state, constants, scratch)
           -> tile (depth-first band loops, costed on the kernels the selection will choose)
           -> select kernels (CMSIS-NN and USMP's own on DSP and Helium cores, in loops too)
           -> one scratch buffer per loop for its kernels, one for its own state
           -> analyse liveness (and bytes in use over time)
           -> rank pools by demand (the fastest memories to the most accessed bytes)
           -> plan -> rewrite offsets -> emit C
           (-> --stack-bound: link for the core, bound run()'s stack, write it into the header)
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from usmp import progress
from usmp.analysis import buffer_infos
from usmp.analysis.liveness import check_insiders
from usmp.analysis.schedule import reorder_program
from usmp.analysis.scopes import realize_memory_scopes
from usmp.codegen import Layout, emit_library, make_layout, write_files
from usmp.codegen.guards import guarded_buffer_infos
from usmp.errors import ModelError, PlanError
from usmp.fold import fold_constants
from usmp.frontend import read_tflite
from usmp.lower import Program, lower_graph
from usmp.placement import COPIES, DemandReport, estimated_wait_cycles, place_by_demand
from usmp.planner import BufferInfo, PlanResult, plan
from usmp.planner.verify import verify_plan
from usmp.pool_limits import check_pool_limits
from usmp.pools import PoolSpec, check_pools, default_pools, with_state_pool
from usmp.report.plan_json import dumps, plan_document
from usmp.select import GENERIC, preview_kernels, select_kernels
from usmp.select.cpus import cpu_extension, pointer_bytes
from usmp.shapes import resolve_shapes
from usmp.stack.bound import StackBound
from usmp.stack.on_target import target_stack_bound
from usmp.tiling import tile_program
from usmp.tiling.chains import DEFAULT_BUDGET
from usmp.tiling.scratch import share_kernel_scratch
from usmp.tiling.state import size_loop_state
from usmp.uint8 import rewrite_uint8


@dataclass
class CompileOptions:
    name: str | None = None
    pools: list[PoolSpec] = field(default_factory=default_pools)
    algorithm: str = "auto"
    time_limit: float | None = None
    workspace_io: bool = False  # plan model inputs and outputs inside a workspace pool
    user_pools: bool = False  # the caller passes the workspace pools to run()
    progress: Callable[[int, int], None] | None = None  # planner progress (best, bound), for slow plans
    reorder: bool = False  # memory-aware operator order (same results, lower peak on branching graphs)
    guards: bool = False  # canary bytes after workspace buffers, checked after each operator (codegen/guards.py)
    tiling: str = "auto"  # depth-first chains (tiling/): auto (within tiling_budget), max, or off
    tiling_budget: float = DEFAULT_BUDGET  # per cent more instructions `auto` may spend on depth-first chains
    cpu: str = GENERIC  # the core the code is for: its extensions decide the kernels (select/cpus.py)
    kernels: str = "auto"  # auto (USMP's DSP kernels, CMSIS-NN where known), portable, cmsis-nn or usmp
    cmsis_nn: str | None = None  # CMSIS-NN directory (default: $CMSIS_NN_PATH)
    optimize: str = "balanced"  # speed: wide DSP filters everywhere; size: none; balanced: constants <= 1.25x
    placement: str = "demand"  # demand: fastest pools to the most accessed bytes (usmp/placement); order: as listed
    io_targets: tuple[str, ...] = ()  # engines writing the inputs and reading the outputs (e.g. "dma"): the I/O
    # then lives in the workspace, in pools they reach (analysis/scopes.py); implies workspace_io
    stack_bound: str | None = None  # an emulated target: bound run()'s stack in the image linked for it, into
    # the header (stack/on_target.py; needs its cross compiler, not the emulator)

    def __post_init__(self):
        if self.io_targets:  # the engines' buffers are planned like the rest
            self.workspace_io = True


@dataclass
class Compiled:
    program: Program
    plan: PlanResult
    layout: Layout
    files: dict[str, str]
    stack: StackBound | None = None  # with CompileOptions.stack_bound


def compile_model(model_path: str | Path, options: CompileOptions | None = None) -> Compiled:
    options = options or CompileOptions()
    program, buffers = analyse_model(model_path, options)
    if options.guards:
        buffers = guarded_buffer_infos(program, buffers)
    pools = aligned_pools(model_pools(program, options), buffers)
    program, buffers, demand, result = place_and_plan(program, buffers, pools, options)
    pool_infos = [p.info() for p in pools]
    verify_plan(buffers, pool_infos, result.placements, f"algorithm '{options.algorithm}'")
    check_pool_limits(pools, result.pool_sizes)
    layout = make_layout(program, pools, result, options.workspace_io, options.user_pools)
    progress.stage("writing the C code")
    files = emit_library(program, layout, source=Path(model_path).name, guards=options.guards)
    files[f"{program.name}_plan.json"] = dumps(plan_document(program, buffers, result, pools, demand))
    compiled = Compiled(program, result, layout, files)
    if options.stack_bound:  # the stack needs the linked image, so the header is written again with its bound
        progress.stage(f"bounding the stack on the {options.stack_bound}")
        stack = target_stack_bound(compiled, options.stack_bound)
        files = dict(files, **emit_library(program, layout, source=Path(model_path).name, guards=options.guards,
                                           stack=stack))
        compiled = Compiled(program, result, layout, files, stack)
    return compiled


def place_and_plan(program: Program, buffers: list[BufferInfo], pools: list[PoolSpec], options: CompileOptions):
    """Rank the pools by demand (unless --placement order), then plan. The ranking sees bytes live per step,
    the planner packs them, so of the plans ranked with start-up copies of constants, with copies made before
    their readers each inference, without, and in the user's order, the one whose estimated wait cycles are
    fewest is kept (placement.estimated_wait_cycles)."""
    def planned(infos):
        progress.stage(f"planning {len(infos)} buffers")
        return plan(infos, [p.info() for p in pools], options.algorithm, options.time_limit, options.progress)

    if options.placement != "demand":
        return program, buffers, DemandReport(), planned(buffers)
    choices = []
    kinds = [] if options.user_pools or options.guards else list(COPIES)
    for copies in (*kinds, None):
        progress.stage("ranking pools by demand")
        ranked_program, ranked, demand = place_by_demand(program, buffers, pools, cpu_extension(options.cpu),
                                                         options.workspace_io, copies)
        if not demand.ranked:
            return program, buffers, demand, planned(buffers)
        try:
            result = planned(ranked)
        except PlanError:  # the ranking's packing is the planner's first fit: a safeguard, keep the pools' order
            continue
        choices.append((estimated_wait_cycles(demand.accesses, result.placements, pools),
                        ranked_program, ranked, demand, result))
    in_order = planned(buffers)  # demand: the last ranking's, whose accesses are of the constants themselves
    choices.append((estimated_wait_cycles(demand.accesses, in_order.placements, pools), program, buffers,
                    replace(demand, copies={}, io_copies={}, staged={}, ranked=False), in_order))
    _, program, buffers, demand, result = min(choices, key=lambda c: c[0])
    return program, buffers, demand, result


def aligned_pools(pools: list[PoolSpec], buffers: list[BufferInfo]) -> list[PoolSpec]:
    """Pools whose base alignment suits every buffer that may live in them (a kernel may ask for more)."""
    widest: dict[str, int] = {}
    for b in buffers:
        for name in b.pool_candidates:
            widest[name] = max(widest.get(name, 1), b.alignment)
    return [replace(p, alignment=widest[p.name]) if widest.get(p.name, 1) > p.alignment else p for p in pools]


def analyse_model(model_path: str | Path, options: CompileOptions) -> tuple[Program, list[BufferInfo]]:
    """Import, lower and analyse: the program and the buffers the planner sees."""
    check_pools(options.pools)
    progress.stage(f"reading {Path(model_path).name}")
    try:
        graph = read_tflite(model_path, options.name)
        progress.stage(f"folding and lowering {len(graph.operators)} operators")
        program = lower_graph(fold_constants(rewrite_uint8(resolve_shapes(graph))))
    except ModelError as exc:
        raise with_problem_count(exc, model_path) from None
    pools = model_pools(program, options)
    program = realize_memory_scopes(replace(program, io_targets=tuple(options.io_targets)), pools)
    if options.reorder:
        program = reorder_program(program, options.workspace_io)
    tiling = _tiling(options, program)
    if tiling != "off":
        progress.stage(f"tiling ({tiling}): looking for depth-first chains among {len(program.ops)} steps")
    program, _ = tile_program(program, tiling, options.workspace_io,
                              preview_kernels(program, options.cpu, options.kernels, options.cmsis_nn,
                                              options.optimize),
                              cpu_extension(options.cpu), options.tiling_budget, pointer_bytes(options.cpu))
    progress.stage("selecting kernels")
    program = select_kernels(program, options.cpu, options.kernels, options.cmsis_nn, options.optimize)
    program = size_loop_state(share_kernel_scratch(program), pointer_bytes(options.cpu))
    progress.stage("analysing liveness")
    infos = buffer_infos(program, pools, options.workspace_io)
    check_insiders(program, infos)
    return program, infos


def _tiling(options: CompileOptions, program: Program) -> str:
    """A model with IF or WHILE is not tiled (its steps are its blocks', usmp/control)."""
    if any(op.control is not None for op in program.ops):
        return "off"
    return options.tiling


def model_pools(program: Program, options: CompileOptions) -> list[PoolSpec]:
    """The pools given, plus a default state pool when the model has state and none was given."""
    return with_state_pool(options.pools, bool(program.state_buffers))


def with_problem_count(exc: ModelError, model_path: str | Path) -> ModelError:
    """The first problem, how many there are, and where to see them all."""
    from usmp.check import count_problems  # the check stage runs this pipeline itself

    count = count_problems(model_path)
    if count is None:  # not a model at all: nothing more to count
        return exc
    count = max(count, 1)
    return ModelError(f"{exc} ({count} problem{'s' if count > 1 else ''} in all; "
                      f"`usmp check {model_path}` lists {'them' if count > 1 else 'it'})")


def compile_to_directory(model_path: str | Path, out_dir: str | Path, options: CompileOptions | None = None) -> Compiled:
    compiled = compile_model(model_path, options)
    write_files(compiled.files, Path(out_dir))
    return compiled
