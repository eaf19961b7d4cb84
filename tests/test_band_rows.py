"""The rows of every band: the generated loop's C helpers (kernels/src/tiling.c) and their Python twin
(scripts/usmp/tiling/band_rows.py) agree step for step, on random chains, and the twin's quick summary
agrees with walking every band."""
from __future__ import annotations

import random
from collections import Counter
import shutil
import subprocess
from pathlib import Path

import pytest

from usmp.paths import KERNELS_DIR, KERNELS_INCLUDE_DIR
from usmp.tiling.band_rows import STRATEGIES, BandRows, Edge, calls, computed_rows, held_rows, moved_rows

CC = shutil.which("cc") or shutil.which("gcc")


def random_chain(rng: random.Random) -> list[tuple[int, list[Edge]]]:
    """A chain of window links (strides 1-2, extents 1-5, paddings), sometimes with a residual join or a PAD
    (a window of one row with more padding than a filter's: its consumers read nothing but padding at first)."""
    links: list[tuple[int, list[Edge]]] = []
    rows = rng.randint(1, 48)
    for j in range(rng.randint(2, 7)):
        stride, extent = rng.choice([1, 1, 1, 2]), rng.choice([1, 1, 3, 3, 5])
        pad = rng.randint(0, extent // 2) if rng.random() < 0.8 else rng.randint(1, 3) * (extent == 1)
        out = max((rows + 2 * pad - extent) // stride + 1, 1)
        edges = [Edge(j - 1 if j else None, stride, pad, extent, rows)]
        join = [k for k in range(j - 1) if links[k][0] == out]
        if (stride, extent) == (1, 1) and join and rng.random() < 0.5:
            edges.append(Edge(rng.choice(join), 1, 0, 1, out))  # an element-wise join of an earlier output
        links.append((out, edges))
        rows = out
    return links


def _c_program(links: list[tuple[int, list[Edge]]], rows: BandRows) -> str:
    edges = [e for _, es in links for e in es]
    link_rows, first = [], 0
    for (out, es), share in zip(links, rows.shares):
        link_rows.append(f"{{ .rows = {out}, .share = {share}, .first_edge = {first}, .inputs = {len(es)}, "
                         f".row_bytes = 4 }}")
        first += len(es)
    # whole inputs in buffers[n], band buffers in buffers[producer]; rows of 4 bytes (a word) everywhere
    edge_rows = [f"{{ .producer = {len(links) if e.producer is None else e.producer}, .stride = {e.stride}, "
                 f".pad_top = {e.pad_top}, .end_offset = {e.extent - e.pad_top - e.stride}, .rows = {e.rows}, .row_bytes = 4 }}" for e in edges]
    n = len(links)
    return f"""
#include <stdio.h>
#include <string.h>
#include "usmp_kernels.h"
static const struct usmp_band_link links[] = {{ {", ".join(link_rows)} }};
static const struct usmp_band_edge edges[] = {{ {", ".join(edge_rows)} }};
static const struct usmp_band_chain chain = {{ .links = {n}, .band = {rows.band},
	.link = links, .edge = edges }};
static uint32_t buffers[{n + 1}][64];
int main(void)
{{
	void *band_buffers[{n + 1}];
	struct usmp_band b[{n}];
	int32_t band, i, j, k;

	for (j = 0; j <= {n}; j++)
		band_buffers[j] = buffers[j];
	for (j = 0; j < 64; j++)
		buffers[{n}][j] = (uint32_t)j + 1; /* each row holds its number + 1 */
	memset(b, 0x5a, sizeof(b)); /* the state is the step's to set up */
	for (band = 0; band < {rows.bands}; band++) {{
		usmp_band_step{"_recompute" if rows.recompute else ""}(&chain, band, band_buffers, b);
		for (j = 0; j < {n}; j++) {{
			if (b[j].count == 0) {{
				printf("-\\n");
				continue;
			}}
			/* buffer rows from the addresses: rows of 4 bytes */
			printf("%d %d %d %d %d", (int)b[j].first, (int)b[j].count,
			       (int)(((uint8_t *)b[j].out - (uint8_t *)band_buffers[j]) / 4), (int)b[j].in_count, (int)b[j].pad_top);
			for (k = 0; k < links[j].inputs; k++) {{
				const struct usmp_band_edge *e = &edges[links[j].first_edge + k];

				printf(" %d", (int)(((uint8_t *)b[j].in[k] - (uint8_t *)band_buffers[e->producer]) / 4));
			}}
			/* the rows read are where they were written (the kept rows moved right), then write this band's */
			for (k = 0; k < links[j].inputs; k++) {{
				const struct usmp_band_edge *e = &edges[links[j].first_edge + k];
				const int32_t from = b[j].first * e->stride - e->pad_top, row = from < 0 ? 0 : from;
				const int32_t rows = k == 0 ? b[j].in_count : (row < e->rows);

				for (i = 0; i < rows; i++)
					if (((const uint32_t *)b[j].in[k])[i] != (uint32_t)(row + i + 1))
						printf(" input %d row %d moved wrong", (int)k, (int)(row + i));
			}}
			for (i = 0; i < b[j].count; i++)
				((uint32_t *)b[j].out)[i] = (uint32_t)(b[j].first + i + 1);
			printf("\\n");
		}}
	}}
	return 0;
}}
"""


def _python_lines(rows: BandRows) -> list[str]:
    lines = []
    for band in rows.steps():
        for step in band:
            if step is None:
                lines.append("-")
                continue
            fields = [step.first, step.count, step.out_row, step.in_count, step.pad_top, *step.in_rows]
            lines.append(" ".join(str(v) for v in fields))
    return lines


@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_c_helpers_and_python_twin_agree(tmp_path: Path):
    rng = random.Random(19)
    objects = []
    for source in sorted((KERNELS_DIR / "src").glob("*.c")):  # the kernel library, once
        objects.append(tmp_path / f"{source.stem}.o")
        subprocess.run([CC, "-std=c99", "-O1", "-I", str(KERNELS_INCLUDE_DIR), "-c", str(source), "-o",
                        str(objects[-1])], check=True, capture_output=True)
    library = tmp_path / "libkernels.a"
    subprocess.run(["ar", "rcs", str(library), *map(str, objects)], check=True)
    tried = 0
    for trial in range(40):
        links = random_chain(rng)
        for strategy in STRATEGIES:
            rows = BandRows(links, rng.randint(1, 4), strategy)
            program = tmp_path / f"chain{trial}_{strategy}.c"
            program.write_text(_c_program(links, rows))
            binary = tmp_path / f"chain{trial}_{strategy}"
            subprocess.run([CC, "-std=c99", "-Wall", "-Werror", "-I", str(KERNELS_INCLUDE_DIR), str(program),
                            str(library), "-lm", "-o", str(binary)], check=True, capture_output=True)
            got = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout.split("\n")[:-1]
            assert got == _python_lines(rows), f"chain {links}, band {rows.band}, {strategy}"
            tried += 1
    assert tried == 120


def test_summary_agrees_with_every_band():
    rng = random.Random(7)
    for _ in range(1500):
        links = random_chain(rng)
        for strategy in STRATEGIES:
            rows = BandRows(links, rng.randint(1, 5), strategy)
            steps, moves = rows.run()
            summary = rows.summary()
            for j in range(len(links)):
                counts = Counter(s.count for band in steps if (s := band[j]) is not None)
                expected = (calls(steps, j), computed_rows(steps, j), held_rows(steps, j), moved_rows(moves, j),
                            counts)
                assert (summary[j].calls, summary[j].computed, summary[j].held, summary[j].moved,
                        summary[j].counts) == expected


def test_summary_waits_for_the_padding_to_end():
    """A PAD of two rows (after a stride-2 layer), one row a band, recomputing: its first two bands read
    padding only and look alike, yet the third starts the producer; the summary must not take the first two
    for the steady state (it once counted 1 call of the producer where the loop makes 5)."""
    links = [(5, [Edge(None, 2, 0, 3, 12)]), (8, [Edge(0, 1, 2, 1, 5)])]
    rows = BandRows(links, 1, "recompute")
    steps, _ = rows.run()
    assert [s.calls for s in rows.summary()] == [calls(steps, 0), calls(steps, 1)] == [5, 8]


def test_summary_skips_the_steady_bands():
    """Five 3x3 layers on 64 rows, one row a band: the summary works out the bands near the top and bottom
    rows, not all 64 (the compile time of a large model's search depends on it)."""
    links = [(64, [Edge(j - 1 if j else None, 1, 1, 3, 64)]) for j in range(6)]
    walked = sum(1 for _, times, _ in BandRows(links, 1).walk() if times == 1)
    assert walked < 20


def test_every_row_is_computed_once_when_sliding_and_inputs_are_there_in_time():
    """Sliding: each link computes each of its rows at most once, in order, skipping only rows no consumer reads
    (a stride longer than the window), and only once the rows its window reads exist; the last link all rows."""
    rng = random.Random(3)
    for _ in range(500):
        links = random_chain(rng)
        rows = BandRows(links, rng.randint(1, 4), "paced" if rng.random() < 0.5 else "sliding")
        produced = [0] * len(links)
        for band in rows.steps():
            for j, step in enumerate(band):
                if step is None:
                    continue
                assert step.first >= produced[j]
                produced[j] = step.first + step.count
                for edge in links[j][1]:
                    read = edge.first_read(step.first), edge.end_read(step.first + step.count)
                    if edge.producer is not None and read[1] > read[0]:  # not padding only
                        assert read[1] <= produced[edge.producer]
        assert produced[-1] == links[-1][0]


def test_band_buffers_stay_small_on_a_long_chain():
    """Sliding fills the pipeline band by band: five 3x3 layers on 64 rows, one row a band, hold at most
    3 rows each (their consumer's window), never the halo of the whole chain at once."""
    links = [(64, [Edge(j - 1 if j else None, 1, 1, 3, 64)]) for j in range(6)]
    summary = BandRows(links, 1).summary()
    assert [s.held for s in summary[:-1]] == [3] * 5
    assert all(s.calls == 64 and s.computed == 64 for s in summary)


def test_paced_chain_holds_a_window_where_strides_narrow_it():
    """Three 3x3 layers of stride 2 on 64 rows, one row of the last a band: sliding, the first link computes 4
    rows a band and holds 9; paced, it computes one a band and holds its consumer's window, 3 rows."""
    links, rows = [], 64
    for j in range(4):
        stride = 2 if j else 1
        out = (rows + 2 - 3) // stride + 1
        links.append((out, [Edge(j - 1 if j else None, stride, 1, 3, rows)]))
        rows = out
    sliding, paced = BandRows(links, 1).summary(), BandRows(links, 1, "paced").summary()
    assert [s.held for s in sliding[:-1]] == [9, 5, 3]
    assert [s.held for s in paced[:-1]] == [3, 3, 3]
    assert all(s.computed == r for s, (r, _) in zip(paced, links))
    assert max(s.counts and max(s.counts) for s in paced) == 1


def test_paced_walk_skips_bands_that_repeat_every_few():
    """Paced, a chain narrowed by strides repeats itself every 2 or 4 bands, not every band: the walk still
    skips its steady part (MobileNetV2's compile time depends on it), and the summary matches every band's."""
    links, rows = [], 128
    for j in range(4):
        stride = 2 if j in (1, 3) else 1
        out = (rows + 2 - 3) // stride + 1
        links.append((out, [Edge(j - 1 if j else None, stride, 1, 3, rows)]))
        rows = out
    paced = BandRows(links, 1, "paced")
    walked = sum(len(bands) for bands, times, _ in paced.walk() if times == 1)
    assert walked < 40 < paced.bands
    steps, moves = paced.run()
    assert [(s.calls, s.computed, s.held, s.moved) for s in paced.summary()] == [
        (calls(steps, j), computed_rows(steps, j), held_rows(steps, j), moved_rows(moves, j)) for j in range(4)]
