"""Compare USMP with TFLite Micro's reference kernels on an emulated RV32 core: instructions, flash, RAM.

    .venv/bin/python benchmarks/riscv_tflm.py --tflm TFLM_DIR [--flatbuffers DIR] [--gemmlowp DIR] [--ruy DIR]
                                              [--target riscv32|riscv32imac] [MODEL ...]

TFLite Micro is not part of this repository: the script builds it from a source tree whose path it
is given (github.com/tensorflow/tflite-micro) with the headers it needs (flatbuffers, gemmlowp's
fixedpoint, ruy's profiler stub: by default in the tree's tools/make/downloads/, where its Makefile
puts them), as its own Makefile builds it for the core (`make TARGET=riscv32_generic BUILD_TYPE=release
RISCV_ARCH=<the target's -march>`, tools/make/Makefile and targets/riscv32_generic_makefile.inc): its
common flags, riscv32_generic's platform flags, the release defines, the runtime and TFLite's shared
sources at -Os and the kernels at -O2 (KERNELS_OPTIMIZED_FOR_SPEED, the Makefile's default), the
target's debug_log.cc in place of the generic one. The script checks that the tree's makefiles still
say so. It is compiled with Debian's riscv64-unknown-elf GCC (the Makefile would download a 2018
SiFive GCC 8), once, and cached; the harness is linked and run as `usmp run --target` runs USMP:
picolibc with semihosting, the same start-up code, linker script (without the Makefile's -mno-relax,
which makes every call two instructions), stack painting and inference markers (templates/baremetal/).
Debian packages no C++ library for riscv64-unknown-elf; TFLite Micro needs only
header-only parts of it (type traits, <algorithm>, <limits>, <cmath>), taken from Debian's
libstdc++-arm-none-eabi-dev (configured for newlib, picolibc's parent); nothing links against a
C++ runtime (the harness defines the two symbols virtual destructors and pure virtuals name).

Per model, on the same inputs: the instructions of one Invoke() (after AllocateTensors) against
those of one usmp run() (QEMU's trace, the same counter as `usmp run --stats`), flash (code:
generated code and kernels for USMP, interpreter and kernels for TFLite Micro; constants: USMP's
constant pool, the .tflite flatbuffer; harness), RAM (USMP's pools, TFLite Micro's arena sized
to arena_used_bytes(), each with the stack of one inference measured by painting, and the other
static data and heap), and whether the two agree with the tflite-micro interpreter bit for bit.
Default models: micro_speech and person_detect (tests/models/tflm) and the int8 benchmark models
(benchmarks/models/).
"""
from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from reference import EXAMPLE_MODELS, outputs_match, random_inputs, reference_outputs  # noqa: E402

from usmp.codegen.emit import io_views  # noqa: E402
from usmp.compiler import CompileOptions, compile_model  # noqa: E402
from usmp.errors import UsmpError  # noqa: E402
from usmp.runner.baremetal import (BAREMETAL_DIR, SHARED_SOURCES, linker_script, run_on_target,  # noqa: E402
                                   support_dir)
from usmp.runner.elf_stats import read_image_usage  # noqa: E402
from usmp.runner.host import cache_root  # noqa: E402
from usmp.runner.qemu import count_instructions, run_qemu  # noqa: E402
from usmp.runner.targets import TARGETS, Target  # noqa: E402

DEFAULT_MODELS = [EXAMPLE_MODELS / "micro_speech_quantized.tflite",  # the int8 models (no float or int16 twins)
                  *sorted(m for m in (ROOT / "benchmarks" / "models").glob("*.tflite")
                          if not m.stem.endswith(("_f32", "_int16"))),
                  EXAMPLE_MODELS / "person_detect.tflite"]
# TFLite Micro's Makefile (tools/make/Makefile) for TARGET=riscv32_generic BUILD_TYPE=release, each flag as it
# reads there: COMMON_FLAGS (warnings left out; OPTIMIZE_KERNELS_FOR's default as a define), the release
# build's, riscv32_generic's PLATFORM_FLAGS (its -march/-mabi are the target's) and what its CXXFLAGS add.
MAKEFILE_FLAGS = ["-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-ffunction-sections", "-fdata-sections",
                  "-fmessage-length=0", "-DTF_LITE_STATIC_MEMORY", "-DTF_LITE_DISABLE_X86_NEON",
                  "-DKERNELS_OPTIMIZED_FOR_SPEED"]
RELEASE_DEFINES = ["-DNDEBUG", "-DTF_LITE_STRIP_ERROR_STRINGS"]
PLATFORM_FLAGS = ["-mcmodel=medany", "-mexplicit-relocs", "-fno-builtin-printf", "-DTF_LITE_MCU_DEBUG_LOG",
                  "-DTF_LITE_USE_GLOBAL_CMATH_FUNCTIONS", "-funsigned-char", "-fno-delete-null-pointer-checks",
                  "-fomit-frame-pointer"]
PLATFORM_CXX_FLAGS = ["-fpermissive", "-fno-use-cxa-atexit", "-DTF_LITE_USE_GLOBAL_MIN", "-DTF_LITE_USE_GLOBAL_MAX"]
CXX_FLAGS = ["-std=c++17", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics"]
C_FLAGS = ["-std=c17"]
CORE_OPT, KERNEL_OPT = "-Os", "-O2"  # CORE_OPTIMIZATION_LEVEL (gcc), KERNEL_OPTIMIZATION_LEVEL
MAKEFILE = "tensorflow/lite/micro/tools/make/Makefile"
TARGET_MAKEFILE = "tensorflow/lite/micro/tools/make/targets/riscv32_generic_makefile.inc"
# What the flags above rest on, as the tree's makefiles say it (checked before building).
MAKEFILE_SAYS = {MAKEFILE: ("CORE_OPTIMIZATION_LEVEL := -Os", "KERNEL_OPTIMIZATION_LEVEL := -O2",
                            "OPTIMIZE_KERNELS_FOR := KERNELS_OPTIMIZED_FOR_SPEED",
                            "CXXFLAGS += -DNDEBUG -DTF_LITE_STRIP_ERROR_STRINGS",
                            *(f"  {f} \\" for f in MAKEFILE_FLAGS[:-1])),
                 TARGET_MAKEFILE: ("RISCV_CODE_MODEL := medany", "CXXFLAGS += $(PLATFORM_FLAGS)",
                                   *(f"  {f}" for f in PLATFORM_FLAGS[1:] + PLATFORM_CXX_FLAGS))}
FIRST_ARENA_BYTES = 1024 * 1024  # enough for the probe build of every benchmark model
_STATS = re.compile(r"usmp-stats: stack=(\d+) heap=(\d+) stack_overflow=(\d)")
_ARENA = re.compile(r"tflm-arena: (\d+)")


@dataclass(frozen=True)
class Sources:
    tflm: Path
    include_dirs: tuple[Path, ...]
    cxx_headers: tuple[Path, ...]


def library_sources(tflm: Path) -> list[tuple[Path, str]]:
    """What TFLite Micro's Makefile builds into its library, each with its -O: the micro runtime (tests and
    benchmarks left out; riscv32_generic's own debug_log.cc for the generic one) and TFLite's shared sources
    outside micro/ and experimental/ (but array.cc, which static-memory builds leave out) at CORE_OPT, the
    kernels its sources.inc lists at KERNEL_OPT."""
    micro = tflm / "tensorflow" / "lite" / "micro"
    specialized = {p.name: p for p in sorted((micro / "riscv32_generic").glob("*.cc"))}
    runtime = [specialized.get(p.name, p) for d in ("", "arena_allocator", "memory_planner", "tflite_bridge")
               for p in sorted((micro / d).glob("*.cc")) if not p.name.endswith(("_test.cc", "benchmark.cc"))]
    shared = [p for p in sorted((tflm / "tensorflow").rglob("*.c*")) if p.suffix in (".cc", ".c")
              and not p.is_relative_to(micro) and not p.is_relative_to(tflm / "tensorflow" / "lite" / "experimental")
              and p != tflm / "tensorflow" / "lite" / "array.cc"]
    listing = (micro / "tools" / "make" / "sources.inc").read_text()
    block = re.search(r"^MICROLITE_CC_KERNEL_SRCS := \\\n((?:.*\\\n)*.*)$", listing, re.MULTILINE)
    if block is None:
        raise UsmpError(f"{tflm}: no MICROLITE_CC_KERNEL_SRCS in tensorflow/lite/micro/tools/make/sources.inc")
    kernels = [tflm / line.strip(" \\").replace("$(TENSORFLOW_ROOT)", "") for line in block.group(1).splitlines()
               if line.strip(" \\")]
    return [(p, CORE_OPT) for p in runtime + shared] + [(p, KERNEL_OPT) for p in kernels]


def check_makefiles(tflm: Path) -> None:
    """The flags this script builds with are the ones the tree's makefiles give (else it says which line moved)."""
    for name, lines in MAKEFILE_SAYS.items():
        text = (tflm / name).read_text() if (tflm / name).is_file() else ""
        missing = [line.strip(" \\") for line in lines if line not in text]
        if missing:
            raise UsmpError(f"{tflm / name}: does not say {missing[0]!r}, which the build here follows "
                            f"(benchmarks/riscv_tflm.py: MAKEFILE_FLAGS, PLATFORM_FLAGS)")


def find_sources(args) -> Sources:
    tflm = Path(args.tflm).resolve()
    if not (tflm / "tensorflow" / "lite" / "micro" / "micro_interpreter.h").is_file():
        raise UsmpError(f"--tflm {args.tflm}: not a TFLite Micro source tree (no tensorflow/lite/micro/micro_interpreter.h)")
    check_makefiles(tflm)
    downloads = tflm / "tensorflow" / "lite" / "micro" / "tools" / "make" / "downloads"
    wanted = {"flatbuffers": ("include/flatbuffers/flatbuffers.h", "include"),
              "gemmlowp": ("fixedpoint/fixedpoint.h", "."), "ruy": ("ruy/profiler/instrumentation.h", ".")}
    include_dirs = [tflm]
    for name, (header, include) in wanted.items():
        root = Path(getattr(args, name) or downloads / name).resolve()
        if not (root / header).is_file():
            raise UsmpError(f"--{name} {root}: no {header} (TFLite Micro needs it; see its tools/make/downloads)")
        include_dirs.append((root / include).resolve())
    headers = Path(args.cxx_headers) if args.cxx_headers else next(iter(sorted(Path("/usr/include/newlib/c++").glob("*"))), None)
    if headers is None or not (headers / "type_traits").is_file():
        raise UsmpError("no C++ standard headers for a bare-metal target: install Debian's libstdc++-arm-none-eabi-dev "
                        "or pass --cxx-headers DIR")
    return Sources(tflm, tuple(include_dirs), (headers, headers / "arm-none-eabi"))


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [l for l in done.stderr.splitlines() if "error" in l] or done.stderr.splitlines() or ["(no output)"]
        raise UsmpError(f"{what}: {lines[0]}")
    return done.stdout


def compile_flags(target: Target, sources: Sources, cxx: bool, opt: str = CORE_OPT) -> list[str]:
    """The Makefile's flags for a C or C++ file at `opt`, with the target's core, its C library and includes."""
    flags = [*target.compile_flags, *MAKEFILE_FLAGS, *RELEASE_DEFINES, *PLATFORM_FLAGS,
             *(f"-I{d}" for d in sources.include_dirs)]
    if cxx:
        flags += [*PLATFORM_CXX_FLAGS, *CXX_FLAGS, "-nostdinc++",
                  *(f for d in sources.cxx_headers for f in ("-isystem", str(d)))]
    else:
        flags += C_FLAGS
    return [*flags, opt]


def compile_units(target: Target, sources: Sources, units: list[tuple[Path, Path, str]]) -> None:
    """(source, object, -O) triples, in parallel; C++ for .cc, C otherwise."""
    def one(unit):
        source, obj, opt = unit
        obj.parent.mkdir(parents=True, exist_ok=True)
        cxx = source.suffix == ".cc"
        compiler = target.arch.tool("g++" if cxx else "gcc")
        _run([compiler, *compile_flags(target, sources, cxx, opt), "-c", str(source), "-o", str(obj)],
             f"{source.name} did not compile for {target.name}")

    with ThreadPoolExecutor() as pool:
        list(pool.map(one, units))


def build_library(target: Target, sources: Sources) -> Path:
    """libtflm.a for the target, cached by the sources' paths and contents and the flags."""
    units = library_sources(sources.tflm)
    digest = hashlib.sha256(" ".join(compile_flags(target, sources, True) + compile_flags(target, sources, False)).encode())
    for path, opt in units:
        digest.update(f"{path} {opt}\0".encode() + path.read_bytes())
    library = cache_root() / "tflm" / target.name / digest.hexdigest()[:24] / "libtflm.a"
    if library.exists():
        return library
    print(f"building TFLite Micro for {target.name} ({len(units)} sources)", file=sys.stderr, flush=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=_parent(library.parent)))
    objects = [staging / "tflm" / f"{n:03d}_{p.stem}.o" for n, (p, _) in enumerate(units)]
    compile_units(target, sources, [(p, o, opt) for (p, opt), o in zip(units, objects)])
    _run([target.arch.tool("ar"), "rcs", str(staging / "libtflm.a"), *map(str, objects)], "archiving TFLite Micro")
    staging.rename(library.parent)
    return library


def _parent(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.parent


HARNESS = """\
/* One inference of a TFLite Micro model, measured like usmp's harness (generated by riscv_tflm.py). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern "C" {
#include "harness_hooks.h"
}

extern const unsigned char model_data[];
alignas(16) static uint8_t arena[ARENA_BYTES];

/* What a C++ runtime would give: no object is ever deleted, no pure virtual ever called. */
void operator delete(void *) noexcept {}
void operator delete(void *, unsigned int) noexcept {}
extern "C" void __cxa_pure_virtual(void) { abort(); }

static int transfer(const char *path, void *data, size_t size, bool write)
{
	FILE *f = fopen(path, write ? "wb" : "rb");
	if (f == NULL) {
		return -1;
	}
	size_t done = write ? fwrite(data, 1, size, f) : fread(data, 1, size, f);
	fclose(f);
	return done == size ? 0 : -1;
}

int main(void)
{
	static tflite::MicroMutableOpResolver<OPERATOR_COUNT> resolver;
	ADD_OPERATORS
	static tflite::MicroInterpreter interpreter(tflite::GetModel(model_data), resolver, arena, sizeof(arena));
	if (interpreter.AllocateTensors() != kTfLiteOk) {
		printf("tflm harness: AllocateTensors failed\\n");
		return 3;
	}
	char name[32];
	for (size_t i = 0; i < interpreter.inputs_size(); i++) {
		snprintf(name, sizeof(name), "input_%u.bin", (unsigned)i);
		if (transfer(name, interpreter.input(i)->data.raw, interpreter.input(i)->bytes, false) != 0) {
			printf("tflm harness: cannot read %s\\n", name);
			return 3;
		}
	}
	USMP_HARNESS_BEFORE_INFERENCE();
	TfLiteStatus status = interpreter.Invoke();
	USMP_HARNESS_AFTER_INFERENCE();
	if (status != kTfLiteOk) {
		printf("tflm harness: Invoke failed\\n");
		return 4;
	}
	for (size_t i = 0; i < interpreter.outputs_size(); i++) {
		snprintf(name, sizeof(name), "output_%u.bin", (unsigned)i);
		if (transfer(name, interpreter.output(i)->data.raw, interpreter.output(i)->bytes, true) != 0) {
			return 5;
		}
	}
	printf("tflm-arena: %u\\n", (unsigned)interpreter.arena_used_bytes());
	return 0;
}
"""


def resolver_calls(model: Path) -> list[str]:
    """MicroMutableOpResolver's Add<Operator>() for each builtin operator of the model (CONV_2D: AddConv2D)."""
    import tflite

    flat = tflite.Model.GetRootAsModel(model.read_bytes(), 0)
    names = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
    calls = []
    for i in range(flat.OperatorCodesLength()):
        code = flat.OperatorCodes(i)
        op = names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        calls.append("resolver.Add" + "".join(p if p[0].isdigit() else p.capitalize() for p in op.split("_")) + "();")
    return sorted(set(calls))


def model_data_source(model: Path) -> str:
    data = model.read_bytes()
    rows = ",\n".join(", ".join(f"0x{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16))
    return f"alignas(16) extern const unsigned char model_data[] = {{\n{rows}\n}};\n"


@dataclass
class TflmImage:
    elf: Path
    map_file: Path
    markers: tuple[int, int]


def build_harness(target: Target, sources: Sources, library: Path, model: Path, arena: int, work: Path) -> TflmImage:
    work.mkdir(parents=True, exist_ok=True)
    calls = resolver_calls(model)
    text = (HARNESS.replace("OPERATOR_COUNT", str(len(calls))).replace("ADD_OPERATORS", "\n\t".join(calls))
            .replace("ARENA_BYTES", str(arena)))
    (work / "harness.cc").write_text(text)
    (work / "model_data.cc").write_text(model_data_source(model))
    units = [(work / "harness.cc", work / "harness" / "harness.o", CORE_OPT),
             (work / "model_data.cc", work / "model" / "model_data.o", CORE_OPT)]
    units += [(BAREMETAL_DIR / n, work / "harness" / f"{Path(n).stem}.o", CORE_OPT) for n in SHARED_SOURCES]
    units += [(support_dir(target) / n, work / "harness" / f"{Path(n).stem}_{Path(n).suffix[1:]}.o", CORE_OPT)
              for n in target.arch.support_sources]
    with_hooks = Sources(sources.tflm, sources.include_dirs + (BAREMETAL_DIR,), sources.cxx_headers)
    compile_units(target, with_hooks, units)
    (work / "linker.ld").write_text(linker_script(target))
    elf, map_file = work / "tflm.elf", work / "tflm.map"
    _run([target.arch.tool("gcc"), *target.link_flags, "-nostartfiles", "-T", str(work / "linker.ld"),
          "-Wl,--gc-sections", f"-Wl,-Map={map_file}", *(str(o) for _, o, _ in units), str(library),
          *target.arch.link_libraries, "-o", str(elf)], f"linking TFLite Micro for {target.name}")
    symbols = {}
    for line in _run([target.arch.tool("nm"), str(elf)], "reading symbols").splitlines():
        fields = line.split()
        if len(fields) == 3:
            symbols[fields[2]] = int(fields[0], 16)
    return TflmImage(elf, map_file, (symbols["usmp_bm_inference_begin"], symbols["usmp_bm_inference_end"]))


def _part_of_object(obj: str) -> str:
    """TFLite Micro's library counts as kernels (the interpreter with them), the flatbuffer as constants."""
    if "libtflm.a" in obj:
        return "kernels"
    return "constants" if Path(obj.split("(")[0]).parent.name == "model" else "harness"


def run_tflm(target: Target, image: TflmImage, model: Path, inputs: list[np.ndarray], work: Path,
             count: bool = True) -> dict:
    run_dir = work / "run"
    run_dir.mkdir(exist_ok=True)
    for i, array in enumerate(inputs):
        (run_dir / f"input_{i}.bin").write_bytes(np.ascontiguousarray(array).tobytes())
    trace = run_dir / "trace.log" if count else None
    done = run_qemu(target.arch.qemu, target.qemu_arguments, image.elf, run_dir, 1800, trace, target.arch.qemu_package)
    stats, arena = _STATS.search(done.stdout), _ARENA.search(done.stdout)
    if done.returncode != 0 or stats is None or arena is None:
        raise UsmpError(f"TFLite Micro failed on {target.name} (exit {done.returncode}): {done.stdout.strip()[:200]}")
    expected = reference_outputs(model, inputs)
    outputs = [np.frombuffer((run_dir / f"output_{i}.bin").read_bytes(), e.dtype).reshape(e.shape)
               for i, e in enumerate(expected)]
    usage = read_image_usage(image.map_file, _part_of_object, (target.flash_origin, target.flash_size),
                             (target.ram_origin, target.ram_size))
    instructions = None
    if trace is not None:
        instructions = count_instructions(trace, *image.markers, target.arch.instruction_offsets)
        trace.unlink()
    stack, heap = int(stats.group(1)), int(stats.group(2))
    return {"instructions": instructions, "flash": usage.flash_parts, "flash_total": usage.flash_total,
            "arena": int(arena.group(1)), "stack": stack, "other": usage.ram_static - int(arena.group(1)) + heap,
            "outputs": outputs}


def measure_tflm(target: Target, sources: Sources, library: Path, model: Path, inputs, work: Path) -> dict:
    """Built twice: the first image measures the arena the model needs, the second has an arena of that size."""
    first = run_tflm(target, build_harness(target, sources, library, model, FIRST_ARENA_BYTES, work / "probe"),
                     model, inputs, work / "probe", count=False)
    arena = -(-first["arena"] // 16) * 16
    return run_tflm(target, build_harness(target, sources, library, model, arena, work / "sized"), model, inputs,
                    work / "sized")


def measure_usmp(target: Target, model: Path, inputs) -> dict:
    """The harness keeps the model's inputs and outputs in arrays of its own (TFLite Micro's are in its arena):
    counted as I/O, apart from the other static data."""
    compiled = compile_model(model, CompileOptions(cpu=target.cpu))  # as `usmp run --target` compiles it
    run = run_on_target(compiled, inputs, target.name, count=True)
    ram = run.report["ram_bytes"]
    io = sum(io.nbytes for kind in ("inputs", "outputs") for io in io_views(compiled.program, kind))
    return {"instructions": run.report["instructions"], "flash": run.report["flash_bytes"],
            "flash_total": run.report["flash_total_bytes"], "pools": sum(ram["pools"].values()), "io": io,
            "stack": ram["stack"], "other": ram["other"] - io, "outputs": run.outputs}


COLUMNS = ("model", "instructions USMP", "TFLM", "USMP/TFLM", "code B USMP", "TFLM", "constants B USMP",
           "TFLM (.tflite)", "RAM B USMP (pools+I/O+stack+other)", "TFLM (arena+stack+other)", "bit-exact")


def row(model: Path, usmp: dict, tflm: dict, expected) -> list[str]:
    def code(m):
        return m["flash"]["generated_code"] + m["flash"]["kernels"]

    exact = all(outputs_match(e, u) and outputs_match(e, t) for e, u, t in zip(expected, usmp["outputs"], tflm["outputs"]))
    parts = [usmp["pools"], usmp["io"], usmp["stack"], usmp["other"]]
    ram_usmp = f"{sum(parts):,} ({'+'.join(f'{v:,}' for v in parts)})"
    ram_tflm = f"{tflm['arena'] + tflm['stack'] + tflm['other']:,} ({tflm['arena']:,}+{tflm['stack']:,}+{tflm['other']:,})"
    return [model.stem, f"{usmp['instructions']:,}", f"{tflm['instructions']:,}",
            f"{usmp['instructions'] / tflm['instructions']:.2f}", f"{code(usmp):,}", f"{code(tflm):,}",
            f"{usmp['flash']['constants']:,}", f"{tflm['flash']['constants']:,}", ram_usmp, ram_tflm,
            "yes" if exact else "NO"]


def table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)), "-+-".join("-" * w for w in widths)]
    return lines + [" | ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(r, widths))) for r in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: micro_speech and benchmarks/models)")
    parser.add_argument("--tflm", required=True, help="a TFLite Micro source tree (github.com/tensorflow/tflite-micro)")
    for name in ("flatbuffers", "gemmlowp", "ruy"):
        parser.add_argument(f"--{name}", help=f"{name} source tree (default: TFLM's tools/make/downloads/{name})")
    parser.add_argument("--cxx-headers", help="C++ standard headers for a bare-metal newlib-like target "
                                              "(default: Debian's libstdc++-arm-none-eabi-dev)")
    parser.add_argument("--target", default="riscv32", choices=[n for n, t in TARGETS.items() if t.arch.name == "riscv"])
    args = parser.parse_args(argv)
    target = TARGETS[args.target]
    try:
        sources = find_sources(args)
        library = build_library(target, sources)
        rows = []
        for model in args.models or DEFAULT_MODELS:
            inputs = random_inputs(compile_model(model).program.graph, np.random.default_rng(2024))
            with tempfile.TemporaryDirectory(prefix=f"tflm-{model.stem}-") as work:
                tflm = measure_tflm(target, sources, library, model, inputs, Path(work))
            usmp = measure_usmp(target, model, inputs)
            rows.append(row(model, usmp, tflm, reference_outputs(model, inputs)))
            print(f"measured {model.stem}: " + ", ".join(f"{c} {v}" for c, v in zip(COLUMNS[1:], rows[-1][1:])),
                  file=sys.stderr, flush=True)
    except UsmpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"USMP vs TFLite Micro (reference kernels, its Makefile's riscv32_generic release build: runtime {CORE_OPT}, "
          f"kernels {KERNEL_OPT}) on {target.name} ({' '.join(target.core_flags)}, qemu -M {target.machine}); "
          f"instructions of one inference")
    print("\n".join(table(rows)))
    return 0 if all(r[-1] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
