"""Cross-compile the generated library for a Cortex-M board, run it in QEMU and measure it.

The image is the generated library, the kernel library, the shared test
harness (templates/harness_main.c.j2) and a small bare-metal support layer
(templates/baremetal/: vector table and reset handler, linker script,
stack probes, inference markers). newlib-nano with semihosting (rdimon)
gives the harness the same stdio file access it has on the host, so inputs
and outputs cross as input_<i>.bin / output_<i>.bin in QEMU's working
directory. Builds are cached like host builds.
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
from usmp.paths import KERNELS_INCLUDE_DIR, TEMPLATES_DIR
from usmp.runner.elf_stats import ImageUsage, read_image_usage
from usmp.runner.host import cache_root, harness_source, kernel_sources
from usmp.runner.io_files import read_harness_outputs, step_by_step, write_harness_inputs
from usmp.runner.profile import profile_inference
from usmp.runner.qemu import count_instructions, executed_blocks, instructions_per_call, run_qemu

CC = "arm-none-eabi-gcc"
NM = "arm-none-eabi-nm"
AR = "arm-none-eabi-ar"
BAREMETAL_DIR = TEMPLATES_DIR / "baremetal"
SUPPORT_SOURCES = ("startup.c", "harness_hooks.c", "stack_probe.S")
STRICT_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
SUPPORT_FLAGS = ["-std=gnu99", "-Wall", "-Wextra", "-Werror"]  # sbrk, _Exit
THIRD_PARTY_FLAGS = ["-std=gnu99", "-O2"]  # an external kernel library (CMSIS-NN) builds with its own conventions
LINK_LIBRARIES = ["-Wl,--start-group", "-lc_nano", "-lrdimon_nano", "-lgcc", "-Wl,--end-group"]
# Regions are linked this large so an oversized image still links and can be measured.
LINK_REGION_BYTES = 64 * 1024 * 1024
# RAM the harness needs beyond its static data: newlib's stdio buffers on the
# heap (about 1.5 KB for the semihosted files) and the stack of main/printf.
HARNESS_RAM_RESERVE = 2560


@dataclass(frozen=True)
class CortexMTarget:
    name: str
    cpu: str
    machine: str  # qemu-system-arm -M
    board: str
    flash_origin: int
    flash_size: int
    ram_origin: int
    ram_size: int
    float_abi: str = "soft"  # "hard" where the vector unit shares the FPU's registers (Helium)

    @property
    def compile_flags(self) -> list[str]:
        return [f"-mcpu={self.cpu}", "-mthumb", f"-mfloat-abi={self.float_abi}", "-Os", "-ffunction-sections",
                "-fdata-sections", "--specs=nano.specs"]


TARGETS = {
    "cortex-m0": CortexMTarget("cortex-m0", "cortex-m0", "microbit", "BBC micro:bit, nRF51822",
                               0x00000000, 256 * 1024, 0x20000000, 16 * 1024),
    "cortex-m3": CortexMTarget("cortex-m3", "cortex-m3", "mps2-an385", "Arm MPS2 AN385",
                               0x00000000, 4 * 1024 * 1024, 0x20000000, 4 * 1024 * 1024),
    # AN386 and AN500 keep AN385's memory map; only the core differs (DSP extension, M7 pipeline).
    "cortex-m4": CortexMTarget("cortex-m4", "cortex-m4", "mps2-an386", "Arm MPS2 AN386",
                               0x00000000, 4 * 1024 * 1024, 0x20000000, 4 * 1024 * 1024),
    "cortex-m7": CortexMTarget("cortex-m7", "cortex-m7", "mps2-an500", "Arm MPS2 AN500",
                               0x00000000, 4 * 1024 * 1024, 0x20000000, 4 * 1024 * 1024),
    # AN505 boots secure: code in SSRAM1's secure alias, data in SSRAM2's.
    "cortex-m33": CortexMTarget("cortex-m33", "cortex-m33", "mps2-an505", "Arm MPS2 AN505",
                                0x10000000, 4 * 1024 * 1024, 0x38000000, 2 * 1024 * 1024),
    # AN547 (SSE-300) boots secure too: code and constants in the ITCM's secure alias, data in the DTCM's.
    # Helium (MVE) needs the hard-float ABI; start-up enables the FPU before anything can use it.
    "cortex-m55": CortexMTarget("cortex-m55", "cortex-m55", "mps3-an547", "Arm MPS3 AN547",
                                0x10000000, 512 * 1024, 0x30000000, 512 * 1024, float_abi="hard"),
}


@dataclass
class CortexMBuild:
    target: CortexMTarget
    elf: Path
    map_file: Path
    usage: ImageUsage
    pools: dict[str, int]  # workspace pool -> bytes in the image
    markers: tuple[int, int]  # addresses of the inference begin/end marker functions
    symbols: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (address, size): the profile's map
    functions: dict[str, tuple[int, int]] = field(default_factory=dict)  # function symbol -> (address, size)
    generated: tuple[str, ...] = ()  # the functions of the generated code (run() and the operators)


@dataclass
class CortexMRun:
    outputs: list[np.ndarray]
    report: dict


def target_named(name: str) -> CortexMTarget:
    if name not in TARGETS:
        raise UsmpError(f"unknown target '{name}' (known: host, {', '.join(TARGETS)})")
    return TARGETS[name]


def linker_script(target: CortexMTarget) -> str:
    return _environment().get_template("baremetal/cortex_m.ld.j2").render(
        board=target.board, flash_origin=target.flash_origin, flash_size=target.flash_size,
        ram_origin=target.ram_origin, ram_size=target.ram_size, link_length=LINK_REGION_BYTES)


def _part_of_object(obj: str) -> str:
    """Objects are compiled into obj/<part>/ (the kernels archived there); any other library is harness."""
    path = Path(obj.split("(")[0])
    return path.parent.name if path.parent.name in ("generated_code", "constants", "kernels") else "harness"


Unit = tuple  # (part, file name, source path or None, source text or None, flags)


def _library_units() -> list[Unit]:
    """The same for every model: the kernel library and the bare-metal support code."""
    units = [("kernels", path.name, path, None, STRICT_FLAGS) for path in kernel_sources()]
    units += [("harness", name, BAREMETAL_DIR / name, None, SUPPORT_FLAGS) for name in SUPPORT_SOURCES]
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
    return units + [("kernels", path.name, path, None, STRICT_FLAGS + includes) for path in external.glue]


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


def _digest(target: CortexMTarget, units: list[Unit], *extra: str) -> str:
    digest = hashlib.sha256(" ".join([CC, *target.compile_flags, *extra]).encode())
    for part, file_name, path, text, flags in units:
        digest.update(f"\0{part}/{file_name} {' '.join(flags)}\0".encode())
        digest.update(path.read_bytes() if path is not None else text.encode())
    for header in sorted(KERNELS_INCLUDE_DIR.rglob("*.h")) + sorted(BAREMETAL_DIR.glob("*.h")):
        digest.update(header.name.encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()[:24]


def _check_toolchain() -> None:
    for tool in (CC, NM, AR):
        if shutil.which(tool) is None:
            raise ToolError(f"{tool} not found; install Debian's gcc-arm-none-eabi and libnewlib-arm-none-eabi "
                            "(scripts/bootstrap does)")


def _run_tool(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [l for l in done.stderr.strip().splitlines() if "error" in l.lower()] or \
            done.stderr.strip().splitlines() or ["(no output)"]
        hint = "; install Debian's libnewlib-arm-none-eabi" if "cannot find -l" in done.stderr else ""
        raise ToolError(f"{what}: {lines[0]}{hint}")
    return done.stdout


def build_cortex_m(compiled: Compiled, target: CortexMTarget) -> CortexMBuild:
    """Cross-compile and link (cached), then read sizes and marker addresses from the image.

    The kernel library and support code are compiled once per target and
    reused by every model; only the model's own files and harness are
    compiled per model.
    """
    _check_toolchain()
    library_units = _library_units()
    library_dir = cache_root() / target.name / f"lib-{_digest(target, library_units, AR)}"
    if not library_dir.exists():
        progress.stage(f"cross-compiling the kernel library for {target.name}")
        _in_staging(library_dir, lambda staging: _build_library(target, library_units, staging))
    library_objects = sorted(str(p) for p in (library_dir / "harness").glob("*.o"))
    library_objects.append(str(library_dir / "kernels" / "libusmp_kernels.a"))
    external_units = _external_units(compiled)
    if external_units:  # built once per target and set of sources, like the kernel library
        external_dir = cache_root() / target.name / f"ext-{_digest(target, external_units)}"
        if not external_dir.exists():
            progress.stage(f"cross-compiling {len(external_units)} CMSIS-NN sources for {target.name}")
            _in_staging(external_dir, lambda staging: _compile(target, external_units, staging, staging))
        library_objects += sorted(str(p) for p in external_dir.rglob("*.o"))
    model_units = _model_units(compiled)
    headers = {n: text for n, text in compiled.files.items() if n.endswith(".h")}
    script = linker_script(target)
    build_dir = cache_root() / target.name / _digest(
        target, model_units, *LINK_LIBRARIES, script, *library_objects, *headers.values())
    if not (build_dir / "model.elf").exists():
        progress.stage(f"cross-compiling and linking the model for {target.name}")
        _in_staging(build_dir, lambda staging: _link(target, model_units, headers, library_objects, script, staging))
    return _inspect(compiled, target, build_dir)


def _build_library(target: CortexMTarget, units: list[Unit], staging: Path) -> None:
    """The support code as objects, the kernels as an archive: the link takes only the kernel objects the
    model calls, as a firmware build does, so a C-library helper that an unused kernel would reference
    (libgcc's division) is not counted as the kernels'."""
    objects = _compile(target, units, staging, staging)
    kernels = [o for o in objects if Path(o).parent.name == "kernels"]
    _run_tool([AR, "rcs", str(staging / "kernels" / "libusmp_kernels.a"), *kernels],
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


def _compile(target: CortexMTarget, units: list[Unit], src_dir: Path, obj_dir: Path) -> list[str]:
    """Compile units into obj_dir/<part>/<stem>.o, in parallel; sources given as text go to src_dir."""
    includes = ["-I", str(src_dir), "-I", str(KERNELS_INCLUDE_DIR), "-I", str(BAREMETAL_DIR)]
    objects, commands = [], []
    for part, file_name, path, text, flags in units:
        source = path
        if source is None:
            source = src_dir / file_name
            source.write_text(text)
        obj = obj_dir / part / (Path(file_name).stem + ".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        objects.append(str(obj))
        commands.append([CC, *target.compile_flags, *flags, *includes, "-c", str(source), "-o", str(obj)])
    with ThreadPoolExecutor() as pool:
        list(pool.map(lambda c: _run_tool(c, f"{Path(c[-3]).name} did not compile for {target.name}"), commands))
    return objects


def _link(target: CortexMTarget, units: list[Unit], headers: dict[str, str], library_objects: list[str],
          script: str, staging: Path) -> None:
    src_dir = staging / "src"
    src_dir.mkdir()
    for file_name, text in headers.items():
        (src_dir / file_name).write_text(text)
    objects = _compile(target, units, src_dir, staging / "obj")
    (staging / "cortex_m.ld").write_text(script)
    _run_tool([CC, *target.compile_flags, "-nostartfiles", "-T", str(staging / "cortex_m.ld"),
               "-Wl,--gc-sections", f"-Wl,-Map={staging / 'model.map'}", *objects, *library_objects,
               *LINK_LIBRARIES, "-o", str(staging / "model.elf")], f"linking for {target.name} failed")


def _inspect(compiled: Compiled, target: CortexMTarget, build_dir: Path) -> CortexMBuild:
    usage = read_image_usage(build_dir / "model.map", _part_of_object,
                             (target.flash_origin, target.flash_size), (target.ram_origin, target.ram_size))
    symbols, functions = {}, {}
    for line in _run_tool([NM, "-S", str(build_dir / "model.elf")], "reading the image's symbols").splitlines():
        fields = line.split()
        if len(fields) == 4:
            symbols[fields[3]] = (int(fields[0], 16), int(fields[1], 16))
            if fields[2] in "tT":
                functions[fields[3]] = (int(fields[0], 16) & ~1, int(fields[1], 16))
        elif len(fields) == 3:
            symbols[fields[2]] = (int(fields[0], 16), 0)
    generated = []
    for obj in sorted((build_dir / "obj" / "generated_code").glob("*.o")):
        for line in _run_tool([NM, str(obj)], "reading the generated code's symbols").splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] in "tT" and fields[2] in functions:
                generated.append(fields[2])
    pools = {}
    for pool in compiled.layout.writable_pools:
        symbol = symbols.get(pool.c_symbol) or symbols.get(f"harness_pool_{pool.spec.name}")
        pools[pool.spec.name] = symbol[1] if symbol else pool.size
    markers = tuple(symbols[m][0] & ~1 for m in ("usmp_bm_inference_begin", "usmp_bm_inference_end"))
    return CortexMBuild(target, build_dir / "model.elf", build_dir / "model.map", usage, pools, markers, symbols,
                        functions, tuple(generated))


def check_fits(build: CortexMBuild, model_name: str) -> None:
    """Refuse an image the board cannot hold, saying what each region would need."""
    target, usage = build.target, build.usage
    ram_needed = usage.ram_static + HARNESS_RAM_RESERVE
    if usage.flash_total <= target.flash_size and ram_needed <= target.ram_size:
        return
    pools = sum(build.pools.values())
    raise UsmpError(
        f"model '{model_name}' does not fit the {target.name} ({target.board}): "
        f"flash needs {usage.flash_total} of {target.flash_size} bytes, "
        f"RAM needs {ram_needed} of {target.ram_size} bytes "
        f"({pools} in workspace pools, {usage.ram_static - pools} other static data, "
        f"{HARNESS_RAM_RESERVE} for the harness heap and stack)"
        + ("; try --target cortex-m3" if target.name != "cortex-m3" else ""))


_STATS = re.compile(r"usmp-stats: stack=(\d+) heap=(\d+) stack_overflow=(\d)")


def run_cortex_m(compiled: Compiled, inputs: list[np.ndarray], target_name: str = "cortex-m0",
                 count: bool = False, timeout: float = 600, steps: int | None = None,
                 reset_before: int | None = None, profile: bool = False) -> CortexMRun:
    """Run one inference on the emulated board; count=True also counts its instructions, profile=True
    also per step (the report's "step_instructions", and "outside_steps" for run()'s own code) and per kernel
    call the generated code makes (report["calls"], in the order it makes them).

    With steps, a sequence as in run_host; the report measures the first inference.
    """
    count = count or profile
    if steps is not None and not compiled.program.init_ops:
        reports = []

        def one(step_inputs):
            run = run_cortex_m(compiled, step_inputs, target_name, count and not reports, timeout,
                               profile=profile and not reports)
            reports.append(run.report)
            return run.outputs

        return CortexMRun(step_by_step(one, inputs, steps), reports[0])
    target = target_named(target_name)
    build = build_cortex_m(compiled, target)
    check_fits(build, compiled.program.name)
    with tempfile.TemporaryDirectory(prefix="usmp-qemu-") as work:
        work_dir = Path(work)
        write_harness_inputs(compiled.program, inputs, steps, work_dir, reset_before)
        trace = work_dir / "qemu-trace.log" if count else None
        progress.stage(f"emulating {target.name} (qemu -M {target.machine})" + (", tracing" if count else ""))
        done = run_qemu(target.machine, build.elf, work_dir, timeout, trace)
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
        instructions = count_instructions(trace, *build.markers) if count and not profile else None
        if profile:
            steps_count, outside = profile_inference(compiled.program, build.elf, build.symbols,
                                                     executed_blocks(trace, *build.markers))
            instructions = sum(steps_count) + outside
            calls = per_call(build, trace)
    report = make_report(build, stack, heap, instructions)
    if profile:
        report.update(step_instructions=steps_count, outside_steps=outside, calls=calls)
    return CortexMRun(outputs, report)


def per_call(build: CortexMBuild, trace: Path) -> list[int]:
    """Instructions of each kernel call of one inference, in the order the generated code makes them."""
    caller = [(build.functions[n][0], build.functions[n][0] + build.functions[n][1]) for n in build.generated]
    entries = {address for address, _ in build.functions.values()}
    return instructions_per_call(executed_blocks(trace, *build.markers), caller, entries)


def make_report(build: CortexMBuild, stack: int, heap: int, instructions: int | None) -> dict:
    usage, target = build.usage, build.target
    pools = sum(build.pools.values())
    return {
        "target": target.name,
        "machine": target.machine,
        "flash_bytes": dict(usage.flash_parts),
        "ram_bytes": {"pools": dict(build.pools), "stack": stack, "other": usage.ram_static - pools + heap},
        "instructions": instructions,
        "flash_total_bytes": usage.flash_total,
        "flash_size_bytes": target.flash_size,
        "ram_static_bytes": usage.ram_static,
        "ram_size_bytes": target.ram_size,
        "heap_bytes": heap,
    }
