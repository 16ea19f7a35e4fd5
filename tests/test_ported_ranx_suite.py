"""ranx's own unit tests of its metrics, ported to ragmeter: their hand-computed expected values
are independent oracles (no ranx import; nothing here is copied from ragmeter's output).

Ported from https://github.com/AmenRa/ranx at commit 2cae52f00c2c15136a07d573027744109792604d
(2025-06-25, "Merge pull request #69"), files:

* tests/unit/ranx/metrics_test.py (the numba kernels, ``rm.hits(y_true, y_pred, k)``, ...)
* tests/unit/ranx/meta/evaluate_test.py (``evaluate`` on numba arrays, Qrels/Run and dicts)
* tests/unit/ranx/metrics/bpref_test.py
* tests/unit/ranx/metrics/f1_test.py
* tests/unit/ranx/metrics/rank_biased_precision_test.py
* tests/unit/ranx/metrics/zero_division_error_test.py
* tests/unit/ranx/data_structures/run_test.py (only ``test_make_comparable``)
* ranx/meta/evaluate.py (the values in ``evaluate``'s docstring, for the data of
  evaluate_test.py's ``test_python_dict``, which asserts nothing)

Plus ranx's ``evaluate`` semantics, read from ranx/metrics/*.py at that commit and checked by
hand (arithmetic in the comments): queries without a relevant document, empty rankings,
``make_comparable=True`` (ragmeter's ``missing="zero"``), cutoffs larger than the ranking and
the ``-lN`` suffix.

How the data is carried over:

* ranx's numba arrays are ``[[doc_id, value], ...]``: a judgment array becomes
  ``{doc_id: grade}``; a prediction array is a ranking in array order with every score 1
  (ranx reads it by position). It is given to ragmeter in four forms, all with no tie: a
  best-first list or distinct decreasing scores, in a mapping keyed by query id or a sequence
  aligned by position (ranx's ``List`` of arrays).
* Ties are the documented deviation (ranx: insertion order; ragmeter, as trec_eval: doc id
  descending, byte-wise): ``test_ties_follow_trec_eval_not_insertion_order`` evaluates ranx's
  all-1 scores as they are and asserts ragmeter's documented values.
* ranx's ``precision``, ``recall`` and ``f1`` without ``@k`` (k = 0: the whole ranking) are
  trec_eval's ``set_P`` and ``set_recall`` and ragmeter's ``f1``; where every ranking has at
  most one document, ``precision@1`` and ``recall@1`` too. ragmeter reads ranx's
  ``precision`` alone as ``set_P``; ``recall`` alone is trec_eval's recall group.
* ranx's ``rbp.95`` (persistence 0.95) is read as ranx reads it (ragmeter's
  ``rbp_graded(p=0.95)``); with binary grades trec_eval's ``rbp.p=0.95`` coincides.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ragmeter
from ragmeter import InvalidInputError, UndefinedMetricWarning

# Four ways of giving ranx's positional rankings to ragmeter, none with a tie.
FORMS = ["mapping-ids", "mapping-scores", "sequence-ids", "sequence-scores"]


def scores_of(ranking):
    """Distinct decreasing scores for a best-first ranking (a repeated doc keeps its first,
    best, position, as ``duplicates="first"`` does)."""
    out = {}
    for position, doc in enumerate(ranking):
        out.setdefault(doc, float(len(ranking) - position))
    return out


def evaluate(qrels, rankings, metric, form, **options):
    """ragmeter's mean and per-query values for ranx's ``y_true`` (a list of ``{doc: grade}``)
    and ``y_pred`` (a list of best-first rankings)."""
    container, kind = form.split("-")
    preds = [list(r) if kind == "ids" else scores_of(r) for r in rankings]
    if container == "sequence":
        y_true, y_pred = list(qrels), preds
    else:
        ids = [f"q{i}" for i in range(len(qrels))]
        y_true, y_pred = dict(zip(ids, qrels, strict=True)), dict(zip(ids, preds, strict=True))
    mean = ragmeter.ranking_metrics(y_true, y_pred, metrics=[metric], **options)[metric]
    each = ragmeter.ranking_metrics(y_true, y_pred, metrics=[metric], average=None, **options)
    values = each[metric].values() if isinstance(each[metric], dict) else each[metric]
    return float(mean), [float(v) for v in values]


def mean_of(qrels, run, metric, **options):
    return float(ragmeter.ranking_metrics(qrels, run, metrics=[metric], **options)[metric])


def per_query(qrels, run, metric, **options):
    return ragmeter.ranking_metrics(qrels, run, metrics=[metric], average=None, **options)[metric]


# BINARY RELEVANCE (metrics_test.py and meta/evaluate_test.py) ===================================


@pytest.mark.parametrize("form", FORMS)
def test_hits_single(form):
    # evaluate_test.py::test_hits_single: relevant 1, 4, 5, 6; top 5 = 1, 2, 3, 4, 5 -> 3.
    mean, _ = evaluate([{1: 1, 4: 1, 5: 1, 6: 1}], [[1, 2, 3, 4, 5, 7]], "hits@5", form)
    assert mean == 3


@pytest.mark.parametrize("form", FORMS)
def test_hits_two_queries(form):
    # metrics_test.py::test_hits and evaluate_test.py::test_hits_parallel: 3 and 2 -> 2.5.
    qrels = [{1: 1, 4: 1, 5: 1, 6: 1}, {1: 1, 4: 1, 6: 1}]
    rankings = [[1, 2, 3, 4, 5, 7], [1, 2, 4, 3, 5, 7]]
    mean, values = evaluate(qrels, rankings, "hits@5", form)
    assert mean == 2.5
    assert values == [3, 2]


@pytest.mark.parametrize("form", FORMS)
def test_hit_rate_single(form):
    # evaluate_test.py::test_hit_rate_single.
    mean, _ = evaluate([{1: 1, 2: 1, 4: 1}], [[1, 2, 4, 3, 5, 7]], "hit_rate@5", form)
    assert mean == 1


@pytest.mark.parametrize("form", FORMS)
def test_hit_rate_two_queries(form):
    # metrics_test.py::test_hit_rate and evaluate_test.py::test_hit_rate_parallel. ranx's first
    # judgment array is [[9, 1], [6, 1], [8, 1], [6, 1]] (6 twice): {9, 6, 8}, none in the run.
    qrels = [{9: 1, 6: 1, 8: 1}, {1: 1, 2: 1, 4: 1}]
    rankings = [[1, 2, 3, 4, 5, 7], [1, 2, 4, 3, 5, 7]]
    mean, values = evaluate(qrels, rankings, "hit_rate@5", form)
    assert mean == 0.5
    assert values == [0, 1]


@pytest.mark.parametrize("form", FORMS)
def test_precision_single(form):
    # evaluate_test.py::test_precision_single: 3 relevant in the top 5 -> 3 / 5.
    k = 5
    mean, _ = evaluate([{1: 1, 4: 1, 5: 1, 6: 1}], [[1, 2, 3, 4, 5, 7]], f"precision@{k}", form)
    assert mean == 3 / k


THREE_QRELS = [{1: 1, 2: 1, 3: 1}, {4: 1, 5: 1, 6: 1, 7: 1}, {8: 1, 9: 1}]
THREE_RANKINGS = [[4, 5, 6, 2, 1, 7, 3]] * 3


@pytest.mark.parametrize("form", FORMS)
def test_precision_three_queries(form):
    # metrics_test.py::test_precision and evaluate_test.py::test_precision_parallel: the mean
    # over three queries is the mean of the three single-query evaluations. By hand, top 5 =
    # 4, 5, 6, 2, 1: 2/5 (2, 1), 3/5 (4, 5, 6), 0.
    singles = [
        evaluate([q], [r], "precision@5", form)[0]
        for q, r in zip(THREE_QRELS, THREE_RANKINGS, strict=True)
    ]
    mean, values = evaluate(THREE_QRELS, THREE_RANKINGS, "precision@5", form)
    assert mean == pytest.approx(sum(singles) / 3)
    assert values == pytest.approx([2 / 5, 3 / 5, 0.0])
    assert mean == pytest.approx(1 / 3)


@pytest.mark.parametrize("form", FORMS)
def test_average_precision_single(form):
    # evaluate_test.py::test_average_precision: relevant at ranks 1, 4, 5 of 4 relevant:
    # (1/1 + 2/4 + 3/5) / 4 = 2.1 / 4 = 0.525.
    mean, _ = evaluate([{1: 1, 4: 1, 5: 1, 6: 1}], [[1, 2, 3, 4, 5, 7]], "map@6", form)
    assert mean == pytest.approx(0.525)


@pytest.mark.parametrize("form", FORMS)
def test_average_precision_three_queries(form):
    # metrics_test.py::test_average_precision, evaluate_test.py::test_average_precision_parallel
    # (map@7). By hand: q0 relevant at ranks 4, 5, 7: (1/4 + 2/5 + 3/7) / 3; q1 at 1, 2, 3, 6:
    # (1 + 1 + 1 + 4/6) / 4; q2 none: 0.
    singles = [
        evaluate([q], [r], "map@7", form)[0]
        for q, r in zip(THREE_QRELS, THREE_RANKINGS, strict=True)
    ]
    mean, values = evaluate(THREE_QRELS, THREE_RANKINGS, "map@7", form)
    assert mean == pytest.approx(sum(singles) / 3)
    assert values == pytest.approx([(1 / 4 + 2 / 5 + 3 / 7) / 3, (3 + 4 / 6) / 4, 0.0])


@pytest.mark.parametrize("form", FORMS)
def test_reciprocal_rank_single(form):
    # metrics_test.py and evaluate_test.py::test_reciprocal_rank_single: 3 at rank 2.
    mean, _ = evaluate([{3: 1}], [[2, 3, 1, 4, 5]], "mrr@5", form)
    assert mean == pytest.approx(0.5)
    # By hand from ranx's kernel (it reads range(k)): at k = 1 the relevant document is cut.
    assert evaluate([{3: 1}], [[2, 3, 1, 4, 5]], "mrr@1", form)[0] == pytest.approx(0.0)


@pytest.mark.parametrize("form", FORMS)
def test_reciprocal_rank_single_no_match(form):
    # metrics_test.py and evaluate_test.py::test_reciprocal_rank_single_no_match.
    mean, _ = evaluate([{3: 1}], [[2, 1, 4, 5]], "mrr@5", form)
    assert mean == pytest.approx(0.0)


@pytest.mark.parametrize("form", FORMS)
def test_reciprocal_rank_three_queries(form):
    # metrics_test.py::test_reciprocal_rank, evaluate_test.py::test_reciprocal_rank_parallel:
    # 1/2, 1, 0 -> 0.5. ranx's third prediction repeats doc 1 three times: ragmeter refuses a
    # repeated doc unless duplicates="first" (which keeps 1 at rank 1); 3 is absent either way.
    qrels = [{3: 1}, {1: 1}, {3: 1}]
    rankings = [[2, 3, 1, 4, 5], [1, 2, 3, 4, 5], [1, 1, 1, 4, 5]]
    mean, values = evaluate(qrels, rankings, "mrr@5", form, duplicates="first")
    assert mean == pytest.approx(0.5)
    assert values == pytest.approx([0.5, 1.0, 0.0])


def test_reciprocal_rank_repeated_doc_is_refused_by_default():
    # ranx's numba arrays may repeat a doc id (test_reciprocal_rank above); ragmeter's default
    # duplicates="raise" refuses such a ranking instead of counting it twice.
    with pytest.raises(InvalidInputError):
        ragmeter.ranking_metrics({"q": {3: 1}}, {"q": [1, 1, 1, 4, 5]}, metrics=["mrr@5"])


@pytest.mark.parametrize("form", FORMS)
def test_r_precision_single(form):
    # metrics_test.py and evaluate_test.py::test_r_precision_single: R = 3, top 3 = 2, 4, 3.
    mean, _ = evaluate([{1: 1, 2: 1, 3: 1}], [[2, 4, 3, 1, 5, 6, 7]], "r-precision", form)
    assert mean == pytest.approx(2 / 3)


@pytest.mark.parametrize("form", FORMS)
def test_r_precision_two_queries(form):
    # metrics_test.py::test_r_precision, evaluate_test.py::test_r_precision_parallel: the
    # second query has R = 2, top 2 = 2, 4 -> 1/2.
    qrels = [{1: 1, 2: 1, 3: 1}, {1: 1, 2: 1}]
    rankings = [[2, 4, 3, 1, 5, 6, 7]] * 2
    mean, _ = evaluate(qrels, rankings, "r-precision", form)
    assert mean == pytest.approx((2 / 3 + 1 / 2) / 2)


@pytest.mark.parametrize("form", FORMS)
def test_recall_single(form):
    # metrics_test.py and evaluate_test.py::test_recall_single: top 2 = 2, 4 -> 1 of 3.
    mean, _ = evaluate([{1: 1, 2: 1, 3: 1}], [[2, 4, 3, 1, 5, 6, 7]], "recall@2", form)
    assert mean == pytest.approx(1 / 3)


@pytest.mark.parametrize("form", FORMS)
def test_recall_two_queries(form):
    # metrics_test.py::test_recall, evaluate_test.py::test_recall_parallel.
    qrels = [{1: 1, 2: 1, 3: 1}, {1: 1, 2: 1}]
    rankings = [[2, 4, 3, 1, 5, 6, 7]] * 2
    mean, _ = evaluate(qrels, rankings, "recall@2", form)
    assert mean == pytest.approx((1 / 3 + 1 / 2) / 2)


# NON-BINARY RELEVANCE (metrics_test.py and meta/evaluate_test.py) ===============================

# "List of IDs ordered by descending order of true relevance"
GRADED = {2: 5, 4: 4, 5: 3, 10: 2}
PRED_1 = [1, 2, 3, 4, 5]  # rel = 0, 5, 0, 4, 3
PRED_2 = [10, 5, 2, 4, 3]  # rel = 2, 3, 5, 4, 0
PRED_3 = [1, 3, 6, 7, 8]  # rel = 0, 0, 0, 0, 0

log2 = np.log2
DCG_1 = 5 / log2(3) + 4 / log2(5) + 3 / log2(6)
DCG_2 = 2 / log2(2) + 3 / log2(3) + 5 / log2(4) + 4 / log2(5)
IDCG = 5 / log2(2) + 4 / log2(3) + 3 / log2(4) + 2 / log2(5)
BURGES_1 = (2**5 - 1) / log2(3) + (2**4 - 1) / log2(5) + (2**3 - 1) / log2(6)
BURGES_2 = (2**2 - 1) / log2(2) + (2**3 - 1) / log2(3) + (2**5 - 1) / log2(4) + (2**4 - 1) / log2(5)
BURGES_IDCG = (
    (2**5 - 1) / log2(2) + (2**4 - 1) / log2(3) + (2**3 - 1) / log2(4) + (2**2 - 1) / log2(5)
)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("ranking", "expected"), [(PRED_1, DCG_1), (PRED_2, DCG_2), (PRED_3, 0.0)], ids=["1", "2", "3"]
)
def test_dcg_jarvelin(form, ranking, expected):
    # metrics_test.py and evaluate_test.py::test_dcg_jarvelin (dcg@10, linear gains).
    mean, _ = evaluate([GRADED], [ranking], "dcg@10", form)
    assert mean == pytest.approx(expected)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("ranking", "expected"),
    [(PRED_1, DCG_1 / IDCG), (PRED_2, DCG_2 / IDCG), (PRED_3, 0.0)],
    ids=["1", "2", "3"],
)
def test_ndcg_jarvelin(form, ranking, expected):
    # metrics_test.py and evaluate_test.py::test_ndcg_jarvelin (ndcg@10). metrics_test.py's
    # test_ndcg_burges also asserts ndcg@10 of prediction 3 is 0 (here the "3" case).
    mean, _ = evaluate([GRADED], [ranking], "ndcg@10", form)
    assert mean == pytest.approx(expected)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("ranking", "expected"),
    [(PRED_1, BURGES_1), (PRED_2, BURGES_2), (PRED_3, 0.0)],
    ids=["1", "2", "3"],
)
def test_dcg_burges(form, ranking, expected):
    # metrics_test.py and evaluate_test.py::test_dcg_burges (dcg_burges@10, gains 2^g - 1).
    # metrics_test.py asserts rm.dcg, not rm.dcg_burges, for prediction 3: both are 0 there.
    mean, _ = evaluate([GRADED], [ranking], "dcg_burges@10", form)
    assert mean == pytest.approx(expected)
    if ranking is PRED_3:
        assert evaluate([GRADED], [ranking], "dcg@10", form)[0] == pytest.approx(0.0)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("ranking", "expected"),
    [(PRED_1, BURGES_1 / BURGES_IDCG), (PRED_2, BURGES_2 / BURGES_IDCG), (PRED_3, 0.0)],
    ids=["1", "2", "3"],
)
def test_ndcg_burges(form, ranking, expected):
    # metrics_test.py and evaluate_test.py::test_ndcg_burges (ndcg_burges@10).
    mean, _ = evaluate([GRADED], [ranking], "ndcg_burges@10", form)
    assert mean == pytest.approx(expected)


# Qrels / Run / dict inputs (meta/evaluate_test.py) ==============================================

DOC_QRELS = {"q_1": {"doc_12": 5, "doc_25": 3}, "q_2": {"doc_11": 6, "doc_2": 1}}
DOC_RUN = {
    "q_1": {
        "doc_12": 0.9,
        "doc_23": 0.8,
        "doc_25": 0.7,
        "doc_36": 0.6,
        "doc_32": 0.5,
        "doc_35": 0.4,
    },
    "q_2": {
        "doc_12": 0.9,
        "doc_11": 0.8,
        "doc_25": 0.7,
        "doc_36": 0.6,
        "doc_2": 0.5,
        "doc_35": 0.4,
    },
}
# ndcg@5 by hand. q_1: gains 5, 0, 3, 0, 0 -> DCG = 5 + 3/log2(4); IDCG = 5 + 3/log2(3).
# q_2: gains 0, 6, 0, 0, 1 -> DCG = 6/log2(3) + 1/log2(6); IDCG = 6 + 1/log2(3).
NDCG5_Q1 = (5 + 3 / math.log2(4)) / (5 + 3 / math.log2(3))
NDCG5_Q2 = (6 / math.log2(3) + 1 / math.log2(6)) / (6 + 1 / math.log2(3))


def test_python_dict():
    # evaluate_test.py::test_with_Qrels_and_Run_control and ::test_python_dict (the same data,
    # as Qrels/Run built with add_multi and as dicts) assert nothing; the values are those of
    # ranx.evaluate's docstring (ranx/meta/evaluate.py), given to 4 digits: ndcg@5 0.7861
    # (q_1 0.9430, q_2 0.6292), map@5 0.6416 (0.8333, 0.4500), mrr 0.75 (1.0, 0.5), digits
    # cut, not rounded (abs=1e-4). map@5 by hand: q_1 (1/1 + 2/3) / 2 = 5/6; q_2 (1/2 + 2/5)
    # / 2 = 0.45; mean 0.641666...
    res = ragmeter.ranking_metrics(DOC_QRELS, DOC_RUN, metrics=["ndcg@5", "map@5", "mrr"])
    assert res["ndcg@5"] == pytest.approx(0.7861, abs=1e-4)
    assert res["ndcg@5"] == pytest.approx((NDCG5_Q1 + NDCG5_Q2) / 2)
    assert res["map@5"] == pytest.approx(0.6416, abs=1e-4)
    assert res["map@5"] == pytest.approx((5 / 6 + 0.45) / 2)
    assert res["mrr"] == pytest.approx(0.75)
    per = ragmeter.ranking_metrics(
        DOC_QRELS, DOC_RUN, metrics=["ndcg@5", "map@5", "mrr"], average=None
    )
    assert per["ndcg@5"] == pytest.approx({"q_1": 0.9430, "q_2": 0.6292}, abs=1e-4)
    assert per["ndcg@5"] == pytest.approx({"q_1": NDCG5_Q1, "q_2": NDCG5_Q2})
    assert per["map@5"] == pytest.approx({"q_1": 5 / 6, "q_2": 0.45})
    assert per["mrr"] == pytest.approx({"q_1": 1.0, "q_2": 0.5})


def test_python_dict_2():
    # evaluate_test.py::test_python_dict_2: the order in which documents are inserted does not
    # matter (distinct scores), x == y.
    shuffled = {
        "q_1": {
            "doc_35": 0.4,
            "doc_25": 0.7,
            "doc_23": 0.8,
            "doc_36": 0.6,
            "doc_12": 0.9,
            "doc_32": 0.5,
        },
        "q_2": {
            "doc_12": 0.9,
            "doc_25": 0.7,
            "doc_2": 0.5,
            "doc_36": 0.6,
            "doc_11": 0.8,
            "doc_35": 0.4,
        },
    }
    x = mean_of(DOC_QRELS, DOC_RUN, "ndcg@5")
    y = mean_of(DOC_QRELS, shuffled, "ndcg@5")
    assert x == y
    assert x == pytest.approx((NDCG5_Q1 + NDCG5_Q2) / 2)


def test_keys_control():
    # evaluate_test.py::test_keys_control: qrels q_1, q_2 and a run q_1, q_3 are refused (ranx:
    # an AssertionError unless make_comparable=True; ragmeter: missing="raise", the default).
    run = {"q_1": DOC_RUN["q_1"], "q_3": DOC_RUN["q_2"]}
    with pytest.raises(InvalidInputError):
        ragmeter.ranking_metrics(DOC_QRELS, run, metrics=["ndcg@5"])


def test_std():
    # evaluate_test.py::test_std: ranx's return_std is np.std (population) of the per-query
    # scores; ragmeter gives the per-query values (average=None). By hand: map@5 q_1
    # (1 + 2/3) / 2 = 5/6, q_2 (1/2 + 2/5) / 2 = 0.45, std |5/6 - 0.45| / 2; mrr 1 and 1/2,
    # std 0.25.
    qrels = {"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}}
    run = {
        "q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7, "d_36": 0.6, "d_32": 0.5, "d_35": 0.4},
        "q_2": {"d_12": 0.9, "d_11": 0.8, "d_25": 0.7, "d_36": 0.6, "d_22": 0.5, "d_35": 0.4},
    }
    per = ragmeter.ranking_metrics(qrels, run, metrics=["map@5", "mrr"], average=None)
    means = ragmeter.ranking_metrics(qrels, run, metrics=["map@5", "mrr"])
    assert set(per) == {"map@5", "mrr"}
    assert per["map@5"] == pytest.approx({"q_1": 5 / 6, "q_2": 0.45})
    assert np.std(list(per["map@5"].values())) == pytest.approx((5 / 6 - 0.45) / 2)
    assert np.std(list(per["mrr"].values())) == pytest.approx(0.25)
    assert means["map@5"] == pytest.approx(np.mean(list(per["map@5"].values())))
    assert means["mrr"] == pytest.approx(0.75)


# metrics/bpref_test.py, metrics/f1_test.py ======================================================

BF_QRELS = {
    "q1": {"d2": 1, "d5": 1, "d1": 0, "d4": 0},
    "q2": {"d2": 1, "d5": 1, "d1": 0, "d6": 0},
    "q3": {"d2": 1, "d5": 1, "d7": 1, "d1": 0, "d6": 0, "d8": 0},
    "q4": {"d2": 1, "d4": 1, "d6": 1, "d9": 1, "d1": 0, "d3": 0, "d7": 0, "d8": 0},
}
BF_RUN_Q1_TO_Q3 = {
    "q1": {"d1": 10, "d2": 9, "d3": 8, "d4": 7},
    "q2": {"d1": 10, "d2": 9, "d3": 8, "d4": 7, "d5": 6, "d6": 5},
    "q3": {"d1": 10, "d2": 9, "d3": 8, "d4": 7, "d5": 6, "d6": 5, "d7": 4, "d8": 3},
}


def test_bpref():
    # metrics/bpref_test.py::test_bpref (ranx's expected values; ranx's bpref and trec_eval's
    # agree here: grades >= 0 and every query has a judged non-relevant document).
    run = {
        **BF_RUN_Q1_TO_Q3,
        "q4": {"d1": 10, "d2": 9, "d3": 8, "d4": 7, "d6": 5, "d7": 4, "d8": 3},
    }
    scores = per_query(BF_QRELS, run, "bpref")
    assert len(scores) == len(BF_QRELS)
    assert scores["q1"] == pytest.approx(1 / 2 * (1 - (1 / 2)))
    assert scores["q2"] == pytest.approx(1 / 2 * ((1 - (1 / 2)) + (1 - (1 / 2))))
    assert scores["q3"] == pytest.approx(1 / 3 * ((1 - (1 / 3)) + (1 - (1 / 3)) + (1 - (2 / 3))))
    assert scores["q4"] == pytest.approx(1 / 4 * ((1 - (1 / 4)) + (1 - (2 / 4)) + (1 - (2 / 4))))


def test_f1():
    # metrics/f1_test.py::test_f1: f1 (k = 0, the whole ranking) is 2PR / (P + R) with ranx's
    # precision and recall at k = 0, i.e. trec_eval's set_P and set_recall; q4 retrieves no
    # relevant document: 0. By hand: q1 P = 1/4, R = 1/2 -> 1/3; q2 P = 2/6, R = 1 -> 1/2;
    # q3 P = 3/8, R = 1 -> 6/11.
    run = {
        **BF_RUN_Q1_TO_Q3,
        "q4": {"d1": 10, "d12": 9, "d3": 8, "d14": 7, "d16": 5, "d7": 4, "d8": 3},
    }
    f1 = per_query(BF_QRELS, run, "f1")
    precision = per_query(BF_QRELS, run, "set_precision")
    recall = per_query(BF_QRELS, run, "set_recall")
    assert len(f1) == len(BF_QRELS)
    for q in ["q1", "q2", "q3"]:
        p, r = precision[q], recall[q]
        assert f1[q] == pytest.approx(2 * ((p * r) / (p + r))), q
    assert f1["q4"] == pytest.approx(0.0)
    assert f1 == pytest.approx({"q1": 1 / 3, "q2": 1 / 2, "q3": 6 / 11, "q4": 0.0})


# metrics/rank_biased_precision_test.py ==========================================================

RBP_QRELS = {"q1": {"d1": 1, "d2": 1, "d6": 1, "d11": 1, "d17": 1}}
RBP_RUN = {"q1": {f"d{i}": 21 - i for i in range(1, 21)}}


@pytest.mark.parametrize(("p", "expected"), [(0.5, 0.7661), (0.8, 0.4526), (0.95, 0.1881)])
@pytest.mark.parametrize("name", ["rbp.p={p}", "rbp_graded(p={p})", "ranx"])
def test_rank_biased_precision(p, expected, name):
    # metrics/rank_biased_precision_test.py::test_rank_biased_precision (ranx's rbp.5, rbp.8,
    # rbp.95). By hand: relevant at ranks 1, 2, 6, 11, 17, so RBP = (1 - p) * (1 + p + p^5 +
    # p^10 + p^16).
    if name == "ranx":
        name = "rbp." + str(p).removeprefix("0.")  # ranx's own spelling: rbp.5, rbp.8, rbp.95
    res = ragmeter.ranking_metrics(RBP_QRELS, RBP_RUN, metrics=[name.format(p=p)], average=None)
    [scores] = res.values()  # trec_eval's name comes back as its column, rbp_p=...
    assert len(scores) == len(RBP_QRELS)
    assert round(scores["q1"], 4) == expected
    assert scores["q1"] == pytest.approx((1 - p) * (1 + p + p**5 + p**10 + p**16))


# metrics/zero_division_error_test.py ============================================================

ZD_QRELS = {"q_1": {"doc_a": 1}, "q_2": {"doc_b": 1}, "q_3": {"doc_c": 1}, "q_4": {"doc_d": 1}}
ZD_RUN = {"q_1": {"doc_a": 1.0}, "q_2": {"doc_b": 1.0}, "q_3": {}, "q_4": {"doc_d": 1.0}}


@pytest.mark.parametrize(
    ("metric", "options"),
    [("precision@1", {}), ("set_precision", {"zero_division": 0.0})],
)
def test_zero_division_precision(metric, options):
    # metrics/zero_division_error_test.py::test_precision: ranx's precision (k = 0) of an empty
    # ranking is 0; the others are 1 -> 0.75. With rankings of at most one document it is
    # precision@1; as trec_eval's set_P, nothing retrieved is undefined in ragmeter, and
    # zero_division=0.0 gives ranx's 0.
    scores = per_query(ZD_QRELS, ZD_RUN, metric, **options)
    assert len(scores) == len(ZD_QRELS)
    assert np.mean(list(scores.values())) == 0.75
    assert mean_of(ZD_QRELS, ZD_RUN, metric, **options) == 0.75


@pytest.mark.parametrize("metric", ["recall@1", "set_recall"])
def test_zero_division_recall(metric):
    # metrics/zero_division_error_test.py::test_recall: 1, 1, 0, 1 -> 0.75.
    scores = per_query(ZD_QRELS, ZD_RUN, metric)
    assert len(scores) == len(ZD_QRELS)
    assert np.mean(list(scores.values())) == 0.75
    assert mean_of(ZD_QRELS, ZD_RUN, metric) == 0.75


def test_zero_division_f1():
    # metrics/zero_division_error_test.py::test_f1: 1, 1, 0, 1 -> 0.75, with no warning (every
    # query has a relevant document).
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        scores = per_query(ZD_QRELS, ZD_RUN, "f1")
    assert len(scores) == len(ZD_QRELS)
    assert np.mean(list(scores.values())) == 0.75


# data_structures/run_test.py::test_make_comparable -> missing="zero" ============================


def test_make_comparable_is_missing_zero():
    # data_structures/run_test.py::test_make_comparable: make_comparable keeps q1 and q2, adds
    # q3 (judged, not in the run) with an empty ranking and removes q4 (not judged).
    # ragmeter's missing="zero" evaluates the same three queries. By hand:
    # mrr: q1 ranks d1 (0.3), d3, d2 -> 1; q2 ranks d2 (0.2), d1 -> 1; q3 empty -> 0: 2/3.
    # hits@3: 3, 2, 0 -> 5/3.
    # ndcg@3: q1 gains 1, 3, 2: (1 + 3/log2(3) + 2/2) / (3 + 2/log2(3) + 1/2); q2 gains 2, 1
    # in ideal order: 1; q3 0 (its ideal DCG is positive: defined).
    qrels = {
        "q1": {"d1": 1, "d2": 2, "d3": 3},
        "q2": {"d1": 1, "d2": 2},
        "q3": {"d1": 1, "d2": 2},
    }
    run = {
        "q1": {"d1": 0.3, "d2": 0.1, "d3": 0.2},
        "q2": {"d1": 0.1, "d2": 0.2},
        "q4": {"d1": 0.1, "d2": 0.2},
    }
    with pytest.raises(InvalidInputError):  # ranx without make_comparable: check_keys fails
        ragmeter.ranking_metrics(qrels, run, metrics=["mrr"])
    res = ragmeter.ranking_metrics(
        qrels, run, metrics=["mrr", "hits@3", "ndcg@3"], missing="zero", average=None
    )
    assert sorted(res.query_ids) == ["q1", "q2", "q3"]
    assert list(res.missing_from_run) == ["q3"]
    assert list(res.unjudged) == ["q4"]
    assert res["mrr"] == pytest.approx({"q1": 1.0, "q2": 1.0, "q3": 0.0})
    assert res["hits@3"] == pytest.approx({"q1": 3.0, "q2": 2.0, "q3": 0.0})
    ndcg_q1 = (1 + 3 / math.log2(3) + 2 / 2) / (3 + 2 / math.log2(3) + 1 / 2)
    assert res["ndcg@3"] == pytest.approx({"q1": ndcg_q1, "q2": 1.0, "q3": 0.0})
    means = ragmeter.ranking_metrics(
        qrels, run, metrics=["mrr", "hits@3", "ndcg@3"], missing="zero"
    )
    assert means["mrr"] == pytest.approx(2 / 3)
    assert means["hits@3"] == pytest.approx(5 / 3)
    assert means["ndcg@3"] == pytest.approx((ndcg_q1 + 1.0) / 3)


# evaluate() semantics, from ranx/metrics/*.py at the commit ======================================

# Query q1 ranks its one relevant document first; q2 has no relevant document at all.
NOREL_QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 0}}
NOREL_RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}}
# q1's values by hand (ranx's names): hits@2 1; hit_rate@2 1; precision@2 1/2; mrr 1;
# dcg@2 1/log2(2) = 1; dcg_burges@2 (2^1 - 1)/1 = 1 (never undefined) | recall@2 1; f1@2
# 2 (1/2)(1) / (3/2) = 2/3; r-precision 1; map 1; ndcg@2 1; ndcg_burges@2 1; bpref 1 (d1 has
# no judged non-relevant document above it) (undefined where R = 0).
NOREL_DEFINED = {
    "hits@2": 1.0,
    "hit_rate@2": 1.0,
    "precision@2": 0.5,
    "mrr": 1.0,
    "dcg@2": 1.0,
    "dcg_burges@2": 1.0,
}
NOREL_UNDEFINED = {
    "recall@2": 1.0,
    "f1@2": 2 / 3,
    "r-precision": 1.0,
    "map": 1.0,
    "ndcg@2": 1.0,
    "ndcg_burges@2": 1.0,
    "bpref": 1.0,
}


def test_queries_without_relevant_documents():
    # ranx's kernels return 0.0 for a query whose judgments have no grade >= the level
    # (clean_qrels leaves nothing), so its mean is q1's value / 2 for every name but bpref
    # (ranx divides by R = 0 there). ragmeter: the measures that are never undefined give 0
    # too; the others are undefined, 0 with an UndefinedMetricWarning by default (so ranx's
    # mean), and with zero_division=np.nan left out of the mean (q1's value).
    names = [*NOREL_DEFINED, *NOREL_UNDEFINED]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per = ragmeter.ranking_metrics(NOREL_QRELS, NOREL_RUN, metrics=names, average=None)
        means = ragmeter.ranking_metrics(NOREL_QRELS, NOREL_RUN, metrics=names)
    warned = {str(w.message).split(" ")[0] for w in caught if w.category is UndefinedMetricWarning}
    assert warned == set(NOREL_UNDEFINED)
    for name, q1 in {**NOREL_DEFINED, **NOREL_UNDEFINED}.items():
        assert per[name] == pytest.approx({"q1": q1, "q2": 0.0}), name
        assert means[name] == pytest.approx(q1 / 2), name
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        nan = ragmeter.ranking_metrics(NOREL_QRELS, NOREL_RUN, metrics=names, zero_division=np.nan)
        zero = ragmeter.ranking_metrics(NOREL_QRELS, NOREL_RUN, metrics=names, zero_division=0.0)
    for name, q1 in NOREL_DEFINED.items():
        assert nan[name] == pytest.approx(q1 / 2), name
        assert zero[name] == pytest.approx(q1 / 2), name
    for name, q1 in NOREL_UNDEFINED.items():
        assert nan[name] == pytest.approx(q1), name
        assert zero[name] == pytest.approx(q1 / 2), name


def test_empty_ranking_scores_zero():
    # ranx (zero_division_error_test.py's q_3, and fix_k / k = 0 in the kernels): a query with
    # an empty ranking scores 0 for every name; ragmeter's are all defined there (R = 1).
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {}}
    names = [*NOREL_DEFINED, *NOREL_UNDEFINED, "f1", "ndcg", "dcg", "map@5", "mrr@5"]
    # q1 as above; f1 over the whole ranking (2 docs) = f1@2; ndcg, dcg = @2; map@5 = map.
    q1 = {**NOREL_DEFINED, **NOREL_UNDEFINED, "f1": 2 / 3, "ndcg": 1.0, "dcg": 1.0}
    q1 |= {"map@5": 1.0, "mrr@5": 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        per = ragmeter.ranking_metrics(qrels, run, metrics=names, average=None)
        means = ragmeter.ranking_metrics(qrels, run, metrics=names)
    for name in names:
        assert per[name] == pytest.approx({"q1": q1[name], "q2": 0.0}), name
        assert means[name] == pytest.approx(q1[name] / 2), name


def test_cutoff_larger_than_the_ranking():
    # ranx's fix_k cuts k to the ranking's length for hits, hit_rate, mrr, map, dcg, ndcg (and
    # the ideal DCG to the number of judged documents), while precision and f1 divide by k.
    # R = 4 (a: 2; b, c, z: 1), three ranked documents: a (2), x (unjudged), b (1). By hand:
    # precision@10 2/10; recall@10 2/4; f1@10 2 (0.2)(0.5) / 0.7 = 2/7; hits@10 2;
    # hit_rate@10 1; mrr@10 1; map@10 (1/1 + 2/3) / 4 = 5/12; dcg@10 2/log2(2) + 1/log2(4) =
    # 2.5; ndcg@10 2.5 / (2 + 1/log2(3) + 1/log2(4) + 1/log2(5)); dcg_burges@10 3/1 + 1/log2(4)
    # = 3.5; ndcg_burges@10 3.5 / (3 + 1/log2(3) + 1/log2(4) + 1/log2(5)).
    qrels = {"q": {"a": 2, "b": 1, "c": 1, "z": 1}}
    run = {"q": {"a": 0.9, "x": 0.8, "b": 0.7}}
    tail = 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    expected = {
        "precision@10": 2 / 10,
        "recall@10": 2 / 4,
        "f1@10": 2 / 7,
        "hits@10": 2.0,
        "hit_rate@10": 1.0,
        "mrr@10": 1.0,
        "map@10": 5 / 12,
        "dcg@10": 2.5,
        "ndcg@10": 2.5 / (2 + tail),
        "dcg_burges@10": 3.5,
        "ndcg_burges@10": 3.5 / (3 + tail),
    }
    res = ragmeter.ranking_metrics(qrels, run, metrics=list(expected))
    for name, value in expected.items():
        assert res[name] == pytest.approx(value), name
    # ranx's fix_k: at k = 3 (the ranking's length) the same for the kernels that cut k, but
    # precision@3 = 2/3 and f1@3 = 2 (2/3)(1/2) / (7/6) = 4/7.
    at3 = ragmeter.ranking_metrics(
        qrels, run, metrics=["hits@3", "mrr@3", "map@3", "dcg@3", "precision@3", "f1@3"]
    )
    for name in ["hits", "mrr", "map", "dcg"]:
        assert at3[f"{name}@3"] == pytest.approx(expected[f"{name}@10"]), name
    assert at3["precision@3"] == pytest.approx(2 / 3)
    assert at3["f1@3"] == pytest.approx(4 / 7)


def test_relevance_level_suffix():
    # ranx's "-lN" (extract_metric_and_params: rel_lvl = N) keeps grades >= N as relevant and,
    # in its dcg kernels, zeroes the gains below N. Here only a (2) reaches level 2; b (1) is
    # ranked first. By hand: hits@3-l2 1; hit_rate@1-l2 0; hit_rate@2-l2 1; precision@2-l2 1/2;
    # recall@1-l2 0; recall@2-l2 1; mrr-l2 1/2; map-l2 (1/2) / 1; r-precision-l2 0 (R = 1, b
    # first); f1@2-l2 2 (1/2)(1) / (3/2) = 2/3; bpref-l2 1 - min(1, 1) / min(1, 2) = 0 (b, c
    # are judged non-relevant at level 2); dcg_burges@3-l2 (2^2 - 1)/log2(3);
    # ndcg_burges@3-l2 (3/log2(3)) / 3.
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"b": 0.9, "a": 0.8, "c": 0.7}}
    expected = {
        "hits@3-l2": 1.0,
        "hit_rate@1-l2": 0.0,
        "hit_rate@2-l2": 1.0,
        "precision@2-l2": 0.5,
        "recall@1-l2": 0.0,
        "recall@2-l2": 1.0,
        "mrr-l2": 0.5,
        "map-l2": 0.5,
        "r-precision-l2": 0.0,
        "f1@2-l2": 2 / 3,
        "bpref-l2": 0.0,
        "dcg_burges@3-l2": 3 / math.log2(3),
        "ndcg_burges@3-l2": 1 / math.log2(3),
    }
    res = ragmeter.ranking_metrics(qrels, run, metrics=list(expected))
    for name, value in expected.items():
        assert res[name] == pytest.approx(value), name
    # The same level for every measure: relevance_threshold=2 and the names without -l2.
    plain = {name.removesuffix("-l2"): value for name, value in expected.items()}
    res = ragmeter.ranking_metrics(qrels, run, metrics=list(plain), relevance_threshold=2)
    for name, value in plain.items():
        assert res[name] == pytest.approx(value), name
    # Documented deviation: ragmeter's dcg and ndcg keep trec_eval's gains whatever the level
    # (ranx: dcg@3-l2 = 2/log2(3), ndcg@3-l2 = (2/log2(3)) / 2). ragmeter: gains 1, 2, 0 ->
    # DCG = 1 + 2/log2(3), ideal 2, 1 -> 2 + 1/log2(3).
    linear = ragmeter.ranking_metrics(qrels, run, metrics=["dcg@3-l2", "ndcg@3-l2"])
    assert linear["dcg@3-l2"] == pytest.approx(1 + 2 / math.log2(3))
    assert linear["ndcg@3-l2"] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert linear["ndcg@3-l2"] != pytest.approx((2 / math.log2(3)) / 2)


def test_ties_follow_trec_eval_not_insertion_order():
    # Documented deviation. ranx's arrays give every document the score 1 and ranx keeps their
    # order; ragmeter, as trec_eval, orders tied scores by doc id descending (byte-wise: "7",
    # "5", "4", "3", "2", "1"), whatever the insertion order.
    # evaluate_test.py::test_reciprocal_rank_single: ranx 1/2 (3 second); ragmeter: 3 third.
    tied = {"q": {"2": 1.0, "3": 1.0, "1": 1.0, "4": 1.0, "5": 1.0}}
    assert mean_of({"q": {"3": 1}}, tied, "mrr@5") == pytest.approx(1 / 3)
    reversed_insertion = {"q": dict(reversed(list(tied["q"].items())))}
    assert mean_of({"q": {"3": 1}}, reversed_insertion, "mrr@5") == pytest.approx(1 / 3)
    # evaluate_test.py::test_hits_parallel: ranx 2.5; ragmeter's top 5 is 7, 5, 4, 3, 2:
    # q1 (relevant 1, 4, 5, 6) 2 hits, q2 (relevant 1, 4, 6) 1 -> 1.5.
    qrels = {"q1": {"1": 1, "4": 1, "5": 1, "6": 1}, "q2": {"1": 1, "4": 1, "6": 1}}
    run = {
        "q1": dict.fromkeys(["1", "2", "3", "4", "5", "7"], 1.0),
        "q2": dict.fromkeys(["1", "2", "4", "3", "5", "7"], 1.0),
    }
    assert per_query(qrels, run, "hits@5") == pytest.approx({"q1": 2.0, "q2": 1.0})
    assert mean_of(qrels, run, "hits@5") == 1.5
