"""An SVG picture of a plan: one panel per pool, operator steps across, offsets up.

Each buffer is a rectangle from its first to its last step and from its
offset to offset + size; hovering shows its name, size and place. A
depth-first chain's step is split into one stripe per band, and its band
buffers have their own colour; the blocks of an IF or WHILE are labelled stripes.
"""
from __future__ import annotations

from html import escape

WIDTH = 900
PANEL_HEIGHT = 320
MARGIN = 60
COLOURS = {"tensor": "#4e79a7", "scratch": "#f28e2b", "input": "#59a14f", "output": "#e15759",
           "constant": "#9c755f", "state": "#b07aa1", "band": "#edc948"}


def plan_svg(document: dict) -> str:
    """document: the plan JSON (plan_json.plan_document)."""
    pools = [p for p in document["pools"] if any(b["pool"] == p["name"] for b in document["buffers"])]
    steps = max([b["last_step"] + 1 for b in document["buffers"]] + [1])
    height = MARGIN + len(pools) * (PANEL_HEIGHT + MARGIN)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH + 2 * MARGIN}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<text x="{MARGIN}" y="{MARGIN // 2}" font-size="16">{escape(document.get("model", "plan"))}: '
             f'{escape(document["algorithm"])}</text>']
    for k, pool in enumerate(pools):
        top = MARGIN + k * (PANEL_HEIGHT + MARGIN)
        parts.extend(_panel(pool, [b for b in document["buffers"] if b["pool"] == pool["name"]], steps, top,
                            document.get("tiling", []), document.get("control_flow", [])))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _panel(pool: dict, buffers: list[dict], steps: int, top: int, tiling: list[dict],
           control: list[dict] = ()) -> list[str]:
    size = max(pool["size_bytes"], 1)
    x_scale = WIDTH / steps
    y_scale = PANEL_HEIGHT / size
    bottom = top + PANEL_HEIGHT
    out = [f'<text x="{MARGIN}" y="{top - 8}">pool {escape(pool["name"])} ({escape(pool["kind"])}): '
           f'{pool["size_bytes"]} B, lower bound {pool.get("lower_bound_bytes", "?")} B</text>',
           f'<rect x="{MARGIN}" y="{top}" width="{WIDTH}" height="{PANEL_HEIGHT}" fill="none" stroke="#888"/>']
    band_buffers = set()
    for chain in tiling:
        band_buffers.update(chain.get("band_buffers", []))
        out.extend(_band_stripes(chain, x_scale, top))
    for region in control:
        out.extend(_block_stripes(region, x_scale, top))
    for b in buffers:
        x = MARGIN + b["first_step"] * x_scale
        w = max((b["last_step"] - b["first_step"] + 1) * x_scale, 1)
        y = bottom - (b["offset"] + b["size_bytes"]) * y_scale
        h = max(b["size_bytes"] * y_scale, 0.5)
        colour = COLOURS["band"] if b["name"] in band_buffers else COLOURS.get(b["kind"], "#bab0ac")
        title = f'{b["name"]} ({b["kind"]}): {b["size_bytes"]} B at {b["offset"]}, steps {b["first_step"]}-{b["last_step"]}'
        out.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" fill="{colour}" '
                   f'fill-opacity="0.75" stroke="#222" stroke-width="0.5"><title>{escape(title)}</title></rect>')
    out.append(f'<text x="{MARGIN}" y="{bottom + 16}">step 0</text>')
    out.append(f'<text x="{MARGIN + WIDTH}" y="{bottom + 16}" text-anchor="end">step {steps - 1}</text>')
    out.append(f'<text x="{MARGIN - 6}" y="{top + 10}" text-anchor="end">{size}</text>')
    out.append(f'<text x="{MARGIN - 6}" y="{bottom}" text-anchor="end">0</text>')
    return out


def _block_stripes(region: dict, x_scale: float, top: int) -> list[str]:
    """An IF's or WHILE's blocks as shaded, labelled stripes under the buffers (the branches side by side)."""
    out = []
    for k, block in enumerate(region["blocks"]):
        x0 = MARGIN + block["first_step"] * x_scale
        width = max((block["last_step"] - block["first_step"] + 1) * x_scale, 0.2)
        title = (f'operator {region["operator"]} ({region["opcode"]}): {block["role"]}, subgraph {block["subgraph"]}, '
                 f'steps {block["first_step"]}-{block["last_step"]}')
        shade = "#dfe9f3" if k % 2 == 0 else "#e9f3df"
        out.append(f'<g><title>{escape(title)}</title><rect x="{x0:.2f}" y="{top}" width="{width:.2f}" '
                   f'height="{PANEL_HEIGHT}" fill="{shade}" stroke="none"/>'
                   f'<text x="{x0 + 2:.2f}" y="{top + 12}" font-size="10">{escape(block["role"])}</text></g>')
    return out


def _band_stripes(chain: dict, x_scale: float, top: int) -> list[str]:
    """The chain's step as alternating stripes, one per band, under the buffers."""
    count = max(chain.get("bands", 1), 1)
    x0, width = MARGIN + chain["step"] * x_scale, x_scale / count
    title = (f'depth-first: operators {chain["operators"]}, {count} bands of {chain["band_rows"]} rows '
             f'({chain["strategy"]}), band buffers {chain["band_bytes"]} B instead of {chain["whole_bytes"]} B')
    out = [f'<g><title>{escape(title)}</title>']
    for k in range(count):
        shade = "#f3e9c6" if k % 2 == 0 else "#fbf6e6"
        out.append(f'<rect x="{x0 + k * width:.2f}" y="{top}" width="{max(width, 0.2):.2f}" height="{PANEL_HEIGHT}" '
                   f'fill="{shade}" stroke="none"/>')
    out.append("</g>")
    return out
