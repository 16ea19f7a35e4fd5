"""The spec's "Ranking metrics" and "Undefined values" examples, and the edge cases E1-E13 of
reference/ir-metric-semantics.md, with values from trec_eval / hand computation."""

import math
import warnings

import numpy as np
import pytest

import ragmeter
from ragmeter import (
    UndefinedMetricWarning,
    hit_rate_at_k,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    ranking_metrics,
    recall_at_k,
)

QRELS = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
RUNS = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g > 0)


def test_spec_ranking_examples():
    assert recall_at_k(QRELS, RUNS, k=2) == 0.75
    assert round(ndcg_at_k(QRELS, RUNS, k=3), 4) == 0.6956
    result = ranking_metrics(QRELS, RUNS, metrics=["mrr", "hit_rate@1"])
    assert result == {"mrr": 0.75, "hit_rate@1": 0.5}
    assert repr(result) == "{'mrr': 0.75, 'hit_rate@1': 0.5}"


def test_spec_ndcg_by_hand():
    # q1: d4 (1), d2 (0), d1 (2) against ideal 2, 1; q2: d5 (0), d3 (1) against ideal 1.
    q1 = dcg([1, 0, 2]) / dcg([2, 1])
    q2 = dcg([0, 1]) / dcg([1])
    assert ndcg_at_k(QRELS, RUNS, k=3) == pytest.approx((q1 + q2) / 2, abs=1e-15)


def test_mean_reports_its_denominator():
    mean = recall_at_k(QRELS, RUNS, k=2)
    assert isinstance(mean, ragmeter.MeanScore)
    assert (mean.n_queries, mean.n_undefined, mean.metric) == (2, 0, "recall@2")
    assert "over 2 queries" in mean.describe()


def test_per_query_values_keyed_like_the_input():
    per_query = ranking_metrics(QRELS, RUNS, metrics=["mrr", "recall@2"], average=None)
    assert per_query == {"mrr": {"q1": 1.0, "q2": 0.5}, "recall@2": {"q1": 0.5, "q2": 1.0}}
    positional = recall_at_k(list(QRELS.values()), list(RUNS.values()), k=2, average=None)
    assert isinstance(positional, np.ndarray)
    assert positional.tolist() == [0.5, 1.0]


# --- Undefined values --------------------------------------------------------------------

NO_RELEVANT = {"q1": {"d1": 0}, "q2": {"d2": 1}}
PERFECT_Q2 = {"q1": ["d1"], "q2": ["d2"]}


@pytest.mark.parametrize("function", [recall_at_k, mean_average_precision, r_precision, ndcg_at_k])
def test_undefined_warns_and_scores_zero_by_default(function):
    with pytest.warns(UndefinedMetricWarning, match="undefined for 1 of 2 queries"):
        assert function(NO_RELEVANT, PERFECT_Q2) == 0.5


@pytest.mark.parametrize("function", [precision_at_k, hit_rate_at_k, mean_reciprocal_rank])
def test_always_defined_metrics_do_not_warn(function):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function(NO_RELEVANT, PERFECT_Q2)


def test_zero_division_values():
    assert recall_at_k(NO_RELEVANT, PERFECT_Q2, zero_division=0.0) == 0.5
    assert recall_at_k(NO_RELEVANT, PERFECT_Q2, zero_division=1.0) == 1.0
    mean = recall_at_k(NO_RELEVANT, PERFECT_Q2, zero_division=np.nan)
    assert mean == 1.0
    assert (mean.n_queries, mean.n_undefined) == (1, 1)
    per_query = recall_at_k(NO_RELEVANT, PERFECT_Q2, zero_division=np.nan, average=None)
    assert math.isnan(per_query["q1"]) and per_query["q2"] == 1.0
    all_undefined = recall_at_k({"q": {"d": 0}}, {"q": ["d"]}, zero_division=np.nan)
    assert math.isnan(all_undefined) and all_undefined.n_queries == 0


def test_ndcg_undefined_only_without_positive_grade():
    # Threshold 2 leaves no relevant document, but grade 1 still has gain: nDCG is defined.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ndcg_at_k({"q": {"a": 1}}, {"q": ["a"]}, relevance_threshold=2) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="ideal DCG = 0"):
        ndcg_at_k({"q": {"a": 0, "b": -1}}, {"q": ["a"]})


# --- E1-E13 --------------------------------------------------------------------------------


def test_e1_ties_break_by_doc_id_descending():
    qrels = {"q1": {"a": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}}
    result = ranking_metrics(qrels, run, metrics=["mrr", "precision@1", "map", "ndcg"])
    assert result["mrr"] == pytest.approx(1 / 3)
    assert result["precision@1"] == 0.0
    assert result["map"] == pytest.approx(1 / 3)
    assert result["ndcg"] == pytest.approx(0.5)
    # Insertion order of the dict does not matter.
    for order in ["bac", "cab", "bca", "cba"]:
        shuffled = {"q1": {d: 1.0 for d in order}}
        assert mean_reciprocal_rank(qrels, shuffled) == pytest.approx(1 / 3)
    ten = {"q": {f"d{i:02d}": 0.0 for i in range(10)}}
    assert mean_reciprocal_rank({"q": ["d02"]}, ten) == 0.125


def test_e1_int_ids_tie_break_by_decimal_text():
    # "9" > "10" > "1" byte-wise, as trec_eval orders these ids in a file.
    run = {"q": {1: 0.5, 10: 0.5, 9: 0.5}}
    assert mean_reciprocal_rank({"q": [10]}, run) == 0.5
    assert mean_reciprocal_rank({"q": [9]}, run) == 1.0


def test_e2_linear_gain():
    qrels = {"q": {"d1": 1, "d2": 3, "d3": 2}}
    expected = dcg([1, 3, 0]) / dcg([3, 2, 1])
    assert ndcg_at_k(qrels, {"q": ["d1", "d2", "x"]}, k=3) == pytest.approx(expected, abs=1e-15)
    assert round(expected, 4) == 0.6075


def test_e3_duplicates_refused_or_first(tmp_path):
    with pytest.raises(ValueError, match=r"'d1' appears more than once.*duplicates=\"first\""):
        mean_reciprocal_rank({"q": ["d1"]}, {"q": ["d2", "d1", "d1"]})
    assert mean_reciprocal_rank({"q": ["d1"]}, {"q": ["d1", "d2", "d1"]}, duplicates="first") == 1.0
    assert precision_at_k({"q": ["d1"]}, {"q": ["x", "x", "d1"]}, k=2, duplicates="first") == 0.5
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d1 3 1.0 r\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    with pytest.raises(ValueError, match="more than once"):
        ragmeter.evaluate_trec(qrels, run, metrics=["mrr"])
    kept = ragmeter.evaluate_trec(qrels, run, metrics=["mrr"], duplicates="first")
    assert kept["mrr"] == 1.0
    with pytest.raises(ragmeter.TrecFormatError, match=r"run.txt:3: document 'd1' is listed twice"):
        ragmeter.read_trec_run(run)


def test_e4_threshold():
    qrels = {"q": {"d1": 0, "d2": 1, "d3": 2}}
    run = {"q": ["d1", "d2", "d3"]}
    level1 = ranking_metrics(
        qrels, run, metrics=["precision@1", "mrr", "map", "r_precision", "ndcg"]
    )
    assert level1["precision@1"] == 0.0
    assert level1["mrr"] == 0.5
    assert level1["map"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert level1["r_precision"] == 0.5
    assert level1["ndcg"] == pytest.approx(dcg([0, 1, 2]) / dcg([2, 1]))
    level2 = ranking_metrics(
        qrels,
        run,
        metrics=["precision@3", "recall@3", "mrr", "map", "r_precision", "ndcg@3"],
        relevance_threshold=2,
    )
    assert level2["precision@3"] == pytest.approx(1 / 3)
    assert level2["recall@3"] == 1.0
    assert level2["mrr"] == pytest.approx(1 / 3)
    assert level2["map"] == pytest.approx(1 / 3)
    assert level2["r_precision"] == 0.0
    # Gains are not thresholded: grade 1 keeps its gain (trec_eval, not ranx).
    assert level2["ndcg@3"] == pytest.approx(dcg([0, 1, 2]) / dcg([2, 1]))
    assert round(level2["ndcg@3"], 4) == 0.6199
    negative = ranking_metrics(
        {"q": {"d1": -1, "d2": 1}},
        {"q": ["d1", "d2"]},
        metrics=["precision@2", "mrr", "r_precision", "ndcg"],
    )
    assert negative == {
        "precision@2": 0.5,
        "mrr": 0.5,
        "r_precision": 0.0,
        "ndcg": 1 / math.log2(3),
    }


def test_e5_query_without_relevant_documents_is_counted():
    with pytest.warns(UndefinedMetricWarning):
        result = ranking_metrics(NO_RELEVANT, PERFECT_Q2, metrics=["map", "precision@1", "ndcg@10"])
    assert result == {"map": 0.5, "precision@1": 0.5, "ndcg@10": 0.5}
    assert result["map"].n_queries == 2


def test_e6_judged_query_missing_from_run():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 1.0}}
    with pytest.raises(
        ValueError, match=r"judged queries missing from y_pred: 'q2'.*missing=\"zero\""
    ):
        mean_average_precision(qrels, run)
    zero = ranking_metrics(qrels, run, metrics=["map"], missing="zero")
    assert zero["map"] == 0.5 and zero["map"].n_queries == 2
    assert zero.missing_from_run == ["q2"]
    assert ranking_metrics(qrels, run, metrics=["map"], missing="zero", average=None) == {
        "map": {"q1": 1.0, "q2": 0.0}
    }
    skip = ranking_metrics(qrels, run, metrics=["map"], missing="skip")
    assert skip["map"] == 1.0 and skip["map"].n_queries == 1


def test_e7_run_query_without_judgments():
    qrels = {"q1": {"d1": 1}}
    run = {"q1": ["d1"], "q3": ["d9"]}
    with pytest.raises(ValueError, match="y_pred queries without judgments in y_true: 'q3'"):
        mean_reciprocal_rank(qrels, run)
    for missing in ("zero", "skip"):
        result = ranking_metrics(qrels, run, metrics=["mrr"], missing=missing)
        assert result["mrr"] == 1.0 and result.unjudged == ["q3"]


def test_e8_run_shorter_than_k():
    qrels = {"q": ["d1", "d2", "d3"]}
    run = {"q": ["d1", "x"]}
    result = ranking_metrics(
        qrels,
        run,
        metrics=[
            "precision@10",
            "recall@10",
            "hit_rate@10",
            "mrr",
            "map",
            "r_precision",
            "ndcg@10",
        ],
    )
    assert result["precision@10"] == pytest.approx(0.1)
    assert result["recall@10"] == pytest.approx(1 / 3)
    assert result["hit_rate@10"] == 1.0
    assert result["mrr"] == 1.0
    assert result["map"] == pytest.approx(1 / 3)
    assert result["r_precision"] == pytest.approx(1 / 3)
    assert result["ndcg@10"] == pytest.approx(1 / dcg([1, 1, 1]))
    assert round(result["ndcg@10"], 4) == 0.4693


def test_e9_query_order_of_dicts_does_not_matter():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q2": {"b": 1.0, "x": 0.5}, "q1": {"y": 1.0, "a": 0.5}}
    assert mean_reciprocal_rank(qrels, run) == 0.75


def test_e10_empty_ranking_is_scored_and_counted():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 1.0}, "q2": {}}
    mean = mean_reciprocal_rank(qrels, run)
    assert mean == 0.5 and mean.n_queries == 2
    assert ndcg_at_k(qrels, {"q1": ["d1"], "q2": []}) == 0.5


def test_e11_average_precision_divides_by_r():
    qrels = {"q": ["d1", "d2", "d3", "d4"]}
    run = {"q": ["d1", "x", "d2"]}
    assert mean_average_precision(qrels, run) == pytest.approx((1 + 2 / 3) / 4)
    assert mean_average_precision(qrels, run, k=2) == 0.25


def test_e12_scores_compare_as_doubles():
    qrels = {"q": ["a"]}
    for eps in (1e-6, 1e-9, 1e-12):
        assert mean_reciprocal_rank(qrels, {"q": {"a": 1.0 + eps, "b": 1.0}}) == 1.0


def test_e13_empty_judgments_are_defined():
    with pytest.warns(UndefinedMetricWarning):
        result = ranking_metrics({"q": {}}, {"q": ["d1"]}, metrics=["recall@1", "precision@1"])
    assert result == {"recall@1": 0.0, "precision@1": 0.0}
    nan = recall_at_k({"q": {}, "p": ["d1"]}, {"q": ["d1"], "p": ["d1"]}, k=1, zero_division=np.nan)
    assert nan == 1.0 and nan.n_queries == 1
