"""The stack each CMSIS-NN glue call takes on a core: what select/cmsis_nn_frames.py holds, measured.

    CMSIS_NN_PATH=... .venv/bin/python benchmarks/cmsis_nn_frames.py [--target cortex-m4]

Compiles USMP's glue (kernels/cmsis_nn/, with the kernels' flags) and the CMSIS-NN sources it reaches (with
CMSIS-NN's, -O2) as a build for the target does, links them into one image that calls every glue function, and
prints, per glue function, the deepest path of frames below it (usmp/stack: GCC's -fstack-usage frames on the
image's call graph), as the table select/cmsis_nn_frames.py keeps.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from dependencies import CMSIS_NN_MISSING, cmsis_nn_dir  # noqa: E402

from usmp.paths import KERNELS_DIR  # noqa: E402
from usmp.runner.baremetal import STACK_USAGE_FLAGS, STRICT_FLAGS, THIRD_PARTY_FLAGS, target_named  # noqa: E402
from usmp.select.cmsis_nn import ROWS_FUNCTIONS  # noqa: E402
from usmp.select.cmsis_nn_sources import sources_for  # noqa: E402
from usmp.stack import CallGraph  # noqa: E402
from usmp.stack.frames import read_frames  # noqa: E402
from usmp.stack.image import read_functions  # noqa: E402

GLUE = KERNELS_DIR / "cmsis_nn" / "cmsis_nn_glue.c"


def measure(root: Path, target_name: str, work: Path) -> dict[str, tuple[int, list]]:
    target = target_named(target_name)
    cc = target.arch.tool("gcc")
    text = GLUE.read_text()
    glue_functions = re.findall(r"^(?:[A-Z_]+ )?void (usmp_cmsis_nn_\w+)\(", text, re.M)
    called = {f for f in re.findall(r"\b(arm_\w+)\(", text) if next(root.rglob(f"{f}.c"), None)}
    objects = []
    for source in (GLUE, *sources_for(root, called | set(ROWS_FUNCTIONS))):
        flags = STRICT_FLAGS if source == GLUE else THIRD_PARTY_FLAGS
        obj = work / f"{source.stem}.o"
        subprocess.run([cc, *target.compile_flags, *flags, *STACK_USAGE_FLAGS, f"-I{root / 'Include'}",
                        f"-I{KERNELS_DIR / 'include'}", "-c", str(source), "-o", str(obj)], check=True)
        objects.append(str(obj))
    main = work / "main.c"
    main.write_text("int main(void) { return 0; }\n")
    subprocess.run([cc, *target.compile_flags, "-c", str(main), "-o", str(work / "main.o")], check=True)
    elf = work / "frames.elf"
    subprocess.run([cc, *target.link_flags, "--specs=nosys.specs", "-Wl,--gc-sections",
                    *(f"-Wl,--undefined={n}" for n in glue_functions), str(work / "main.o"),
                    *objects, "-o", str(elf)], check=True)
    graph = CallGraph(read_functions(elf, target.arch.tool("objdump"), target.arch.stack_isa), read_frames([work]))
    return {name: graph.deepest(name) for name in glue_functions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="cortex-m4")
    args = parser.parse_args(argv)
    root = cmsis_nn_dir()
    if root is None:
        print(f"error: {CMSIS_NN_MISSING}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work:
        for name, (depth, path) in measure(Path(root), args.target, Path(work)).items():
            print(f'    "{name}": {depth},  # ' + " -> ".join(f"{f} {b}" for f, b in path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
