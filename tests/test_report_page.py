"""usmp report: the page for every benchmark model and a MobileNetV2-sized one, opened in headless Chromium."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest

from browser import CHROMIUM_MISSING, chromium, dump_dom, read_png, screenshot
from mobilenet_v2_like import mobilenet_v2_like
from usmp.cli import main
from usmp.compiler import CompileOptions, compile_model
from usmp.report.operators import live_bytes_by_pool

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(m for m in (ROOT / "benchmarks" / "models").glob("*.tflite") if not m.stem.endswith("_int16"))
MICRO_SPEECH = ROOT / "samples/usmp/hello/model/micro_speech_quantized.tflite"
MAX_PAGE_BYTES = 2 * 1024 * 1024
needs_chromium = pytest.mark.skipif(chromium() is None, reason=CHROMIUM_MISSING)


@pytest.fixture(scope="module")
def mobilenet_v2(tmp_path_factory) -> Path:
    return mobilenet_v2_like(tmp_path_factory.mktemp("models") / "mobilenet_v2_like.tflite")


def _plan(model: Path, **options) -> dict:
    compiled = compile_model(model, CompileOptions(**options))
    return json.loads(compiled.files[f"{compiled.program.name}_plan.json"])


def _attribute(text: str, element_id: str, name: str) -> str:
    match = re.search(rf'<[^>]*\bid="{element_id}"[^>]*>', text)
    assert match, f"no element #{element_id}"
    value = re.search(rf'\b{name}="([^"]*)"', match.group(0))
    assert value, f"#{element_id} has no {name}"
    return html.unescape(value.group(1))


def _table_rows(text: str) -> list[list[str]]:
    """The operator table's rows in document order: the data-v of each numeric cell."""
    body = text[text.index('id="operator-table"'):]
    body = body[:body.index("</tbody>")]
    return [re.findall(r'data-v="([^"]*)"', row) for row in re.findall(r'<tr data-step="\d+">(.*?)</tr>', body, re.S)]


def _root_is_ready(dom: str) -> bool:
    """The page's script ran to its end and recorded no error on the root element."""
    root = re.search(r"<html[^>]*>", dom).group(0)
    return 'data-ready="1"' in root and "data-script-errors" not in root


def _check_page(page: Path, document: dict) -> str:
    text = page.read_text()
    assert len(text.encode()) <= MAX_PAGE_BYTES
    assert not re.search(r'\b(src|href)="(https?:)?//', text), "the page must not fetch anything"
    assert int(_attribute(text, "summary-workspace", "data-bytes")) == document["workspace_bytes"]
    assert int(_attribute(text, "summary-bound", "data-bytes")) == document["lower_bound_bytes"]
    assert int(_attribute(text, "summary-constants", "data-bytes")) == document["constant_bytes"]
    rows = _table_rows(text)
    assert len(rows) == document["steps"] == len(document["operators"])
    for row, entry in zip(rows, document["operators"]):
        assert (int(row[0]), int(row[1]), int(row[3])) == (entry["step"], entry["index"], entry["macs"])
    return text


@pytest.mark.parametrize("model", BENCHMARKS, ids=[m.stem for m in BENCHMARKS])
def test_report_of_each_benchmark_model(model, tmp_path, capsys):
    page = tmp_path / "report.html"
    assert main(["report", str(model), "-o", str(page)]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    text = _check_page(page, _plan(model))
    for section in ("summary", "memory", "placement", "constants", "operators", "compiler"):
        assert f'<section id="{section}">' in text


def test_report_of_a_mobilenet_v2_sized_model(mobilenet_v2, tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", str(mobilenet_v2), "-o", str(page)]) == 0
    document = _plan(mobilenet_v2)
    covered = sum(max(len(e["chain"]), 1) for e in document["operators"]) + len(document["compiler"]["without_code"])
    assert covered == 72 and document["tiling"]  # steps, operators in depth-first chains, and the RESHAPE (a view)
    text = _check_page(page, document)
    without_code = text[text.index('id="without-code"'):]
    assert "RESHAPE" in without_code[:without_code.index("</table>")]


def test_report_shows_depth_first_chains(tmp_path):
    model = ROOT / "benchmarks/models/mobilenet_v1_025_96.tflite"
    page = tmp_path / "report.html"
    assert main(["report", str(model), "--tiling", "max", "-o", str(page)]) == 0
    document = _plan(model, tiling="max")
    text = _check_page(page, document)
    assert document["tiling"] and "depth-first x" in text and 'class="bands"' in text
    assert "Depth-first chains" in text


def test_report_lists_the_portable_fallbacks_on_a_dsp_core(tmp_path):
    """Without CMSIS-NN a Cortex-M4 runs every operator on the portable kernels: the page says which, and why."""
    page = tmp_path / "report.html"
    assert main(["report", str(MICRO_SPEECH), "--cpu", "cortex-m4", "--kernels", "portable", "-o", str(page)]) == 0
    text = page.read_text()
    assert 'id="fallbacks"' in text and "--kernels portable leaves out USMP DSP" in text


def test_report_target_must_be_a_cortex_m(tmp_path, capsys):
    assert main(["report", str(MICRO_SPEECH), "--target", "host", "-o", str(tmp_path / "r.html")]) == 2
    assert "--target host" in capsys.readouterr().err


def test_the_stack_is_drawn_on_the_memory_chart():
    """RAM = pools + stack: a core's stack bound per operator sits on top of each step's live bytes, and the
    chart's scale takes the sum."""
    from usmp.report.charts import memory_chart

    document = _plan(MICRO_SPEECH, cpu="cortex-m0")
    live = live_bytes_by_pool(document)["workspace"]
    pool = next(p for p in document["pools"] if p["name"] == "workspace")
    stack = [200 + 10 * k for k in range(len(live))]
    chart = memory_chart(document, pool, live, stack=stack)
    drawn = re.findall(r'<rect class="stack" data-step="(\d+)"[^>]*><title>[^<]*stack ([\d,]+) B', chart)
    assert [(int(k), int(b.replace(",", ""))) for k, b in drawn] == list(enumerate(stack))
    assert 'class="stack"' not in memory_chart(document, pool, live)


@needs_chromium
def test_page_in_chromium_after_a_cortex_m0_run(tmp_path):
    """The page loads from disk without script errors, its script's own sums agree with the plan JSON,
    a buffer's details open, and the screenshot is a picture, not a blank page."""
    page = tmp_path / "report.html"
    assert main(["report", str(MICRO_SPEECH), "--target", "cortex-m0", "-o", str(page)]) == 0
    document = _plan(MICRO_SPEECH, cpu="cortex-m0")
    text = _check_page(page, document)
    instructions = int(_attribute(text, "summary-instructions", "data-value"))
    assert len(re.findall(r'<rect class="stack" data-step="\d+"', text)) == document["steps"]
    counted = [int(row[4]) for row in _table_rows(text)]
    assert 0.95 * instructions <= sum(counted) <= instructions

    dom, console = dump_dom(page)
    assert _root_is_ready(dom)
    assert not [line for line in console if "error" in line.lower()], console
    live = live_bytes_by_pool(document)["workspace"]
    assert int(_attribute(dom, "checks", "data-peak-workspace")) == max(live) == document["lower_bound_bytes"]
    assert _attribute(dom, "checks", "data-live-matches-workspace") == "yes"
    assert int(_attribute(dom, "checks", "data-buffers")) == len(document["buffers"])
    assert int(_attribute(dom, "checks", "data-steps")) == document["steps"]

    tensor = next(b for b in document["buffers"] if b["kind"] == "tensor")
    dom, _ = dump_dom(page, "#buffer=" + tensor["name"])
    panel = html.unescape(dom[dom.index('id="details"'):])
    panel = panel[:panel.index("</aside>")]
    assert tensor["name"] in panel and f"{tensor['size_bytes']:,} B" in panel
    assert "written by" in panel and "read by" in panel and "FULLY_CONNECTED" in panel

    png = tmp_path / "report.png"
    console = screenshot(page, png, 1000, 900)
    assert not [line for line in console if "error" in line.lower()], console
    image = read_png(png)[..., :3]
    colours = np.unique(image.reshape(-1, 3), axis=0)
    ink = (image.min(axis=2) < 200).mean()
    assert len(colours) > 50 and 0.02 < ink < 0.9, (len(colours), ink)


@needs_chromium
def test_sorting_and_clicking_in_chromium(tmp_path):
    """A copy of the page with a script that clicks as a person would: the MACs header twice (largest
    first), then a buffer's rectangle; the rows' order and the details panel are read back."""
    page = tmp_path / "report.html"
    assert main(["report", str(ROOT / "benchmarks/models/ds_cnn_kws.tflite"), "-o", str(page)]) == 0
    document = _plan(ROOT / "benchmarks/models/ds_cnn_kws.tflite")
    clicks = """<script>
      var header = Array.prototype.find.call(document.querySelectorAll("#operator-table th"),
                                             function (th) { return th.textContent === "MACs"; });
      header.click(); header.click();
      document.documentElement.setAttribute("data-order", Array.prototype.map.call(
        document.querySelectorAll("#operator-table tbody tr"), function (tr) { return tr.dataset.step; }).join(","));
      document.querySelector('rect.buffer[data-buffer="%s"]').dispatchEvent(new MouseEvent("click"));
    </script></body>"""
    tensor = next(b for b in document["buffers"] if b["kind"] == "tensor" and b["first_step"] > 0)
    clicked = tmp_path / "clicked.html"
    clicked.write_text(page.read_text().replace("</body>", clicks % tensor["name"].replace('"', '\\"')))
    dom, console = dump_dom(clicked)
    assert _root_is_ready(dom) and not [line for line in console if "error" in line.lower()], console
    order = [int(s) for s in re.search(r'data-order="([^"]*)"', dom).group(1).split(",")]
    macs = {e["step"]: e["macs"] for e in document["operators"]}
    assert [macs[s] for s in order] == sorted(macs.values(), reverse=True)
    panel = html.unescape(dom[dom.index('id="details"'):dom.index("</aside>")])
    assert tensor["name"] in panel and f"steps {tensor['first_step']} to {tensor['last_step']}" in panel
    highlighted = re.findall(r'<tr data-step="(\d+)" class="highlight">', dom)
    assert sorted(map(int, highlighted)) == list(range(tensor["first_step"], tensor["last_step"] + 1))


@needs_chromium
def test_mobilenet_v2_sized_page_in_chromium(mobilenet_v2, tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", str(mobilenet_v2), "--tiling", "max", "-o", str(page)]) == 0
    document = _plan(mobilenet_v2, tiling="max")
    _check_page(page, document)
    dom, console = dump_dom(page)
    assert _root_is_ready(dom)
    assert not [line for line in console if "error" in line.lower()], console
    assert int(_attribute(dom, "checks", "data-peak-workspace")) == max(live_bytes_by_pool(document)["workspace"])
    png = tmp_path / "report.png"
    screenshot(page, png, 1200, 1600)
    image = read_png(png)[..., :3]
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50
