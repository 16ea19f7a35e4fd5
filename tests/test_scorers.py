"""scikit-learn scorers: make_corpus_scorer, get_corpus_scorer, model selection, no sklearn."""

import pickle
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest
from sklearn.base import BaseEstimator
from sklearn.model_selection import GridSearchCV, KFold, cross_validate

import ragmeter
from ragmeter import get_corpus_scorer, make_corpus_scorer, recall_at_k, scorer_backend_info

QUERIES = ["q-a", "q-b", "q-c", "q-d"]
QRELS = [["a"], ["b"], ["c"], ["d"]]
# Each query's ranking: the right document first for a and b, second for c and d.
RANKINGS = {"q-a": ["a", "x"], "q-b": ["b", "x"], "q-c": ["x", "c"], "q-d": ["x", "d"]}


class Searcher:
    """Anything with search(query): returns hits with .doc.doc_id."""

    def search(self, query):
        return [SimpleNamespace(doc=SimpleNamespace(doc_id=d), score=1.0) for d in RANKINGS[query]]


class TableRetriever(BaseEstimator):
    """A retriever with a tunable cut: predict returns the first `top_k` ids."""

    predict_calls = 0

    def __init__(self, top_k=2, shift=False):
        self.top_k = top_k
        self.shift = shift

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        type(self).predict_calls += 1
        out = []
        for q in X:
            ranking = RANKINGS[q]
            if self.shift:
                ranking = ranking[::-1]
            out.append(ranking[: self.top_k])
        return out


def test_search_scorer_on_anything_with_search():
    scorer = make_corpus_scorer(recall_at_k, response_method="search", k=1)
    assert scorer(Searcher(), QUERIES, QRELS) == 0.5
    mrr = get_corpus_scorer("mrr", response_method="search")
    assert mrr(Searcher(), QUERIES, QRELS) == pytest.approx((1 + 1 + 0.5 + 0.5) / 4)


def test_search_accepts_plain_ids_and_responses():
    class Ids:
        def search(self, query):
            return RANKINGS[query]

    class Response:
        def search(self, query):
            return SimpleNamespace(hits=[SimpleNamespace(doc_id=d) for d in RANKINGS[query]])

    for retriever in (Ids(), Response()):
        assert (
            get_corpus_scorer("recall@1", response_method="search")(retriever, QUERIES, QRELS)
            == 0.5
        )


def test_predict_scorer_and_greater_is_better():
    est = TableRetriever(top_k=1)
    assert get_corpus_scorer("recall@2")(est, QUERIES, QRELS) == 0.5
    loss = make_corpus_scorer(recall_at_k, greater_is_better=False, k=2)
    assert loss(TableRetriever(top_k=2), QUERIES, QRELS) == -1.0


def test_cross_validate_and_grid_search():
    result = cross_validate(
        TableRetriever(top_k=1), QUERIES, QRELS, cv=KFold(2), scoring=get_corpus_scorer("mrr")
    )
    # Fold 1 tests q-a, q-b (rank 1): 1.0; fold 2 tests q-c, q-d cut to one doc: 0.0.
    assert result["test_score"].tolist() == [1.0, 0.0]
    search = GridSearchCV(
        TableRetriever(),
        {"top_k": [1, 2], "shift": [False, True]},
        scoring={"recall@2": get_corpus_scorer("recall@2"), "mrr": get_corpus_scorer("mrr")},
        refit="mrr",
        cv=KFold(2),
    ).fit(QUERIES, QRELS)
    # mrr: unshifted top 2 -> (1,1 | .5,.5) = .75; shifted top 2 -> (.5,.5 | 1,1) = .75;
    # unshifted top 1 -> .5; the first best in parameter order wins.
    assert search.best_params_ == {"shift": False, "top_k": 2}
    assert search.cv_results_["mean_test_recall@2"].tolist() == [0.5, 1.0, 0.5, 1.0]


def test_multimetric_search_shares_one_predict_call():
    TableRetriever.predict_calls = 0
    cross_validate(
        TableRetriever(),
        QUERIES,
        QRELS,
        cv=KFold(2),
        scoring={"r": get_corpus_scorer("recall@1"), "m": get_corpus_scorer("mrr")},
    )
    assert TableRetriever.predict_calls == 2  # one per fold, not one per scorer


def test_scorer_pickles_for_parallel_workers():
    scorer = get_corpus_scorer("ndcg@3", response_method="search")
    back = pickle.loads(pickle.dumps(scorer))
    assert back(Searcher(), QUERIES, QRELS) == scorer(Searcher(), QUERIES, QRELS)
    assert repr(back) == (
        "make_corpus_scorer(measure_score, response_method='search', measure='ndcg@3')"
    )


def test_backend_info_names_scikit_learn():
    import sklearn

    info = scorer_backend_info()
    assert info.backend == "sklearn"
    assert info.base_class == "sklearn.metrics._scorer._BaseScorer"
    assert info.sklearn_version == sklearn.__version__


def test_bad_arguments():
    with pytest.raises(ValueError, match="response_method: must be one of 'predict', 'search'"):
        make_corpus_scorer(recall_at_k, response_method="predict_proba")
    with pytest.raises(TypeError, match="score_func must be callable"):
        make_corpus_scorer("recall")
    with pytest.raises(ValueError, match=r"unknown metric 'bleu'.*answer metrics: exact_match"):
        get_corpus_scorer("bleu")
    with pytest.raises(TypeError, match="needs an estimator with a search"):
        get_corpus_scorer("mrr", response_method="search")(TableRetriever(), QUERIES, QRELS)
    with pytest.raises(TypeError, match="take no sample_weight"):
        get_corpus_scorer("mrr")(TableRetriever(), QUERIES, QRELS, sample_weight=[1, 1, 1, 1])


def test_without_scikit_learn():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["sklearn"] = None  # import sklearn now raises ImportError
        import ragmeter
        from types import SimpleNamespace

        class Searcher:
            def search(self, query):
                return {"q1": ["d1", "x"], "q2": ["x", "d2"]}[query]

        info = ragmeter.scorer_backend_info()
        assert info.backend == "vendored" and info.sklearn_version is None, info
        scorer = ragmeter.get_corpus_scorer("recall@1", response_method="search")
        assert scorer(Searcher(), ["q1", "q2"], [["d1"], ["d2"]]) == 0.5
        try:
            scorer.set_score_request(sample_weight=True)
        except RuntimeError as exc:
            assert "ragmeter[sklearn]" in str(exc)
        else:
            raise AssertionError("set_score_request should need scikit-learn")
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert "sklearn" not in sys.modules or ragmeter  # the parent process is unaffected


def test_a_search_scorer_refuses_incomplete_searches():
    # A failed or degraded search was scored as if its ranking were complete; evaluate_retrieval
    # and RetrievalEstimator.predict refuse it, and so does the scorer.
    from ragmeter import RetrievalError
    from ragmeter.retrieval import RetrievalResponse, RetrievalStatus

    class Failing:
        def search(self, query):
            return RetrievalResponse(status=RetrievalStatus.FAILED)

    with pytest.raises(RetrievalError, match="the search failed"):
        get_corpus_scorer("recall@1", response_method="search")(Failing(), QUERIES, QRELS)
