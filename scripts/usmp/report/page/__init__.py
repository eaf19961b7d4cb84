"""The report page (`usmp report`): one self-contained HTML file about a compiled model.

Fed by the plan document the compiler writes (plan_json.py) and, when the model ran on an
emulated Cortex-M, the run's measurements and profile. Python computes every figure and draws
every chart (report/charts.py); the template (templates/report/) lays them out with inline CSS
and a small script that adds what a static page cannot: hover and click details of a buffer,
sortable tables. Nothing is fetched from a network: the file opens from disk.
"""
from __future__ import annotations

import json

import jinja2

from usmp import __version__
from usmp.paths import TEMPLATES_DIR
from usmp.report.charts import (COLOURS, FAMILY_COLOURS, band_buffer_names, constants_chart, legend, memory_chart,
                                operator_label, placement_chart, step_labels)
from usmp.report.operators import kernel_label, live_bytes_by_pool, profile_rows

ASSETS = TEMPLATES_DIR / "report"


def report_page(document: dict, measurements: dict | None = None, settings: dict | None = None,
                fallbacks: list[dict] | None = None) -> str:
    """document: the plan JSON; measurements: a Cortex-M run's report with its profile
    (step_instructions, outside_steps), or None for a model that only compiled; settings: what the
    model was compiled with (model_file, cpu, extension, options; shown in the header); fallbacks:
    the operators a core with fast kernel families runs on portable kernels (the plan's "portable_kernels")."""
    measurements = measurements or {}
    total = measurements.get("instructions")
    rows = profile_rows(document, measurements.get("step_instructions"), total, measurements.get("step_memory"))
    live = live_bytes_by_pool(document)
    pools = {p["name"]: p for p in document["pools"]}
    context = dict(
        version=__version__, document=document, settings=settings or {}, measurements=measurements,
        summary=_summary(document, measurements, rows),
        memory_charts=[memory_chart(document, pools[name], values,  # the stack on the first pool's chart
                                    stack=measurements.get("stack_bound_steps") if k == 0 else None)
                       for k, (name, values) in enumerate(live.items())],
        placement_charts=[placement_chart(document, p, [b for b in document["buffers"] if b["pool"] == p["name"]])
                          for p in document["pools"] if p["kind"] != "constant" and p["size_bytes"]],
        legend=legend(_kinds_drawn(document), [(FAMILY_COLOURS["depth-first"], "depth-first step (stripes: bands)")]
                      if document.get("tiling") else []),
        constant_charts=[constants_chart(document, p) for p in document["pools"]
                         if p["kind"] == "constant" and p["size_bytes"]],
        operators=_operator_rows(document, rows),
        counted=total is not None,
        traffic=measurements.get("step_memory") is not None,
        compiler=document.get("compiler", {}),
        fallbacks=fallbacks or [],
        tiling=document.get("tiling", []),
        css=(ASSETS / "report.css").read_text(),
        script=(ASSETS / "report.js").read_text(),
        data=_script_json(_page_data(document, live)),
        family_colours=FAMILY_COLOURS,
    )
    return _environment().get_template("report/report.html.j2").render(context)


def _environment() -> jinja2.Environment:
    """HTML-escaping, unlike the C templates': tensor names may hold any character."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _kinds_drawn(document: dict) -> list[str]:
    bands = band_buffer_names(document)
    drawn = {"band" if b["name"] in bands else b["kind"] for b in document["buffers"] if b["kind"] != "constant"}
    return [k for k in ("input", "tensor", "scratch", "band", "output", "state", "copy") if k in drawn]


def _summary(document: dict, measurements: dict, rows: list[dict]) -> dict:
    bound, workspace = document["lower_bound_bytes"], document["workspace_bytes"]
    macs = sum(r["macs"] for r in rows)
    instructions = measurements.get("instructions")
    ram = measurements.get("ram_bytes")
    tried = document.get("tried", [])
    winner = min(tried, key=lambda t: t["bytes"])["algorithm"] if tried else document["algorithm"]
    return dict(
        workspace=workspace, bound=bound, winner=winner,
        over_bound=f"{100 * (workspace - bound) / bound:.1f} %" if bound else "-",
        constants=document["constant_bytes"], state=document["state_bytes"], macs=macs,
        instructions=instructions,
        per_mac=f"{instructions / macs:.2f}" if instructions and macs else None,
        flash=measurements.get("flash_bytes"), flash_total=measurements.get("flash_total_bytes"),
        ram_pools=ram["pools"] if ram else None, stack=ram["stack"] if ram else None,
        ram_other=ram["other"] if ram else None,
        families=_family_counts(document),
    )


def _family_counts(document: dict) -> list[tuple[str, int, str]]:
    counts: dict[str, int] = {}
    for entry in document.get("operators", []):
        counts[entry["kernel"]] = counts.get(entry["kernel"], 0) + 1
    return [(family, n, FAMILY_COLOURS.get(family, "#999")) for family, n in counts.items()]


def _tensors_text(tensors: list[dict]) -> str:
    shown = [t for t in tensors if not t["constant"]] or tensors[:1]
    return "; ".join(f"{'x'.join(str(d) for d in t['shape']) or 'scalar'} {t['dtype']}" for t in shown)


def _operator_rows(document: dict, rows: list[dict]) -> list[dict]:
    entries = {e["step"]: e for e in document["operators"]}
    out = []
    for row in rows:
        entry = entries[row["step"]]
        out.append(dict(row, label=operator_label(entry), inputs=_tensors_text(entry["inputs"]),
                        outputs=_tensors_text(entry["outputs"]),
                        chain=" ".join(f"#{m['index']} {m['op']}" for m in entry.get("chain", [])),
                        colour=FAMILY_COLOURS.get(entry["kernel"], "#999"), kernel=kernel_label(entry)))
    return out


def _page_data(document: dict, live: dict[str, list[int]]) -> dict:
    """What the page's script shows on hover and click: each buffer with its tensors and the operators
    that write and read it, the steps' names, and the live bytes it checks its own sums against."""
    labels = step_labels(document)
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for entry in document.get("operators", []):
        for name in entry["writes"]:
            writers.setdefault(name, []).append(entry["step"])
        for name in entry["reads"]:
            readers.setdefault(name, []).append(entry["step"])
    buffers = {b["name"]: [b["kind"], b["size_bytes"], b["alignment"], b["pool"], b["offset"], b["first_step"],
                           b["last_step"], b.get("tensors", []), writers.get(b["name"], []),
                           readers.get(b["name"], [])]
               for b in document["buffers"]}
    return {"steps": labels, "buffers": buffers, "live": live,
            "workspace_pools": [p["name"] for p in document["pools"] if p["kind"] == "workspace"],
            "colours": COLOURS}


def _script_json(data: dict) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")
