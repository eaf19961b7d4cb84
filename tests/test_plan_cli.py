"""usmp plan and usmp plan-buffers from the command line, and the plan JSON beside compiled code."""
from __future__ import annotations

import json
from pathlib import Path

from usmp.cli import main

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "samples/usmp/hello/model/micro_speech_quantized.tflite"
BRANCHY = ROOT / "tests/models/planner_branchy_fc_f32.tflite"
EXAMPLE = ROOT / "tests/data/minimalloc/examples/input.12.csv"
PLAN_KEYS = {"algorithm", "lower_bound_bytes", "workspace_bytes", "constant_bytes", "pools", "buffers"}
POOL_KEYS = {"name", "kind", "size_bytes", "limit_bytes"}
BUFFER_KEYS = {"name", "kind", "size_bytes", "alignment", "pool", "offset", "first_step", "last_step"}


def test_plan_json_has_the_documented_schema_and_a_valid_plan(capsys):
    assert main(["plan", str(MODEL), "--tiling", "off", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert PLAN_KEYS <= set(doc)
    assert all(POOL_KEYS <= set(p) for p in doc["pools"])
    assert all(BUFFER_KEYS <= set(b) for b in doc["buffers"])
    assert {b["kind"] for b in doc["buffers"]} >= {"tensor", "constant"}
    assert doc["workspace_bytes"] == doc["lower_bound_bytes"] == 4004
    work = [b for b in doc["buffers"] if b["pool"] == "workspace"]
    for a in work:
        for b in work:
            if a is not b and a["first_step"] <= b["last_step"] and b["first_step"] <= a["last_step"]:
                assert a["offset"] + a["size_bytes"] <= b["offset"] or b["offset"] + b["size_bytes"] <= a["offset"]


def test_plan_table_compares_algorithms_and_writes_svg(tmp_path, capsys):
    svg = tmp_path / "plan.svg"
    assert main(["plan", str(BRANCHY), "--reorder", "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    for word in ("bound B", "ratio", "greedy_by_size", "greedy_by_conflicts", "hill_climb", "optimal", "seconds"):
        assert word in out
    text = svg.read_text()
    assert text.startswith("<svg") and text.count("<rect") > 10 and "pool workspace" in text


def test_compile_writes_the_plan_json_beside_the_code(tmp_path):
    assert main(["compile", str(MODEL), "-o", str(tmp_path), "--pool", "ram:workspace:size=8k",
                 "--pool", "rom:constant"]) == 0
    doc = json.loads((tmp_path / "micro_speech_quantized_plan.json").read_text())
    assert doc["pools"][0] == {**doc["pools"][0], "name": "ram", "kind": "workspace", "limit_bytes": 8192}
    assert all(b["pool"] in ("ram", "rom") for b in doc["buffers"])


def test_too_small_pool_is_a_one_line_error(capsys):
    assert main(["plan", str(MODEL), "--tiling", "off", "--pool", "ram:workspace:size=1k", "--pool", "rom:constant"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "pool 'ram' needs at least 4004 B (limit 1024 B)" in err


def test_plan_buffers_csv_json_output(capsys):
    assert main(["plan-buffers", str(EXAMPLE), "--algorithm", "optimal", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["peak_bytes"] == doc["lower_bound_bytes"] == 12 and doc["optimal_proven"]
    assert set(doc["offsets"]) == {"b1", "b2", "b3", "b4", "b5"}
    assert {"algorithm", "pool_sizes", "seconds"} <= set(doc)


def test_plan_buffers_json_input_with_one_sided_conflicts_and_fallback(tmp_path, capsys):
    problem = {
        "pools": [{"name": "fast", "size_limit_bytes": 64}, {"name": "slow", "size_limit_bytes": -1}],
        "buffers": [
            {"name": "a", "size_bytes": 48, "alignment": 16, "pool_candidates": ["fast", "slow"], "conflicts": ["b"]},
            {"name": "b", "size_bytes": 32, "alignment": 16, "pool_candidates": ["fast", "slow"], "conflicts": []},
            {"name": "c", "size_bytes": 16, "alignment": 4, "pool_candidates": ["fast"], "conflicts": ["a"]},
        ],
    }
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(problem))
    assert main(["plan-buffers", str(path), "--algorithm", "greedy_by_size", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    a, b, c = (doc["offsets"][n] for n in "abc")
    assert a[0] == "fast" and b[0] == "slow" and c == ["fast", 48]


def test_plan_buffers_capacity_and_bad_files(tmp_path, capsys):
    assert main(["plan-buffers", str(EXAMPLE), "--capacity", "11"]) == 2
    assert "needs at least 12 B (limit 11 B)" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("id,start,end\n1,2,3\n")
    assert main(["plan-buffers", str(bad)]) == 2
    assert "missing" in capsys.readouterr().err
