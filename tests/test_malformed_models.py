"""Damaged models never crash `usmp compile` and never touch the output directory on failure.

The corpus (tests/malformed/) is 1,000 seeded variants of the project's
models; a worker process compiles them through the CLI under an address-space
limit and a per-variant alarm. Every variant must either compile or give one
`usmp: error:` line with exit status 2; a sample of those that compile must
still run bit-exact against tflite-micro (run in a subprocess, since it may
crash on junk), under ASan and UBSan.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from malformed import bytewise, structured
from malformed.corpus import variant, variants
from malformed.successes import check_success
from malformed.worker import compile_variant
from reference import all_models

VARIANTS = 1000
SEED = 0
BIT_EXACT_SAMPLE = 6
WORKER = Path(__file__).parent / "malformed" / "worker.py"


@pytest.fixture(scope="module")
def corpus_report(tmp_path_factory):
    report = tmp_path_factory.mktemp("malformed") / "report.json"
    done = subprocess.run([sys.executable, str(WORKER), "--seed", str(SEED), "--count", str(VARIANTS),
                           "--report", str(report)], capture_output=True, text=True)
    print(done.stdout.strip())
    assert report.exists(), done.stderr[-2000:]
    return json.loads(report.read_text())


def test_every_variant_compiles_or_fails_cleanly(corpus_report):
    r = corpus_report
    assert r["crashes"] == [], "\n".join(r["crashes"][:20])
    assert r["tried"] == VARIANTS
    assert r["clean_errors"] + r["successes"] == VARIANTS
    # Both outcomes occur: the corpus is neither all junk nor all harmless.
    assert r["clean_errors"] > VARIANTS // 4 and r["successes"] > VARIANTS // 20
    print(f"variants tried {r['tried']} / clean errors {r['clean_errors']} / successes {r['successes']} / "
          f"crashes {len(r['crashes'])}; slowest variant {r['max_seconds']:.2f} s, peak RSS {r['peak_rss_mb']} MB "
          f"(limit {r['memory_limit_mb']} MB)")


def test_every_kind_of_damage_is_in_the_corpus(corpus_report):
    kinds = set(corpus_report["by_kind"])
    assert {m.__name__ for m in bytewise.MUTATIONS + structured.MUTATIONS} <= kinds


def test_sample_of_compiled_variants_runs_bit_exact_under_sanitizers(corpus_report, tmp_path):
    """Compiled damaged models are still correct models: ASan/UBSan clean and equal to tflite-micro."""
    successes = corpus_report["success_indices"]
    step = max(len(successes) // (BIT_EXACT_SAMPLE * 3), 1)
    results = []
    for index in successes[::step]:
        if results.count("match") == BIT_EXACT_SAMPLE:
            break
        results.append(check_success(SEED, index, tmp_path, sanitize=True))
    print(f"sanitized runs: {len(results)}, bit-exact {results.count('match')}, "
          f"refused by tflite-micro {results.count('refused')}, too big to run {results.count('skipped')}")
    assert results.count("match") >= BIT_EXACT_SAMPLE // 2, results


def test_corpus_is_reproducible_and_damaged():
    sources = {m.stem: m.read_bytes() for m in all_models()}
    first = [variant(SEED, i) for i in range(200)]
    assert [v.data for v in first] == [variant(SEED, i).data for i in range(200)]
    assert [v.data for v in first[:40]] != [v.data for v in variants(SEED + 1, 40)]
    same = [v.label for v in first if v.data in (sources[v.model], structured.repacked(sources[v.model]))]
    assert not same, same


# -- the judge itself must catch what it is there to catch --------------------------------

def _judge(tmp_path, run, existing_output=True):
    return compile_variant(b"not a model", tmp_path, existing_output, run=run)


def test_judge_flags_escaping_exception(tmp_path):
    def run(argv):
        raise RuntimeError("boom")
    assert _judge(tmp_path, run).status == "crash"


def test_judge_flags_internal_error_and_multiline_messages(tmp_path):
    assert _judge(tmp_path, lambda argv: (1, "", "usmp: internal error: KeyError: 'x'\n")).status == "crash"
    (tmp_path / "b").mkdir()
    assert _judge(tmp_path / "b", lambda argv: (2, "", "usmp: error: a\nb\n")).status == "crash"
    (tmp_path / "c").mkdir()
    assert _judge(tmp_path / "c", lambda argv: (2, "", "usmp: error: bad model\n")).status == "error"


def test_judge_flags_a_failure_that_touches_the_output(tmp_path):
    def run(argv):
        out = Path(argv[argv.index("-o") + 1])
        (out / "keep.txt").write_text("clobbered")
        return 2, "", "usmp: error: bad model\n"
    assert _judge(tmp_path, run).status == "crash"

    def creates(argv):
        Path(argv[argv.index("-o") + 1]).mkdir()
        return 2, "", "usmp: error: bad model\n"
    (tmp_path / "fresh").mkdir()
    assert _judge(tmp_path / "fresh", creates, existing_output=False).status == "crash"


def test_judge_flags_a_hang(tmp_path, monkeypatch):
    import signal
    import time

    import malformed.worker as worker

    monkeypatch.setattr(worker, "VARIANT_SECONDS", 0.2)
    previous = signal.signal(signal.SIGALRM, worker._alarm)
    try:
        outcome = _judge(tmp_path, lambda argv: time.sleep(5))
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert outcome.status == "crash" and "no result within" in outcome.message


def test_judge_flags_generated_c_that_does_not_compile(tmp_path):
    from malformed.worker import c_syntax_problem

    (tmp_path / "model.c").write_text("/* a*/ b /* */\nint x;\n")
    assert "error" in c_syntax_problem(tmp_path)
    (tmp_path / "model.c").write_text("int x;\n")
    assert c_syntax_problem(tmp_path) is None
