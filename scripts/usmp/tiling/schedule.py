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
    """Link `link` computes output rows `out`.

    `reads` has, per row input of the link, the rows it reads and the row at
    the top of the buffer they are in (0 for a tensor that exists whole).
    `out_top` is the output row at the top of the buffer it writes (the
    chain's output tensor for the last link: row 0).
    """

    link: int
    out: Rows
    reads: tuple[tuple[Rows, int], ...]
    out_top: int


@dataclass(frozen=True)
class Move:
    """Link `link`'s band buffer keeps `rows` rows, moved up from buffer row `source` to row 0."""

    link: int
    source: int
    rows: int


def chain_schedule(params: list[dict], producers: list[list[int | None]], band: int,
                   strategy: str) -> list[Compute | Move]:
    """The steps for links with these window params (in_h, out_h, stride_h, filter_h, pad_top, dilation_h).

    producers[i] names, per row input of link i, the link whose output it is
    (None: a tensor outside the chain, whole). "recompute" needs a plain chain
    (link i reads link i - 1); "sliding" takes any such graph, e.g. a residual
    join whose two inputs come from different links.
    """
    if strategy == "recompute":
        return _recompute(params, band)
    return _sliding(params, producers, band)


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
            steps.append(Compute(i, rows[i], ((rows_in, rows_in.first if i else 0),), out_top))
    return steps


def _sliding(params: list[dict], producers: list[list[int | None]], band: int) -> list[Compute | Move]:
    last = len(params) - 1
    consumers = {p: [i for i, ps in enumerate(producers) if p in ps] for p in range(len(params))}
    done = [0] * len(params)  # rows each link has computed
    top = [0] * len(params)  # output row at the top of each link's band buffer
    wants: dict[tuple[int, int], int] = {}  # (producer, consumer) -> first row the consumer will still read
    steps: list[Compute | Move] = []

    def slide(p: int) -> None:
        """Drop the rows of p's buffer that no consumer will read again; keep the rest at its top."""
        first = min(wants.get((p, c), 0) for c in consumers[p])
        if first > top[p]:
            kept = max(done[p] - first, 0)
            if kept:
                steps.append(Move(p, first - top[p], kept))
            top[p] = first
            done[p] = max(done[p], first)

    def compute(i: int, out: Rows) -> None:
        rows_in = rows_read(params[i], out)
        inside = [p for p in producers[i] if p is not None]
        for p in inside:  # first all, so that pulling one input cannot drop rows of another
            wants[(p, i)] = rows_in.first
        for p in inside:
            slide(p)
            pull(p, rows_in.end)
        reads = tuple((rows_in, 0 if p is None else top[p]) for p in producers[i])
        steps.append(Compute(i, out, reads, top[i] if i < last else 0))
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
