"""An SVG picture of a plan (`usmp plan --svg`): a legend, then one chart per pool.

A workspace or state pool is drawn as placement (each buffer a rectangle from its first to its
last step, from its offset to offset + size, the operators named along the steps; hovering shows
its name, size and place), and a workspace pool also as its live bytes per operator against the
lower bound. A depth-first chain's step is split into one stripe per band, and its band buffers
have their own colour; the blocks of an IF or WHILE are labelled stripes. A constant pool has no
lifetimes: it is drawn as sizes, by operator.
"""
from __future__ import annotations

from usmp.report.charts import band_buffer_names, constants_chart, legend, memory_chart, placement_chart, stack
from usmp.report.operators import live_bytes_by_pool


def plan_svg(document: dict) -> str:
    """document: the plan JSON (plan_json.plan_document)."""
    used = [p for p in document["pools"] if any(b["pool"] == p["name"] for b in document["buffers"])]
    bands = band_buffer_names(document)
    kinds = sorted({"band" if b["name"] in bands else b["kind"] for b in document["buffers"]
                    if b["kind"] != "constant"}, key=["input", "tensor", "scratch", "band", "output", "state"].index)
    live = live_bytes_by_pool(document)
    charts = [legend(kinds)]
    for pool in used:
        buffers = [b for b in document["buffers"] if b["pool"] == pool["name"]]
        if pool["kind"] == "constant":
            charts.append(constants_chart(document, pool))
            continue
        charts.append(placement_chart(document, pool, buffers))
        if pool["name"] in live:
            charts.append(memory_chart(document, pool, live[pool["name"]]))
    return stack(f'{document.get("model", "plan")}: algorithm {document["algorithm"]}', charts)
