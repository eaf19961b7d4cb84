"""What the templates need to write a depth-first chain (tiling/loop.py) as a loop over bands.

The loop's numbers live in three small const tables (links, their row inputs,
the chain); the function takes the pools' bases and names its buffers inside
(a chain of ten links has some fifty). Per band, each link's call is its
whole-tensor call with the band members of a copy of its parameters set
(tiling/band_fields.py) and its row pointers offset by the band's rows
(b[link], a struct usmp_band of kernels' tiling.h).
"""
from __future__ import annotations

import re

from usmp.codegen.layout import Layout, address_of
from usmp.errors import UsmpError
from usmp.lower.program import Program
from usmp.tiling.band_fields import band_fields
from usmp.tiling.loop import BandLoop


def band_loop_view(program: Program, layout: Layout, op: BandLoop, calls: list[dict]) -> dict:
    """`calls` are the templates' views of op.calls (function, params name, args), in the same order."""
    stem = op.function_name
    edges, links = [], []
    for link in op.links:
        links.append(dict(rows=link.rows, share=link.share, first_edge=len(edges), inputs=len(link.edges),
                          row_bytes=link.row_bytes))
        edges.extend(dict(producer=-1 if e.producer is None else e.producer, stride=e.stride, pad_top=e.pad_top,
                          extent=e.extent, rows=e.rows) for e in link.edges)
    steps = []
    for j, link in enumerate(op.links):
        buffer = f"(uint8_t *){link.buffer}" if link.buffer else "NULL"
        steps.append(dict(index=j, op_index=link.op_index, opcode=link.opcode, buffer=buffer,
                          calls=[_band_call(op, link, calls[k], op.calls[k]) for k in link.calls]))
    signature, call_args = _bases(program, layout, op)
    return dict(chain=f"{stem}_chain", links_table=f"{stem}_links", edges_table=f"{stem}_edges", links=links,
                edges=edges, band=op.band, bands=op.bands, recompute=int(op.recompute), steps=steps,
                before=[calls[k] for k in op.before], after=[calls[k] for k in op.after],
                signature=signature, call_args=call_args)


def _bases(program: Program, layout: Layout, op: BandLoop) -> tuple[str, str]:
    """A loop has many buffers (each link's weights, biases, multipliers, band buffers): rather than one parameter
    each, it takes the pools' bases (and the inputs and outputs it uses) and names its buffers inside, at the
    addresses run() would have passed."""
    addresses = " ".join(address_of(program, layout, a.buffer, a.writable) for a in op.args)
    params, args = [], []
    for pool in layout.pools:
        name = f"pool_{pool.spec.name}"
        if re.search(rf"\b{name}\b", addresses):
            const = "const " if pool.spec.kind == "constant" else ""
            params.append(f"{const}uint8_t *{name}")
            args.append(name)
    for side in ("inputs", "outputs"):
        if f"{side}->" in addresses:
            params.append(f"struct usmp_{program.name}_{side} *{side}")
            args.append(side)
    return ", ".join(params) or "void", ", ".join(args)


def _band_call(op: BandLoop, link, view: dict, call) -> dict:
    fields = band_fields(call.params_type)
    if fields is None:
        raise UsmpError(f"internal: {call.function} ({call.params_type}) cannot run a band in operator {op.op_index}")
    per = {"1": 1, "row": link.row_elements, "width": link.width}
    band = f"b[{op.links.index(link)}]"
    assignments = [(f.member, _times(f"{band}.{f.value}", per[f.per])) for f in fields]
    args = []
    for name in call.args:
        pointer = link.pointers.get(name)
        args.append(name if pointer is None else f"{name} + {_times(f'{band}.{pointer.row}', pointer.elements)}")
    return dict(view, type=call.params_type, assignments=assignments, band_args=args)


def _times(value: str, factor: int) -> str:
    return value if factor == 1 else f"{value} * {factor}"
