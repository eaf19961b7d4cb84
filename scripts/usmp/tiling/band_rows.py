"""The rows of every band, as the generated loop computes them (the twin of kernels/src/tiling.c).

The generated code does not carry tables of rows: each band, usmp_band_step
derives from the window geometry what each link computes, where it writes and
what it reads.
The compiler needs the same answers to size the band buffers, to check an
output written over consumed input rows, and to cost a chain; this module
computes them with the same arithmetic (the rows each link computes over all
links first, then where they go; the C does both in one pass, its consumers
lowering a producer's first kept row for the next band), and
tests/test_band_rows.py keeps the two in step.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple


# keep the rows consumers read again, or compute them again; "paced" slides with no link computing more than
# `band` rows a band, so that where strides narrow a chain its first links run a row or so at a time and their
# band buffers hold little beyond a window (more bands, smaller calls)
STRATEGIES = ("sliding", "recompute", "paced")


@dataclass(frozen=True)
class Edge:
    """A row input of a link: output row r reads rows [r * stride - pad_top, + extent), clipped to [0, rows)."""

    producer: int | None  # the link whose band buffer holds the rows, or None: a tensor that exists whole
    stride: int
    pad_top: int
    extent: int
    rows: int

    def first_read(self, first: int) -> int:
        return min(max(first * self.stride - self.pad_top, 0), self.rows)

    def end_read(self, end: int) -> int:
        row = (end - 1) * self.stride - self.pad_top + self.extent
        return 0 if end <= 0 or row < 0 else min(row, self.rows)

    def rows_ready(self, produced: int, limit: int) -> int:
        """How many output rows have their whole window among the first `produced` input rows."""
        if produced >= self.rows:
            return limit
        reach = produced + self.pad_top - self.extent
        return 0 if reach < 0 else reach // self.stride + 1


class Step(NamedTuple):
    """What one link does in one band (None where it computes nothing). A named tuple: the search makes tens of
    thousands of them."""

    first: int  # output rows [first, first + count)
    count: int
    out_row: int  # buffer row they go to
    in_count: int  # rows of the first input from in_rows[0]: the kernel's in_h
    pad_top: int
    in_rows: tuple[int, ...]  # per input: buffer row of the first row read
    in_firsts: tuple[int, ...]  # per input: tensor row of the first row read


@dataclass(frozen=True)
class Move:
    """Before link `link` computed in this band, `rows` rows moved from buffer row `source` to its top."""

    link: int
    source: int
    rows: int


@dataclass
class BandRows:
    links: list[tuple[int, list[Edge]]]  # per link: output rows, its row inputs
    band: int
    strategy: str = "sliding"  # one of STRATEGIES

    @property
    def recompute(self) -> bool:
        return self.strategy == "recompute"

    @property
    def paced(self) -> bool:
        return self.strategy == "paced"

    @property
    def shares(self) -> list[int]:
        """Rows each link computes per band at most: the last `band`, a producer what its consumers read in one
        (paced: at most `band` as well)."""
        if not hasattr(self, "_shares"):
            shares = [0] * len(self.links)
            shares[-1] = self.band
            for j in range(len(self.links) - 1, -1, -1):
                for edge in self.links[j][1]:
                    if edge.producer is not None:
                        shares[edge.producer] = max(shares[edge.producer], shares[j] * edge.stride)
            self._shares = [min(s, self.band) for s in shares] if self.paced else shares
        return self._shares

    @property
    def bands(self) -> int:
        """Times the loop runs: with `recompute` the last link's rows over `band`; sliding, a few more, while the
        first bands fill the pipeline (counted by running the plan)."""
        if self.recompute:
            return -(-self.links[-1][0] // self.band)
        if not hasattr(self, "_bands"):
            self.walk()
        return self._bands

    def run(self) -> tuple[list[list[Step | None]], list[list[Move]]]:
        """Per band: each link's step, and the moves made in band buffers."""
        n = len(self.links)
        done, end, top = [0] * n, [0] * n, [0] * n
        steps, moves = [], []
        for band in range(self.bands):
            self._plan(band, done, end, top)
            band_moves: list[Move] = []
            steps.append([self._next(j, done, end, top, band_moves) for j in range(n)])
            moves.append(band_moves)
        return steps, moves

    def steps(self) -> list[list[Step | None]]:
        return self.run()[0]

    def summary(self) -> list[LinkSummary]:
        """Per link, the totals the cost model and the band buffers need, without walking every band (walk())."""
        n = len(self.links)
        stats = [LinkSummary() for _ in range(n)]
        for bands, times, change in self.walk():
            for steps, moved in bands:
                for j, step in enumerate(steps):
                    stats[j].add(step, moved[j], times)
                    if step is not None and change:  # the last link writes its whole output: its row moves on
                        shift = times * (change[j] - change[n + j])
                        stats[j].held = max(stats[j].held, step.out_row + step.count + shift)
        return stats

    MAX_PERIOD = 4  # bands after which a steady loop repeats itself: a paced chain's links of different rates

    def walk(self):
        """walk_bands(), kept: the summary and the overlay check both go through the same bands."""
        if not hasattr(self, "_walked"):
            self._walked = list(self.walk_bands())
        return iter(self._walked)

    def walk_bands(self):
        """The bands as run() computes them, but once the loop is in its steady state (every `period` bands the
        same work, each link's rows moved on by the same number) the bands before the bottom rows come at once.

        Yields (bands, times, change), bands a list of (steps, moved rows per link): one band (times 1, change
        None), or the last `period` bands, repeated `times` more times in turn, each time with every link's
        `first` row `change[j]` rows further on (change[n + j]: its buffer's top row)."""
        n, rows_last = len(self.links), self.links[-1][0]
        done, end, top = [0] * n, [0] * n, [0] * n
        history = []  # per band: (steps, moved, signature, state change, steady)
        band = 0
        while done[-1] < rows_last if not self.recompute else band < self.bands:
            state = (*done, *top)
            self._plan(band, done, end, top)
            moves: list[Move] = []
            steps = [self._next(j, done, end, top, moves) for j in range(n)]
            if not any(steps) and state == (*done, *top):  # a band may only skip rows no consumer reads
                raise ValueError("a depth-first chain made no progress")  # never: some link can always move on
            moved = [0] * n
            for m in moves:
                moved[m.link] += m.rows
            signature = tuple((s.count, s.out_row if j < n - 1 else None, self._band_inputs(j, s)) if s else None
                              for j, s in enumerate(steps)) + tuple(moved)
            yield [(steps, moved)], 1, None
            band += 1
            change = [b - a for a, b in zip(state, (*done, *top))]
            history.append((steps, moved, signature, change, self._past_top_padding(steps)))
            del history[:-2 * self.MAX_PERIOD]
            period = self._period(history)
            if period:
                last = history[-period:]
                change = [sum(h[3][i] for h in last) for i in range(2 * n)]
                skip = self._steady_bands(done, change[:n])
                if self.recompute:
                    skip = min(skip, (self.bands - band - 2) // period)
                if skip > 0:
                    yield [(h[0], h[1]) for h in last], skip, change
                    for j in range(n):
                        done[j] += skip * change[j]
                        top[j] += skip * change[n + j]
                    band += skip * period
                history.clear()
        self._bands = band

    def _period(self, history: list) -> int:
        """The fewest bands after which the loop repeats itself, from the last bands run, or 0: twice the same
        bands in a row (steps, moves, state changes), past the top padding, every link at work in them."""
        for period in range(1, self.MAX_PERIOD + 1):
            if len(history) < 2 * period:
                break
            last, before = history[-period:], history[-2 * period:-period]
            if any(a[2:4] != b[2:4] for a, b in zip(last, before)):
                continue
            if all(h[4] for h in last + before) and all(any(h[0][j] is not None for h in last)
                                                       for j in range(len(self.links))):
                return period
        return 0

    def _band_inputs(self, j: int, step: Step) -> tuple[int, ...]:
        """The rows a step reads in band buffers. A whole tensor's row (the chain's input, like the last link's
        output row) moves on every band, so it has no part in telling a steady band: only the band buffers' state
        does, and the tensors' ends are kept clear of."""
        return tuple(r for r, edge in zip(step.in_rows, self.links[j][1]) if edge.producer is not None)

    def _past_top_padding(self, steps: list[Step | None]) -> bool:
        """Every link that computed in this band read rows of its inputs below their top padding: from such
        bands on, repeated alike, each is the one before moved on (until some tensor's last rows are near).
        Before, bands can look alike while a consumer still reads padding only and its producer has not
        started (a period counts only where every link works in it)."""
        return all(step is None or all(step.first * edge.stride >= edge.pad_top for edge in edges)
                   for step, (_, edges) in zip(steps, self.links))

    def _steady_bands(self, done: list[int], step: list[int]) -> int:
        """How many more bands repeat the last one exactly: none may come near a tensor's last rows."""
        skip = None
        for (rows, edges), d, s in zip(self.links, done, step):
            if s > 0:
                limit = (rows - d) // s - 2
                skip = limit if skip is None else min(skip, limit)
        return max(skip or 0, 0)

    def _plan(self, band: int, done: list[int], end: list[int], top: list[int]) -> None:
        if self.recompute:
            self._plan_recompute(band, done, end, top)
            return
        shares = self.shares
        for j, (rows, edges) in enumerate(self.links):  # producers first
            limit = done[j] + shares[j]
            if limit > rows:
                limit = rows
            for edge in edges:
                if edge.producer is not None:
                    ready = edge.rows_ready(end[edge.producer], rows)
                    if ready < limit:
                        limit = ready
            end[j] = limit if limit > done[j] else done[j]

    def _plan_recompute(self, band: int, done: list[int], end: list[int], top: list[int]) -> None:
        last = len(self.links) - 1
        end[last] = min((band + 1) * self.band, self.links[last][0])
        done[last] = band * self.band
        for j in range(last):
            end[j], done[j] = 0, self.links[j][0]
        for j in range(last, -1, -1):
            if end[j] <= done[j]:
                continue
            for edge in self.links[j][1]:
                if edge.producer is not None:
                    end[edge.producer] = max(end[edge.producer], edge.end_read(end[j]))
                    done[edge.producer] = min(done[edge.producer], edge.first_read(done[j]))
        for j in range(last):
            top[j] = done[j]

    def _first_kept(self, link: int, done: list[int]) -> int:
        """The first row of the link's output a consumer will still read (Edge.first_read, spelt out: the search
        asks this for every link of every band it walks)."""
        if not hasattr(self, "_consumers"):
            self._consumers = [[(j, e.stride, e.pad_top) for j in range(k + 1, len(self.links))
                                for e in self.links[j][1] if e.producer == k] for k in range(len(self.links))]
        first = self.links[link][0]  # the link's rows: no clamp to the bottom needed
        for j, stride, pad_top in self._consumers[link]:
            row = done[j] * stride - pad_top
            if row < first:
                first = row if row > 0 else 0
        return first

    def _next(self, j: int, done: list[int], end: list[int], top: list[int], moves: list[Move]) -> Step | None:
        if not self.recompute and j < len(self.links) - 1:
            first = self._first_kept(j, done)
            if first > top[j]:
                if done[j] > first:
                    moves.append(Move(j, first - top[j], done[j] - first))
                else:
                    done[j] = first
                top[j] = first
        first, count = done[j], end[j] - done[j]
        if count <= 0:
            return None
        edges = self.links[j][1]
        e0 = edges[0]
        if len(edges) == 1:  # most links: spelt out, as the search walks many bands
            in_firsts = (e0.first_read(first),)
            in_rows = (in_firsts[0] - (0 if e0.producer is None else top[e0.producer]),)
        else:
            in_firsts = tuple(e.first_read(first) for e in edges)
            in_rows = tuple(f - (0 if e.producer is None else top[e.producer]) for f, e in zip(in_firsts, edges))
        step = Step(first, count, first - top[j], e0.end_read(end[j]) - in_firsts[0],
                    e0.pad_top + in_firsts[0] - first * e0.stride, in_rows, in_firsts)
        done[j] = end[j]
        return step


@dataclass
class LinkSummary:
    calls: int = 0
    computed: int = 0  # rows, recomputed ones included
    held: int = 0  # rows its band buffer holds
    moved: int = 0  # rows moved to the buffer's top
    counts: Counter = field(default_factory=Counter)  # rows per call -> calls

    def add(self, step: Step | None, moved: int, times: int = 1) -> None:
        self.moved += moved * times
        if step is None:
            return
        self.calls += times
        self.computed += step.count * times
        self.held = max(self.held, step.out_row + step.count)
        self.counts[step.count] += times


def held_rows(steps: list[list[Step | None]], link: int) -> int:
    """Rows the link's band buffer must hold: the furthest it writes below its top."""
    return max((s.out_row + s.count for band in steps if (s := band[link]) is not None), default=0)


def computed_rows(steps: list[list[Step | None]], link: int) -> int:
    return sum(s.count for band in steps if (s := band[link]) is not None)


def moved_rows(moves: list[list[Move]], link: int) -> int:
    return sum(m.rows for band in moves for m in band if m.link == link)


def calls(steps: list[list[Step | None]], link: int) -> int:
    return sum(1 for band in steps if band[link] is not None)
