"""Which chains to fuse and how tall their bands are: the lowest workspace peak within an instruction budget.

The search works on the program as lowered. A candidate is a region of
consecutive links, a band height and a strategy; its value is what the live
workspace bytes per step become when its steps collapse into one (the
buffers live across it, its band buffers, its kernels' scratch), its price
the instructions the cost model (cost.py) says the loop adds on the kernels
the selection pass will choose. The search looks for the lowest peak some
choice of chains stays under within the budget (choose): for each peak it
tries, dynamic programming over the steps finds the cheapest such choice, a
chain or a plain step at a time. A peak needs only the regions over a step
above it, and of those only the ones whose bytes can be under it; per region
and strategy, only the tallest band under it. So a region's candidates are
worked out when a peak first needs them, and most never are.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from usmp.analysis.liveness import live_intervals
from usmp.lower.program import MIN_ALIGNMENT, KernelCall, LoweredOp, Program
from usmp.tiling.band_rows import STRATEGIES, LinkSummary
from usmp.tiling.cost import (LOOP, MOVE_PER_BYTE, NEXT, PARAMS_PER_WORD, PER_MAC, PLAN_PER_LINK, STEADY_PER_LINK,
                              call_overhead, call_shape, leftover_work, per_element, row_work, tail_change)
from usmp.tiling.band_fields import by_variant, runs_bands
from usmp.tiling.links import link_of
from usmp.tiling.overlay import overlay_saving, overlay_source
from usmp.tiling.region import Region, buffer_users, region_at
from usmp.tiling.state import params_bytes, state_bytes

MAX_LINKS = {"sliding": 16, "recompute": 4, "paced": 16}  # recomputing longer chains repeats too much work to pay
SMALL_BANDS = (1, 2, 3, 4, 6, 8)


@dataclass(frozen=True)
class Candidate:
    positions: tuple[int, ...]  # in the lowered program's ops
    band: int
    strategy: str
    cost: float  # instructions the loop adds
    fused: int  # live workspace bytes while it runs, its output in a buffer of its own
    # With the output written over an input it consumes (overlay.py): the bytes while it runs, and what the
    # step before gains (the input's producer, from which on the shared buffer is live: the output's bytes
    # beyond the input's, and the lag). None: no such overlay.
    overlaid: int | None = None
    lead: int = 0
    lagged: bool = False  # the overlay's output starts before the input: its buffer then holds the input
    overlay: bool = False  # chosen with the overlay (set by the search's choice)

    @property
    def least(self) -> int:
        return self.fused if self.overlaid is None else min(self.fused, self.overlaid)


class ChainSearch:
    def __init__(self, program: Program, kernels: dict[int, KernelCall], extension: str | None,
                 workspace_io: bool = False, pointer: int = 8):
        self.program = program
        self.pointer = pointer  # bytes of the core's pointers: a loop's state holds some (state.py)
        self.workspace_io = workspace_io
        self.kernels = kernels  # op index -> the kernel selection's call, where it replaces the portable one
        self.extension = extension
        kinds = ("tensor", "scratch", "input", "output") if workspace_io else ("tensor", "scratch")
        self.intervals = {n: i for n, i in live_intervals(program).items() if program.buffers[n].kind in kinds}
        self.users = buffer_users(program)
        self.scratch = [self._scratch(op) for op in program.ops]
        self.profile = [sum(program.buffers[n].size for n, (a, b) in self.intervals.items()
                            if a <= step <= b and program.buffers[n].kind != "scratch") + self.scratch[step]
                        for step in range(len(program.ops))]
        self.runs = link_runs(program, self.users)
        self._regions: dict[tuple[int, ...], Region | None] = {}
        self._candidates: dict[tuple, Candidate | None] = {}
        self._least: dict[tuple[int, ...], int] = {}  # per region, bytes live while it runs, band buffers aside
        self._tried: list[tuple[int, ...]] = []
        self._band_heights: dict[tuple[tuple[int, ...], str], list[int]] = {}
        self._shapes: dict[tuple[tuple[int, ...], int], object] = {}
        self.floor = 0  # bytes no choice goes under (_floor), once the options are known

    def whole_work(self) -> float:
        """The cost model's instructions for the whole program untiled: what the budget is a share of."""
        return sum(_op_work(op, self.kernels.get(op.op_index), self.extension) for op in self.program.ops)

    def choose(self, budget: float) -> list[Candidate]:
        """The chains to fuse (in program order) giving the lowest peak the budget allows, and at that peak the
        fewest instructions: the lowest limit some choice stays under, found by bisection over the bytes, each
        limit checked by dynamic programming over the operators (a chain or a plain step at a time).

        A limit needs only the regions over some step above it whose bytes without band buffers stay under it
        (_options_under); their candidates are worked out when a limit first needs them. On a large model most
        regions are never walked: the limits the bisection tries near the answer leave them out."""
        self._tried = self._regions_tried()
        lo, top, best = self.floor, max(self.profile, default=0), []  # at the highest step, nothing need be fused
        hi = top
        probe = lo
        while probe < top:  # up from the floor in growing steps, so that few limits far above the answer are tried
            found = self._under(probe, self._options_under(probe), budget)
            if found is not None:
                best, hi = found, probe
                break
            lo, probe = probe + 1, max(probe + 1, probe * 5 // 4)
        while lo < hi:
            mid = (lo + hi) // 2
            found = self._under(mid, self._options_under(mid), budget)
            if found is None:
                lo = mid + 1
            else:
                best, hi = found, mid
        return best

    def _under(self, limit: int, options: dict[int, list[Candidate]], budget: float) -> list[Candidate] | None:
        """The cheapest choice of chains within `budget` under which no step has more than `limit` bytes live,
        or None: best[k] is the cheapest way to cover the first k operators.

        A loop is never priced below nothing: one the estimate says saves a few instructions (a reduction's band
        kernel against the whole-tensor one) still brings its band kernels' code and may not save them at all, so
        a chain is taken only where the limit needs it, and of two equally cheap choices the one with fewer."""
        n = len(self.profile)
        # per k: instructions, loops, the choice, the bytes of the step before k as it covers it, and whether
        # that step's output holds its input (a lagged overlay: overlay.py lets no other lag add to it)
        best: list[tuple[float, int, list[Candidate], int, bool] | None] = [None] * (n + 1)
        best[0] = (0.0, 0, [], 0, False)
        for k in range(n):
            if best[k] is None:
                continue
            cost, loops, chosen, before, holds = best[k]
            steps = [(k + 1, self.profile[k], 0.0, None)]
            for c in options.get(k, []):
                if (c.overlaid is not None and c.overlaid < c.fused and before + c.lead <= limit
                        and not (holds and c.lagged and c.lead)):
                    c = replace(c, overlay=True)  # the step before has room for the shared buffer's extra bytes
                steps.append((c.positions[-1] + 1, c.overlaid if c.overlay else c.fused, max(c.cost, 0.0), c))
            for end, value, price, candidate in steps:
                if value > limit or cost + price > budget:
                    continue
                entry = (cost + price, loops + (candidate is not None))
                if best[end] is None or entry < best[end][:2]:
                    held = candidate is not None and candidate.overlay and candidate.lagged
                    best[end] = (*entry, chosen + [candidate] if candidate else chosen, value, held)
        return best[n][2] if best[n] is not None else None

    def _regions_tried(self) -> list[tuple[int, ...]]:
        """Every region of up to MAX_LINKS links but those whose steps all stay at or below a floor no choice can
        go under (any limit the search can meet is at least that floor, so plain steps cover them as well and
        for nothing: no loop is priced below nothing)."""
        regions = [positions for run in self.runs for i in range(len(run))
                   for j in range(i + 2, min(len(run), i + MAX_LINKS["sliding"]) + 1)
                   if self.region(positions := tuple(run[i:j])) is not None]
        self.floor = self._floor(regions)
        return [positions for positions in regions if any(self.profile[k] > self.floor for k in positions)]

    def _options_under(self, limit: int) -> dict[int, list[Candidate]]:
        """The candidates a choice under `limit` may use, by the position they start at: of the regions over some
        step above the limit (others cost a loop and lower nothing that needs it) whose bytes without band
        buffers (_least) are under it, those under the limit that no other beats on both bytes and
        instructions."""
        options: dict[int, list[Candidate]] = {}
        for positions in self._tried:
            if self._least[positions] <= limit and any(self.profile[k] > limit for k in positions):
                options.setdefault(positions[0], []).extend(self._region_options(positions, limit))
        return options

    def _region_options(self, positions: tuple[int, ...], limit: int) -> list[Candidate]:
        """A region's candidates under `limit`: per strategy, the tallest band under it. A taller band holds more
        rows in every band buffer and runs fewer bands, so of the heights under a limit the tallest costs the
        fewest instructions, and the heights are searched by bisection: most are never worked out."""
        found = []
        for strategy in STRATEGIES:
            if len(positions) > MAX_LINKS[strategy]:
                continue
            heights = self._heights(positions, strategy)
            lo, hi = 0, len(heights)  # heights[:lo] are under the limit, heights[hi:] over it
            while lo < hi:
                mid = (lo + hi) // 2
                if self.candidate(positions, heights[mid], strategy).least <= limit:
                    lo = mid + 1
                else:
                    hi = mid
            if lo:
                found.append(self.candidate(positions, heights[lo - 1], strategy))
        return _pareto(found)

    def _heights(self, positions: tuple[int, ...], strategy: str) -> list[int]:
        key = (positions, strategy)
        if key not in self._band_heights:
            region = self.region(positions)
            self._band_heights[key] = [band for band in _band_heights(region.params[-1]["out_h"])
                                       if strategy != "paced" or max(region.band_rows(band).shares) > band]
        return self._band_heights[key]  # a paced chain whose shares are all within a band runs as a sliding one

    def _floor(self, regions: list[tuple[int, ...]]) -> int:
        """Bytes some step keeps live whatever is chosen: per step the least of its own bytes and, for every region
        over it, what the region keeps live with no band buffers at all and its output over its largest input."""
        lowest = list(self.profile)
        for positions in regions:
            region = self.region(positions)
            fused = self._least[positions] = (self._fused_bytes(region, positions) - self._overlay_most(region)
                                              + self._least_band_bytes(region))
            for k in positions:
                lowest[k] = min(lowest[k], fused)
        return max(lowest, default=0)

    def _least_band_bytes(self, region: Region) -> int:
        """The fewest bytes its band buffers take at any band height: each holds at least one row, and the rows
        one call of a consumer reads (its window)."""
        held = [1] * len(region.links)
        for j, producers in enumerate(region.producers):
            for k, p in enumerate(producers):
                if p is not None:
                    edge = region.links[j].edge(k, p)
                    held[p] = max(held[p], min(edge.extent, edge.rows))
        return sum(_aligned(held[j] * link.row("out") * region.element_bytes[j])
                   for j, link in enumerate(region.links[:-1]))

    def _overlay_most(self, region: Region) -> int:
        """The most bytes an output written over a consumed input could save (overlay.py decides whether it may)."""
        last = len(region.links) - 1
        if region.links[last].tail:
            return 0
        output = self.program.buffers[region.buffer(last, region.links[last].output)].size
        return max((min(self.program.buffers[region.buffer(i, a)].size, output) for i, link in enumerate(region.links)
                    for a, p in zip(link.inputs, region.producers[i]) if p is None), default=0)

    def region(self, positions: tuple[int, ...]) -> Region | None:
        if positions not in self._regions:
            self._regions[positions] = region_at(self.program, list(positions), self.users)
        return self._regions[positions]

    def candidate(self, positions: tuple[int, ...], band: int, strategy: str) -> Candidate | None:
        key = (positions, band, strategy)
        if key not in self._candidates:
            self._candidates[key] = self._evaluate(positions, band, strategy)
        return self._candidates[key]

    def _evaluate(self, positions: tuple[int, ...], band: int, strategy: str) -> Candidate:
        region = self.region(positions)
        rows = region.band_rows(band, strategy)
        summary = rows.summary()
        cost = LOOP[self.extension] + _step_price(rows, len(region.links), self.extension)
        band_bytes = 0
        for j, link in enumerate(region.links):
            whole = self.kernels.get(link.op.op_index)
            in_loop = whole if whole is not None and runs_bands(whole.params_type) else None
            shape = self._shape(positions, j, in_loop or link.call, link.params)
            row_bytes = link.row("out") * region.element_bytes[j]
            cost += _link_cost(summary[j], shape, self.extension if in_loop else None, link.params["out_h"],
                               link.tail is not None)
            cost += summary[j].moved * row_bytes * MOVE_PER_BYTE[self.extension]  # tiling.c's copy, the core's
            if whole is not None and in_loop is None and link.tail is None:  # the loop keeps the portable kernel
                cost += link.params["out_h"] * (row_work(shape, None) - row_work(call_shape(whole, link.params),
                                                                                  self.extension))
            if link.tail is not None:
                elements = link.params["out_h"] * link.row("out")
                macs = elements * link.tail.call.params["out_features"] if "out_features" in link.tail.call.params else 0
                cost += tail_change(elements, macs, self.extension, link.op.op_index in self.kernels)
            if j < len(region.links) - 1:
                band_bytes += _aligned(summary[j].held * row_bytes)
            elif link.tail is not None:
                band_bytes += link.tail.scratch_bytes
        fused = self._fused_bytes(region, positions) + band_bytes
        overlaid, lead, lagged = None, 0, False
        if fused > self.floor:  # at or under the floor, no limit the search can meet needs the overlay's bytes
            found = overlay_source(self.program, region, rows, self.users, set(positions), self.workspace_io)
            if found is not None:  # the output goes over the input it consumes: one buffer, its lag further
                source, lag = self.program.buffers[found[0]].size, found[1]
                output = self.program.buffers[region.buffer(len(region.links) - 1, region.links[-1].output)].size
                lead = max(output, lag + source) - source
                made = self.intervals[found[0]][0]
                if lead == 0 or made >= positions[0] - (positions[0] > 0):  # live from the step before at most
                    overlaid, lead = fused - overlay_saving(source, output, lag), lead if made < positions[0] else 0
                    lagged = lag > 0
        return Candidate(positions, band, strategy, cost, fused, overlaid, lead, lagged)

    def _shape(self, positions: tuple[int, ...], j: int, call: KernelCall, params: dict):
        """call_shape of link j of the region, kept for the region's other band heights."""
        key = (positions, j)
        if key not in self._shapes:
            self._shapes[key] = call_shape(call, params)
        return self._shapes[key]

    def _fused_bytes(self, region: Region, positions: tuple[int, ...]) -> int:
        """Bytes live while the fused step runs, band buffers aside: every buffer live across the region but
        its intermediate tensors and its operators' scratch, plus the scratch of all its kernels at once."""
        first, last = positions[0], positions[-1]
        whole_inputs = {region.buffer(j, a) for j, link in enumerate(region.links)
                        for a, p in zip(link.inputs, region.producers[j]) if p is None}
        output = region.buffer(len(region.links) - 1, region.links[-1].output)
        internal = {region.buffer(i, link.output) for i, link in enumerate(region.links[:-1])} - whole_inputs - {output}
        total = 0
        for name, (a, b) in self.intervals.items():
            if b < first or a > last or name in internal or self.program.buffers[name].kind == "scratch":
                continue
            total += self.program.buffers[name].size
        return total + self._loop_scratch(positions) + self._loop_state(region)

    def _loop_scratch(self, positions: tuple[int, ...]) -> int:
        """The kernels' scratch of a loop: the selected kernels' share one buffer (reuse.py), the portable
        kernels' each have theirs."""
        selected = [self.scratch[k] for k in positions if self.program.ops[k].op_index in self.kernels]
        return max(selected, default=0) + sum(self.scratch[k] for k in positions
                                               if self.program.ops[k].op_index not in self.kernels)

    def _loop_state(self, region: Region) -> int:
        """The loop's state buffer (state.py), with room for the parameters of the kernels it will run that take
        no const variants (variants.py)."""
        copies = []
        for link in region.links:
            chosen = self.kernels.get(link.op.op_index)
            call = chosen if chosen and runs_bands(chosen.params_type) else link.call
            if link.tail is None and not by_variant(call.params_type):
                copies.append(params_bytes(call, self.pointer))
        wholes = sum(p is None for producers in region.producers for p in producers)
        return state_bytes(len(region.links), len(region.links) + wholes, copies, self.pointer)

    def _scratch(self, op: LoweredOp) -> int:
        chosen = self.kernels.get(op.op_index)
        if chosen is not None:
            return chosen.params.get("scratch", 0)
        return sum(self.program.buffers[a.buffer].size for a in op.args
                   if self.program.buffers[a.buffer].kind == "scratch")


def _pareto(candidates: list[Candidate]) -> list[Candidate]:
    """Those no other candidate matches or beats in bytes (with and without its overlay, and the overlay's
    extra bytes before it) and instructions."""
    kept: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: (c.least, c.fused, c.cost)):
        if not any(k.cost <= c.cost and k.fused <= c.fused and k.least <= c.least and k.lead <= c.lead
                   for k in kept):
            kept.append(c)
    return kept


def _step_price(rows, links: int, extension: str | None) -> float:
    """usmp_band_step over the loop beyond NEXT's share of each call: a steady band (the band before moved on,
    which tiling.c does in a few instructions a link) at STEADY_PER_LINK a link in all, the others at
    PLAN_PER_LINK."""
    steady = sum(times * len(bands) * links for bands, times, change in rows.walk() if change is not None)
    other = links * rows.bands - steady
    return PLAN_PER_LINK[extension] * other + (STEADY_PER_LINK[extension] - NEXT) * steady


def _link_cost(s: LinkSummary, shape, extension: str | None, rows: int, tail: bool = False) -> float:
    """A link's band calls beyond its whole-tensor call. A reduction or fully connected layer ending the chain runs
    a band kernel of its own (tail_change prices it) with a struct of a few words, not the whole kernel's
    parameters and set-up: only usmp_band_step's rows for it each band (micro_speech's on the M55: 9 to 25 bands
    within 0-12 % of QEMU's count at 2 and 1 rows)."""
    if tail:
        cost = s.calls * NEXT
    else:
        cost = s.calls * (NEXT + PARAMS_PER_WORD * shape.copied_words) + max(s.calls - 1, 0) * call_overhead(shape,
                                                                                                             extension)
    cost += (s.computed - rows) * row_work(shape, extension)
    cost += sum(times * leftover_work(shape, extension, count) for count, times in s.counts.items())
    cost -= leftover_work(shape, extension, rows)
    return cost


def _op_work(op: LoweredOp, chosen: KernelCall | None, extension: str | None) -> float:
    """Instructions of one whole-tensor operator, roughly: its MACs or its elements at the kernels' rates."""
    total = 0.0
    for call in op.calls:
        p = call.params
        if "in_features" in p:
            total += p.get("batches", 1) * p["in_features"] * p["out_features"] * PER_MAC[extension]
        elif "out_h" in p and "out_w" in p and ("filter_in_ch" in p or "depth_multiplier" in p):
            shape = call_shape(chosen or call, p)
            total += p.get("batches", 1) * p["out_h"] * row_work(shape, extension)
        else:
            elements = p.get("size") or (p["shape"][0] if "shape" in p and p.get("rank") == 1 else 0)
            total += (elements or 64) * per_element((chosen or call).function, extension)
    return total


def link_runs(program: Program, users: dict[str, list[int]]) -> list[list[int]]:
    """Maximal runs of consecutive operators that are links; a reduction may end one."""
    runs: list[list[int]] = []
    current: list[int] = []
    for k, op in enumerate(program.ops):
        if link_of(program, op) is not None:
            current.append(k)
            continue
        if current and region_at(program, current[-1:] + [k], users) is not None:
            current.append(k)  # a reduction of the last link's output ends the run
        if len(current) >= 2:
            runs.append(current)
        current = []
    if len(current) >= 2:
        runs.append(current)
    return runs


def _band_heights(out_h: int) -> list[int]:
    heights = [b for b in SMALL_BANDS if b < out_h]
    h = 16
    while h < out_h:
        heights.append(h)
        h *= 2
    return heights


def _aligned(n: int) -> int:
    return (n + MIN_ALIGNMENT - 1) // MIN_ALIGNMENT * MIN_ALIGNMENT
