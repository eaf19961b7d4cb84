"""Cross-compile the generated library for an emulated board, run it in QEMU and measure it.

The image is the generated library, the kernel library, the shared test
harness (templates/harness_main.c.j2) and a small bare-metal support layer:
the measurement hooks shared by every target (templates/baremetal/:
stack-painting and inference markers) and the architecture's start-up code,
stack probes and linker script (templates/baremetal/<arch>/). The C library
(newlib-nano on Arm, picolibc on RISC-V) with semihosting gives the harness
the same stdio file access it has on the host, so inputs and outputs cross
as input_<i>.bin / output_<i>.bin in QEMU's working directory. A target is
data (targets.py); nothing here is specific to one architecture. Builds are
cached like host builds.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from usmp import progress
from usmp.codegen.emit import _environment
from usmp.compiler import Compiled
from usmp.errors import ToolError, UsmpError
from usmp.paths import KERNELS_DIR, KERNELS_INCLUDE_DIR, TEMPLATES_DIR
from usmp.runner.elf_stats import ImageUsage, read_image_usage
from usmp.runner.host import cache_root, harness_source, kernel_sources
from usmp.runner.io_files import read_harness_outputs, step_by_step, write_harness_inputs
from usmp.runner.profile import owner_ranges, profile_inference
from usmp.runner.regions import image_regions, region_named
from usmp.runner.qemu import count_instructions, executed_blocks, instructions_per_call, run_qemu
from usmp.runner import traffic as memory_traffic
from usmp.runner.targets import TARGETS, Target, target_named
from usmp.stack import image_stack_bound

BAREMETAL_DIR = TEMPLATES_DIR / "baremetal"
SHARED_SOURCES = ("harness_hooks.c",)  # in BAREMETAL_DIR; the architecture's own are in BAREMETAL_DIR/<arch>
STRICT_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
SUPPORT_FLAGS = ["-std=gnu99", "-Wall", "-Wextra", "-Werror"]  # sbrk, _Exit
THIRD_PARTY_FLAGS = ["-std=gnu99", "-O2"]  # an external kernel library (CMSIS-NN) builds with its own conventions
STACK_USAGE_FLAGS = ["-fstack-usage"]  # every object's frames in a .su beside it (usmp/stack); no code changes
# Regions are linked this large so an oversized image still links and can be measured.
LINK_REGION_BYTES = 64 * 1024 * 1024
# RAM the harness needs beyond its static data: the C library's stdio buffers on the
# heap (about 1.5 KB for newlib's semihosted files) and the stack of main/printf.
HARNESS_RAM_RESERVE = 2560

__all__ = ["TARGETS", "Target", "target_named", "run_on_target", "build_image", "check_fits"]


@dataclass
class Build:
    target: Target
    elf: Path
    map_file: Path
    usage: ImageUsage
    pools: dict[str, int]  # workspace or state pool in the image's RAM -> its bytes
    markers: tuple[int, int]  # addresses of the inference begin/end marker functions
    symbols: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (address, size): the profile's map
    functions: dict[str, tuple[int, int]] = field(default_factory=dict)  # function symbol -> (address, size)
    generated: tuple[str, ...] = ()  # the functions of the generated code (run() and the operators)
    regions: dict[str, int] = field(default_factory=dict)  # bytes of pools in regions outside the image's two
    object_dirs: tuple[Path, ...] = ()  # where its objects and their .su files are


@dataclass
class Run:
    outputs: list[np.ndarray]
    report: dict


def support_dir(target: Target) -> Path:
    return BAREMETAL_DIR / target.arch.name


def linker_script(target: Target) -> str:
    code, data = image_regions(target)
    regions = [dict(name=r.name, origin=r.origin, size=r.size, writable=r.writable,
                    image="code" if r == code else "data" if r == data else None) for r in target.memory_regions]
    return _environment().get_template(f"baremetal/{target.arch.name}/linker.ld.j2").render(
        board=target.board, flash_origin=target.flash_origin, flash_size=target.flash_size,
        ram_origin=target.ram_origin, ram_size=target.ram_size, link_length=LINK_REGION_BYTES, regions=regions)


def _part_of_object(obj: str) -> str:
    """Objects are compiled into obj/<part>/ (the kernels archived there); any other library is harness."""
    path = Path(obj.split("(")[0])
    return path.parent.name if path.parent.name in ("generated_code", "constants", "kernels") else "harness"


Unit = tuple  # (part, file name, source path or None, source text or None, flags)


def _library_units(target: Target) -> list[Unit]:
    """The same for every model of a target: the kernel library and the bare-metal support code."""
    units = [("kernels", path.name, path, None, STRICT_FLAGS) for path in kernel_sources()]
    units += [("harness", name, BAREMETAL_DIR / name, None, SUPPORT_FLAGS) for name in SHARED_SOURCES]
    units += [("harness", name, support_dir(target) / name, None, SUPPORT_FLAGS)
              for name in target.arch.support_sources]
    return units


def _external_includes(compiled: Compiled) -> list[str]:
    external = compiled.program.external_kernels
    return [flag for d in (external.include_dirs if external else []) for flag in ("-I", str(d))]


def _external_units(compiled: Compiled) -> list[Unit]:
    """The external kernel library's sources the model calls (CMSIS-NN) and USMP's glue to it.

    Compiled with the target's -mcpu, which defines the ARM_MATH_DSP or
    ARM_MATH_MVEI that CMSIS-NN picks its code paths by.
    """
    external = compiled.program.external_kernels
    if external is None:
        return []
    includes = _external_includes(compiled)
    units = [("kernels", path.name, path, None, THIRD_PARTY_FLAGS + includes) for path in external.sources]
    # kernel families share file names (dsp/conv_s8.c, helium/conv_s8.c): objects are named by folder too
    return units + [("kernels", f"{path.parent.name}_{path.name}", path, None, STRICT_FLAGS + includes)
                    for path in external.glue]


def _model_units(compiled: Compiled) -> list[Unit]:
    """The generated files; the code with debug information (which changes no instruction), from which
    the profile learns which operator each instruction of run() belongs to once GCC has inlined them."""
    name = compiled.program.name
    units = []
    for file_name, text in compiled.files.items():
        if file_name.endswith(".c"):
            part = "constants" if file_name == f"{name}_constants.c" else "generated_code"
            debug = ["-g"] if part == "generated_code" else []
            units.append((part, file_name, None, text, STRICT_FLAGS + debug + _external_includes(compiled)))
    hooks = ["-include", str(BAREMETAL_DIR / "harness_hooks.h")]
    units.append(("harness", "harness_main.c", None, harness_source(compiled), STRICT_FLAGS + hooks))
    return units


def _digest(target: Target, units: list[Unit], *extra: str) -> str:
    digest = hashlib.sha256(" ".join([target.arch.tool("gcc"), *target.compile_flags, *STACK_USAGE_FLAGS,
                                      *extra]).encode())
    for part, file_name, path, text, flags in units:
        digest.update(f"\0{part}/{file_name} {' '.join(flags)}\0".encode())
        digest.update(path.read_bytes() if path is not None else text.encode())
    for header in sorted(KERNELS_DIR.rglob("*.h")) + sorted(BAREMETAL_DIR.glob("*.h")):  # a family's own too
        digest.update(header.name.encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()[:24]


def _check_toolchain(target: Target) -> None:
    for tool in ("gcc", "nm", "ar"):
        if shutil.which(target.arch.tool(tool)) is None:
            raise ToolError(f"{target.arch.tool(tool)} not found; install Debian's {target.arch.packages} "
                            "(scripts/bootstrap does)")


def _run_tool(target: Target, command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [l for l in done.stderr.strip().splitlines() if "error" in l.lower()] or \
            done.stderr.strip().splitlines() or ["(no output)"]
        hint = f"; install Debian's {target.arch.packages}" if "cannot find -l" in done.stderr else ""
        raise ToolError(f"{what}: {lines[0]}{hint}")
    return done.stdout


def build_image(compiled: Compiled, target: Target) -> Build:
    """Cross-compile and link (cached), then read sizes and marker addresses from the image.

    The kernel library and support code are compiled once per target and
    reused by every model; only the model's own files and harness are
    compiled per model.
    """
    _check_toolchain(target)
    library_units = _library_units(target)
    library_dir = cache_root() / target.name / f"lib-{_digest(target, library_units, target.arch.tool('ar'))}"
    if not library_dir.exists():
        progress.stage(f"cross-compiling the kernel library for {target.name}")
        _in_staging(library_dir, lambda staging: _build_library(target, library_units, staging))
    library_objects = sorted(str(p) for p in (library_dir / "harness").glob("*.o"))
    object_dirs = [library_dir]
    external_units = _external_units(compiled)
    if external_units:  # built once per target and set of sources, like the kernel library
        external_dir = cache_root() / target.name / f"ext-{_digest(target, external_units)}"
        if not external_dir.exists():
            progress.stage(f"cross-compiling {len(external_units)} CMSIS-NN sources for {target.name}")
            _in_staging(external_dir, lambda staging: _compile(target, external_units, staging, staging))
        library_objects += sorted(str(p) for p in external_dir.rglob("*.o"))
        object_dirs.append(external_dir)
    # after the objects that call into it (a family's kernels call the library's leaves): ld searches it once
    library_objects.append(str(library_dir / "kernels" / "libusmp_kernels.a"))
    model_units = _model_units(compiled)
    headers = {n: text for n, text in compiled.files.items() if n.endswith(".h")}
    script = linker_script(target)
    build_dir = cache_root() / target.name / _digest(
        target, model_units, *target.arch.link_libraries, script, *library_objects, *headers.values())
    if not (build_dir / "model.elf").exists():
        progress.stage(f"cross-compiling and linking the model for {target.name}")
        _in_staging(build_dir, lambda staging: _link(target, model_units, headers, library_objects, script, staging))
    return _inspect(compiled, target, build_dir, (*object_dirs, build_dir / "obj"))


def _build_library(target: Target, units: list[Unit], staging: Path) -> None:
    """The support code as objects, the kernels as an archive: the link takes only the kernel objects the
    model calls, as a firmware build does, so a C-library helper that an unused kernel would reference
    (libgcc's division) is not counted as the kernels'."""
    objects = _compile(target, units, staging, staging)
    kernels = [o for o in objects if Path(o).parent.name == "kernels"]
    _run_tool(target, [target.arch.tool("ar"), "rcs", str(staging / "kernels" / "libusmp_kernels.a"), *kernels],
              f"archiving the kernels for {target.name} failed")


def _in_staging(final_dir: Path, make) -> None:
    """Build into a fresh directory and move it into place, so a cache entry is always complete."""
    final_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=final_dir.parent))
    try:
        make(staging)
        try:
            staging.rename(final_dir)
        except OSError:  # another process built the same thing first
            pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _compile(target: Target, units: list[Unit], src_dir: Path, obj_dir: Path) -> list[str]:
    """Compile units into obj_dir/<part>/<stem>.o, in parallel; sources given as text go to src_dir."""
    includes = ["-I", str(src_dir), "-I", str(KERNELS_INCLUDE_DIR), "-I", str(BAREMETAL_DIR)]
    cc = target.arch.tool("gcc")
    objects, commands = [], []
    for part, file_name, path, text, flags in units:
        source = path
        if source is None:
            source = src_dir / file_name
            source.write_text(text)
        obj = obj_dir / part / (Path(file_name).stem + ".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        objects.append(str(obj))
        commands.append([cc, *target.compile_flags, *flags, *STACK_USAGE_FLAGS, *includes, "-c", str(source),
                         "-o", str(obj)])
    with ThreadPoolExecutor() as pool:
        list(pool.map(lambda c: _run_tool(target, c, f"{Path(c[-3]).name} did not compile for {target.name}"), commands))
    return objects


def _link(target: Target, units: list[Unit], headers: dict[str, str], library_objects: list[str],
          script: str, staging: Path) -> None:
    src_dir = staging / "src"
    src_dir.mkdir()
    for file_name, text in headers.items():
        (src_dir / file_name).write_text(text)
    objects = _compile(target, units, src_dir, staging / "obj")
    (staging / "linker.ld").write_text(script)
    _run_tool(target, [target.arch.tool("gcc"), *target.link_flags, "-nostartfiles", "-T", str(staging / "linker.ld"),
               "-Wl,--gc-sections", f"-Wl,-Map={staging / 'model.map'}", *objects, *library_objects,
               *target.arch.link_libraries, "-o", str(staging / "model.elf")], f"linking for {target.name} failed")


def _inspect(compiled: Compiled, target: Target, build_dir: Path, object_dirs: tuple[Path, ...]) -> Build:
    usage = read_image_usage(build_dir / "model.map", _part_of_object,
                             (target.flash_origin, target.flash_size), (target.ram_origin, target.ram_size))
    symbols, functions = {}, {}
    listing = _run_tool(target, [target.arch.tool("nm"), "-S", str(build_dir / "model.elf")],
                        "reading the image's symbols")
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4:
            symbols[fields[3]] = (int(fields[0], 16), int(fields[1], 16))
            if fields[2] in "tT":
                functions[fields[3]] = (int(fields[0], 16) & ~1, int(fields[1], 16))
        elif len(fields) == 3:
            symbols[fields[2]] = (int(fields[0], 16), 0)
    generated = []
    for obj in sorted((build_dir / "obj" / "generated_code").glob("*.o")):
        for line in _run_tool(target, [target.arch.tool("nm"), str(obj)],
                              "reading the generated code's symbols").splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] in "tT" and fields[2] in functions:
                generated.append(fields[2])
    pools = {}
    for pool in compiled.layout.writable_pools:
        symbol = symbols.get(pool.c_symbol) or symbols.get(f"harness_pool_{pool.spec.name}")
        if symbol is None or target.ram_origin <= symbol[0] < target.ram_origin + target.ram_size:
            pools[pool.spec.name] = symbol[1] if symbol else pool.size
    markers = tuple(symbols[m][0] & ~1 for m in ("usmp_bm_inference_begin", "usmp_bm_inference_end"))
    regions: dict[str, int] = {}
    code, data = image_regions(target)
    for pool in compiled.layout.pools:  # pools in the board's other memories (runner/regions.py)
        symbol = symbols.get(pool.c_symbol)
        region = next((r for r in target.memory_regions if symbol and r.origin <= symbol[0] < r.origin + r.size), None)
        if region is not None and region not in (code, data):
            regions[region.name] = max(regions.get(region.name, 0), symbol[0] + symbol[1] - region.origin)
    return Build(target, build_dir / "model.elf", build_dir / "model.map", usage, pools, markers, symbols,
                 functions, tuple(generated), regions, object_dirs)


def check_fits(build: Build, model_name: str) -> None:
    """Refuse an image the board cannot hold, saying what each region would need."""
    target, usage = build.target, build.usage
    for name, size in build.regions.items():
        region = region_named(target, name, f"model '{model_name}'")
        if size > region.size:
            raise UsmpError(f"model '{model_name}' does not fit the {target.name} ({target.board}): the pools in "
                            f"region {name} need {size} of its {region.size} bytes")
    ram_needed = usage.ram_static + HARNESS_RAM_RESERVE
    if usage.flash_total <= target.flash_size and ram_needed <= target.ram_size:
        return
    pools = sum(build.pools.values())
    bigger = next((t for t in TARGETS.values() if t.arch == target.arch
                   and t.flash_size >= usage.flash_total and t.ram_size >= ram_needed), None)
    raise UsmpError(
        f"model '{model_name}' does not fit the {target.name} ({target.board}): "
        f"flash needs {usage.flash_total} of {target.flash_size} bytes, "
        f"RAM needs {ram_needed} of {target.ram_size} bytes "
        f"({pools} in workspace pools, {usage.ram_static - pools} other static data, "
        f"{HARNESS_RAM_RESERVE} for the harness heap and stack)"
        + (f"; try --target {bigger.name}" if bigger else ""))


_STATS = re.compile(r"usmp-stats: stack=(\d+) heap=(\d+) stack_overflow=(\d)")


def run_on_target(compiled: Compiled, inputs: list[np.ndarray], target_name: str = "cortex-m0",
                  count: bool = False, timeout: float = 600, steps: int | None = None,
                  reset_before: int | None = None, profile: bool = False, traffic: bool | str = False,
                  stack: bool = False) -> Run:
    """Run one inference on the emulated board; count=True also counts its instructions, profile=True
    also per step (the report's "step_instructions", and "outside_steps" for run()'s own code) and per kernel
    call the generated code makes (report["calls"], in the order it makes them). traffic=True counts its
    loads and stores per pool, the stack and the rest (report["memory"], and per step "step_memory" with
    profile); traffic="buffers" counts them per planned buffer instead (report["buffer_traffic"]). count or
    stack=True also bound the stack from the image's call graph (stack_report).

    With steps, a sequence as in run_host; the report measures the first inference.
    """
    count = count or profile
    if steps is not None and not compiled.program.init_ops:
        reports = []

        def one(step_inputs):
            run = run_on_target(compiled, step_inputs, target_name, count and not reports, timeout,
                                profile=profile and not reports, traffic=traffic if not reports else False)
            reports.append(run.report)
            return run.outputs

        return Run(step_by_step(one, inputs, steps), reports[0])
    target = target_named(target_name)
    unplaced = [p.spec.name for p in compiled.layout.pools if p.spec.region and not hasattr(p.spec, "region_size")]
    if unplaced:
        raise UsmpError(f"pools {', '.join(unplaced)} name a region but were not placed in the {target.name}'s "
                        f"memories: compile with usmp.runner.regions.place_pools(pools, target)")
    build = build_image(compiled, target)
    check_fits(build, compiled.program.name)
    with tempfile.TemporaryDirectory(prefix="usmp-qemu-") as work:
        work_dir = Path(work)
        write_harness_inputs(compiled.program, inputs, steps, work_dir, reset_before)
        trace = work_dir / "qemu-trace.log" if count else None
        plugin, counted = [], None
        if traffic:
            by_buffer = traffic == "buffers"
            counted = (memory_traffic.buffer_memories(compiled.program, compiled.layout, build.symbols) if by_buffer
                       else memory_traffic.pool_memories(compiled.layout, build.symbols))
            owners = (owner_ranges(compiled.program, build.elf, build.symbols, target.arch.addr2line)
                      if profile or by_buffer else [])
            memory_traffic.write_config(work_dir / "traffic.cfg", build.markers, counted, owners)
            plugin = memory_traffic.plugin_arguments(memory_traffic.plugin_path(cache_root()), work_dir / "traffic.cfg",
                                                     work_dir / "traffic.out")
        progress.stage(f"emulating {target.name} ({target.arch.qemu} {' '.join(target.qemu_arguments)})"
                       + (", tracing" if count else "") + (", counting loads and stores" if traffic else ""))
        done = run_qemu(target.arch.qemu, target.qemu_arguments, build.elf, work_dir, timeout, trace,
                        target.arch.qemu_package, plugin)
        messages = [l for l in done.stdout.splitlines() if l.strip() and not l.startswith("usmp-stats:")]
        if done.returncode != 0:
            detail = messages[0] if messages else "no output"
            raise UsmpError(f"the compiled model failed on {target.name} (exit {done.returncode}): {detail}")
        stats = _STATS.search(done.stdout)
        if stats is None:
            raise ToolError(f"the {target.name} harness printed no measurements")
        stack, heap, overflow = (int(g) for g in stats.groups())
        if overflow:
            raise UsmpError(f"the inference overflowed the stack on {target.name}: it used all {stack} bytes "
                            f"left between the heap and main's stack frame")
        outputs = read_harness_outputs(compiled.program, steps, work_dir)
        if count:
            progress.stage(f"counting instructions in the trace ({trace.stat().st_size >> 20} MB)")
        offsets = target.arch.instruction_offsets
        instructions = count_instructions(trace, *build.markers, offsets) if count and not profile else None
        if profile:
            steps_count, outside = profile_inference(compiled.program, build.elf, build.symbols,
                                                     executed_blocks(trace, *build.markers, offsets),
                                                     target.arch.addr2line)
            instructions = sum(steps_count) + outside
            calls = per_call(build, trace)
        counts = memory_traffic.read_counts(work_dir / "traffic.out", counted) if traffic else None
    report = make_report(build, stack, heap, instructions)
    if count or stack:
        report.update(stack_report(build, compiled.program))
    if profile:
        report.update(step_instructions=steps_count, outside_steps=outside, calls=calls)
    if counts is not None and traffic == "buffers":
        report["buffer_traffic"] = {name: c.as_dict() for name, c in
                                    memory_traffic.buffer_traffic(counts, compiled.program, compiled.layout).items()}
    elif counts is not None:
        report.update(memory_traffic.memory_report(compiled.layout.pools, counts, instructions))
        if profile:
            report["step_memory"] = [memory_traffic.memory_entries(compiled.layout.pools, counts.of_owner(step))
                                     for step in range(len(compiled.program.ops))]
    return Run(outputs, report)


def per_call(build: Build, trace: Path) -> list[int]:
    """Instructions of each kernel call of one inference, in the order the generated code makes them."""
    caller = [(build.functions[n][0], build.functions[n][0] + build.functions[n][1]) for n in build.generated]
    entries = {address for address, _ in build.functions.values()}
    offsets = build.target.arch.instruction_offsets
    return instructions_per_call(executed_blocks(trace, *build.markers, offsets), caller, entries)


def stack_bound_of(build: Build, program):
    """The stack bound of one inference from the image's call graph (usmp/stack)."""
    return image_stack_bound(build.elf, list(build.object_dirs), build.target.arch, program)


def stack_report(build: Build, program) -> dict:
    """The stack bound of one inference, for the report beside the measured stack."""
    bound = stack_bound_of(build, program)
    return {"stack_bound": bound.bytes, "stack_bound_reason": bound.reason,
            "stack_bound_path": [list(p) for p in bound.path], "stack_bound_steps": bound.steps}


def make_report(build: Build, stack: int, heap: int, instructions: int | None) -> dict:
    usage, target = build.usage, build.target
    report = {
        "target": target.name,
        "machine": target.machine,
        "flash_bytes": dict(usage.flash_parts),
        "ram_bytes": {"pools": dict(build.pools), "stack": stack,
                      "other": usage.ram_static - sum(build.pools.values()) + heap},
        "instructions": instructions,
        "flash_total_bytes": usage.flash_total,
        "flash_size_bytes": target.flash_size,
        "ram_static_bytes": usage.ram_static,
        "ram_size_bytes": target.ram_size,
        "heap_bytes": heap,
    }
    if build.regions:  # pools in memories of their own, outside the image's flash and RAM
        report["region_bytes"] = {name: {"used": size, "size": region_named(target, name, "").size}
                                  for name, size in build.regions.items()}
    return report
