"""TFLite Micro + CMSIS-NN on an emulated core: instructions of one inference, flash and RAM (the reference USMP
is compared with).

    PYTHONPATH=scripts .venv/bin/python benchmarks/tflm_benchmark.py --tflm DIR --cmsis-nn DIR
        [--third-party DIR] [--targets cortex-m4,cortex-m55] [--build-type release|default] [MODEL ...]

Builds TFLite Micro from a source tree given by path (github.com/tensorflow/tflite-micro; never part of this
repository) as its Makefile does for a Cortex-M with OPTIMIZED_KERNEL_DIR=cmsis_nn: the runtime at -Os, the
kernels and CMSIS-NN at -O2, each kernel replaced by its kernels/cmsis_nn/ version where there is one,
BUILD_TYPE release (-DNDEBUG -DTF_LITE_STRIP_ERROR_STRINGS) by default. flatbuffers, gemmlowp and ruy are
looked for in --third-party (default: the directory holding the TFLite Micro tree). The image is linked and run
exactly as USMP's own runner does (scripts/usmp/runner/: its compiler flags, linker script, start-up code,
inference markers and QEMU instruction count), so the two counts are comparable: the instructions between the
markers around MicroInterpreter::Invoke(), one inference of one random input (seed 2024, as
benchmarks/cortex_m_targets.py), whose outputs are checked against the tflite-micro Python interpreter.
Objects are cached in --build-dir (default ~/.cache/usmp/tflm).
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

from usmp.errors import UsmpError  # noqa: E402
from usmp.frontend import read_tflite  # noqa: E402
from usmp.runner.baremetal import (  # noqa: E402
    BAREMETAL_DIR, SHARED_SOURCES, SUPPORT_FLAGS, TARGETS, linker_script, support_dir, target_named,
)
from usmp.runner.elf_stats import read_image_usage  # noqa: E402
from usmp.runner.qemu import count_instructions, run_qemu  # noqa: E402

DEFAULT_MODELS = [EXAMPLE_MODELS / "micro_speech_quantized.tflite",
                  *sorted((ROOT / "benchmarks" / "models").glob("*.tflite")),
                  EXAMPLE_MODELS / "person_detect.tflite"]
ARENA_BYTES = 160 * 1024  # at most: a smaller board gets its RAM less HARNESS_RAM (the count does not depend on it)
HARNESS_RAM = 4 * 1024  # the harness's stack, heap and static data besides the arena (the input is in flash)
CXX = "arm-none-eabi-g++"
CC = "arm-none-eabi-gcc"
AR = "arm-none-eabi-ar"
NM = "arm-none-eabi-nm"
# TFLite Micro's Makefile (tools/make/Makefile) for TARGET=cortex_m_generic OPTIMIZED_KERNEL_DIR=cmsis_nn:
# COMMON_FLAGS (warnings off; OPTIMIZE_KERNELS_FOR's default, KERNELS_OPTIMIZED_FOR_SPEED, as the define it
# becomes: CMSIS-NN's fully connected kernel then keeps its kernel sums), cortex_m_generic's PLATFORM_FLAGS
# (-mthumb and -mfloat-abi are the target's; the CMSIS device defines only select the cycle counter, which
# Invoke() never reads) and ext_libs/cmsis_nn.inc's defines; the optimisation of each part below.
COMMON_FLAGS = ["-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-ffunction-sections", "-fdata-sections",
                "-fmessage-length=0", "-DTF_LITE_STATIC_MEMORY", "-DTF_LITE_DISABLE_X86_NEON",
                "-DKERNELS_OPTIMIZED_FOR_SPEED", "-DTF_LITE_MCU_DEBUG_LOG", "-mlittle-endian", "-funsigned-char",
                "-fomit-frame-pointer", "-DCMSIS_NN", "-DARM_NN_ENABLE_F16=0", "-DARM_NN_ENABLE_F32=0", "-w"]
CXX_FLAGS = ["-std=c++17", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics"]
C_FLAGS = ["-std=c17"]
BUILD_TYPES = {"release": ["-DNDEBUG", "-DTF_LITE_STRIP_ERROR_STRINGS"], "default": []}
CORE_OPT, KERNEL_OPT = "-Os", "-O2"


@dataclass(frozen=True)
class Tree:
    """Where the sources are."""

    tflm: Path
    cmsis_nn: Path
    third_party: Path

    @property
    def includes(self) -> list[str]:
        dirs = [self.tflm, self.third_party / "flatbuffers" / "include", self.third_party / "gemmlowp",
                self.third_party / "ruy", self.cmsis_nn, self.cmsis_nn / "Include"]
        return [flag for d in dirs for flag in ("-I", str(d))]


def makefile_list(tflm: Path, variable: str) -> list[str]:
    """The explicit file list a variable of TFLite Micro's sources.inc assigns (one path a line)."""
    text = (tflm / "tensorflow/lite/micro/tools/make/sources.inc").read_text()
    block = text.split(f"{variable} := \\", 1)[1].split("\n\n", 1)[0]
    return [line.replace("$(TENSORFLOW_ROOT)", "").strip(" \\") for line in block.splitlines() if "$(TENSORFLOW_ROOT)" in line]


def core_sources(tflm: Path) -> list[Path]:
    """MICROLITE_CC_BASE_SRCS without tests and benchmarks: the runtime, and TFLite's shared sources (every
    .cc/.c under tensorflow/ outside lite/micro and lite/experimental, without lite/array.cc)."""
    micro = tflm / "tensorflow/lite/micro"
    found = [p for d in ("", "arena_allocator", "memory_planner", "tflite_bridge") for p in sorted((micro / d).glob("*.cc"))]
    for path in sorted((tflm / "tensorflow").rglob("*")):
        relative = path.relative_to(tflm).as_posix()
        if path.suffix in (".cc", ".c") and not relative.startswith(("tensorflow/lite/micro/", "tensorflow/lite/experimental/")) \
                and relative != "tensorflow/lite/array.cc":
            found.append(path)
    return [p for p in found if not p.name.endswith("_test.cc") and not p.name.endswith("benchmark.cc")]


def kernel_sources(tflm: Path) -> list[Path]:
    """MICROLITE_CC_KERNEL_SRCS, each replaced by its kernels/cmsis_nn/ namesake (specialize_files.py)."""
    optimized = tflm / "tensorflow/lite/micro/kernels/cmsis_nn"
    return [optimized / Path(name).name if (optimized / Path(name).name).exists() else tflm / name
            for name in makefile_list(tflm, "MICROLITE_CC_KERNEL_SRCS")]


def cmsis_nn_sources(cmsis_nn: Path) -> list[Path]:
    """CMSIS-NN's sources as ext_libs/cmsis_nn.inc takes them (no float16/float32 kernels)."""
    return [p for p in sorted((cmsis_nn / "Source").rglob("*.c"))
            if not p.name.endswith(("_f16.c", "_f32.c")) and p.name != "arm_nntables_flt.c"]


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise UsmpError(f"{what}: {(done.stderr.strip().splitlines() or ['no output'])[0]}")
    return done.stdout


def build_library(tree: Tree, target, build_type: str, build_dir: Path) -> Path:
    """libtflm.a for the target (cached by the flags and the sources' contents)."""
    flags = [*target.compile_flags, *COMMON_FLAGS, *BUILD_TYPES[build_type], *tree.includes]
    units = ([(p, CORE_OPT) for p in core_sources(tree.tflm)] + [(p, KERNEL_OPT) for p in kernel_sources(tree.tflm)]
             + [(p, KERNEL_OPT) for p in cmsis_nn_sources(tree.cmsis_nn)])
    digest = hashlib.sha256(" ".join(flags).encode())
    for path, opt in units:
        digest.update(f"{path} {opt}\0".encode() + path.read_bytes())
    out = build_dir / f"{target.name}-{build_type}-{digest.hexdigest()[:16]}"
    archive = out / "libtflm.a"
    if archive.exists():
        return archive
    out.mkdir(parents=True, exist_ok=True)

    def compile_one(index_unit):
        index, (path, opt) = index_unit
        language = CXX_FLAGS if path.suffix == ".cc" else C_FLAGS
        obj = out / f"{index:04d}_{path.stem}.o"
        _run([CXX if path.suffix == ".cc" else CC, *flags, *language, opt, "-c", str(path), "-o", str(obj)],
             f"{path.name} did not compile for {target.name}")
        return str(obj)

    with ThreadPoolExecutor() as pool:
        objects = list(pool.map(compile_one, enumerate(units)))
    _run([AR, "rcs", str(archive), *objects], "archiving TFLite Micro")
    return archive


def _c_array(name: str, data: bytes) -> str:
    rows = ",\n".join(", ".join(str(b) for b in data[i:i + 32]) for i in range(0, len(data), 32))
    return f"alignas(16) const unsigned char {name}[{len(data)}] = {{\n{rows}\n}};\n"


def resolver_methods(tflm: Path) -> dict[str, str]:
    """Normalised builtin name (lowercase, no underscores) -> MicroMutableOpResolver's Add method."""
    header = (tflm / "tensorflow/lite/micro/micro_mutable_op_resolver.h").read_text()
    return {m.lower(): f"Add{m}" for m in re.findall(r"TfLiteStatus Add(\w+)\(", header)}


def arena_bytes(target) -> int:
    """The arena the harness declares: ARENA_BYTES, or what the board's RAM holds beside the harness."""
    return min(ARENA_BYTES, (target.ram_size - HARNESS_RAM) // 16 * 16)


def harness(model: Path, inputs: list[np.ndarray], tflm: Path, arena: int = ARENA_BYTES) -> str:
    """main(): the interpreter with the model's operators, the input, one measured Invoke, the outputs."""
    graph = read_tflite(model)
    methods = resolver_methods(tflm)
    opcodes = sorted({op.opcode for op in graph.operators})
    missing = [o for o in opcodes if o.replace("_", "").lower() not in methods]
    if missing:
        raise UsmpError(f"{model.name}: MicroMutableOpResolver has no Add method for {', '.join(missing)}")
    adds = "\n".join(f"  resolver.{methods[o.replace('_', '').lower()]}();" for o in opcodes)
    copies = "\n".join(f"  memcpy(interpreter.input({i})->data.raw, input_{i}, sizeof(input_{i}));"
                       for i in range(len(inputs)))
    arrays = "extern const unsigned char model_data[];\n" + "".join(
        _c_array(f"input_{i}", np.ascontiguousarray(x).tobytes()) for i, x in enumerate(inputs))
    return f"""// TFLite Micro harness for {model.name}, generated by benchmarks/tflm_benchmark.py.
#include <stdio.h>
#include <string.h>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern "C" {{
#include "harness_hooks.h"
}}

{arrays}
alignas(16) static unsigned char arena[{arena}];

int main(void) {{
  const tflite::Model* model = tflite::GetModel(model_data);
  tflite::MicroMutableOpResolver<{len(opcodes)}> resolver;
{adds}
  tflite::MicroInterpreter interpreter(model, resolver, arena, sizeof(arena));
  if (interpreter.AllocateTensors() != kTfLiteOk) {{
    printf("AllocateTensors failed\\n");
    return 2;
  }}
{copies}
  USMP_HARNESS_BEFORE_INFERENCE();
  TfLiteStatus status = interpreter.Invoke();
  USMP_HARNESS_AFTER_INFERENCE();
  if (status != kTfLiteOk) {{
    printf("Invoke failed\\n");
    return 3;
  }}
  printf("arena-used: %u\\n", (unsigned)interpreter.arena_used_bytes());
  for (size_t i = 0; i < interpreter.outputs_size(); i++) {{
    char name[32];
    snprintf(name, sizeof(name), "output_%u.bin", (unsigned)i);
    FILE* f = fopen(name, "wb");
    fwrite(interpreter.output(i)->data.raw, 1, interpreter.output(i)->bytes, f);
    fclose(f);
  }}
  return 0;
}}
"""


def _part(obj: str) -> str:
    """Flash by part, in the runner's names: TFLite Micro's runtime (interpreter, allocator, flatbuffer
    reading) where USMP has its generated code, the kernels (TFLite Micro's and CMSIS-NN's), the model as
    constants, and the harness (main, the input, start-up, C library)."""
    match = re.search(r"libtflm\.a\((\d{4})_", obj)
    if match:
        return "kernels" if int(match.group(1)) >= _part.kernel_start else "generated_code"
    return "constants" if obj.endswith("model_data.o") else "harness"


def measure(model: Path, tree: Tree, target_name: str, build_type: str, build_dir: Path) -> dict:
    target = target_named(target_name)
    library = build_library(tree, target, build_type, build_dir)
    _part.kernel_start = len(core_sources(tree.tflm))
    graph = read_tflite(model)
    inputs = random_inputs(graph, np.random.default_rng(2024))
    with tempfile.TemporaryDirectory(prefix="usmp-tflm-") as work:
        work_dir = Path(work)
        (work_dir / "main.cc").write_text(harness(model, inputs, tree.tflm, arena_bytes(target)))
        (work_dir / "model_data.cc").write_text(_c_array("model_data", model.read_bytes()).replace(
            "alignas(16) const", "extern const unsigned char model_data[];\nalignas(16) const"))
        (work_dir / "cortex_m.ld").write_text(linker_script(target))
        objects = []
        sources = [BAREMETAL_DIR / n for n in SHARED_SOURCES] + [support_dir(target) / n
                                                                 for n in target.arch.support_sources]
        for source in sources:
            obj = work_dir / f"{source.stem}_{source.suffix[1:]}.o"
            _run([CC, *target.compile_flags, *SUPPORT_FLAGS, "-I", str(BAREMETAL_DIR), "-I", str(support_dir(target)),
                  "-c", str(source), "-o", str(obj)], f"{source.name} did not compile")
            objects.append(str(obj))
        for name in ("main", "model_data"):
            _run([CXX, *target.compile_flags, *COMMON_FLAGS, *BUILD_TYPES[build_type], *CXX_FLAGS, CORE_OPT,
                  *tree.includes, "-I", str(BAREMETAL_DIR), "-c", str(work_dir / f"{name}.cc"),
                  "-o", str(work_dir / f"{name}.o")], "the harness did not compile")
        elf = work_dir / "model.elf"
        _run([CXX, *target.compile_flags, "-nostartfiles", "-T", str(work_dir / "cortex_m.ld"), "-Wl,--gc-sections",
              f"-Wl,-Map={work_dir / 'model.map'}", str(work_dir / "main.o"), str(work_dir / "model_data.o"), *objects, str(library), *target.arch.link_libraries,
              "-o", str(elf)], f"linking {model.name} for {target_name} failed")
        usage = read_image_usage(work_dir / "model.map", _part, (target.flash_origin, target.flash_size),
                                 (target.ram_origin, target.ram_size))
        symbols = {}
        for line in _run([NM, str(elf)], "reading the symbols").splitlines():
            fields = line.split()
            if len(fields) == 3:
                symbols[fields[2]] = int(fields[0], 16) & ~1
        done = run_qemu(target.arch.qemu, target.qemu_arguments, elf, work_dir, 1800, work_dir / "trace.log")
        if done.returncode != 0:
            raise UsmpError(f"{model.name} on {target_name}: exit {done.returncode}: {done.stdout.strip()[:200]}")
        instructions = count_instructions(work_dir / "trace.log", symbols["usmp_bm_inference_begin"],
                                          symbols["usmp_bm_inference_end"], target.arch.instruction_offsets)
        outputs = [(work_dir / f"output_{i}.bin").read_bytes() for i in range(len(graph.outputs))]
        stack = int(re.search(r"usmp-stats: stack=(\d+)", done.stdout).group(1))
        arena = int(re.search(r"arena-used: (\d+)", done.stdout).group(1))
    expected = reference_outputs(model, inputs)
    # integer outputs bit for bit, float32 within float rounding (reference.outputs_match)
    exact = all(outputs_match(e, np.frombuffer(got, e.dtype).reshape(e.shape)) if len(got) == e.nbytes else False
                for got, e in zip(outputs, expected))
    parts = usage.flash_parts
    return {"model": model.stem, "target": target_name, "instructions": instructions,
            "runtime B": parts["generated_code"], "kernels B": parts["kernels"], "model B": parts["constants"],
            "arena B": arena, "stack B": stack,
            "matches tflite-micro": "yes" if exact else "NO"}


COLUMNS = ("model", "target", "instructions", "runtime B", "kernels B", "model B", "arena B", "stack B",
           "matches tflite-micro")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="models (default: micro_speech, benchmarks/models, "
                                                              "person_detect)")
    parser.add_argument("--tflm", type=Path, required=True, help="a TFLite Micro source tree")
    parser.add_argument("--cmsis-nn", type=Path, required=True, help="a CMSIS-NN source tree")
    parser.add_argument("--third-party", type=Path, help="directory with flatbuffers, gemmlowp and ruy "
                                                         "(default: the TFLite Micro tree's parent)")
    parser.add_argument("--targets", default="cortex-m4,cortex-m55",
                        help=f"comma-separated targets (of {', '.join(TARGETS)})")
    parser.add_argument("--build-type", choices=tuple(BUILD_TYPES), default="release")
    parser.add_argument("--build-dir", type=Path, default=Path.home() / ".cache" / "usmp" / "tflm")
    args = parser.parse_args(argv)
    tree = Tree(args.tflm.resolve(), args.cmsis_nn.resolve(), (args.third_party or args.tflm.parent).resolve())
    for needed in (tree.tflm / "tensorflow/lite/micro/micro_interpreter.h", tree.cmsis_nn / "Include/arm_nnfunctions.h",
                   tree.third_party / "flatbuffers/include/flatbuffers/flatbuffers.h",
                   tree.third_party / "gemmlowp/fixedpoint/fixedpoint.h"):
        if not needed.exists():
            print(f"error: {needed} not found", file=sys.stderr)
            return 2
    rows = []
    for target in [t.strip() for t in args.targets.split(",") if t.strip()]:
        for model in args.models or DEFAULT_MODELS:
            try:
                rows.append(measure(model, tree, target, args.build_type, args.build_dir))
            except UsmpError as exc:
                rows.append({"model": model.stem, "target": target, "note": str(exc)})
            print(f"measured {model.stem} on {target}", file=sys.stderr, flush=True)
    measured = [r for r in rows if "note" not in r]
    cells = [[f"{r[c]:,}" if isinstance(r[c], int) else str(r[c]) for c in COLUMNS] for r in measured]
    widths = [max([len(c)] + [len(line[i]) for line in cells]) for i, c in enumerate(COLUMNS)]
    print(f"TFLite Micro + CMSIS-NN ({args.build_type} build, runtime {CORE_OPT}, kernels {KERNEL_OPT}) on QEMU; "
          f"instructions of one Invoke()")
    print(" | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)))
    print("-+-".join("-" * w for w in widths))
    for line in cells:
        print(" | ".join(v.rjust(w) if i >= 2 else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths))))
    for r in rows:
        if "note" in r:
            print(f"{r['model']} on {r['target']}: not measured: {r['note']}")
    return 0 if all(r.get("matches tflite-micro") == "yes" for r in measured) and len(measured) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
