"""The example of the tuning guide (docs/guides/tune-retriever.md, "The estimator") prints what
the page shows, and its numbers agree with bm25s's rankings scored by pytrec_eval."""

from __future__ import annotations

import re

import bm25s
import numpy as np
import pytest
import pytrec_eval
from doc_pages import DOCS, python_blocks, run_examples

from ragmeter.retrieval import clear_index_cache, index_cache_info

PAGE = DOCS / "guides" / "tune-retriever.md"


def run_example() -> dict:
    """Run the page's block; every example must print what the page shows."""
    blocks = python_blocks(PAGE, "## The estimator")
    assert len(blocks) == 1 and "GridSearchCV(" in blocks[0]
    return run_examples(blocks, name="tune-retriever")


def words(text):
    return re.findall(r"\w+", text.lower())


def test_tuning_example_prints_what_the_page_shows_and_builds_one_index():
    clear_index_cache()
    namespace = run_example()
    search = namespace["search"]
    # What the page says: 33 fits (8 candidates x 4 folds and the refit), one index built.
    assert search.n_splits_ == 4 and len(search.cv_results_["params"]) == 8
    info = index_cache_info()
    assert (info.misses, info.hits) == (1, 32)


def test_tuning_example_scores_equal_bm25s_rankings_scored_by_pytrec_eval():
    namespace = run_example()
    search, documents = namespace["search"], namespace["corpus"]
    X, y = namespace["X"], namespace["y"]
    corpus_tokens = [words(doc.text) for doc in documents]
    ids = [doc.doc_id for doc in documents]
    folds = [test for _, test in search.cv.split(X)]
    expected = {"ndcg@10": [], "recall@5": []}
    for params in search.cv_results_["params"]:
        index = bm25s.BM25(
            k1=params["bm25_k1"], b=params["bm25_b"], method="lucene", dtype="float64"
        )
        index.index(corpus_tokens, show_progress=False)
        rankings = []
        for query in X:
            tokens = words(query)
            scores = index.get_scores(tokens)
            kept = [i for i, doc in enumerate(corpus_tokens) if set(tokens) & set(doc)]
            kept = [i for i in kept if scores[i] > 0]
            kept.sort(key=lambda i: (-scores[i], i))
            rankings.append([ids[i] for i in kept[: params["top_k"]]])
        for name, measure in (("ndcg@10", "ndcg_cut.10"), ("recall@5", "recall.5")):
            per_fold = []
            for fold in folds:
                judged = {str(i): y[i] for i in fold}
                run = {
                    str(i): {d: float(len(rankings[i]) - r) for r, d in enumerate(rankings[i])}
                    for i in fold
                    if rankings[i]
                }
                key = measure.replace(".", "_")
                found = pytrec_eval.RelevanceEvaluator(judged, {measure}).evaluate(run)
                per_fold.append(np.mean([found.get(str(i), {}).get(key, 0.0) for i in fold]))
            expected[name].append(np.mean(per_fold))
    for name, values in expected.items():
        assert search.cv_results_[f"mean_test_{name}"] == pytest.approx(values, abs=1e-12)
    assert search.best_index_ == int(np.argmax(expected["ndcg@10"]))
