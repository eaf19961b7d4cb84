"""SVG charts of a plan document, shared by `usmp plan --svg` and the report page.

- memory over time: live bytes of a workspace pool at each step, operators named on the x axis, the
  planner's lower bound and the pool's size drawn across;
- placement: each buffer of a pool as a rectangle, steps across and offsets up;
- constants: what the constant pool holds, by operator, as sizes (constants have no lifetime).

Every chart is a self-contained <svg> element (no scripts); elements a page may make interactive
carry data-buffer / data-step attributes.
"""
from __future__ import annotations

import math
import re
from html import escape

COLOURS = {"tensor": "#4e79a7", "scratch": "#f28e2b", "input": "#59a14f", "output": "#e15759",
           "constant": "#9c755f", "state": "#b07aa1", "band": "#edc948", "copy": "#ff9da7"}
KIND_NAMES = {"tensor": "tensor", "scratch": "scratch", "input": "model input", "output": "model output",
              "state": "state", "band": "depth-first band buffer", "constant": "constant",
              "copy": "start-up copy of a constant"}
FAMILY_COLOURS = {"portable": "#76b7b2", "cmsis-nn": "#4e79a7", "helium": "#af7aa1", "dsp": "#59a14f", "fpu": "#f28e2b",
                  "depth-first": "#edc948"}
LEFT, RIGHT, TOP = 70, 20, 36
PLOT_WIDTH = 900
LABEL_SPACE = 130  # below the plot: rotated operator names


def operator_label(entry: dict) -> str:
    """'#<index> <OP>', a depth-first chain as '#<first index> depth-first x<operators> (<first OP> … <last OP>)'."""
    chain = entry.get("chain")
    if chain:
        return f"#{entry['index']} depth-first x{len(chain)} ({chain[0]['op']} … {chain[-1]['op']})"
    return f"#{entry['index']} {entry['op']}"


def step_labels(document: dict) -> list[str]:
    labels = ["?"] * max(document.get("steps", 0), 1)
    for entry in document.get("operators", []):
        labels[entry["step"]] = operator_label(entry)
    return labels


def band_buffer_names(document: dict) -> set[str]:
    return {name for chain in document.get("tiling", []) for name in chain.get("band_buffers", [])}


def buffer_colour(buffer: dict, band_buffers: set[str]) -> str:
    return COLOURS["band"] if buffer["name"] in band_buffers else COLOURS.get(buffer["kind"], "#bab0ac")


def _fmt(n: float) -> str:
    return f"{n:.2f}".rstrip("0").rstrip(".")


def _svg_open(width: float, height: float, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(width)}" height="{_fmt(height)}" '
            f'viewBox="0 0 {_fmt(width)} {_fmt(height)}" font-family="sans-serif" font-size="11" role="img" '
            f'aria-label="{escape(label)}">')


def _x_axis(labels: list[str], x_scale: float, bottom: float) -> list[str]:
    """Operator names under the steps, rotated; every k-th when there are too many to read."""
    every = max(1, math.ceil(10 / max(x_scale, 0.01)))  # labels at least 10 px apart
    out = []
    for step, label in enumerate(labels):
        if step % every:
            continue
        x = LEFT + (step + 0.5) * x_scale
        anchor = f"{_fmt(x + 3)} {_fmt(bottom + 6)}"
        out.append(f'<text x="{_fmt(x + 3)}" y="{_fmt(bottom + 6)}" transform="rotate(-90 {anchor})" '
                   f'text-anchor="end" font-size="9" data-step="{step}">{escape(label[:26])}</text>')
    return out


def _y_axis(maximum: int, top: float, height: float) -> list[str]:
    out = [f'<line x1="{LEFT}" y1="{_fmt(top)}" x2="{LEFT}" y2="{_fmt(top + height)}" stroke="#888"/>']
    for k in range(5):
        value = maximum * k / 4
        y = top + height - height * k / 4
        out.append(f'<text x="{LEFT - 6}" y="{_fmt(y + 3)}" text-anchor="end" font-size="9">{int(value):,}</text>')
        out.append(f'<line x1="{LEFT}" y1="{_fmt(y)}" x2="{LEFT + PLOT_WIDTH}" y2="{_fmt(y)}" stroke="#eee"/>')
    return out


def _band_stripes(chain: dict, x_scale: float, top: float, height: float) -> list[str]:
    """A depth-first chain's step as alternating stripes, one per band, under what is drawn on it."""
    count = max(chain.get("bands", 1), 1)
    x0, width = LEFT + chain["step"] * x_scale, x_scale / count
    title = (f'depth-first: operators {chain["operators"]}, {count} bands of {chain["band_rows"]} rows '
             f'({chain["strategy"]}), band buffers {chain["band_bytes"]} B instead of {chain["whole_bytes"]} B')
    out = [f'<g class="bands"><title>{escape(title)}</title>']
    for k in range(count):
        shade = "#f3e9c6" if k % 2 == 0 else "#fbf6e6"
        out.append(f'<rect x="{_fmt(x0 + k * width)}" y="{_fmt(top)}" width="{_fmt(max(width, 0.2))}" '
                   f'height="{_fmt(height)}" fill="{shade}" stroke="none"/>')
    out.append("</g>")
    return out


def _block_stripes(region: dict, x_scale: float, top: float, height: float) -> list[str]:
    """An IF's or WHILE's blocks as shaded, labelled stripes under what is drawn on them."""
    out = []
    for k, block in enumerate(region["blocks"]):
        x0 = LEFT + block["first_step"] * x_scale
        width = max((block["last_step"] - block["first_step"] + 1) * x_scale, 0.2)
        title = (f'operator {region["operator"]} ({region["opcode"]}): {block["role"]}, subgraph {block["subgraph"]}, '
                 f'steps {block["first_step"]}-{block["last_step"]}')
        shade = "#dfe9f3" if k % 2 == 0 else "#e9f3df"
        out.append(f'<g class="block"><title>{escape(title)}</title><rect x="{_fmt(x0)}" y="{_fmt(top)}" '
                   f'width="{_fmt(width)}" height="{_fmt(height)}" fill="{shade}" stroke="none"/>'
                   f'<text x="{_fmt(x0 + 2)}" y="{_fmt(top + 12)}" font-size="10">{escape(block["role"])}</text></g>')
    return out


def _stripes(document: dict, x_scale: float, top: float, height: float) -> list[str]:
    """Depth-first bands and control-flow blocks, drawn under a chart's bars or buffers."""
    out = []
    for chain in document.get("tiling", []):
        out.extend(_band_stripes(chain, x_scale, top, height))
    for region in document.get("control_flow", []):
        out.extend(_block_stripes(region, x_scale, top, height))
    return out


STACK_COLOUR = "#f28e2b"


def memory_chart(document: dict, pool: dict, live: list[int], height: int = 220,
                 stack: list[int] | None = None) -> str:
    """Live bytes of one workspace pool per step, the lower bound and the pool's size across; with `stack`
    (the stack bound per step, on a core), the stack drawn on top of each step's bytes: RAM = pools + stack."""
    labels = step_labels(document)
    steps = len(labels)
    x_scale = PLOT_WIDTH / steps
    stack = stack if stack and len(stack) == len(live) else None
    maximum = max([pool["size_bytes"], pool.get("lower_bound_bytes", 0), *live,
                   *([v + s for v, s in zip(live, stack)] if stack else []), 1])
    bottom = TOP + height
    families = {e["step"]: e["kernel"] for e in document.get("operators", [])}
    out = [_svg_open(LEFT + PLOT_WIDTH + RIGHT, bottom + LABEL_SPACE, f"live bytes of pool {pool['name']}")]
    out.append(f'<text x="{LEFT}" y="16" font-size="13">pool {escape(pool["name"])}: live bytes per operator '
               f'(size {pool["size_bytes"]:,} B, lower bound {pool.get("lower_bound_bytes", 0):,} B)</text>')
    out.extend(_y_axis(maximum, TOP, height))
    out.extend(_stripes(document, x_scale, TOP, height))
    for step, value in enumerate(live):
        h = height * value / maximum
        banded = families.get(step) == "depth-first"  # lighter, so that its band stripes show through
        out.append(f'<rect class="live" data-step="{step}" x="{_fmt(LEFT + step * x_scale + 0.5)}" '
                   f'y="{_fmt(bottom - h)}" width="{_fmt(max(x_scale - 1, 0.5))}" height="{_fmt(h)}" '
                   f'fill="{FAMILY_COLOURS["depth-first"] if banded else "#4e79a7"}" '
                   f'fill-opacity="{0.55 if banded else 0.8}"><title>{escape(labels[step])}: {value:,} B live'
                   f'</title></rect>')
        if stack:
            s_h = height * stack[step] / maximum
            out.append(f'<rect class="stack" data-step="{step}" x="{_fmt(LEFT + step * x_scale + 0.5)}" '
                       f'y="{_fmt(bottom - h - s_h)}" width="{_fmt(max(x_scale - 1, 0.5))}" height="{_fmt(s_h)}" '
                       f'fill="{STACK_COLOUR}" fill-opacity="0.85"><title>{escape(labels[step])}: stack {stack[step]:,} B '
                       f'at most (bound)</title></rect>')
    for value, colour, name, dash, anchor in (
            (pool.get("lower_bound_bytes", 0), "#e15759", "lower bound", "6 4", "start"),
            (pool["size_bytes"], "#333", "pool size", "", "end")):
        y = bottom - height * value / maximum
        out.append(f'<line class="{name.replace(" ", "-")}" x1="{LEFT}" y1="{_fmt(y)}" x2="{LEFT + PLOT_WIDTH}" '
                   f'y2="{_fmt(y)}" stroke="{colour}" stroke-width="1.5"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + f'><title>{name} {value:,} B</title></line>')
        x = LEFT + 4 if anchor == "start" else LEFT + PLOT_WIDTH - 4
        out.append(f'<text x="{x}" y="{_fmt(y - 4)}" text-anchor="{anchor}" fill="{colour}" '
                   f'font-size="10">{name} {value:,} B</text>')
    out.extend(_x_axis(labels, x_scale, bottom))
    out.append("</svg>")
    return "\n".join(out)


def placement_chart(document: dict, pool: dict, buffers: list[dict], height: int = 300) -> str:
    """One pool's buffers as rectangles: steps across (operators named), offsets up."""
    labels = step_labels(document)
    steps = len(labels)
    x_scale = PLOT_WIDTH / steps
    size = max(pool["size_bytes"], 1)
    bottom = TOP + height
    band_buffers = band_buffer_names(document)
    out = [_svg_open(LEFT + PLOT_WIDTH + RIGHT, bottom + LABEL_SPACE, f"placement in pool {pool['name']}")]
    out.append(f'<text x="{LEFT}" y="16" font-size="13">pool {escape(pool["name"])} ({escape(pool["kind"])}): '
               f'{pool["size_bytes"]:,} B, lower bound {pool.get("lower_bound_bytes", 0):,} B</text>')
    out.extend(_y_axis(size, TOP, height))
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_WIDTH}" height="{height}" fill="none" stroke="#888"/>')
    out.extend(_stripes(document, x_scale, TOP, height))
    for b in buffers:
        x = LEFT + b["first_step"] * x_scale
        w = max((b["last_step"] - b["first_step"] + 1) * x_scale, 1)
        y = bottom - (b["offset"] + b["size_bytes"]) * height / size
        h = max(b["size_bytes"] * height / size, 0.5)
        title = (f'{b["name"]} ({b["kind"]}): {b["size_bytes"]} B at {b["offset"]}, '
                 f'steps {b["first_step"]}-{b["last_step"]}')
        out.append(f'<rect class="buffer" data-buffer="{escape(b["name"])}" x="{_fmt(x)}" y="{_fmt(y)}" '
                   f'width="{_fmt(w)}" height="{_fmt(h)}" fill="{buffer_colour(b, band_buffers)}" fill-opacity="0.75" '
                   f'stroke="#222" stroke-width="0.5"><title>{escape(title)}</title></rect>')
    out.extend(_x_axis(labels, x_scale, bottom))
    out.append("</svg>")
    return "\n".join(out)


def constant_groups(document: dict, pool: str) -> list[tuple[str, int, list[dict]]]:
    """The constant pool's buffers grouped by the first operator that reads them, largest group first."""
    readers: dict[str, str] = {}
    for entry in document.get("operators", []):
        for name in entry["reads"]:
            readers.setdefault(name, operator_label(entry))
    groups: dict[str, list[dict]] = {}
    for b in document["buffers"]:
        if b["pool"] == pool:
            groups.setdefault(readers.get(b["name"], "init() / no operator"), []).append(b)
    return sorted(((label, sum(b["size_bytes"] for b in bs), bs) for label, bs in groups.items()),
                  key=lambda g: (-g[1], g[0]))


def constants_chart(document: dict, pool: dict, limit: int = 40) -> str:
    """Horizontal bars: bytes of constants per operator, split into the model's own tensors and what the
    compiler derived (multipliers, folded biases, repacked filters)."""
    groups = constant_groups(document, pool["name"])
    shown, rest = groups[:limit], groups[limit:]
    if rest:
        shown.append((f"{len(rest)} more operators", sum(g[1] for g in rest), [b for g in rest for b in g[2]]))
    maximum = max([g[1] for g in shown] + [1])
    row, label_width, bar_width = 16, 230, PLOT_WIDTH - 160
    height = TOP + 22 + len(shown) * row + 10
    total = sum(g[1] for g in groups)
    out = [_svg_open(label_width + bar_width + 120, height, f"constants in pool {pool['name']}")]
    out.append(f'<text x="4" y="16" font-size="13">pool {escape(pool["name"])} (constant): {pool["size_bytes"]:,} B '
               f'({total:,} B of buffers), by the operator that reads them</text>')
    x = label_width
    for colour, what in (("#9c755f", "weights and biases from the model"),
                         ("#d4a6c8", "derived by usmp (multipliers, folded biases, repacked filters)")):
        out.append(f'<rect x="{x}" y="{TOP}" width="12" height="12" fill="{colour}"/>'
                   f'<text x="{x + 16}" y="{TOP + 10}" font-size="10">{escape(what)}</text>')
        x += 30 + 6 * len(what)
    for k, (label, size, bs) in enumerate(shown):
        y = TOP + 22 + k * row
        model = sum(b["size_bytes"] for b in bs if b.get("tensors"))
        x = label_width
        out.append(f'<text x="{label_width - 6}" y="{y + 11}" text-anchor="end" font-size="10">'
                   f'{escape(label[:36])}</text>')
        for part, colour, what in ((model, "#9c755f", "from the model"), (size - model, "#d4a6c8", "derived by usmp")):
            if part <= 0:
                continue
            w = max(bar_width * part / maximum, 0.5)
            names = ", ".join(b["name"] for b in bs if bool(b.get("tensors")) == (what == "from the model"))
            out.append(f'<rect class="constant" x="{_fmt(x)}" y="{y + 2}" width="{_fmt(w)}" height="{row - 4}" '
                       f'fill="{colour}"><title>{escape(label)}: {part:,} B {what} ({escape(names[:300])})'
                       f'</title></rect>')
            x += w
        out.append(f'<text x="{_fmt(x + 4)}" y="{y + 11}" font-size="10">{size:,} B</text>')
    out.append("</svg>")
    return "\n".join(out)


def legend(kinds: list[str], extra: list[tuple[str, str]] = ()) -> str:
    """Colour swatches for the kinds of buffer drawn (and any extra (colour, name) pairs)."""
    items = [(COLOURS[k], KIND_NAMES[k]) for k in kinds if k in COLOURS] + list(extra)
    out = [_svg_open(LEFT + PLOT_WIDTH + RIGHT, 24, "legend")]
    x = LEFT
    for colour, name in items:
        out.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{colour}" fill-opacity="0.75" stroke="#222" '
                   f'stroke-width="0.5"/><text x="{x + 16}" y="16">{escape(name)}</text>')
        x += 24 + 7 * len(name)
    out.append("</svg>")
    return "\n".join(out)


def stack(title: str, charts: list[str], gap: int = 12) -> str:
    """Charts one under the other in one SVG document, under a title line."""
    sizes = [tuple(float(v) for v in re.match(r'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', c).groups())
             for c in charts]
    width = max([w for w, _ in sizes] + [PLOT_WIDTH])
    out, y = [], 30
    for chart, (_, h) in zip(charts, sizes):
        out.append(chart.replace("<svg ", f'<svg x="0" y="{_fmt(y)}" ', 1))
        y += h + gap
    return "\n".join([_svg_open(width, y, title), f'<text x="{LEFT}" y="20" font-size="16">{escape(title)}</text>',
                      *out, "</svg>"]) + "\n"
