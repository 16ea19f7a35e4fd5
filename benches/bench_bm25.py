"""BM25 over a whole query set, and a scikit-learn grid search over BM25's parameters.

Part 1, scoring: the top 10 documents of every query, from the same tokens, by

* ragmeter: ``RetrievalIndex.search_many`` (tokenising the queries, one call to the Rust core,
  responses with hits) and ``RetrievalEstimator.predict`` (rankings of doc ids), on every core
  and on one;
* rank_bm25: ``BM25Okapi.get_scores`` in a loop over the queries, then ``argsort``;
* bm25s (if installed): ``BM25.retrieve`` on the whole list of tokenised queries.

ragmeter runs the variant each peer computes ("okapi" against rank_bm25, "lucene" against
bm25s), and the rankings are compared before any time is printed. Index building is timed too.

Part 2, the grid: ``GridSearchCV`` over ``bm25_k1`` x ``bm25_b`` x ``top_k`` (50 candidates
by default) with 5-fold ``KFold`` over the queries, scored by ``get_corpus_scorer("ndcg@10")``
and ``make_corpus_scorer(recall_at_k, k=5)`` together, refit on the best; then the same grid
with the index cache switched off (``set_index_cache_size(0)``: every fit builds), on the first
``--uncached-candidates`` candidates, to show what the cache saves per fit.

Run: ``python benches/bench_bm25.py`` (``--docs``, ``--queries``, ``--repeat``, ``--seed``).
Needs ``pip install rank-bm25 scikit-learn`` (both in the ``test`` extra) and optionally
``pip install bm25s``. Record the printed numbers in benches/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi
from sklearn.model_selection import GridSearchCV, KFold

import ragmeter
from ragmeter import (
    CorpusDocument,
    RetrievalConfig,
    RetrievalEstimator,
    RetrievalIndex,
    get_corpus_scorer,
    make_corpus_scorer,
    recall_at_k,
)
from ragmeter.retrieval import clear_index_cache, index_cache_info, set_index_cache_size

try:
    import bm25s
except ImportError:  # optional peer
    bm25s = None

TOP_K = 10


def make_collection(
    n_docs: int, n_queries: int, seed: int
) -> tuple[list[CorpusDocument], list[str], list[dict[str, int]]]:
    """Documents of 20-150 words from a Zipf-distributed vocabulary of 30,000 words; each
    query is 2-6 words of a target document plus one random word, the target judged 2 and a
    document sharing the query's first word judged 1."""
    rng = np.random.default_rng(seed)
    n_words = 30_000
    weights = 1.0 / np.arange(1, n_words + 1) ** 1.05
    weights /= weights.sum()
    lengths = rng.integers(20, 151, size=n_docs)
    ids = rng.choice(n_words, size=int(lengths.sum()), p=weights)
    texts, start = [], 0
    for length in lengths.tolist():
        texts.append(" ".join(f"w{i}" for i in ids[start : start + length].tolist()))
        start += length
    documents = [
        CorpusDocument(doc_id=f"d{i}", input_path=f"bench/{i // 100}", chunk_index=i, text=t)
        for i, t in enumerate(texts)
    ]
    queries, qrels = [], []
    for _ in range(n_queries):
        target = int(rng.integers(n_docs))
        words = texts[target].split()
        picked = list(rng.choice(words, size=int(rng.integers(2, 7))))
        query = [*picked, f"w{int(rng.integers(n_words))}"]
        queries.append(" ".join(query))
        other = int(rng.integers(n_docs))
        judged = {f"d{target}": 2}
        if other != target:
            judged[f"d{other}"] = 1
        qrels.append(judged)
    return documents, queries, qrels


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, float, Any]:
    """Best wall-clock and CPU seconds of ``repeat`` runs, and the last result."""
    best_wall, best_cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, result


def top_ids(scores: np.ndarray, matching: np.ndarray, ids: list[str], k: int) -> list[str]:
    """The ``k`` best documents holding a query word and scoring > 0, ties in corpus order (the
    order ragmeter returns)."""
    keep = np.flatnonzero(matching & (scores > 0))
    order = keep[np.lexsort((keep, -scores[keep]))][:k]
    return [ids[i] for i in order.tolist()]


def compare(name: str, got: list[list[str]], expected: list[list[str]]) -> None:
    same = sum(g == e for g, e in zip(got, expected, strict=True))
    if same != len(expected):
        raise SystemExit(f"{name}: {len(expected) - same} of {len(expected)} rankings differ")


def scoring(documents, queries, repeat: int) -> list[tuple[str, float, float]]:
    ids = [str(doc.doc_id) for doc in documents]
    corpus_tokens = [ragmeter.retrieval.tokenize(doc.text) for doc in documents]
    query_tokens = [ragmeter.retrieval.tokenize(q) for q in queries]
    vocabulary_of = [set(tokens) for tokens in corpus_tokens]
    matching = [
        np.fromiter((bool(set(q) & v) for v in vocabulary_of), bool, len(ids)) for q in query_tokens
    ]
    rows: list[tuple[str, float, float]] = []

    wall, cpu, index = best_of(repeat, lambda: RetrievalIndex().build(documents))
    rows.append(("build: ragmeter RetrievalIndex", wall, cpu))
    wall, cpu, rank_bm25_index = best_of(1, lambda: BM25Okapi(corpus_tokens))
    rows.append(("build: rank_bm25 BM25Okapi", wall, cpu))
    if bm25s is not None:

        def build_bm25s() -> Any:
            model = bm25s.BM25(method="lucene")
            model.index(corpus_tokens, show_progress=False)
            return model

        wall, cpu, bm25s_index = best_of(repeat, build_bm25s)
        rows.append(("build: bm25s BM25", wall, cpu))

    okapi = RetrievalConfig(top_k=TOP_K, bm25_variant="okapi")
    lucene = RetrievalConfig(top_k=TOP_K)

    def ragmeter_search(config: RetrievalConfig, n_threads: int | None) -> list[list[str]]:
        return [r.doc_ids for r in index.search_many(queries, config=config, n_threads=n_threads)]

    estimator = RetrievalEstimator(documents=documents, top_k=TOP_K).fit(queries)
    ours_okapi = ragmeter_search(okapi, None)
    ours_lucene = ragmeter_search(lucene, None)
    lucene_scores = [[h.score for h in r] for r in index.search_many(queries, config=lucene)]
    for label, threads in (("all cores", None), ("1 thread", 1)):
        wall, cpu, _ = best_of(repeat, lambda threads=threads: ragmeter_search(lucene, threads))
        rows.append((f"score: ragmeter search_many, {label}", wall, cpu))
        estimator.set_params(n_threads=threads)
        wall, cpu, predicted = best_of(repeat, lambda: estimator.predict(queries))
        compare("RetrievalEstimator.predict", predicted.tolist(), ours_lucene)
        rows.append((f"score: ragmeter RetrievalEstimator.predict, {label}", wall, cpu))

    def rank_bm25_loop() -> list[list[str]]:
        return [
            top_ids(rank_bm25_index.get_scores(q), m, ids, TOP_K)
            for q, m in zip(query_tokens, matching, strict=True)
        ]

    wall, cpu, theirs = best_of(1, rank_bm25_loop)
    compare("rank_bm25 (okapi)", theirs, ours_okapi)
    rows.append(("score: rank_bm25 get_scores loop", wall, cpu))

    if bm25s is not None:

        def bm25s_batch() -> Any:
            return bm25s_index.retrieve(
                query_tokens, k=TOP_K, show_progress=False, return_as="tuple", n_threads=0
            )

        wall, cpu, (_, scores) = best_of(repeat, bm25s_batch)
        # bm25s keeps float32 scores and breaks ties its own way, so compare the top scores:
        # ragmeter's "lucene" is bm25s's times (k1 + 1).
        for theirs_row, ours_row in zip(scores, lucene_scores, strict=True):
            theirs_positive = [s for s in theirs_row.tolist() if s > 0]
            expected = np.array(ours_row) / (lucene.bm25_k1 + 1)
            if len(theirs_positive) != len(ours_row) or not np.allclose(
                theirs_positive, expected, rtol=1e-5
            ):
                raise SystemExit(f"bm25s: top scores {theirs_positive} vs {expected.tolist()}")
        rows.append(("score: bm25s retrieve (one batch)", wall, cpu))
    return rows


def grid(documents, queries, qrels, candidates: int, folds: int, uncached: int) -> list[tuple]:
    k1_values = [0.6, 0.9, 1.2, 1.5, 1.8]
    b_values = [0.3, 0.45, 0.6, 0.75, 0.9]
    top_k_values = [5, 10]
    grid_params = {"bm25_k1": k1_values, "bm25_b": b_values, "top_k": top_k_values}
    n_grid = len(k1_values) * len(b_values) * len(top_k_values)
    if candidates != n_grid:
        raise SystemExit(f"--candidates: the grid has {n_grid} candidates")
    scoring = {
        "ndcg@10": get_corpus_scorer("ndcg@10"),
        "recall@5": make_corpus_scorer(recall_at_k, k=5),
    }

    def search(params: dict[str, list[Any]]) -> GridSearchCV:
        return GridSearchCV(
            RetrievalEstimator(documents=documents),
            params,
            scoring=scoring,
            refit="ndcg@10",
            cv=KFold(n_splits=folds, shuffle=True, random_state=0),
        ).fit(queries, qrels)

    rows = []
    clear_index_cache()
    wall, cpu = time.perf_counter(), time.process_time()
    result = search(grid_params)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    info = index_cache_info()
    fits = candidates * folds + 1
    rows.append((f"grid, cache on: {candidates} x {folds} folds + refit", wall, cpu, fits, info))
    best = result.best_params_

    few = {"bm25_k1": k1_values[:1], "bm25_b": b_values[:1], "top_k": top_k_values}
    few_candidates = 2
    while few_candidates < uncached:
        few["bm25_b"] = b_values[: len(few["bm25_b"]) + 1]
        few_candidates = len(few["bm25_b"]) * 2
    set_index_cache_size(0)
    clear_index_cache()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        search(few)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        info_off = index_cache_info()
    finally:
        set_index_cache_size(ragmeter.retrieval.DEFAULT_INDEX_CACHE_SIZE)
    fits_off = few_candidates * folds + 1
    rows.append(
        (
            f"grid, cache off: {few_candidates} x {folds} folds + refit",
            wall,
            cpu,
            fits_off,
            info_off,
        )
    )
    return rows, best, result.best_score_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--candidates", type=int, default=50)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--uncached-candidates", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    print(
        f"ragmeter {ragmeter.__version__}, bm25s {getattr(bm25s, '__version__', 'not installed')}"
        f", Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"pool threads {ragmeter._core.pool_threads()}"
    )
    start = time.perf_counter()
    documents, queries, qrels = make_collection(args.docs, args.queries, args.seed)
    tokens = sum(len(doc.text.split()) for doc in documents)
    print(
        f"{len(documents):,} documents ({tokens:,} tokens), {len(queries):,} queries, "
        f"generated in {time.perf_counter() - start:.1f} s\n"
    )

    rows = scoring(documents, queries, args.repeat)
    reference = next(wall for name, wall, _ in rows if name.startswith("score: ragmeter search"))
    print(
        f"Part 1: top {TOP_K} of {len(queries):,} queries (best of {args.repeat}; rank_bm25 once)"
    )
    print(f"{'':54} {'wall s':>9} {'cpu s':>9} {'wall / ragmeter':>16}")
    for name, wall, cpu in rows:
        ratio = f"{wall / reference:.1f}x" if name.startswith("score") else ""
        print(f"{name:54} {wall:9.3f} {cpu:9.3f} {ratio:>16}")
    print("(ratios: wall-clock time / ragmeter search_many on all cores)\n")

    grid_rows, best, best_score = grid(
        documents, queries, qrels, args.candidates, args.folds, args.uncached_candidates
    )
    print("Part 2: GridSearchCV, ndcg@10 and recall@5 scorers, refit on ndcg@10")
    print(f"{'':46} {'wall s':>8} {'cpu s':>8} {'fits':>6} {'ms/fit':>8} {'builds':>7}")
    per_fit = []
    for name, wall, cpu, fits, info in grid_rows:
        per_fit.append(wall / fits)
        print(f"{name:46} {wall:8.2f} {cpu:8.2f} {fits:6} {1e3 * wall / fits:8.1f} {info.misses:7}")
    print(f"per fit, cache off / cache on: {per_fit[1] / per_fit[0]:.1f}x")
    print(f"best: {best}, mean ndcg@10 {best_score:.4f}")


if __name__ == "__main__":
    main()
