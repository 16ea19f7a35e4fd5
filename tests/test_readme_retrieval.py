"""The README's "Tune a retriever with scikit-learn" example runs as written, its comments say
what it returns, and its numbers agree with bm25s's rankings scored by pytrec_eval."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import bm25s
import numpy as np
import pytest
import pytrec_eval

from ragmeter.retrieval import clear_index_cache, index_cache_info

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def example() -> str:
    section = README[README.index("### Tune a retriever with scikit-learn") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no python block in the section"
    return match.group(1)


def promised(comment: str) -> object:
    """The literal a comment starts with: all of it, or what comes before ": "."""
    for text in (comment, comment.split(": ", 1)[0]):
        try:
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            continue
    raise AssertionError(f"comment {comment!r} promises no literal")


def run_example() -> tuple[dict, int]:
    """Run the block statement by statement; each expression must equal its comment."""
    code = example()
    lines = code.splitlines()
    namespace: dict = {}
    checked = 0
    for statement in ast.parse(code).body:
        source = ast.get_source_segment(code, statement)
        assert source is not None
        last_line = lines[statement.end_lineno - 1]
        comment = last_line.partition("  # ")[2]
        if isinstance(statement, ast.Expr) and comment:
            value = eval(compile(ast.Expression(statement.value), "README.md", "eval"), namespace)
            assert value == promised(comment), (source, value, comment)
            checked += 1
        else:
            exec(compile(ast.Module([statement], []), "README.md", "exec"), namespace)
    return namespace, checked


def words(text):
    return re.findall(r"\w+", text.lower())


def test_tuning_example_returns_what_its_comments_say():
    clear_index_cache()
    namespace, checked = run_example()
    assert checked == 4
    search = namespace["search"]
    # What the README says: 33 fits (8 candidates x 4 folds and the refit), one index built.
    assert search.n_splits_ == 4 and len(search.cv_results_["params"]) == 8
    info = index_cache_info()
    assert (info.misses, info.hits) == (1, 32)


def test_tuning_example_scores_equal_bm25s_rankings_scored_by_pytrec_eval():
    namespace, _ = run_example()
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
