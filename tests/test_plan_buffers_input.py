"""usmp plan-buffers checks its input like a model: bad items are one-line errors, never an "invalid plan"."""
from __future__ import annotations

import json

import pytest

from usmp.cli import main

ALGORITHMS = ["greedy_by_size", "greedy_by_conflicts", "hill_climb", "optimal", "auto"]


def problem(**changes) -> dict:
    """Two pools, three buffers; `changes` maps "buffer:a" / "pool:fast" to fields to set."""
    doc = {
        "pools": [{"name": "fast", "size_limit_bytes": 256}, {"name": "slow", "size_limit_bytes": -1}],
        "buffers": [
            {"name": "a", "size_bytes": 48, "alignment": 16, "pool_candidates": ["fast", "slow"], "conflicts": ["b"]},
            {"name": "b", "size_bytes": 32, "alignment": 4, "pool_candidates": ["fast"], "conflicts": []},
            {"name": "c", "size_bytes": 16, "alignment": 4, "pool_candidates": ["fast"], "conflicts": ["a"]},
        ],
    }
    for key, fields in changes.items():
        kind, name = key.split("__")
        item = next(x for x in doc[f"{kind}s"] if x["name"] == name)
        item.update(fields)
    return doc


def run(tmp_path, capsys, doc, *options) -> tuple[int, str, str]:
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(doc))
    status = main(["plan-buffers", str(path), *options])
    out, err = capsys.readouterr()
    return status, out, err


def overlaps(doc: dict, offsets: dict, first: str, second: str) -> bool:
    size = {b["name"]: b["size_bytes"] for b in doc["buffers"]}
    (p1, o1), (p2, o2) = offsets[first], offsets[second]
    return p1 == p2 and o1 < o2 + size[second] and o2 < o1 + size[first]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_buffer_among_its_own_conflicts_is_ignored(tmp_path, capsys, algorithm):
    doc = problem(buffer__a={"conflicts": ["a", "b"]}, buffer__b={"conflicts": ["b"]})
    status, out, err = run(tmp_path, capsys, doc, "--algorithm", algorithm, "--json")
    assert status == 0, err
    offsets = json.loads(out)["offsets"]
    assert not overlaps(doc, offsets, "a", "b") and not overlaps(doc, offsets, "a", "c")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_conflicts_on_one_side_only_are_made_symmetric(tmp_path, capsys, algorithm):
    """c lists a, a lists b: both pairs must be kept apart whichever side the algorithm looks at."""
    doc = problem()
    doc["buffers"].append({"name": "d", "size_bytes": 64, "alignment": 4, "pool_candidates": ["fast"],
                           "conflicts": ["a", "b", "c"]})
    status, out, err = run(tmp_path, capsys, doc, "--algorithm", algorithm, "--json")
    assert status == 0, err
    offsets = json.loads(out)["offsets"]
    for first, second in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "d"), ("c", "d")]:
        assert not overlaps(doc, offsets, first, second), (first, second, offsets)


@pytest.mark.parametrize("changes, message", [
    (dict(buffer__a={"conflicts": ["b", "zz"]}), "buffer 'a' conflicts with unknown buffer 'zz'"),
    (dict(buffer__b={"pool_candidates": ["fast", "nowhere"]}), "buffer 'b' names unknown pool 'nowhere'"),
    (dict(buffer__b={"size_bytes": -1}), "buffer 'b' has negative size -1"),
    (dict(buffer__c={"alignment": 0}), "buffer 'c' has alignment 0; it must be at least 1"),
    (dict(buffer__c={"alignment": -8}), "buffer 'c' has alignment -8; it must be at least 1"),
    (dict(pool__fast={"alignment": 0}), "pool 'fast' has alignment 0; it must be at least 1"),
    (dict(pool__fast={"alignment": 8}), "buffer 'a' needs 16-byte alignment but its candidate pool 'fast' is only "
                                        "8-byte aligned"),
    (dict(pool__slow={"size_limit_bytes": -2}), "pool 'slow' has size limit -2; give -1 for no limit"),
    (dict(buffer__b={"pool_candidates": []}), "buffer 'b' has no candidate pool"),
    (dict(buffer__b={"pool_candidates": "fast"}), "buffer 'b' pool_candidates must be a list of names"),
    (dict(buffer__b={"size_bytes": 3.5}), "buffer 'b' size_bytes is 3.5, not an integer"),
    (dict(buffer__b={"first_step": 4, "last_step": 2}), "buffer 'b' has first_step 4 after last_step 2"),
    (dict(buffer__b={"name": "a"}), "buffer 'a' is listed twice"),
    (dict(pool__slow={"name": "fast"}), "pool 'fast' is listed twice"),
    (dict(buffer__c={"name": 7}), "buffer name 7 is not a string"),
])
def test_bad_items_are_one_line_input_errors(tmp_path, capsys, changes, message):
    status, out, err = run(tmp_path, capsys, problem(**changes))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("usmp: error: ") and "problem.json: " in err
    assert message in err, err
    assert "invalid plan" not in err


def test_csv_alignment_and_lifetimes_are_checked(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,lower,upper,size,alignment\nx,0,4,8,0\n")
    assert main(["plan-buffers", str(bad)]) == 2
    assert "bad.csv:2: need lower < upper, size >= 0 and alignment >= 1" in capsys.readouterr().err
    twice = tmp_path / "twice.csv"
    twice.write_text("id,lower,upper,size\nx,0,4,8\nx,2,6,8\n")
    assert main(["plan-buffers", str(twice)]) == 2
    assert "twice.csv: buffer 'x' is listed twice" in capsys.readouterr().err


def test_a_broken_algorithm_is_still_reported_as_one(tmp_path, capsys, monkeypatch):
    """The one case left for "produced an invalid plan": an algorithm that ignores a conflict."""
    import sys
    import types

    module = types.ModuleType("stacked_at_zero")
    module.plan = lambda buffers, pools, **_: {b.name: (b.pool_candidates[0], 0) for b in buffers}
    monkeypatch.setitem(sys.modules, "stacked_at_zero", module)
    status, _, err = run(tmp_path, capsys, problem(), "--algorithm", "stacked_at_zero:plan")
    assert status == 2 and "algorithm 'stacked_at_zero:plan' produced an invalid plan" in err
