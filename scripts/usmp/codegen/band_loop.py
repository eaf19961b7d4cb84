"""What the templates need to write a depth-first chain (tiling/loop.py) as a loop over bands.

The loop's numbers live in three small const tables (links, their row inputs,
the chain); the function takes the pools' bases and names its buffers inside
(a chain of ten links has some fifty). What it keeps while it runs is a struct
in its state buffer (tiling/state.py), planned in the workspace, not on the
stack: per link a struct usmp_band of kernels' tiling.h (b[link]: its rows and
their addresses, which usmp_band_step works out per band) and the addresses of
its buffers. A link's whole-tensor kernel is called with its row pointers at the
band's rows and the const variant of its parameters made for the band's rows
(tiling/variants.py: the first whose band members match, found in the loop).
A kernel whose parameters take no variants (CMSIS-NN's) gets a copy in the
state with the band members set (tiling/band_fields.py); links calling such a
kernel the same way share one small static function that does this
(band_<kernel>).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from usmp.codegen.layout import Layout, address_of
from usmp.errors import UsmpError
from usmp.lower.program import Program
from usmp.tiling.band_fields import band_fields
from usmp.tiling.links import ELEMENT_BYTES
from usmp.tiling.loop import BandLoop
from usmp.tiling.state import STATE_ARG, planned_pointer

_PER_NAMES = {"row": "row_elements", "width": "width"}


@dataclass(frozen=True)
class BandWrapper:
    """One kernel called on a band's rows, the same way by every link that uses it: the generated static
    function band_<kernel>(whole parameters, band, the other arguments)."""

    function: str
    params_type: str
    fields: tuple[tuple[str, str, str], ...]  # (member, struct usmp_band member, multiplier: "1", "row", "width")
    args: tuple[tuple[str, str], ...]  # per argument after the parameters: ("in", k), ("out", ""), or (C type, name)


def band_loop_view(program: Program, layout: Layout, op: BandLoop, calls: list[dict]) -> dict:
    """`calls` are the templates' views of op.calls (function, params name, args), in the same order."""
    stem = op.function_name
    wholes = op.whole_inputs()
    links = []
    edges = []
    for j, link in enumerate(op.links):
        links.append(dict(rows=link.rows, share=link.share, first_edge=len(edges), inputs=len(link.edges),
                          row_bytes=link.row_bytes))
        sources = op.sources(link)
        for k, e in enumerate(link.edges):
            if e.producer is None:  # the k-th whole tensor, in buffers[links + k]
                producer = len(op.links) + wholes.index(sources[k])
                row_bytes = _row_bytes(program, op, link, sources[k])
            else:
                producer, row_bytes = e.producer, op.links[e.producer].row_bytes
            edges.append(dict(producer=producer, stride=e.stride, pad_top=e.pad_top,
                              end_offset=e.extent - e.pad_top - e.stride, rows=e.rows,
                              row_bytes=row_bytes))
    steps = []
    for j, link in enumerate(op.links):
        steps.append(dict(index=j, op_index=link.op_index, opcode=link.opcode,
                          calls=[_band_call(program, op, link, calls[k], op.calls[k], len(link.calls) == 1)
                                 for k in link.calls]))
    buffers = [_pointer(_output(link)) for link in op.links] + [_pointer(name) for name in wholes]
    signature, call_args = _bases(program, layout, op)
    state = next(a.buffer for a in op.args if a.name == STATE_ARG)
    copies = list(dict.fromkeys(c["type"] for step in steps for c in step["calls"] if not c["variants"]))
    return dict(chain=f"{stem}_chain", links_table=f"{stem}_links", edges_table=f"{stem}_edges", links=links,
                edges=edges, band=op.band, bands=op.bands, recompute=int(op.recompute), steps=steps,
                buffers=buffers, before=[calls[k] for k in op.before], after=[calls[k] for k in op.after],
                signature=signature, call_args=call_args, state_type=f"{stem}_state", state_buffer=state,
                state_bytes=program.buffers[state].size, copies=[(t, _copy_member(t)) for t in copies],
                narrow_pointers=planned_pointer(program.buffers[state]) < 8)


def _copy_member(params_type: str) -> str:
    """The member of the state's union of parameter copies that holds a struct usmp_<x>_params."""
    return re.sub(r"^usmp_|_params$", "", params_type)


def band_wrappers(op_views: list[dict]) -> list[dict]:
    """The band_<kernel> functions the loops call, once each, named; each loop call gets its function's name."""
    names: dict[BandWrapper, str] = {}
    views = []
    for view in op_views:
        for step in (view.get("loop") or {}).get("steps", []):
            for call in step["calls"]:
                key = call.get("wrapper")
                if key is None:
                    continue
                if key not in names:
                    taken = sum(1 for k in names if k.function == key.function)
                    names[key] = f"band_{key.function}" + (f"_{taken + 1}" if taken else "")
                    views.append(_wrapper_view(key, names[key]))
                call["wrapper_name"] = names[key]
    return views


def _wrapper_view(key: BandWrapper, name: str) -> dict:
    params = [f"const struct {key.params_type} *whole", "const struct usmp_band *b", f"struct {key.params_type} *p"]
    params += [f"int32_t {_PER_NAMES[per]}" for per in dict.fromkeys(per for _, _, per in key.fields if per != "1")]
    args = []
    for kind, value in key.args:
        if kind == "in":
            args.append(f"b->in[{value}]")
        elif kind == "out":
            args.append("b->out")
        else:
            params.append(f"{kind}{value}")
            args.append(value)
    assignments = [(member, f"b->{band}" + (f" * {_PER_NAMES[per]}" if per != "1" else ""))
                   for member, band, per in key.fields]
    return dict(name=name, function=key.function, type=key.params_type, params=params, assignments=assignments,
                args=args)


def _mismatch(assignments: list[tuple[str, str]]) -> str:
    """C: the variant at p was made for other band rows than these."""
    return " || ".join(f"p->{member} != {value}" for member, value in assignments)


def _output(link) -> str | None:
    if link.buffer:
        return link.buffer
    return next((name for name, p in link.pointers.items() if p.row == "out_row"), None)


def _pointer(name: str | None) -> str:
    return f"(void *){name}" if name else "NULL"


def _row_bytes(program: Program, op: BandLoop, link, name: str) -> int:
    buffer = next(a.buffer for a in op.args if a.name == name)
    return link.pointers[name].elements * ELEMENT_BYTES[program.buffers[buffer].c_type]


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


def _band_call(program: Program, op: BandLoop, link, view: dict, call, alone: bool) -> dict:
    fields = band_fields(call.params_type)
    if fields is None:
        raise UsmpError(f"internal: {call.function} ({call.params_type}) cannot run a band in operator {op.op_index}")
    j = op.links.index(link)
    per = {"1": 1, "row": link.row_elements, "width": link.width}
    band = f"s->b[{j}]"
    assignments = [(f.member, _times(f"{band}.{f.value}", per[f.per])) for f in fields]
    copy = f"s->params.{_copy_member(call.params_type)}"
    args, pattern, passed = [], [], []
    for name in call.args:
        pointer = link.pointers.get(name)
        if pointer is None:
            args.append(name)
            arg = next(a for a in op.args if a.name == name)
            pattern.append((f"{'' if arg.writable else 'const '}{program.buffers[arg.buffer].c_type} *",
                            re.sub(r"^l\d+_", "", name)))
            passed.append(name)
        elif pointer.row == "out_row":
            args.append(f"{band}.out")
            pattern.append(("out", ""))
        elif pointer.row.startswith("in_row["):
            args.append(f"{band}.in[{pointer.row[7:-1]}]")
            pattern.append(("in", pointer.row[7:-1]))
        else:  # a row-indexed constant (a fully connected tail's weights): its own pointer arithmetic
            args.append(f"{name} + {_times(f'{band}.{pointer.row}', pointer.elements)}")
            alone = False
    varying = view.get("varying") or []
    result = dict(view, type=call.params_type, assignments=assignments, band_args=args, params_copy=copy,
                  mismatch=_mismatch([(m, value) for m, value in assignments if m in varying]))
    labels = [n for _, n in pattern if n]  # the wrapper's arguments: an input read twice keeps the inline call
    # a call with const variants stays in the loop: its search needs registers a small function would save on
    # the stack, and the loop's function has them
    if alone and len(set(labels)) == len(labels) and view["variants"] is None:
        result["wrapper"] = BandWrapper(call.function, call.params_type,
                                        tuple((f.member, f.value, f.per) for f in fields), tuple(pattern))
        result["wrapper_args"] = [f"&{view['params']}", f"&{band}", f"&{copy}"]
        result["wrapper_args"] += [str(per[p]) for p in dict.fromkeys(f.per for f in fields if f.per != "1")]
        result["wrapper_args"] += passed
    return result


def _times(value: str, factor: int) -> str:
    return value if factor == 1 else f"{value} * {factor}"
