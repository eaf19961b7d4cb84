"""A run of operators that can go depth-first together, and how data flows between them.

A region is a run of consecutive lowered operators, each a link (links.py).
Each row input of a link is either the output of an earlier link of the
region (then it becomes a band buffer) or a tensor from outside that exists
whole. Every link but the last must have its result read inside the region
only, so nothing outside misses a tensor that no longer exists whole; the
last link writes the region's output whole. A residual block is one region:
the skip tensor is a band buffer read by two links.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.lower.program import LoweredOp, Program
from usmp.tiling.band_rows import BandRows
from usmp.tiling.links import ELEMENT_BYTES, Link, link_of, reduction_link

MAX_ROW_INPUTS = 4  # kernels' USMP_BAND_MAX_INPUTS: the row inputs struct usmp_band holds a link


@dataclass
class Region:
    positions: list[int]  # in program.ops
    links: list[Link]
    producers: list[list[int | None]]  # per link, per row input: the producing link, or None (whole tensor)
    element_bytes: list[int]  # per link, of its output's elements

    @property
    def params(self) -> list[dict]:
        return [link.params for link in self.links]

    def buffer(self, i: int, name: str) -> str:
        """The program buffer behind argument `name` of link i."""
        return next(a.buffer for a in self.links[i].op.args if a.name == name)

    def band_rows(self, band: int, strategy: str = "sliding") -> BandRows:
        """The rows the loop computes for this region, `band` rows of the last link at a time."""
        if not hasattr(self, "_row_links"):  # the same for every band height the search tries
            self._row_links = [(link.params["out_h"], [link.edge(k, p) for k, p in enumerate(self.producers[j])])
                               for j, link in enumerate(self.links)]
        return BandRows(self._row_links, band, strategy)

    @property
    def is_plain_chain(self) -> bool:
        """Link i reads only link i - 1: the shape the recompute schedule needs."""
        return all(p == ([i - 1] if i else [None]) for i, p in enumerate(self.producers))


def region_at(program: Program, positions: list[int], users: dict[str, list[int]] | None = None) -> Region | None:
    """The region of these operators, or None when they cannot go depth-first together."""
    users = users if users is not None else buffer_users(program)
    links: list[Link] = []
    writer: dict[str, int] = {}  # buffer -> the latest link that wrote it
    producers: list[list[int | None]] = []
    for k in positions:
        op = program.ops[k]
        link = None
        if k == positions[-1] and links and len(op.calls) == 1:  # a reduction ends the region band by band
            source = writer.get(_buffer(op, op.calls[0].args[0]))
            link = reduction_link(op, links[source]) if source is not None else None
        link = link or link_of(program, op)
        if link is None:
            return None
        producers.append([writer.get(_buffer(op, a)) for a in link.inputs])
        writer[_buffer(op, link.output)] = len(links)
        links.append(link)
    if len(links) < 2 or not _flows(program, positions, links, producers, users):
        return None
    sizes = [ELEMENT_BYTES[program.buffers[_buffer(link.op, link.output)].c_type] for link in links]
    if not _fits_tables(program, links, sizes):
        return None
    return Region(positions, links, producers, sizes)


def buffer_users(program: Program) -> dict[str, list[int]]:
    users: dict[str, list[int]] = {}
    for k, op in enumerate(program.ops):
        for a in op.args:
            users.setdefault(a.buffer, []).append(k)
    return users


def _flows(program: Program, positions: list[int], links: list[Link], producers: list[list[int | None]],
           users: dict[str, list[int]]) -> bool:
    last = len(links) - 1
    out = _buffer(links[last].op, links[last].output)
    for i, link in enumerate(links[:-1]):
        buffer = program.buffers[_buffer(link.op, link.output)]
        if buffer.kind != "tensor" or not any(i in ps for ps in producers[i + 1:]):
            return False  # model outputs stay whole; a result nothing inside reads must stay whole too
        if buffer.name != out and any(u > positions[-1] for u in users[buffer.name]):
            return False  # read after the region
        for a, p in zip(link.inputs, producers[i]):
            if p is None and _buffer(link.op, a) == out:
                return False  # the last link overwrites rows this link still reads
        if program.buffers[_buffer(link.op, link.inputs[0])].c_type != buffer.c_type:
            return False
    for i, link in enumerate(links):
        for a, p in zip(link.inputs, producers[i]):
            if p is not None and links[p].params["out_h"] != link.params["in_h"]:
                return False
    return True


def _fits_tables(program: Program, links: list[Link], sizes: list[int]) -> bool:
    """Every number the loop's const tables hold fits its field (kernels' usmp_kernels/tiling.h keeps them
    narrow, as they are flash): rows below 32768; strides and top padding uint8; filter extents less top
    padding and stride int8; row bytes uint16; the links' band buffers and whole inputs indexed by a uint8;
    at most MAX_ROW_INPUTS row inputs a link. Only tensors far beyond a microcontroller's RAM, windows taller
    than a hundred rows, chains of over a hundred links or concatenations of more than four tensors miss
    them; those stay whole."""
    if len(links) + sum(len(link.inputs) for link in links) > 0xFF:
        return False
    if any(len(link.inputs) > MAX_ROW_INPUTS for link in links):
        return False  # a concatenation of more tensors than struct usmp_band has input rows for
    for link, size in zip(links, sizes):
        p = link.params
        extent = (p["filter_h"] - 1) * p.get("dilation_h", 1) + 1
        in_bytes = ELEMENT_BYTES[program.buffers[_buffer(link.op, link.inputs[0])].c_type]
        if max(p["out_h"], p["in_h"]) > 0x7FFF or max(p["stride_h"], p["pad_top"], extent) > 0xFF:
            return False
        if not -0x80 <= extent - p["pad_top"] - p["stride_h"] <= 0x7F:  # int8 end_offset
            return False
        if max([link.row("out") * size] + [link.row_in(k) * in_bytes for k in range(len(link.inputs))]) > 0xFFFF:
            return False
    return True


def _buffer(op: LoweredOp, name: str) -> str:
    return next(a.buffer for a in op.args if a.name == name)
