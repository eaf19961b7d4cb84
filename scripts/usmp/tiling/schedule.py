"""Band schedules of a chain: the order in which links compute rows, and where each keeps them.

Two ways to feed a link the rows its consumer's window needs:

- recompute: the chain's output is computed `band` rows at a time; for each
  band every link computes every row its consumer reads, even rows an earlier
  band computed too (the halo). Nothing is kept between bands.
- sliding: rows are pulled on demand, at most `band` at a time. Before a link
  computes, its producer's buffer drops the rows no longer needed (the rest
  are moved to its top by a forward copy) and the producer computes only the
  rows not computed before. Each buffer is then a window of about its
  consumer's kernel height sliding down the tensor, and no arithmetic is
  repeated; the copies cost a few instructions per byte kept.

Both change only the order of work, never the arithmetic. A schedule is a
flat list of steps that the fused operator runs in order.
"""
from __future__ import annotations

from dataclasses import dataclass

from usmp.tiling.geometry import Rows, rows_read

STRATEGIES = ("recompute", "sliding")


@dataclass(frozen=True)
class Compute:
    """Link `link` computes output rows `out` from input rows `rows_in`.

    `in_top` is the input row at the top of the buffer it reads (the chain's
    input tensor for link 0: row 0); `out_top` is the output row at the top of
    the buffer it writes (the chain's output tensor for the last link: row 0).
    """

    link: int
    out: Rows
    rows_in: Rows
    in_top: int
    out_top: int


@dataclass(frozen=True)
class Move:
    """Link `link`'s band buffer keeps `rows` rows, moved up from buffer row `source` to row 0."""

    link: int
    source: int
    rows: int


def chain_schedule(params: list[dict], band: int, strategy: str) -> list[Compute | Move]:
    """The steps for links with these window params (in_h, out_h, stride_h, filter_h, pad_top, dilation_h)."""
    if strategy == "recompute":
        return _recompute(params, band)
    return _sliding(params, band)


def _recompute(params: list[dict], band: int) -> list[Compute | Move]:
    steps: list[Compute | Move] = []
    out_h = params[-1]["out_h"]
    for first in range(0, out_h, band):
        rows = [Rows(first, min(first + band, out_h))]
        for p in reversed(params[1:]):
            rows.insert(0, rows_read(p, rows[0]))
        for i, p in enumerate(params):
            rows_in = rows_read(p, rows[i])
            out_top = rows[i].first if i + 1 < len(params) else 0
            steps.append(Compute(i, rows[i], rows_in, rows_in.first if i else 0, out_top))
    return steps


def _sliding(params: list[dict], band: int) -> list[Compute | Move]:
    last = len(params) - 1
    done = [0] * len(params)  # rows each link has computed
    top = [0] * len(params)  # output row at the top of each link's band buffer
    steps: list[Compute | Move] = []

    def compute(i: int, out: Rows) -> None:
        rows_in = rows_read(params[i], out)
        if i:
            if rows_in.first > top[i - 1]:  # rows above are no longer read: keep the rest at the top
                kept = max(done[i - 1] - rows_in.first, 0)
                if kept:
                    steps.append(Move(i - 1, rows_in.first - top[i - 1], kept))
                top[i - 1] = rows_in.first
                done[i - 1] = max(done[i - 1], rows_in.first)
            pull(i - 1, rows_in.end)
        steps.append(Compute(i, out, rows_in, top[i - 1] if i else 0, top[i] if i < last else 0))
        done[i] = out.end

    def pull(i: int, end: int) -> None:
        """Link i computes its rows up to `end`, at most `band` per step."""
        while done[i] < end:
            compute(i, Rows(done[i], min(done[i] + band, end)))

    pull(last, params[last]["out_h"])
    return steps


def computed_rows(steps: list[Compute | Move], link: int) -> int:
    return sum(s.out.count for s in steps if isinstance(s, Compute) and s.link == link)


def held_rows(steps: list[Compute | Move], link: int) -> int:
    """Rows the link's band buffer must hold: the furthest it writes below its top."""
    return max((s.out.end - s.out_top for s in steps if isinstance(s, Compute) and s.link == link), default=0)


def moved_rows(steps: list[Compute | Move], link: int) -> int:
    return sum(s.rows for s in steps if isinstance(s, Move) and s.link == link)


def moves(steps: list[Compute | Move], link: int) -> int:
    return sum(1 for s in steps if isinstance(s, Move) and s.link == link)
