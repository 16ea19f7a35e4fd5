"""ragmeter.compat.beir against BEIR's own code (ported with its commit in
tests/ported_beir/evaluation.py, run on pytrec_eval itself), on mteb's fixtures of the same
evaluation (BEIR ships no tests) and on random cases: ties in scores (trec_eval's order for
evaluate, the dict's order for the custom metrics), queries whose id is also a document's,
queries missing on either side, grades 0 and negative."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ported_beir import evaluation as beir

from ragmeter.compat.beir import EvaluateRetrieval
from ragmeter.exceptions import InvalidInputError
from ragmeter.ranking import parse_metric
from ragmeter.ranking.declarations import family

# mteb's tests/test_evaluators/test_RetrievalEvaluator.py::test_metrics_at_k at commit
# a905523d0111f999360b312bd4a601a0a97a0e1c: BEIR's evaluate (mteb's evaluator is BEIR's
# evaluate with ignore_identical_ids=False by default), its expected values as given there.
FIXTURE_QRELS = {"0": {"0": 1, "1": 1}, "1": {"1": 1}}
FIXTURE_RESULTS = {
    "0": {"0": 1.0, "1": 0.9, "2": 0.8},
    "1": {"0": 0.0, "1": 1.0, "2": 0.0},
}
FIXTURE_EXPECTED = {
    False: (
        {"NDCG@1": 1.0, "NDCG@2": 1.0, "NDCG@3": 1.0},
        {"MAP@1": 0.75, "MAP@2": 1.0, "MAP@3": 1.0},
        {"Recall@1": 0.75, "Recall@2": 1.0, "Recall@3": 1.0},
        {"P@1": 1.0, "P@2": 0.75, "P@3": 0.5},
    ),
    True: (
        {"NDCG@1": 0.5, "NDCG@2": 0.30657, "NDCG@3": 0.30657},
        {"MAP@1": 0.25, "MAP@2": 0.25, "MAP@3": 0.25},
        {"Recall@1": 0.25, "Recall@2": 0.25, "Recall@3": 0.25},
        {"P@1": 0.5, "P@2": 0.25, "P@3": 0.16667},
    ),
}


@pytest.mark.parametrize("ignore", [False, True])
def test_mteb_fixture_of_beir_evaluate(ignore):
    results = copy.deepcopy(FIXTURE_RESULTS)
    got = EvaluateRetrieval.evaluate(FIXTURE_QRELS, results, [1, 2, 3], ignore_identical_ids=ignore)
    assert got == FIXTURE_EXPECTED[ignore]
    want = beir.evaluate(FIXTURE_QRELS, copy.deepcopy(FIXTURE_RESULTS), [1, 2, 3], ignore)
    assert got == want
    # As BEIR: the query's own document is removed from the caller's results.
    assert ("0" in results["0"]) is not ignore


def test_keys_are_beir_names_from_the_declarations():
    ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(
        FIXTURE_QRELS, copy.deepcopy(FIXTURE_RESULTS), [10]
    )
    assert [list(d) for d in (ndcg, _map, recall, precision)] == [
        ["NDCG@10"],
        ["MAP@10"],
        ["Recall@10"],
        ["P@10"],
    ]
    assert family("relative_precision").beir_name == "R_cap"
    assert family("hole").beir_name == "Hole"
    # BEIR's names outside the drop-in: its measures in ragmeter's syntax.
    assert parse_metric("r_cap@10").family.name == "relative_precision"
    assert parse_metric("capped_recall@10").family.name == "relative_precision"
    assert parse_metric("top_k_accuracy@5").family.name == "hit_rate"
    assert parse_metric("hole@10").family.name == "hole"


def test_docstring_values_are_beirs():
    qrels = {"q1": {"d1": 1, "d2": 2}}
    results = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.1}}
    want = beir.evaluate(qrels, copy.deepcopy(results), [1, 3])
    assert EvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [1, 3]) == want
    assert EvaluateRetrieval.evaluate_custom(qrels, results, [1, 3], "mrr") == beir.mrr(
        qrels, results, [1, 3]
    )


def test_custom_metrics_break_ties_in_the_dicts_order():
    # BEIR's custom metrics sort with Python's stable sort: the relevant document listed
    # first among tied ones ranks first (evaluate, through pytrec_eval, ranks it by id).
    qrels = {"q": {"a": 1}}
    first = {"q": {"a": 0.5, "b": 0.5, "c": 0.5}}
    last = {"q": {"c": 0.5, "b": 0.5, "a": 0.5}}
    assert EvaluateRetrieval.evaluate_custom(qrels, first, [3], "mrr") == {"MRR@3": 1.0}
    assert EvaluateRetrieval.evaluate_custom(qrels, last, [3], "mrr") == {"MRR@3": 0.33333}
    for results in (first, last):
        assert EvaluateRetrieval.evaluate_custom(qrels, results, [1], "acc") == beir.top_k_accuracy(
            qrels, results, [1]
        )


def test_inputs_beir_fails_on_raise_named_errors():
    qrels = {"q": {"a": 0}}
    results = {"q": {"a": 1.0}, "other": {"a": 1.0}}
    with pytest.raises(KeyError):
        beir.mrr(qrels, results, [1])
    with pytest.raises(InvalidInputError, match="'other' has no judgments"):
        EvaluateRetrieval.evaluate_custom(qrels, results, [1], "mrr")
    with pytest.raises(ZeroDivisionError):
        beir.recall_cap(qrels, {"q": {"a": 1.0}}, [1])
    with pytest.raises(InvalidInputError, match="'q' has no relevant document"):
        EvaluateRetrieval.evaluate_custom(qrels, {"q": {"a": 1.0}}, [1], "r_cap")
    assert beir.evaluate_custom(qrels, results, [1], "ndcg") is None
    with pytest.raises(InvalidInputError, match="unknown custom metric 'ndcg'"):
        EvaluateRetrieval.evaluate_custom(qrels, results, [1], "ndcg")
    with pytest.raises(ZeroDivisionError):
        beir.evaluate(qrels, {"x": {"a": 1.0}}, [1])
    with pytest.raises(InvalidInputError, match="no query is both judged"):
        EvaluateRetrieval.evaluate(qrels, {"x": {"a": 1.0}}, [1])
    with pytest.raises(InvalidInputError, match="k_values"):
        EvaluateRetrieval.evaluate(qrels, {"q": {"a": 1.0}}, [0])


def test_hole_counts_documents_judged_for_any_query():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 0, "d3": -1}}
    results = {
        "q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d4": 0.5},
        "q3": {"d5": 1.0},
    }
    got = EvaluateRetrieval.evaluate_custom(qrels, results, [1, 4, 10], "hole")
    assert got == beir.hole(qrels, results, [1, 4, 10])
    # q1: d4 of 4 is a hole (1/4 at k=4, 1/10 at k=10); q3: d5 (1/1, 1/4, 1/10); over 2 judged.
    assert got == {"Hole@1": 0.5, "Hole@4": 0.25, "Hole@10": 0.1}


def test_fractional_grades_are_gains_and_relevant_above_zero():
    # pytrec_eval (so BEIR) refuses fractional grades; the drop-in reads them: nDCG's gains
    # as given, relevant when > 0.
    qrels = {"q": {"a": 0.5, "b": 2.0, "c": 0.0}}
    results = {"q": {"a": 3.0, "c": 2.0, "b": 1.0}}
    ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(qrels, results, [3])
    dcg = 0.5 / math.log2(2) + 2.0 / math.log2(4)
    idcg = 2.0 / math.log2(2) + 0.5 / math.log2(3)
    assert ndcg == {"NDCG@3": round(dcg / idcg, 5)}
    assert recall == {"Recall@3": 1.0}
    assert precision == {"P@3": round(2 / 3, 5)}
    assert _map == {"MAP@3": round((1 / 1 + 2 / 3) / 2, 5)}


ids = st.sampled_from(["0", "1", "2", "3", "a", "b", "c", "d10", "d9"])
grades = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])
# Scores exactly representable as float32 (pytrec_eval-terrier compares floats), with ties.
scores = st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.0, 2.0, -1.5])
query_ids = st.sampled_from(["0", "1", "2", "q"])
qrels_strategy = st.dictionaries(query_ids, st.dictionaries(ids, grades, max_size=6), max_size=4)
results_strategy = st.dictionaries(query_ids, st.dictionaries(ids, scores, max_size=7), max_size=4)
k_strategy = st.lists(st.integers(1, 8), min_size=1, max_size=4, unique=True)


def _both(ours, theirs):
    """Each side's value, or the type of error: ours must be an InvalidInputError where BEIR
    fails (with a KeyError or a ZeroDivisionError)."""
    try:
        want = theirs()
    except (KeyError, ZeroDivisionError):
        with pytest.raises(InvalidInputError):
            ours()
        return
    assert ours() == want


@settings(max_examples=300, deadline=None)
@given(qrels_strategy, results_strategy, k_strategy, st.booleans())
def test_evaluate_equals_beirs(qrels, results, ks, ignore):
    mine, theirs = copy.deepcopy(results), copy.deepcopy(results)
    _both(
        lambda: EvaluateRetrieval.evaluate(qrels, mine, ks, ignore_identical_ids=ignore),
        lambda: beir.evaluate(qrels, theirs, ks, ignore),
    )
    assert mine == theirs


@settings(max_examples=300, deadline=None)
@given(
    qrels_strategy,
    results_strategy,
    k_strategy,
    st.sampled_from(["mrr", "MRR@k", "r_cap", "recall_cap", "hole", "acc", "top_k_accuracy"]),
)
def test_custom_metrics_equal_beirs(qrels, results, ks, metric):
    _both(
        lambda: EvaluateRetrieval.evaluate_custom(qrels, results, ks, metric),
        lambda: beir.evaluate_custom(qrels, results, ks, metric),
    )
