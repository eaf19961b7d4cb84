"""Build the generated library with the system C compiler and run it here.

Builds are cached by the hash of everything that goes into them, so running
the same model on many inputs compiles once.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from usmp import progress
from usmp.codegen.emit import _environment, io_views
from usmp.compiler import Compiled
from usmp.errors import ToolError, UsmpError
from usmp.paths import KERNELS_DIR, KERNELS_INCLUDE_DIR, KERNELS_SRC_DIR
from usmp.runner.io_files import read_harness_outputs, step_by_step, write_harness_inputs

WARNING_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


def cache_root() -> Path:
    return Path(os.environ.get("USMP_CACHE_DIR") or Path.home() / ".cache" / "usmp")


def harness_source(compiled: Compiled) -> str:
    program, layout = compiled.program, compiled.layout
    context = dict(
        name=program.name, NAME=program.name.upper(), version=__import__("usmp").__version__,
        inputs=io_views(program, "inputs"), outputs=io_views(program, "outputs"), layout=layout,
        workspace_pools=layout.writable_pools, stateful=bool(program.init_ops),
        copied_pools=[p for p in layout.pools if p.spec.kind == "constant" and getattr(p.spec, "section", None)],
    )
    return _environment().get_template("harness_main.c.j2").render(context)


def kernel_sources() -> list[Path]:
    return sorted(KERNELS_SRC_DIR.glob("*.c"))


def _compile(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["(no output)"])[0]
        raise ToolError(f"{what} did not compile: {first}")


def _publish(staging: Path, build_dir: Path) -> None:
    try:
        os.replace(staging, build_dir)
    except OSError:  # another process built the same thing first
        pass


def build_kernel_library(cc: list[str], flags: list[str]) -> Path:
    """The kernel library as a static archive, built once per compiler and flags."""
    digest = hashlib.sha256(" ".join(cc + flags).encode())
    for path in kernel_sources() + sorted(KERNELS_INCLUDE_DIR.rglob("*.h")):
        digest.update(str(path.relative_to(KERNELS_INCLUDE_DIR.parent)).encode() + b"\0" + path.read_bytes())
    build_dir = cache_root() / "host-kernels" / digest.hexdigest()[:24]
    archive = build_dir / "libusmp_kernels.a"
    if archive.exists():
        return archive
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=build_dir.parent))
    try:
        objects = []
        for source in kernel_sources():
            obj = staging / f"{source.stem}.o"
            _compile(cc + flags + ["-I", str(KERNELS_INCLUDE_DIR), "-c", str(source), "-o", str(obj)],
                     f"kernel {source.name}")
            objects.append(str(obj))
        ar = shutil.which("ar") or "ar"
        subprocess.run([ar, "rcs", str(staging / archive.name), *objects], check=True, capture_output=True)
        _publish(staging, build_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return archive


def build_host(compiled: Compiled, sanitize: bool = False, optimize: str = "-O2") -> Path:
    cc = shlex.split(os.environ.get("CC", "cc"))
    if shutil.which(cc[0]) is None:
        raise ToolError(f"no C compiler found ('{cc[0]}'); install gcc or set CC")
    flags = WARNING_FLAGS + [optimize] + (SANITIZE_FLAGS if sanitize else [])
    kernels = build_kernel_library(cc, flags)
    sources = dict(compiled.files)
    sources["harness_main.c"] = harness_source(compiled)
    external = compiled.program.external_kernels  # CMSIS-NN's plain C paths on the host
    external_files = [str(p) for p in (external.sources + external.glue)] if external else []
    external_includes = [flag for d in (external.include_dirs if external else []) for flag in ("-I", str(d))]
    digest = hashlib.sha256(" ".join(cc + flags + ["ext:"] + external_files).encode() + str(kernels).encode())
    for path in external_files + sorted(str(h) for h in KERNELS_DIR.rglob("*.h") if external):  # glue's headers
        digest.update(Path(path).read_bytes())
    for file_name in sorted(sources):
        digest.update(file_name.encode() + b"\0" + sources[file_name].encode())
    build_dir = cache_root() / "host" / digest.hexdigest()[:24]
    executable = build_dir / "model"
    if executable.exists():
        return executable
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=build_dir.parent))
    try:
        for file_name, text in sources.items():
            (staging / file_name).write_text(text)
        c_files = [str(staging / f) for f in sources if f.endswith(".c")]
        if external:
            c_files += _external_objects(cc, optimize, flags, external, external_includes, staging)
        _compile(cc + flags + ["-I", str(staging), "-I", str(KERNELS_INCLUDE_DIR), *external_includes, *c_files,
                               str(kernels), "-o", str(staging / "model")],
                 "the generated code")
        _publish(staging, build_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return executable


def _external_objects(cc: list[str], optimize: str, flags: list[str], external, includes: list[str],
                      staging: Path) -> list[str]:
    """An external kernel library's sources (CMSIS-NN) compiled as its own code: its conventions, not
    our warnings or sanitizers (it shifts negative values left, as C compilers for Arm define). The glue
    gets our flags; sections let the link drop the glue functions whose library sources are not built."""
    objects = []
    for path, own in [(p, False) for p in external.sources] + [(p, True) for p in external.glue]:
        obj = staging / f"ext_{path.parent.name}_{path.stem}.o"  # kernel families share file names
        source_flags = flags if own else ["-std=gnu99", optimize]
        _compile(cc + source_flags + ["-ffunction-sections", "-I", str(KERNELS_INCLUDE_DIR), *includes, "-c",
                                      str(path), "-o", str(obj)], path.name)
        objects.append(str(obj))
    return objects + ["-Wl,--gc-sections"]


def run_host(compiled: Compiled, inputs: list[np.ndarray], sanitize: bool = False, timeout: float = 120,
             steps: int | None = None, reset_before: int | None = None) -> list[np.ndarray]:
    """One inference; with steps, a sequence (inputs and outputs stacked on a leading axis of that many).

    A model with state is initialised once and then runs the steps in order
    (with reset() called before step reset_before, if given).
    """
    if steps is not None and not compiled.program.init_ops:
        return step_by_step(lambda one: run_host(compiled, one, sanitize, timeout), inputs, steps)
    progress.stage("compiling for the host")
    executable = build_host(compiled, sanitize=sanitize)
    with tempfile.TemporaryDirectory(prefix="usmp-run-") as work:
        work_dir = Path(work)
        write_harness_inputs(compiled.program, inputs, steps, work_dir, reset_before)
        progress.stage("running on the host")
        try:
            done = subprocess.run([str(executable)], cwd=work_dir, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ToolError(f"the compiled model did not finish within {timeout:.0f} s") from None
        if done.returncode != 0:
            detail = (done.stdout + done.stderr).strip().splitlines()
            raise UsmpError(f"the compiled model failed (exit {done.returncode}): {detail[0] if detail else 'no output'}")
        return read_harness_outputs(compiled.program, steps, work_dir)
