"""Render the generated library from the templates.

Python decides everything (names, addresses, literals); the templates only
lay it out, so a reader of the generated C can find each piece in one file.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2
import numpy as np

from usmp import __version__
from usmp.codegen.c_literals import c_byte_rows, c_float, c_literal
from usmp.codegen.control import control_functions
from usmp.codegen.guards import GUARD_BYTES, GUARD_STATUS_BASE, op_guards
from usmp.codegen.guards import PATTERN as GUARD_PATTERN
from usmp.codegen.layout import Layout, address_of, io_member_names, placement_of
from usmp.codegen.names import c_text
from usmp.errors import ModelError, UsmpError
from usmp.ir.graph import c_type
from usmp.lower.program import Program
from usmp.paths import TEMPLATES_DIR
from usmp.codegen.band_loop import band_loop_view, band_wrappers
from usmp.tiling.loop import BandLoop, operators_run
from usmp.tiling.variants import band_variants, varying_members


@dataclass
class IoView:
    member: str  # struct member / macro stem
    macro: str
    c_type: str
    dtype: str
    shape: tuple[int, ...]
    num_elements: int
    nbytes: int
    scale: str | None
    zero_point: int | None
    buffer: str


def io_views(program: Program, side: str) -> list[IoView]:
    indices = program.graph.inputs if side == "inputs" else program.graph.outputs
    buffers = program.inputs if side == "inputs" else program.outputs
    views = []
    for member, index, buffer in zip(io_member_names(program, side), indices, buffers):
        t = program.graph.tensors[index]
        q = t.quant if t.quant is not None and not t.quant.per_channel and _usable_scale(t.quant.scale) else None
        views.append(IoView(
            member, f"{'INPUT' if side == 'inputs' else 'OUTPUT'}_{member.upper()}", c_type(t.dtype), t.dtype,
            t.shape, t.num_elements, t.nbytes, c_float(q.scale) if q else None,
            q.zero_point if q else None, buffer,
        ))
    return views


def _usable_scale(scale: float) -> bool:
    """An I/O tensor only views may touch keeps its metadata unchecked: no macro for a scale C cannot print."""
    return bool(np.isfinite(scale)) and scale > 0


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )


def emit_library(program: Program, layout: Layout, source: str, guards: bool = False, stack=None) -> dict[str, str]:
    """File name -> contents of the generated library (guards: see codegen/guards.py; stack: run()'s stack
    bound on a core, stack/on_target.py, for the header)."""
    name = program.name
    ops = [_op_view(program, layout, op, guards) for op in program.ops]
    functions = []  # every function to define, in order: an IF's or WHILE's blocks come before it
    for op, view in zip(program.ops, ops):
        functions.extend(control_functions(program, op, lambda inner: _op_view(program, layout, inner, False))
                         if op.control else [view])
    init_ops = [_op_view(program, layout, op, False) for op in program.init_ops]
    wrappers = band_wrappers(functions)
    constant_pools = []
    for pool in layout.pools:
        if pool.spec.kind != "constant":
            continue
        image = bytearray(pool.size)
        marks = []
        for buffer_name, (pool_name, offset) in sorted(layout.placements.items(), key=lambda kv: kv[1][1]):
            if pool_name != pool.spec.name:
                continue
            data = program.buffers[buffer_name].data or b""
            image[offset:offset + len(data)] = data
            marks.append((offset, buffer_name, len(data)))
        # A pool in a NOLOAD memory region (e.g. a TCM) is filled from its flash image by init().
        section = getattr(pool.spec, "section", None)
        constant_pools.append(dict(pool=pool, rows=_annotated_rows(bytes(image), marks), section=section,
                                   load_section=getattr(pool.spec, "load_section", None)))
    copied = [cp for cp in constant_pools if cp["section"]]  # filled by init(): see zephyr/placement.py
    context = dict(
        name=name, NAME=name.upper(), version=__version__, source=source,
        inputs=io_views(program, "inputs"), outputs=io_views(program, "outputs"),
        pools=layout.pools, workspace_pools=layout.writable_pools,
        constant_pools=constant_pools, ops=ops, functions=functions, init_ops=init_ops, layout=layout,
        state_pools=[p for p in layout.pools if p.spec.kind == "state"], stateful=bool(program.init_ops),
        has_state=bool(program.state_buffers), startup_copies=startup_copies(program, layout),
        io_copies=io_copies(program, layout), staged_copies=staged_copies(program, layout),
        copied_pools=copied, needs_init=bool(program.init_ops or copied),
        pools_argument=layout.user_pools or layout.workspace_io,
        guards=guards, guard_bytes=GUARD_BYTES, guard_pattern=", ".join(f"0x{b:02x}" for b in GUARD_PATTERN),
        guard_status_base=GUARD_STATUS_BASE,
        external=_external_view(program),
        operator_count=operators_run(program), band_wrappers=wrappers, stack=stack,
        stack_path=" -> ".join(f"{f} {b}" for f, b in stack.path) if stack else "",
        io_placements={b: placement_of(program, layout, b) for b in program.inputs + program.outputs
                       if layout.workspace_io},  # an input may live inside an output's buffer (tiling/overlay.py)
    )
    env = _environment()
    return {
        f"{name}.h": env.get_template("model.h.j2").render(context),
        f"{name}.c": env.get_template("model.c.j2").render(context),
        f"{name}_constants.c": env.get_template("constants.c.j2").render(context),
        "CMakeLists.txt": env.get_template("CMakeLists.txt.j2").render(context),
    }


def startup_copies(program: Program, layout: Layout) -> list[dict]:
    """The constants init() copies into a faster pool (usmp/placement/copies.py), for the header's comments."""
    copies = []
    for op in program.init_ops:
        buffer_of = {a.name: a.buffer for a in op.args}
        for call in op.calls:
            source, target = (buffer_of[a] for a in call.args[:2]) if len(call.args) >= 2 else (None, None)
            if target in program.buffers and program.buffers[target].kind == "copy":
                copies.append(dict(constant=source, bytes=program.buffers[target].size,
                                   source_pool=placement_of(program, layout, source)[0],
                                   pool=placement_of(program, layout, target)[0]))
    return copies


def io_copies(program: Program, layout: Layout) -> list[dict]:
    """The COPY operators moving a model input or output between pools (analysis/scopes.py, placement by
    demand), for the header's comments."""
    copies = []
    io = {*program.inputs, *program.outputs}
    for op in program.ops:
        if op.opcode != "COPY":
            continue
        source, target = op.args[0].buffer, op.args[1].buffer
        if source in io or target in io:
            name = source if source in io else target
            copies.append(dict(buffer=name, output=name in program.outputs, bytes=program.buffers[name].size,
                               source_pool=placement_of(program, layout, source)[0] if layout.workspace_io else None,
                               pool=placement_of(program, layout, target)[0], index=op.op_index))
    return copies


def staged_copies(program: Program, layout: Layout) -> list[dict]:
    """The COPY operators moving a constant into a faster pool before its readers each inference
    (usmp/placement/copies.py), for the header's comments."""
    return [dict(constant=op.args[0].buffer, bytes=program.buffers[op.args[1].buffer].size,
                 source_pool=placement_of(program, layout, op.args[0].buffer)[0],
                 pool=placement_of(program, layout, op.args[1].buffer)[0])
            for op in program.ops if op.opcode == "COPY" and program.buffers[op.args[0].buffer].is_constant]


def _external_view(program: Program) -> dict | None:
    """What the generated build needs of an external kernel library (CMSIS-NN), or None."""
    external = program.external_kernels
    if external is None:
        return None
    return dict(name=external.name, cpu=external.cpu, header=external.header, own_operators=external.own_operators,
                include_dirs=[str(d) for d in external.include_dirs], sources=[str(s) for s in external.sources],
                glue=[str(g) for g in external.glue], operators=external.operators)


def _op_view(program: Program, layout: Layout, op, guards: bool) -> dict:
    """What the templates need of one lowered operator: its function, parameters and call arguments."""
    params = []
    calls = []
    for k, call in enumerate(op.calls):
        params_name = None
        variants = band_variants(op, k) if isinstance(op, BandLoop) else None
        if call.params_type:
            params_name = f"{op.function_name}_params" + (f"_{k}" if len(op.calls) > 1 else "")
            params.append(dict(name=params_name, type=call.params_type,
                               variants=[_param_fields(op, k, v) for v in variants] if variants else None,
                               fields=_param_fields(op, k, call.params)))
        calls.append(dict(function=call.function, params=params_name, args=call.args,
                          variants=len(variants) if variants else None,
                          varying=varying_members(call.params_type, variants) if variants else None))
    return dict(
        function=op.function_name, index=op.op_index, opcode=op.opcode, params=params, calls=calls, body=None,
        title=f"Operator {op.op_index}: {op.opcode}" + (f" (subgraph {op.subgraph})" if op.subgraph else ""),
        loop=band_loop_view(program, layout, op, calls) if isinstance(op, BandLoop) else None,
        parameters=[
            dict(name=a.name, decl=f"{'' if a.writable else 'const '}{program.buffers[a.buffer].c_type} *{a.name}",
                 buffer=a.buffer, address=address_of(program, layout, a.buffer, a.writable))
            for a in op.args
        ],
        guards=op_guards(program, layout.placements, op) if guards else [],
    )


def _param_fields(op, k: int, params: dict) -> list[tuple[str, str]]:
    return [(f, _param_literal(_call_owner(op, k), f, v)) for f, v in params.items()]


def _call_owner(op, k: int) -> tuple[int, str]:
    """The model operator (index, opcode) whose kernel call k is: a depth-first loop's calls belong to its links."""
    if isinstance(op, BandLoop) and op.links:
        owner = next((link for link in op.links if k in link.calls), op.links[0 if k in op.before else -1])
        return owner.op_index, owner.opcode
    return op.op_index, op.opcode


def _param_literal(owner: tuple[int, str], field: str, value) -> str:
    """A kernel parameter as C; values no 32-bit field holds (from absurd model options) are the model's fault."""
    values = np.ravel(np.asarray(value, dtype=object))
    for v in values:
        out_of_range = isinstance(v, (int, np.integer)) and not -(1 << 31) <= int(v) < (1 << 31)
        if out_of_range or (isinstance(v, (float, np.floating)) and not np.isfinite(np.float32(v))):
            raise ModelError(f"operator {owner[0]} ({owner[1]}): kernel parameter {field} = {v} does not fit "
                             f"the kernel's 32-bit field; the model's shapes or options are out of range")
    return c_literal(value)


def _annotated_rows(image: bytes, marks: list[tuple[int, str, int]]) -> list[tuple[str | None, str]]:
    """Rows of 16 bytes, each buffer starting on a new row with a comment naming it."""
    rows: list[tuple[str | None, str]] = []
    boundaries = sorted({0, len(image), *[m[0] for m in marks]})
    names = {m[0]: m[1] for m in marks}
    for start, end in zip(boundaries, boundaries[1:]):
        comment = names.get(start)
        for i, row in enumerate(c_byte_rows(image[start:end])):
            rows.append((f"{c_text(comment)} @ {start}" if i == 0 and comment else None, row))
    return rows


def write_files(files: dict[str, str], out_dir: Path) -> None:
    """Write into a temporary directory first, then move into place: a failure leaves out_dir as it was."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsmpError(f"output directory {out_dir} exists and is not a directory")
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".usmp-", dir=out_dir.parent))
    except OSError as exc:  # a file where a parent directory should be, no permission, disk full
        raise UsmpError(f"cannot write the generated files to {out_dir}: {exc.strerror or exc}"
                        f"{f' ({exc.filename})' if exc.filename else ''}") from None
    try:
        for file_name, text in files.items():
            (staging / file_name).write_text(text)
        out_dir.mkdir(exist_ok=True)
        for file_name in files:
            os.replace(staging / file_name, out_dir / file_name)
    except OSError as exc:
        raise UsmpError(f"cannot write the generated files to {out_dir}: {exc.strerror or exc}"
                        f"{f' ({exc.filename})' if exc.filename else ''}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
