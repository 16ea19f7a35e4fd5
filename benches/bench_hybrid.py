"""A grid search over hybrid retrieval (BM25 + embeddings, reciprocal rank fusion), issue 52:
``GridSearchCV`` over ``RetrievalEstimator(match_mode="hybrid")`` against the same search
written by hand with bm25s and numpy, in one run.

    python benches/bench_hybrid.py [--docs 2000] [--queries 200] [--dim 64] [--folds 5]

The collection is ``bench_bm25.make_collection``'s (documents of 20-150 Zipf words, queries
of words of a target document); every document gets a random embedding (``--dim``) and every
query its target's embedding plus noise. The grid: ``hybrid_alpha`` (6 values) x ``rrf_k``
(5) x ``top_k`` (2) = 60 candidates, ``KFold(--folds)`` over the queries, scored by
``get_corpus_scorer("ndcg@10")``, refit on the best.

The hand-written loop does the same search the way a user would write it without ragmeter:
one bm25s index (``method="lucene"``, k1 1.5, b 0.75, the estimator's defaults) over the same
tokens, and for every candidate and fold: ``retrieve`` of the test queries' ``3 x top_k`` best
documents, their cosines (a numpy product and a stable argsort, cosines below 0 dropped),
reciprocal rank fusion in a dict per query (``(1 - alpha) / (rrf_k + rank + 1)`` for the
keyword leg, ``alpha / (...)`` for the semantic one, ties by doc id), the ``top_k`` best, and
nDCG@10 with linear gains (trec_eval's) averaged over the fold. Its mean scores are printed
beside ragmeter's (bm25s keeps float32 scores, so a tie may break otherwise).

Both run in this process, alternating over ``--rounds``; wall = perf_counter, CPU =
``time.process_time`` (all threads). The ratio to read is ragmeter's CPU over the loop's
(target: at most 1.5).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_bm25 import make_collection  # noqa: E402

import ragmeter  # noqa: E402
from ragmeter import CorpusDocument, RetrievalEstimator, get_corpus_scorer  # noqa: E402
from ragmeter.retrieval import clear_index_cache  # noqa: E402

ALPHAS = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
RRF_KS = [10, 30, 60, 100, 200]
TOP_KS = [10, 20]


def collection(n_docs: int, n_queries: int, dim: int, seed: int) -> tuple[Any, ...]:
    documents, queries, qrels = make_collection(n_docs, n_queries, seed)
    rng = np.random.default_rng(seed + 1)
    doc_vectors = rng.normal(size=(n_docs, dim))
    documents = [
        CorpusDocument(
            doc_id=d.doc_id,
            input_path=d.input_path,
            chunk_index=d.chunk_index,
            text=d.text,
            embedding=doc_vectors[i].tolist(),
        )
        for i, d in enumerate(documents)
    ]
    targets = [int(max(q, key=q.get)[1:]) for q in qrels]
    query_vectors = doc_vectors[targets] + rng.normal(scale=1.5, size=(n_queries, dim))
    X = [(text, query_vectors[i].tolist()) for i, text in enumerate(queries)]
    return documents, X, qrels, doc_vectors, query_vectors


def ragmeter_grid(documents: list[Any], X: list[Any], qrels: list[Any], folds: int) -> Any:
    from sklearn.model_selection import GridSearchCV, KFold

    clear_index_cache()
    return GridSearchCV(
        RetrievalEstimator(documents=documents, match_mode="hybrid"),
        {"hybrid_alpha": ALPHAS, "rrf_k": RRF_KS, "top_k": TOP_KS},
        scoring=get_corpus_scorer("ndcg@10"),
        cv=KFold(n_splits=folds, shuffle=True, random_state=0),
    ).fit(X, qrels)


def ndcg_at_10(ranking: list[str], judged: dict[str, int]) -> float:
    """nDCG@10 with linear gains and log2 discounts (trec_eval's ndcg_cut_10)."""
    dcg = sum(judged.get(d, 0) / math.log2(r + 2) for r, d in enumerate(ranking[:10]))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:10]
    best = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


def hand_loop(
    documents: list[Any],
    X: list[Any],
    qrels: list[Any],
    doc_vectors: np.ndarray,
    query_vectors: np.ndarray,
    folds: int,
) -> dict[tuple[float, int, int], float]:
    import bm25s
    from sklearn.model_selection import KFold

    ids = [str(d.doc_id) for d in documents]
    model = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    model.index([ragmeter.retrieval.tokenize(d.text) for d in documents], show_progress=False)
    query_tokens = [ragmeter.retrieval.tokenize(text) for text, _ in X]
    unit_docs = doc_vectors / np.linalg.norm(doc_vectors, axis=1, keepdims=True)
    splits = list(KFold(n_splits=folds, shuffle=True, random_state=0).split(X))
    means = {}
    for alpha in ALPHAS:
        for rrf_k in RRF_KS:
            for top_k in TOP_KS:
                fetch = min(3 * top_k, len(ids))
                scores = []
                for _, test in splits:
                    tokens = [query_tokens[i] for i in test]
                    found, values = model.retrieve(
                        tokens, k=fetch, show_progress=False, return_as="tuple", n_threads=0
                    )
                    vectors = query_vectors[test]
                    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
                    cosines = vectors @ unit_docs.T
                    order = np.argsort(-cosines, axis=1, kind="stable")[:, :fetch]
                    for row, i in enumerate(test):
                        fused: dict[int, float] = {}
                        keyword = [d for d, s in zip(found[row], values[row], strict=True) if s > 0]
                        for rank, doc in enumerate(keyword):
                            fused[doc] = fused.get(doc, 0.0) + (1 - alpha) / (rrf_k + rank + 1)
                        semantic = [d for d in order[row] if cosines[row, d] >= 0.0]
                        for rank, doc in enumerate(semantic):
                            fused[doc] = fused.get(doc, 0.0) + alpha / (rrf_k + rank + 1)
                        best = sorted(fused, key=lambda d: (-fused[d], ids[d]))[:top_k]
                        scores.append(ndcg_at_10([ids[d] for d in best], qrels[i]))
                means[(alpha, rrf_k, top_k)] = sum(scores) / len(scores)
    return means


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    documents, X, qrels, doc_vectors, query_vectors = collection(
        args.docs, args.queries, args.dim, args.seed
    )
    n = len(ALPHAS) * len(RRF_KS) * len(TOP_KS)
    print(
        f"{args.docs} documents, {args.queries} queries, {n} candidates x {args.folds} folds; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    times: dict[str, list[tuple[float, float]]] = {"ragmeter": [], "hand": []}
    result: Any = None
    means: dict[tuple[float, int, int], float] = {}
    for _ in range(args.rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        result = ragmeter_grid(documents, X, qrels, args.folds)
        times["ragmeter"].append((time.perf_counter() - wall, time.process_time() - cpu))
        wall, cpu = time.perf_counter(), time.process_time()
        means = hand_loop(documents, X, qrels, doc_vectors, query_vectors, args.folds)
        times["hand"].append((time.perf_counter() - wall, time.process_time() - cpu))
    ours = {
        (p["hybrid_alpha"], p["rrf_k"], p["top_k"]): s
        for p, s in zip(
            result.cv_results_["params"], result.cv_results_["mean_test_score"], strict=True
        )
    }
    gap = max(abs(ours[key] - means[key]) for key in means)
    print(f"largest difference of a candidate's mean nDCG@10, ragmeter vs the loop: {gap:.2e}")
    print(
        f"best: ragmeter {result.best_params_} {result.best_score_:.4f}; loop "
        f"{max(means, key=means.get)} {max(means.values()):.4f}"
    )
    hand_cpu = statistics.median(c for _, c in times["hand"])
    print(f"{'tool':<44} {'wall s':>8} {'CPU s':>8} {'CPU / loop':>11}  rounds (CPU)")
    for tool, label in (
        ("ragmeter", f"ragmeter GridSearchCV ({n * args.folds} fits + refit)"),
        ("hand", "hand-written bm25s + numpy loop"),
    ):
        wall = statistics.median(w for w, _ in times[tool])
        cpu = statistics.median(c for _, c in times[tool])
        rounds = ", ".join(f"{c:.2f}" for _, c in times[tool])
        print(f"{label:<44} {wall:>8.3f} {cpu:>8.3f} {cpu / hand_cpu:>10.2f}x  {rounds}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
