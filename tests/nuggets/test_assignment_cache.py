"""Nugget assignment's calls, counted where they arrive (the loopback server): one call per
answer and ``per_call`` nuggets (the ceiling of nuggets / per_call calls an answer), every call
a cache hit on a rerun with the same cache and none reaching the server; and the benchmark of
issue 45 (benches/bench_nugget_assign.py) at a small size, whose exit status says the same of
its own counts (no timing is asserted)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from ragmeter.judges import OpenAICompatibleJudge
from ragmeter.judges.testing import LoopbackOpenAIServer
from ragmeter.nuggets import Nugget, NuggetBank, RagAnswer, TopicNuggets, assign

BENCH = Path(__file__).resolve().parents[2] / "benches" / "bench_nugget_assign.py"


def _campaign(runs: int, topics: int, nuggets: int):
    bank = NuggetBank(
        tuple(
            TopicNuggets(
                f"t{t}",
                f"what about subject {t}",
                tuple(Nugget(f"subject {t} has property {n}", "vital") for n in range(nuggets)),
            )
            for t in range(topics)
        )
    )
    answers = [
        RagAnswer.build(f"r{r}", f"t{t}", [(f"subject {t} has property {r}", [])])
        for r in range(runs)
        for t in range(topics)
    ]
    return bank, answers


@pytest.mark.parametrize("per_call", [20, 10, 7])
def test_calls_are_answers_times_chunks_and_a_rerun_asks_the_server_nothing(tmp_path, per_call):
    runs, topics, nuggets = 3, 4, 20
    bank, answers = _campaign(runs, topics, nuggets)
    expected = runs * topics * math.ceil(nuggets / per_call)
    cache = str(tmp_path / "cache.sqlite")
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="loopback")
        options = {"judge": judge, "per_call": per_call, "cache": cache, "progress": False}
        cold = assign(bank, answers, **options)
        assert server.count("chat") == expected and cold.n_errors == 0
        estimate = assign(bank, answers, dry_run=True, **options)
        assert (estimate.cache_hits, estimate.calls) == (expected, 0)
        warm = assign(bank, answers, **options)
        assert server.count("chat") == expected  # none more
    assert [a.judgements for a in warm] == [a.judgements for a in cold]
    assert all(len(a.judgements[0].labels) == nuggets for a in warm)


def test_the_benchmark_at_a_small_size_meets_its_checks():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--runs", "3", "--topics", "4", "--latency", "0.01"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # 3 x 4 answers, 20 nuggets 10 a call: 24 calls
    assert "24 judge calls (2 an answer)" in done.stdout
    assert "the server counted 24 chat requests" in done.stdout
    assert "24 cache hits, 0 calls to make: hit rate 100.0%" in done.stdout
    assert "the server counted 0 chat requests; same labels as the cold run: True" in done.stdout
