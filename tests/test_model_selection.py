"""Model selection with per-query values (issue 50 item 7): the out-of-fold per-query values
average to GridSearchCV's own split scores, and the choice "the simplest candidate not
significantly worse than the best" follows scipy's paired t-test with statsmodels' Holm
correction, candidate by candidate."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.model_selection import GridSearchCV, KFold
from statsmodels.stats.multitest import multipletests

from ragmeter import InvalidInputError, RetrievalEstimator, get_corpus_scorer
from ragmeter.demo import load_demo_corpus
from ragmeter.model_selection import per_query_scores, simplest_not_worse

# Strict matching (the demo's "strict" retriever) is much worse than BM25: a candidate the
# test shows worse, ranked "simplest" first, so that the rule must skip it.
GRID = [
    {"match_mode": ["strict"], "top_k": [1]},
    {"match_mode": ["keyword"], "top_k": [1, 2, 3, 5, 10], "bm25_k1": [0.0, 1.2]},
]


@pytest.fixture(scope="module")
def searched():
    corpus, queries, judgments = load_demo_corpus()
    X, y = list(queries.values()), [judgments[q] for q in queries]
    search = GridSearchCV(
        RetrievalEstimator(documents=corpus),
        GRID,
        scoring=get_corpus_scorer("ndcg@10"),
        cv=KFold(4),
    ).fit(X, y)
    return search, X, y, list(queries)


def test_per_query_values_average_to_the_searchs_split_scores(searched) -> None:
    search, X, y, ids = searched
    values = per_query_scores(search, X, y, measure="ndcg@10", query_ids=ids)
    assert len(values) == len(search.cv_results_["params"])
    for index, by_query in values.items():
        assert list(by_query) == ids
        for split, (_, test) in enumerate(KFold(4).split(X)):
            mean = np.mean([by_query[ids[i]] for i in test])
            expected = search.cv_results_[f"split{split}_test_score"][index]
            assert mean == pytest.approx(expected, abs=1e-12)


def test_the_choice_follows_scipys_paired_t_test_with_holm(searched) -> None:
    search, X, y, ids = searched

    def simpler(params):
        return (params["match_mode"] != "strict", params["top_k"], params.get("bm25_k1", 0))

    choice = simplest_not_worse(
        search, X, y, measure="ndcg@10", simpler=simpler, test="t", query_ids=ids
    )
    values = choice.per_query
    means = {i: np.mean(list(v.values())) for i, v in values.items()}
    best = max(means, key=lambda i: (means[i], -i))
    assert choice.best_index == best
    others = [i for i in values if i != best]
    p = {}
    for i in others:
        a = np.array([values[i][q] for q in ids])
        b = np.array([values[best][q] for q in ids])
        # Identical values: scipy's t is 0/0 (NaN); the statistics room's documented rule
        # (stats/paired.py: all-zero differences give p = 1, the exact sign-flip test's p) keeps
        # the test in Holm's family with p = 1.
        p[i] = scipy_stats.ttest_rel(a, b).pvalue if np.any(a != b) else 1.0
    adjusted = dict(zip(p, multipletests(list(p.values()), method="holm")[1], strict=True))
    worse = {i for i in others if means[i] < means[best] and adjusted[i] <= 0.05}
    order = sorted(range(len(values)), key=lambda i: simpler(search.cv_results_["params"][i]))
    expected = next(i for i in order if i == best or i not in worse)
    assert choice.index == expected and choice.order == tuple(order)
    assert dict(choice.params) == search.cv_results_["params"][expected]
    for i in others:
        item = choice.comparison[f"candidate {i}"]["ndcg@10"]
        if item.p_value_adjusted is not None and np.isfinite(item.p_value_adjusted):
            assert item.p_value_adjusted == pytest.approx(adjusted[i], rel=1e-9, abs=1e-12)
    # The simplest candidate (substring matching) is shown worse and skipped; the next simplest
    # is not, and is chosen over the search's best.
    assert order[0] in worse and choice.index == order[1] != best


def test_bad_arguments_are_refused(searched) -> None:
    search, X, y, _ = searched
    with pytest.raises(InvalidInputError, match="'alpha_x' is not a parameter"):
        simplest_not_worse(search, X, y, measure="ndcg@10", simpler="alpha_x")
    with pytest.raises(InvalidInputError, match="one judgment and one id per query"):
        per_query_scores(search, X, y[:-1], measure="ndcg@10")
    with pytest.raises(InvalidInputError, match="fitted GridSearchCV"):
        per_query_scores(GridSearchCV(RetrievalEstimator(), {"top_k": [1]}), X, y, measure="map")
