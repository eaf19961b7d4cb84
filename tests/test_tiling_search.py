"""The chain search's short cuts (tiling/search.py) against trying everything.

The search tries peaks from its floor up, and for each works out only some regions and, per region and
strategy, only the tallest band height under the peak. These tests run it beside a search that works out
every region at every height for every peak it tries, and check the bound it prunes with.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from usmp.compiler import CompileOptions, analyse_model
from usmp.tiling.band_rows import STRATEGIES
from usmp.tiling.chains import DEFAULT_BUDGET
from usmp.tiling.search import MAX_LINKS, ChainSearch, _band_heights, _pareto

MODELS = Path(__file__).parent / "models"
BENCHMARKS = Path(__file__).parents[1] / "benchmarks" / "models"
CASES = [*sorted((MODELS / "tiling").glob("*_int8.tflite")), BENCHMARKS / "ds_cnn_kws.tflite",
         BENCHMARKS / "resnet8_32.tflite", MODELS / "tflm" / "person_detect.tflite"]


class EverySearch(ChainSearch):
    """Every region over a step above the limit, at every band height, whatever its bytes."""

    def _options_under(self, limit):
        options = {}
        for positions in self._tried:
            if any(self.profile[k] > limit for k in positions):
                region = self.region(positions)
                found = [self.candidate(positions, band, strategy) for strategy in STRATEGIES
                         if len(positions) <= MAX_LINKS[strategy]
                         for band in _band_heights(region.params[-1]["out_h"])
                         if strategy != "paced" or max(region.band_rows(band).shares) > band]
                options.setdefault(positions[0], []).extend(_pareto([c for c in found if c.least <= limit]))
        return options


def _choice(search: ChainSearch) -> list[tuple]:
    budget = DEFAULT_BUDGET / 100 * search.whole_work()
    return [(c.positions, c.band, c.strategy, c.overlay) for c in search.choose(budget)]


@pytest.mark.parametrize("workspace_io", [False, True])
@pytest.mark.parametrize("model", CASES, ids=[m.stem for m in CASES])
def test_search_chooses_what_trying_everything_chooses(model, workspace_io):
    program, _ = analyse_model(model, CompileOptions(tiling="off"))
    quick = ChainSearch(program, {}, None, workspace_io)
    assert _choice(quick) == _choice(EverySearch(program, {}, None, workspace_io))
    for (positions, band, strategy), candidate in quick._candidates.items():
        # the bound the search leaves regions out by is never above what a candidate of the region needs
        assert candidate.least >= quick._least[positions], (positions, band, strategy)


def test_the_tallest_band_under_a_limit_is_found_by_bisection():
    """person_detect's search works out fewer than half the candidates trying everything does."""
    program, _ = analyse_model(MODELS / "tflm" / "person_detect.tflite", CompileOptions(tiling="off"))
    quick, every = ChainSearch(program, {}, None, True), EverySearch(program, {}, None, True)
    _choice(quick), _choice(every)
    assert 0 < len(quick._candidates) < len(every._candidates) / 2
