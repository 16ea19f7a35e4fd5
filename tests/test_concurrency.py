"""Batch calls from several Python threads at once.

The Rust core reads the Python objects on the calling thread while ragmeter's pool scores the
previous chunk or batch, and the calling thread releases the GIL whenever it waits or scores. Calls
made at the same time from several Python threads share the pool: each must still get exactly
its own results, the ones an independent oracle gives.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytrec_eval
from rapidfuzz.distance import Levenshtein as RF

import ragmeter
from ragmeter import levenshtein


def _texts(seed: int, n: int) -> list[str]:
    rng = np.random.default_rng(seed)
    alphabet = np.array(list("abcdeé 😀"))
    return ["".join(rng.choice(alphabet, size=rng.integers(0, 40))) for _ in range(n)]


def test_levenshtein_batches_from_several_threads():
    # 12,000 pairs: two chunks of the bindings each, all threads' chunks in one pool.
    inputs = [(_texts(2 * i, 12_000), _texts(2 * i + 1, 12_000)) for i in range(3)]
    expected = [[RF.distance(x, y) for x, y in zip(a, b, strict=True)] for a, b in inputs]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda ab: levenshtein.pairwise(*ab).tolist(), inputs))
    assert results == expected


def test_ranking_batches_from_several_threads():
    def data(seed: int):
        rng = np.random.default_rng(seed)
        qrels, run = {}, {}
        for q in range(280):  # 280,000 ranked documents: two batches of the bindings
            docs = [f"d{seed}_{q}_{i}" for i in range(1000)]
            ticks = rng.permutation(4000)[:1000].tolist()
            run[f"q{q}"] = {d: t / 4096 for d, t in zip(docs, ticks, strict=True)}
            picks = rng.choice(1000, size=30, replace=False).tolist()
            grades = rng.integers(0, 4, 30).tolist()
            qrels[f"q{q}"] = {docs[i]: g for i, g in zip(picks, grades, strict=True)}
        return qrels, run

    inputs = [data(seed) for seed in range(3)]
    expected = [
        pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(run)
        for qrels, run in inputs
    ]

    def ours(qrels_run):
        return ragmeter.ranking_metrics(*qrels_run, metrics=["map", "ndcg@10"], average=None)

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(ours, inputs))
    for result, by_query in zip(results, expected, strict=True):
        for q, values in by_query.items():
            assert abs(result["map"][q] - values["map"]) < 1e-12
            assert abs(result["ndcg@10"][q] - values["ndcg_cut_10"]) < 1e-12
