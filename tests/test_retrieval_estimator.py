"""RetrievalEstimator: the scikit-learn protocol, model selection over queries (scores checked
against rank_bm25's rankings evaluated by pytrec_eval), the index cache and the estimator
checks."""

from __future__ import annotations

import copy
import inspect
import pickle
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import pytrec_eval
from rank_bm25 import BM25Okapi
from scipy.stats import randint, uniform
from sklearn.base import clone
from sklearn.exceptions import NotFittedError, SkipTestWarning
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    cross_val_predict,
    cross_validate,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import (
    estimator_checks_generator,
    parametrize_with_checks,
)

import ragmeter
from ragmeter import (
    CorpusDocument,
    InvalidInputError,
    RetrievalConfig,
    RetrievalError,
    RetrievalIndex,
    evaluate_retrieval,
    get_corpus_scorer,
    make_corpus_scorer,
    recall_at_k,
)
from ragmeter.retrieval import (
    DEFAULT_INDEX_CACHE_SIZE,
    RetrievalEstimator,
    clear_index_cache,
    index_cache_info,
    set_index_cache_size,
)
from ragmeter.retrieval import _bm25 as bm25_module


def words(text):
    return re.findall(r"\w+", text.lower())


def make_collection(seed=0, n_docs=150, n_queries=60):
    """Documents drawn from a Zipf-like vocabulary with lengths from 4 to 80 words; each query
    takes three words of a target document (grade 2) and one random word, and a second document
    sharing a word with it is judged 1. The group of a query is its target's topic."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(300)]
    weights = 1.0 / np.arange(1, 301)
    weights /= weights.sum()
    documents = []
    for i in range(n_docs):
        text = " ".join(rng.choice(vocabulary, size=rng.integers(4, 80), p=weights))
        documents.append(
            CorpusDocument(doc_id=f"d{i}", input_path=f"mem://{i % 10}", chunk_index=i, text=text)
        )
    queries, qrels, groups = [], [], []
    for _ in range(n_queries):
        target = int(rng.integers(n_docs))
        target_words = words(documents[target].text)
        query = [*rng.choice(target_words, size=3), rng.choice(vocabulary)]
        other = next(
            (j for j in rng.permutation(n_docs) if j != target and query[0] in documents[j].text),
            (target + 1) % n_docs,
        )
        queries.append(" ".join(query))
        qrels.append({f"d{target}": 2, f"d{other}": 1})
        groups.append(target % 10)
    return documents, queries, qrels, groups


DOCUMENTS, QUERIES, QRELS, GROUPS = make_collection()


def oracle_rankings(documents, queries, *, bm25_k1, bm25_b, top_k):
    """rank_bm25's BM25Okapi, documents holding a query word and scoring > 0, best first, ties
    in corpus order, cut to top_k."""
    tokens = [words(doc.text) for doc in documents]
    bm25 = BM25Okapi(tokens, k1=bm25_k1, b=bm25_b)
    rankings = []
    for query in queries:
        query_tokens = words(query)
        scores = bm25.get_scores(query_tokens)
        kept = [i for i, t in enumerate(tokens) if set(query_tokens) & set(t) and scores[i] > 0]
        kept.sort(key=lambda i: (-scores[i], i))
        rankings.append([documents[i].doc_id for i in kept[:top_k]])
    return rankings


def oracle_mean(qrels, rankings, measure):
    """pytrec_eval's mean of ``measure`` ("ndcg_cut.10", "recall.5") over the queries; a query
    with an empty ranking (absent from the run, so from pytrec_eval's results) scores 0."""
    judged = {str(i): dict(q) for i, q in enumerate(qrels)}
    run = {str(i): {d: float(len(r) - j) for j, d in enumerate(r)} for i, r in enumerate(rankings)}
    run = {q: r for q, r in run.items() if r}
    results = pytrec_eval.RelevanceEvaluator(judged, {measure}).evaluate(run)
    key = measure.replace(".", "_")
    return float(np.mean([results.get(str(i), {}).get(key, 0.0) for i in range(len(qrels))]))


def take(sequence, indices):
    return [sequence[i] for i in indices]


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_index_cache()
    set_index_cache_size(DEFAULT_INDEX_CACHE_SIZE)
    yield
    clear_index_cache()
    set_index_cache_size(DEFAULT_INDEX_CACHE_SIZE)


# -- parameters ---------------------------------------------------------------------------------


def test_parameters_are_the_config_fields_with_the_same_defaults():
    signature = inspect.signature(RetrievalEstimator)
    config_fields = list(RetrievalConfig.__dataclass_fields__)
    assert list(signature.parameters) == ["documents", *config_fields, "n_threads"]
    defaults = RetrievalConfig()
    for name in config_fields:
        assert signature.parameters[name].default == getattr(defaults, name), name
    params = RetrievalEstimator().get_params()
    assert set(params) == {"documents", "n_threads", *config_fields}


def test_set_params_then_fit_checks_them_naming_the_parameter():
    estimator = RetrievalEstimator(documents=DOCUMENTS).set_params(bm25_k1=0.8, top_k=3)
    assert estimator.get_params()["bm25_k1"] == 0.8
    estimator.fit(QUERIES, QRELS)
    assert estimator.config_ == RetrievalConfig(bm25_k1=0.8, top_k=3)
    with pytest.raises(InvalidInputError, match="bm25_b"):
        RetrievalEstimator(documents=DOCUMENTS, bm25_b=2.0).fit(QUERIES)
    with pytest.raises(InvalidInputError, match="n_threads"):
        RetrievalEstimator(documents=DOCUMENTS, n_threads=0).fit(QUERIES)
    with pytest.raises(ValueError, match="Invalid parameter 'k1'"):
        RetrievalEstimator().set_params(k1=1.0)


def test_clone_shares_the_corpus_and_drops_the_fit():
    estimator = RetrievalEstimator(documents=DOCUMENTS, bm25_b=0.3).fit(QUERIES)
    twin = clone(estimator)
    assert twin.documents is DOCUMENTS
    assert twin.get_params() == estimator.get_params()
    assert not hasattr(twin, "index_")
    # A copy the user makes is a real copy.
    assert copy.deepcopy(estimator).documents is not DOCUMENTS


def test_tags_say_text_input_without_a_required_target():
    tags = get_tags(RetrievalEstimator())
    assert tags.input_tags.string and tags.input_tags.one_d_array
    assert not tags.input_tags.two_d_array
    assert tags.target_tags.required is False
    assert tags.requires_fit and tags.estimator_type is None


def test_repr_summarises_the_corpus():
    estimator = RetrievalEstimator(documents=DOCUMENTS, bm25_k1=1.2, top_k=5)
    assert repr(estimator) == (
        f"RetrievalEstimator(bm25_k1=1.2, documents=<{len(DOCUMENTS)} documents>, top_k=5)"
    )
    assert repr(RetrievalEstimator()) == "RetrievalEstimator()"


def test_import_ragmeter_does_not_import_scikit_learn():
    code = textwrap.dedent(
        """
        import sys
        import ragmeter
        from ragmeter import *
        from ragmeter.retrieval import *
        assert "sklearn" not in sys.modules
        assert ragmeter.RetrievalEstimator.__name__ == "RetrievalEstimator"
        assert "sklearn" in sys.modules
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert ragmeter.RetrievalEstimator is RetrievalEstimator


def test_without_scikit_learn_the_error_names_the_extra():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["sklearn"] = None
        import ragmeter
        try:
            ragmeter.RetrievalEstimator
        except ragmeter.MissingDependencyError as exc:
            assert "ragmeter[sklearn]" in str(exc), exc
            print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# -- fit and predict ----------------------------------------------------------------------------


@pytest.mark.parametrize(("k1", "b", "top_k"), [(1.5, 0.75, 10), (0.6, 0.2, 5), (2.5, 1.0, 30)])
def test_predict_ranks_as_rank_bm25(k1, b, top_k):
    estimator = RetrievalEstimator(bm25_variant="okapi", bm25_k1=k1, bm25_b=b, top_k=top_k)
    predicted = estimator.fit(DOCUMENTS).predict(QUERIES)
    assert isinstance(predicted, np.ndarray) and predicted.dtype == object
    assert predicted.shape == (len(QUERIES),)
    expected = oracle_rankings(DOCUMENTS, QUERIES, bm25_k1=k1, bm25_b=b, top_k=top_k)
    assert predicted.tolist() == expected
    assert estimator.n_documents_ == len(DOCUMENTS)


def test_predict_returns_one_list_per_query_even_when_all_lengths_agree():
    estimator = RetrievalEstimator(top_k=1).fit(DOCUMENTS)
    predicted = estimator.predict(QUERIES[:3])
    assert predicted.shape == (3,) and all(isinstance(r, list) and len(r) == 1 for r in predicted)
    assert estimator.predict([]).shape == (0,)


def test_semantic_and_hybrid_queries_are_text_embedding_pairs():
    rng = np.random.default_rng(5)
    vectors = {doc.doc_id: rng.normal(size=3) for doc in DOCUMENTS}
    embedded = [
        CorpusDocument(
            doc_id=d.doc_id,
            input_path=d.input_path,
            chunk_index=d.chunk_index,
            text=d.text,
            embedding=vectors[d.doc_id],
        )
        for d in DOCUMENTS
    ]
    index = RetrievalIndex().build(embedded)
    pairs = [(q, rng.normal(size=3)) for q in QUERIES[:10]]
    for mode in ("semantic", "hybrid"):
        estimator = RetrievalEstimator(documents=embedded, match_mode=mode, hybrid_alpha=0.7)
        predicted = estimator.fit(pairs).predict(pairs)
        config = estimator.config_
        expected = [index.search(q, config=config, query_embedding=v).doc_ids for q, v in pairs]
        assert predicted.tolist() == expected
    hybrid = RetrievalEstimator(documents=embedded, match_mode="hybrid").fit(QUERIES)
    with pytest.raises(RetrievalError, match=r"query 1 .*NO_QUERY_EMBEDDING"):
        hybrid.predict([pairs[0], QUERIES[1]])
    with pytest.raises(InvalidInputError, match="semantic search needs the query's embedding"):
        RetrievalEstimator(documents=embedded, match_mode="semantic").fit().predict(QUERIES[:2])


def test_fit_and_predict_refuse_inputs_that_cannot_be_what_they_should():
    with pytest.raises(InvalidInputError, match="pass the corpus as RetrievalEstimator"):
        RetrievalEstimator().fit(QUERIES)  # queries where the corpus was expected
    with pytest.raises(InvalidInputError, match="y: judgments were given"):
        RetrievalEstimator().fit(DOCUMENTS, QRELS[:150])
    with pytest.raises(InvalidInputError, match="X holds the queries"):
        RetrievalEstimator(documents=DOCUMENTS).fit(DOCUMENTS)
    with pytest.raises(InvalidInputError, match="documents: expected a list"):
        RetrievalEstimator(documents="corpus.jsonl").fit(QUERIES)
    with pytest.raises(InvalidInputError, match="no documents"):
        RetrievalEstimator(documents=[]).fit(QUERIES)
    fitted = RetrievalEstimator(documents=DOCUMENTS).fit(QUERIES)
    with pytest.raises(InvalidInputError, match=r"list\(queries.values\(\)\)"):
        fitted.predict({"q1": "blood"})
    with pytest.raises(InvalidInputError, match="item 1 is a int"):
        fitted.predict(["blood", 3])
    with pytest.raises(InvalidInputError, match=r"shape \(2, 2\)"):
        fitted.predict(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(NotFittedError):
        RetrievalEstimator(documents=DOCUMENTS).predict(QUERIES)


def test_search_and_evaluate_retrieval_use_the_fitted_settings():
    estimator = RetrievalEstimator(documents=DOCUMENTS, top_k=3, bm25_b=0.2).fit(QUERIES)
    index = RetrievalIndex(RetrievalConfig(top_k=3, bm25_b=0.2)).build(DOCUMENTS)
    assert estimator.search(QUERIES[0]).doc_ids == index.search(QUERIES[0]).doc_ids
    queries = {f"q{i}": q for i, q in enumerate(QUERIES)}
    qrels = {f"q{i}": q for i, q in enumerate(QRELS)}
    report = evaluate_retrieval(estimator, queries, qrels, metrics=["ndcg@10"])
    expected = oracle_mean(QRELS, estimator.predict(QUERIES).tolist(), "ndcg_cut.10")
    assert float(report.metrics["ndcg@10"]) == pytest.approx(expected, abs=1e-12)
    scorer = get_corpus_scorer("ndcg@10", response_method="search")
    assert scorer(estimator, QUERIES, QRELS) == pytest.approx(expected, abs=1e-12)


def test_fitted_estimator_pickles():
    estimator = RetrievalEstimator(documents=DOCUMENTS, bm25_variant="bm25plus").fit(QUERIES)
    back = pickle.loads(pickle.dumps(estimator))
    assert back.predict(QUERIES).tolist() == estimator.predict(QUERIES).tolist()


# -- model selection ----------------------------------------------------------------------------

GRID = {"bm25_k1": [0.5, 1.2, 2.0], "bm25_b": [0.3, 0.75], "top_k": [5, 10]}


def test_grid_search_scores_equal_pytrec_eval_on_rank_bm25_rankings():
    cv = KFold(n_splits=4, shuffle=True, random_state=1)
    search = GridSearchCV(
        RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi"),
        GRID,
        scoring={
            "ndcg@10": get_corpus_scorer("ndcg@10"),
            "recall@5": make_corpus_scorer(recall_at_k, k=5),
        },
        refit="ndcg@10",
        cv=cv,
    ).fit(QUERIES, QRELS)
    folds = [test for _, test in cv.split(QUERIES)]
    expected = {"ndcg@10": [], "recall@5": []}
    for params in search.cv_results_["params"]:
        rankings = oracle_rankings(DOCUMENTS, QUERIES, **params)
        for name, measure in (("ndcg@10", "ndcg_cut.10"), ("recall@5", "recall.5")):
            per_fold = [oracle_mean(take(QRELS, f), take(rankings, f), measure) for f in folds]
            expected[name].append(np.mean(per_fold))
    for name in expected:
        assert search.cv_results_[f"mean_test_{name}"] == pytest.approx(expected[name], abs=1e-12)
    best = int(np.argmax(expected["ndcg@10"]))  # the first best, as scikit-learn picks
    assert search.best_params_ == search.cv_results_["params"][best]
    assert search.best_score_ == pytest.approx(expected["ndcg@10"][best], abs=1e-12)
    # One index for 12 candidates x 4 folds and the refit.
    assert index_cache_info().misses == 1 and index_cache_info().hits == 12 * 4


def test_group_kfold_keeps_each_topic_in_one_fold():
    cv = GroupKFold(n_splits=5)
    result = cross_validate(
        RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi"),
        QUERIES,
        QRELS,
        groups=GROUPS,
        cv=cv,
        scoring=get_corpus_scorer("ndcg@10"),
    )
    rankings = oracle_rankings(DOCUMENTS, QUERIES, bm25_k1=1.5, bm25_b=0.75, top_k=10)
    expected = []
    for train, test in cv.split(QUERIES, QRELS, GROUPS):
        assert not set(take(GROUPS, train)) & set(take(GROUPS, test))
        expected.append(oracle_mean(take(QRELS, test), take(rankings, test), "ndcg_cut.10"))
    assert result["test_score"] == pytest.approx(expected, abs=1e-12)


def test_randomized_search_accepts_scipy_distributions():
    search = RandomizedSearchCV(
        RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi"),
        {"bm25_k1": uniform(0.2, 2.0), "bm25_b": uniform(0.0, 1.0), "top_k": randint(3, 15)},
        n_iter=6,
        scoring=get_corpus_scorer("ndcg@10"),
        cv=KFold(3),
        random_state=0,
    ).fit(QUERIES, QRELS)
    folds = [test for _, test in KFold(3).split(QUERIES)]
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        rankings = oracle_rankings(DOCUMENTS, QUERIES, **params)
        expected = np.mean(
            [oracle_mean(take(QRELS, f), take(rankings, f), "ndcg_cut.10") for f in folds]
        )
        assert score == pytest.approx(expected, abs=1e-12)


def test_pipeline_with_a_query_transformer():
    def expand(queries):
        # A query rewriter: every query also asks for its first word twice.
        return [f"{q} {q.split()[0]} {q.split()[0]}" for q in queries]

    pipeline = Pipeline(
        [
            ("expand", FunctionTransformer(expand, validate=False)),
            ("retrieve", RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi")),
        ]
    )
    search = GridSearchCV(
        pipeline,
        {"retrieve__bm25_k1": [0.8, 1.6], "retrieve__top_k": [5]},
        scoring=get_corpus_scorer("recall@5"),
        cv=KFold(3),
    ).fit(QUERIES, QRELS)
    assert set(search.best_params_) == {"retrieve__bm25_k1", "retrieve__top_k"}
    best_k1 = search.best_params_["retrieve__bm25_k1"]
    expected = oracle_rankings(DOCUMENTS, expand(QUERIES), bm25_k1=best_k1, bm25_b=0.75, top_k=5)
    assert search.predict(QUERIES).tolist() == expected


def test_cross_val_predict_returns_every_query_ranking():
    predicted = cross_val_predict(
        RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi"), QUERIES, QRELS, cv=KFold(4)
    )
    expected = oracle_rankings(DOCUMENTS, QUERIES, bm25_k1=1.5, bm25_b=0.75, top_k=10)
    assert predicted.tolist() == expected


def test_parallel_grid_search_in_worker_processes():
    search = GridSearchCV(
        RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi"),
        {"bm25_k1": [0.5, 1.5]},
        scoring=get_corpus_scorer("ndcg@10"),
        cv=KFold(2),
        n_jobs=2,
    ).fit(QUERIES, QRELS)
    serial = GridSearchCV(
        RetrievalEstimator(documents=DOCUMENTS, bm25_variant="okapi"),
        {"bm25_k1": [0.5, 1.5]},
        scoring=get_corpus_scorer("ndcg@10"),
        cv=KFold(2),
    ).fit(QUERIES, QRELS)
    assert search.cv_results_["mean_test_score"].tolist() == pytest.approx(
        serial.cv_results_["mean_test_score"].tolist(), abs=1e-12
    )


# -- the index cache ----------------------------------------------------------------------------


def test_search_time_parameters_reuse_one_build_per_text_choice(monkeypatch):
    built = []
    original = bm25_module.Bm25Matrix.__init__

    def counting(self, documents):
        built.append(len(documents))
        original(self, documents)

    monkeypatch.setattr(bm25_module.Bm25Matrix, "__init__", counting)
    GridSearchCV(
        RetrievalEstimator(documents=DOCUMENTS),
        {
            "bm25_k1": [0.5, 1.5],
            "bm25_variant": ["lucene", "bm25l"],
            "top_k": [3, 10],
            "use_normalized_text": [True, False],
        },
        scoring=get_corpus_scorer("mrr"),
        cv=KFold(3),
    ).fit(QUERIES, QRELS)
    # One tokenisation per text choice (normalized_text or text), whatever the other settings.
    assert built == [len(DOCUMENTS), len(DOCUMENTS)]
    assert index_cache_info().misses == 1


def test_hybrid_weights_are_search_time_parameters():
    rng = np.random.default_rng(9)
    embedded = [
        CorpusDocument(
            doc_id=d.doc_id,
            input_path=d.input_path,
            chunk_index=d.chunk_index,
            text=d.text,
            embedding=rng.normal(size=4),
        )
        for d in DOCUMENTS
    ]
    pairs = [(q, rng.normal(size=4)) for q in QUERIES]
    cv = KFold(3)
    search = GridSearchCV(
        RetrievalEstimator(documents=embedded, match_mode="hybrid"),
        {"hybrid_alpha": [0.0, 0.3, 1.0], "rrf_k": [5, 60], "top_k": [3, 10]},
        scoring=get_corpus_scorer("ndcg@10"),
        cv=cv,
    ).fit(pairs, QRELS)
    assert (index_cache_info().misses, index_cache_info().hits) == (1, 12 * 3)
    # Each candidate's score: the index's own hybrid rankings (fusion checked by hand in
    # test_retrieval.py), scored by pytrec_eval.
    index = RetrievalIndex().build(embedded)
    folds = [test for _, test in cv.split(pairs)]
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        config = RetrievalConfig(match_mode="hybrid", **params)
        rankings = [index.search(q, config=config, query_embedding=v).doc_ids for q, v in pairs]
        expected = np.mean(
            [oracle_mean(take(QRELS, f), take(rankings, f), "ndcg_cut.10") for f in folds]
        )
        assert score == pytest.approx(expected, abs=1e-12)
    assert len(set(np.round(search.cv_results_["mean_test_score"], 12))) > 1


def test_cache_is_bounded_and_least_recently_used_goes_first():
    set_index_cache_size(2)
    corpora = [make_collection(seed)[0] for seed in (1, 2, 3)]
    for corpus in corpora:
        RetrievalEstimator().fit(corpus)
    info = index_cache_info()
    assert (info.size, info.maxsize, info.misses, info.hits) == (2, 2, 3, 0)
    assert info.nbytes > 0
    RetrievalEstimator().fit(corpora[2])  # held
    RetrievalEstimator().fit(corpora[0])  # evicted first: built again
    assert (index_cache_info().hits, index_cache_info().misses) == (1, 4)
    set_index_cache_size(0)
    assert index_cache_info().size == 0
    RetrievalEstimator().fit(corpora[0])
    assert index_cache_info().size == 0
    with pytest.raises(InvalidInputError, match="maxsize"):
        set_index_cache_size(-1)


def test_cache_recognises_copies_and_sees_changes():
    RetrievalEstimator().fit(DOCUMENTS)
    RetrievalEstimator().fit(pickle.loads(pickle.dumps(DOCUMENTS)))  # equal, other objects
    assert (index_cache_info().misses, index_cache_info().hits) == (1, 1)
    corpus = list(DOCUMENTS)
    estimator = RetrievalEstimator(documents=corpus, top_k=1).fit(QUERIES)
    assert estimator.predict(["zebra"]).tolist() == [[]]
    corpus[0] = CorpusDocument(doc_id="d0", input_path="mem://0", chunk_index=0, text="zebra")
    assert estimator.fit(QUERIES).predict(["zebra"]).tolist() == [["d0"]]
    assert index_cache_info().misses == 2


# -- scikit-learn's estimator checks ------------------------------------------------------------

SMALL = DOCUMENTS[:20]


def test_scikit_learn_runs_only_the_clone_check_on_a_text_estimator():
    # With tags that say "text, not a 2-D array" (as scikit-learn's own CountVectorizer's),
    # scikit-learn generates the clone check and skips every other, saying so.
    with pytest.warns(SkipTestWarning, match="Can't test estimator RetrievalEstimator"):
        checks = list(estimator_checks_generator(RetrievalEstimator(documents=SMALL)))
    assert [check.func.__name__ for _, check in checks] == ["check_estimator_cloneable"]


with warnings.catch_warnings():
    warnings.simplefilter("ignore", SkipTestWarning)  # the warning asserted just above
    TEXT_ESTIMATOR_CHECKS = parametrize_with_checks(
        [RetrievalEstimator(documents=SMALL)], xfail_strict=True
    )


@TEXT_ESTIMATOR_CHECKS
def test_estimator_checks_for_a_text_estimator(estimator, check):
    check(estimator)


class ClaimsNumericInput(RetrievalEstimator):
    """The same estimator with tags claiming a 2-D numeric X, so that scikit-learn generates
    every check; the checks that then fit or predict on its numeric matrices fail, for the one
    reason given in NUMERIC_X."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = True
        tags.input_tags.one_d_array = False
        tags.input_tags.string = False
        return tags


NUMERIC_X = (
    "feeds X as a numeric matrix, but a retriever's X is a list of queries (str or (text, "
    "embedding) pairs): it raises InvalidInputError"
)
NUMERIC_X_CHECKS = [
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
]
# Checks whose numeric X is meant to be refused, but with scikit-learn's wording for numeric
# arrays, which a query list has no reason to use.
WORDING_CHECKS = {
    "check_complex_data": "expects the words 'Complex data not supported' for a complex matrix",
    "check_estimators_empty_data_messages": "expects the message of check_array for 0 features",
    "check_estimators_nan_inf": "expects a message about NaN or infinity in a numeric matrix",
    "check_fit2d_1sample": "expects check_array's message for one sample of a numeric matrix",
    "check_fit2d_1feature": "expects check_array's message for one feature of a numeric matrix",
}


def expected_failures(estimator):
    return {**dict.fromkeys(NUMERIC_X_CHECKS, NUMERIC_X), **WORDING_CHECKS}


def numeric_checks():
    """parametrize_with_checks' parameters, without check_array_api_input: it needs SCIPY_ARRAY_API
    set before SciPy is imported and otherwise skips, and array namespaces are no input of a
    retriever."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkipTestWarning)
        decorator = parametrize_with_checks(
            [ClaimsNumericInput(documents=SMALL)],
            expected_failed_checks=expected_failures,
            xfail_strict=True,
        )
    mark = decorator.mark
    kept = [
        param
        for param in mark.args[1]
        if "check_array_api_input" not in repr(getattr(param, "values", param))
    ]
    assert len(kept) == len(mark.args[1]) - 1
    return pytest.mark.parametrize(mark.args[0], kept, **mark.kwargs)


@numeric_checks()
def test_estimator_checks_claiming_numeric_input(estimator, check):
    # Passing: cloning, repr, tags, no attributes set in __init__, nothing raised by __init__ or
    # set_params, predict before fit raises NotFittedError, get/set_params invariance, the
    # default constructor, a 1-D numeric X refused, sparse input refused naming "sparse".
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
