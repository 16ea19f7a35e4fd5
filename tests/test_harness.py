"""evaluate_retrieval: the spec's examples, statuses, failures, executors, inputs, and per-query
values checked against pytrec_eval on the rankings the retriever returned."""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import pytrec_eval

import ragmeter
from ragmeter import (
    CorpusDocument,
    CustomRetrievalIndex,
    InvalidInputError,
    RetrievalConfig,
    RetrievalError,
    RetrievalHit,
    RetrievalIndex,
    RetrievalWarning,
    UndefinedMetricWarning,
    evaluate_retrieval,
)
from ragmeter.demo import load_demo_corpus

TEXTS = {
    "d1": "hemoglobin carries oxygen in red blood cells",
    "d2": "platelets help blood clot",
    "d3": "white blood cells fight infection",
}
QUERIES = {"q1": "what carries oxygen", "q2": "blood clotting cells"}
QRELS = {"q1": ["d1"], "q2": ["d2"]}
METRICS = ["recall@1", "mrr", "ndcg@3"]


@pytest.fixture
def documents():
    return [
        CorpusDocument(doc_id=key, input_path=f"memory://{key}", chunk_index=0, text=text)
        for key, text in TEXTS.items()
    ]


@pytest.fixture
def keyword_report(documents):
    index = RetrievalIndex(RetrievalConfig(match_mode="keyword", top_k=3))
    index.build(documents)
    return evaluate_retrieval(index, QUERIES, QRELS, metrics=METRICS)


# -- the spec's examples --------------------------------------------------------------------------


def test_spec_evaluate_a_retriever(keyword_report):
    report = keyword_report
    assert report.metrics == {"recall@1": 0.5, "mrr": pytest.approx(2 / 3), "ndcg@3": 0.75}
    assert repr(report.metrics["mrr"]) == "0.6666666666666666"
    assert report.status_counts == {"success": 2}
    assert set(report.latency) == {"mean", "p50", "p95", "max", "total"}
    latency = report.latency
    assert 0 < latency["p50"] <= latency["p95"] <= latency["max"]
    assert latency["total"] == pytest.approx(sum(r.latency for r in report.records))
    assert latency["mean"] == pytest.approx(latency["total"] / 2)
    assert report.metrics["mrr"].n_queries == 2
    # By hand: q1 ranks d1 first; q2 ranks d3, d1, d2 (BM25), so d2 is at rank 3.
    assert report.per_query == {
        "recall@1": {"q1": 1.0, "q2": 0.0},
        "mrr": {"q1": 1.0, "q2": pytest.approx(1 / 3)},
        "ndcg@3": {"q1": 1.0, "q2": 0.5},
    }
    assert report["q2"].retrieved == ("d3", "d1", "d2")
    assert report.n_queries == 2
    assert report.parameters["metrics"] == tuple(METRICS)


def test_spec_compare_two_systems(documents, keyword_report):
    strict = RetrievalIndex(RetrievalConfig(match_mode="strict", top_k=3))
    strict.build(documents)
    candidate = evaluate_retrieval(strict, QUERIES, QRELS, metrics=METRICS)
    comparison = candidate.compare(keyword_report)
    assert [(m.metric, m.delta, m.p_value) for m in comparison.metrics] == [
        ("recall@1", -0.5, 1.0),
        ("mrr", pytest.approx(-2 / 3), 0.5),
        ("ndcg@3", -0.75, 0.5),
    ]
    assert candidate.status_counts == {"empty": 2}
    assert comparison.method == "exact"
    assert [(m.wins, m.ties, m.losses) for m in comparison.metrics] == [
        (0, 1, 1),
        (0, 0, 2),
        (0, 0, 2),
    ]


# -- agreement with pytrec_eval -------------------------------------------------------------------


def test_per_query_values_agree_with_pytrec_eval_on_the_demo_corpus():
    documents, queries, qrels = load_demo_corpus()
    index = RetrievalIndex(RetrievalConfig(top_k=10)).build(documents)
    report = evaluate_retrieval(
        index, queries, qrels, metrics=["precision@5", "recall@5", "mrr", "ndcg@5", "ndcg"]
    )
    run = {
        q: {doc: float(100 - rank) for rank, doc in enumerate(report[q].retrieved)} for q in queries
    }
    oracle = pytrec_eval.RelevanceEvaluator(
        qrels, {"P_5", "recall_5", "recip_rank", "ndcg_cut_5", "ndcg"}
    ).evaluate(run)
    names = {
        "precision@5": "P_5",
        "recall@5": "recall_5",
        "mrr": "recip_rank",
        "ndcg@5": "ndcg_cut_5",
        "ndcg": "ndcg",
    }
    for ours, theirs in names.items():
        for q in queries:
            expected = oracle[q][theirs] if q in oracle else 0.0
            assert report.per_query[ours][q] == pytest.approx(expected, abs=1e-12), (ours, q)
        mean = np.mean([oracle.get(q, {}).get(theirs, 0.0) for q in queries])
        assert float(report.metrics[ours]) == pytest.approx(mean, abs=1e-12)


# -- what a retriever may return ------------------------------------------------------------------


@pytest.mark.parametrize(
    "result",
    [
        ["d3", "d1", "d2"],
        [("d3", 0.9), ("d1", 0.5), ("d2", 0.1)],
        {"d1": 0.5, "d2": 0.1, "d3": 0.9},
    ],
    ids=["ids", "pairs", "scores"],
)
def test_callable_retrievers_and_their_result_shapes(result):
    report = evaluate_retrieval(lambda query: result, {"q": "x"}, {"q": ["d1"]}, metrics=["mrr"])
    assert report.per_query["mrr"] == {"q": 0.5}
    assert report["q"].retrieved == ("d3", "d1", "d2")
    assert report.status_counts == {"success": 1}


def test_scored_mapping_ties_are_broken_by_doc_id_descending():
    report = evaluate_retrieval(
        lambda q: {"a": 1.0, "c": 1.0, "b": 2.0}, {"q": "x"}, {"q": ["a"]}, metrics=["mrr"]
    )
    assert report["q"].retrieved == ("b", "c", "a")


def test_hits_from_a_custom_index(documents):
    def scorer(query, docs, config):
        return [RetrievalHit(doc=docs[1], score=1.0, match_mode="custom")]

    index = CustomRetrievalIndex(custom_scorer_fn=scorer).build(documents)
    report = evaluate_retrieval(index, QUERIES, QRELS, metrics=["recall@1"])
    assert report.per_query["recall@1"] == {"q1": 0.0, "q2": 1.0}


def test_empty_rankings_are_status_empty_and_score_zero():
    report = evaluate_retrieval(lambda q: [], {"q": "x"}, {"q": ["d1"]}, metrics=["mrr"])
    assert report.status_counts == {"empty": 1}
    assert report.metrics["mrr"] == 0.0


# -- degraded and failed searches ---------------------------------------------------------------


def test_degraded_responses_raise_by_default_and_warn_on_request(documents):
    hybrid = RetrievalIndex(RetrievalConfig(match_mode="hybrid", top_k=3)).build(documents)
    with pytest.raises(RetrievalError, match=r"query 'q1'.*degraded.*NO_DENSE_INDEX"):
        evaluate_retrieval(hybrid, QUERIES, QRELS, metrics=METRICS)
    with pytest.warns(RetrievalWarning, match="2 of 2"):
        report = evaluate_retrieval(hybrid, QUERIES, QRELS, metrics=METRICS, on_degraded="warn")
    assert report.status_counts == {"degraded": 2}
    assert "NO_DENSE_INDEX" in report["q1"].error
    # The degraded hybrid search returns the keyword leg's ranking.
    assert report["q2"].retrieved == ("d3", "d1", "d2")
    assert report.metrics == {"recall@1": 0.5, "mrr": pytest.approx(2 / 3), "ndcg@3": 0.75}


def test_a_retriever_that_raises_is_recorded_as_failed():
    def flaky(query):
        if "oxygen" in query:
            raise ConnectionError("index offline")
        return ["d2"]

    with pytest.raises(RetrievalError, match=r"q1.*failed.*ConnectionError") as info:
        evaluate_retrieval(flaky, QUERIES, QRELS, metrics=METRICS)
    assert isinstance(info.value.__cause__, ConnectionError)
    with pytest.warns(RetrievalWarning):
        report = evaluate_retrieval(flaky, QUERIES, QRELS, metrics=METRICS, on_degraded="warn")
    assert report.status_counts == {"success": 1, "failed": 1}
    assert report["q1"].error == "ConnectionError: index offline"
    assert report["q1"].retrieved == ()
    assert report.per_query["mrr"] == {"q1": 0.0, "q2": 1.0}
    assert report.n_queries == 2


def test_unusable_results_are_failures_naming_the_query():
    with pytest.raises(RetrievalError, match="None"):
        evaluate_retrieval(lambda q: None, {"q": "x"}, {"q": ["d"]}, metrics=["mrr"])
    with pytest.raises(RetrievalError, match="wrap a single id"):
        evaluate_retrieval(lambda q: "d1", {"q": "x"}, {"q": ["d"]}, metrics=["mrr"])
    with pytest.raises(RetrievalError, match="float at position 0"):
        evaluate_retrieval(lambda q: [1.5], {"q": "x"}, {"q": ["d"]}, metrics=["mrr"])


def test_cancelled_status_is_incomplete(documents):
    from ragmeter import RetrievalResponse

    response = RetrievalResponse((), (), "x", status="cancelled")
    with pytest.raises(RetrievalError, match="cancelled"):
        evaluate_retrieval(lambda q: response, {"q": "x"}, {"q": ["d1"]}, metrics=["mrr"])


# -- executors, progress, embeddings --------------------------------------------------------------


def test_executor_gives_the_same_evaluation_in_query_order():
    documents, queries, qrels = load_demo_corpus()
    index = RetrievalIndex(RetrievalConfig(top_k=5)).build(documents)

    class Slow:
        def search(self, query):
            time.sleep(0.002)
            return index.search(query)

    sequential = evaluate_retrieval(Slow(), queries, qrels, metrics=["ndcg@5"])
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = evaluate_retrieval(
            Slow(), queries, qrels, metrics=["ndcg@5"], executor=pool, progress=True
        )
    assert concurrent.query_ids == list(queries)
    assert [r.retrieved for r in concurrent.records] == [r.retrieved for r in sequential.records]
    assert concurrent.per_query == sequential.per_query
    assert all(r.latency >= 0.002 for r in concurrent.records)


def test_progress_callback_sees_every_query():
    seen: list[tuple[int, int]] = []
    evaluate_retrieval(
        lambda q: ["d1"],
        {"q1": "a", "q2": "b", "q3": "c"},
        {"q1": ["d1"], "q2": ["d2"], "q3": ["d1"]},
        metrics=["mrr"],
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_a_progress_bar_needs_tqdm_and_says_so(monkeypatch):
    import sys

    from ragmeter import MissingDependencyError

    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[progress\]"):
        evaluate_retrieval(
            lambda q: ["d1"], {"q": "x"}, {"q": ["d1"]}, metrics=["mrr"], progress=True
        )
    with pytest.raises(TypeError, match="progress: expected True, False, None or a callable"):
        evaluate_retrieval(lambda q: ["d1"], {"q": "x"}, {"q": ["d1"]}, metrics=["mrr"], progress=1)


def test_query_embeddings_reach_semantic_search():
    docs = [
        CorpusDocument(doc_id=k, input_path="m", chunk_index=i, text=k, embedding=v)
        for i, (k, v) in enumerate({"a": [1.0, 0.0], "b": [0.0, 1.0]}.items())
    ]
    index = RetrievalIndex(RetrievalConfig(match_mode="semantic", top_k=2)).build(docs)
    report = evaluate_retrieval(
        index,
        {"qa": "first", "qb": "second"},
        {"qa": ["a"], "qb": ["b"]},
        metrics=["recall@1"],
        query_embeddings={"qa": [0.9, 0.1], "qb": [0.2, 0.8]},
    )
    assert report.per_query["recall@1"] == {"qa": 1.0, "qb": 1.0}
    with pytest.raises(InvalidInputError, match="qb"):
        evaluate_retrieval(
            index,
            {"qa": "x", "qb": "y"},
            {"qa": ["a"], "qb": ["b"]},
            query_embeddings={"qa": [1, 0]},
        )


# -- inputs ---------------------------------------------------------------------------------------


def test_sequences_of_queries_use_positions_and_int_ids_work():
    report = evaluate_retrieval(
        lambda q: [10, 20] if q == "first" else [30],
        ["first", "second"],
        [[20], {30: 2, 10: 1}],
        metrics=["mrr", "ndcg@2"],
    )
    assert report.query_ids == [0, 1]
    assert report.per_query["mrr"] == {0: 0.5, 1: 1.0}
    assert report[1].retrieved == (30,)


def test_queries_and_judgments_must_match():
    with pytest.raises(InvalidInputError, match="no judgments"):
        evaluate_retrieval(lambda q: [], {"a": "x", "b": "y"}, {"a": ["d"]})
    with pytest.raises(InvalidInputError, match="not in queries"):
        evaluate_retrieval(lambda q: [], {"a": "x"}, {"a": ["d"], "z": ["d"]})
    with pytest.raises(InvalidInputError, match="mix"):
        evaluate_retrieval(lambda q: [], {"a": "x", 1: "y"}, {"a": ["d"], 1: ["d"]})
    with pytest.raises(InvalidInputError, match="no query"):
        evaluate_retrieval(lambda q: [], {}, {})
    with pytest.raises(InvalidInputError, match="text"):
        evaluate_retrieval(lambda q: [], {"a": 3}, {"a": ["d"]})


def test_bad_parameters_fail_before_any_search():
    calls = []

    def retriever(query):
        calls.append(query)
        return []

    with pytest.raises(ValueError):
        evaluate_retrieval(retriever, {"a": "x"}, {"a": ["d"]}, metrics=["recall@zero"])
    with pytest.raises(ValueError, match="on_degraded"):
        evaluate_retrieval(retriever, {"a": "x"}, {"a": ["d"]}, on_degraded="ignore")
    with pytest.raises(ValueError):
        evaluate_retrieval(retriever, {"a": "x"}, {"a": ["d"]}, zero_division="zero")
    with pytest.raises(TypeError, match="search"):
        evaluate_retrieval(object(), {"a": "x"}, {"a": ["d"]})
    assert calls == []


def test_duplicate_documents_in_a_ranking():
    with pytest.raises(ValueError):
        evaluate_retrieval(lambda q: ["d", "d"], {"a": "x"}, {"a": ["d"]}, metrics=["mrr"])
    report = evaluate_retrieval(
        lambda q: ["e", "d", "d"], {"a": "x"}, {"a": ["d"]}, metrics=["mrr"], duplicates="first"
    )
    assert report.metrics["mrr"] == 0.5


def test_undefined_values_follow_zero_division():
    queries = {"a": "x", "b": "y"}
    qrels = {"a": ["d1"], "b": {"d2": 0}}  # b has no relevant document: recall undefined
    with pytest.warns(UndefinedMetricWarning, match="1 of 2"):
        warned = evaluate_retrieval(lambda q: ["d1"], queries, qrels, metrics=["recall@1", "mrr"])
    assert warned.per_query["recall@1"] == {"a": 1.0, "b": 0.0}
    assert warned.metrics["recall@1"] == 0.5
    assert warned.metrics["recall@1"].n_undefined == 1
    assert math.isnan(warned["b"].values["recall@1"])  # the record keeps what was undefined

    excluded = evaluate_retrieval(
        lambda q: ["d1"], queries, qrels, metrics=["recall@1"], zero_division=np.nan
    )
    assert excluded.metrics["recall@1"] == 1.0
    assert excluded.metrics["recall@1"].n_queries == 1
    assert math.isnan(excluded.per_query["recall@1"]["b"])

    ones = evaluate_retrieval(
        lambda q: ["d1"], queries, qrels, metrics=["recall@1"], zero_division=1.0
    )
    assert ones.metrics["recall@1"] == 1.0 and ones.metrics["recall@1"].n_queries == 2


def test_scored_results_are_ordered_like_the_core_orders_them():
    # {doc_id: score} from a retriever: ties by the id's text, byte-wise descending, as for
    # scored rankings given to the metrics ("9" > "10", so 9 ranks first).
    from ragmeter import evaluate_retrieval, mean_reciprocal_rank

    qrels = {"q": [9]}
    report = evaluate_retrieval(lambda query: {10: 0.5, 9: 0.5}, {"q": "x"}, qrels, metrics=["mrr"])
    assert report.metrics["mrr"] == 1.0
    assert report.metrics["mrr"] == mean_reciprocal_rank(qrels, {"q": {10: 0.5, 9: 0.5}})


@pytest.mark.parametrize("concurrent", [False, True])
def test_nan_scores_from_a_retriever_are_refused_like_ranking_metrics_refuses_them(concurrent):
    executor = ThreadPoolExecutor(2) if concurrent else None

    # A NaN has no place in a score order: the document would be ranked by its id (MRR 1.0 or
    # 0.33 for the same relevant document, depending on the ids).
    def retriever(query):
        return {"d1": math.nan, "d2": 0.5, "d3": 0.2} if query == QUERIES["q2"] else ["d1"]

    with pytest.raises(InvalidInputError, match=r"query 'q2'.* document 'd1' is NaN"):
        evaluate_retrieval(retriever, QUERIES, QRELS, metrics=["mrr"], executor=executor)
    with pytest.raises(InvalidInputError, match=r"'d1' is NaN"):
        ragmeter.ranking_metrics(QRELS, {"q1": ["d1"], "q2": retriever(QUERIES["q2"])})
    with pytest.raises(InvalidInputError, match=r"'d1' is NaN"):
        evaluate_retrieval(
            retriever, QUERIES, QRELS, metrics=["mrr"], on_degraded="warn", executor=executor
        )
    # np.float32 NaN too; infinite scores have an order and are kept.
    scores = {"d1": np.float32("nan"), "d2": 0.5}
    with pytest.raises(InvalidInputError, match=r"'d1' is NaN"):
        evaluate_retrieval(lambda q: scores, QUERIES, QRELS, metrics=["mrr"])
    report = evaluate_retrieval(lambda q: {"d2": math.inf, "d1": 0.5}, QUERIES, QRELS)
    assert report["q1"].retrieved == ("d2", "d1")
    if executor is not None:
        executor.shutdown()
