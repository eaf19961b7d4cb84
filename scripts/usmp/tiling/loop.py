"""A depth-first chain as the generated code runs it: one loop over bands, each link's kernel called once a band.

The fused operator keeps, per link, the whole-tensor kernel calls the lowering
made (or the kernel selection put in their place): the generated loop copies a
call's parameters, sets the members that describe a band (band_fields.py) and
points its row inputs and output at the band's rows. Which rows those are and
where they lie, usmp_band_step works out at run time from the links' row
geometry (band_rows.py is its twin), so the code is the same for every band:
the first and last bands differ only in the numbers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from usmp.lower.program import LoweredOp
from usmp.tiling.band_rows import BandRows, Edge


@dataclass(frozen=True)
class RowPointer:
    """A call argument that points at the band's rows: the buffer row `row` times `elements` per row."""

    row: str  # "in_row[k]" (the k-th row input), "out_row" (the link's output) or "first" (a row-indexed constant)
    elements: int


@dataclass
class BandLink:
    """One operator of the chain."""

    op_index: int
    opcode: str
    edges: list[Edge]  # its row inputs, in the kernel's argument order
    rows: int  # output rows of the whole tensor
    share: int  # rows it computes per band, at most
    row_bytes: int  # bytes of one output row
    width: int  # output columns (a kernel may count pixels rather than rows)
    row_elements: int  # elements of one output row
    buffer: str | None  # argument name of its band buffer; None for the last link
    calls: list[int]  # positions in BandLoop.calls run each band
    pointers: dict[str, RowPointer] = field(default_factory=dict)  # argument name -> its row offset


@dataclass
class TilingChoice:
    """One fused chain: its operators, band height and the bytes it saves (for reports)."""

    op_indices: list[int]
    band: int  # output rows of the chain's last operator per band
    whole_bytes: int  # intermediate tensors, whole
    band_bytes: int  # their band buffers
    extra_rows: int  # output rows computed more than once (recompute cost)
    total_rows: int  # output rows of the chain's operators untiled
    strategy: str = "sliding"  # "recompute": halo rows computed again in every band; or "paced"
    bands: int = 1  # times the loop runs
    band_buffers: list[str] = field(default_factory=list)
    extra_instructions: int = 0  # the cost model's estimate of what the loop adds
    whole_instructions: int = 0  # the cost model's estimate of the operators untiled


@dataclass
class BandLoop(LoweredOp):
    """A fused chain: `before` runs once, then every link once per band, then `after` (reductions' set-up and
    finish). `calls` holds every kernel call; links, before and after refer to them by position."""

    links: list[BandLink] = field(default_factory=list)
    band: int = 1
    strategy: str = "sliding"  # how band buffers keep rows (band_rows.STRATEGIES)
    before: list[int] = field(default_factory=list)
    after: list[int] = field(default_factory=list)
    choice: TilingChoice | None = None

    @property
    def recompute(self) -> bool:
        return self.strategy == "recompute"

    @property
    def rows(self) -> BandRows:
        return BandRows([(link.rows, link.edges) for link in self.links], self.band, self.strategy)

    @property
    def bands(self) -> int:
        return self.rows.bands

    def whole_inputs(self) -> list[str]:
        """The loop's row inputs that exist whole, in the order the links first read them."""
        names: list[str] = []
        for link in self.links:
            for name, e in zip(self.sources(link), link.edges):
                if e.producer is None and name not in names:
                    names.append(name)
        return names

    @staticmethod
    def sources(link: BandLink) -> list[str]:
        """The argument each row input of the link is read through, by input."""
        found: dict[int, str] = {}
        for name, pointer in link.pointers.items():
            match = re.fullmatch(r"in_row\[(\d+)\]", pointer.row)
            if match:
                found.setdefault(int(match.group(1)), name)
        for k, e in enumerate(link.edges):  # an input read twice (x + x) is named once, as the first
            if k not in found:
                found[k] = next(found[i] for i, other in enumerate(link.edges) if i in found and other == e)
        return [found[k] for k in range(len(link.edges))]

    def report(self) -> dict:
        c = self.choice
        return {"operators": c.op_indices, "band_rows": c.band, "whole_bytes": c.whole_bytes,
                "band_bytes": c.band_bytes, "recomputed_rows": c.extra_rows, "rows": c.total_rows,
                "strategy": c.strategy, "bands": c.bands, "band_buffers": c.band_buffers,
                "extra_instructions": c.extra_instructions, "whole_instructions": c.whole_instructions}


def operators_run(program) -> int:
    """The model operators that run code: a depth-first loop counts each of its links (USMP_<NAME>_OPERATORS)."""
    return sum(len(op.links) if isinstance(op, BandLoop) else 1 for op in program.ops)
