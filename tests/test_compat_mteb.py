"""ragmeter.compat.mteb against mteb's own tests (their fixtures and expected values, ported
from https://github.com/embeddings-benchmark/mteb at commit
a905523d0111f999360b312bd4a601a0a97a0e1c: tests/test_evaluators/test_RetrievalEvaluator.py
and tests/test_evaluators/test_evaluation_metrics.py) and against mteb's code itself (ported
with that commit in tests/ported_mteb/retrieval_metrics.py, run on pytrec_eval, numpy, pandas
and scikit-learn) on random cases."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ported_mteb import retrieval_metrics as oracle

from ragmeter.compat import mteb
from ragmeter.exceptions import InvalidInputError
from ragmeter.stats import normalized_abstention_auc

TOL = 0.0001

# ---- test_RetrievalEvaluator.py ----


@pytest.mark.parametrize(
    ("relevant_docs", "results", "ignore_identical_ids", "expected_metrics"),
    [
        (
            {"0": {"0": 1, "1": 1}, "1": {"1": 1}},
            {"0": {"0": 1.0, "1": 0.9, "2": 0.8}, "1": {"0": 0.0, "1": 1.0, "2": 0.0}},
            False,
            {
                "ndcg": {"NDCG@1": 1.0, "NDCG@2": 1.0, "NDCG@3": 1.0},
                "map": {"MAP@1": 0.75, "MAP@2": 1.0, "MAP@3": 1.0},
                "recall": {"Recall@1": 0.75, "Recall@2": 1.0, "Recall@3": 1.0},
                "precision": {"P@1": 1.0, "P@2": 0.75, "P@3": 0.5},
            },
        ),
        (
            {"0": {"0": 1, "1": 1}, "1": {"1": 1}},
            {"0": {"0": 1.0, "1": 0.9, "2": 0.8}, "1": {"0": 0.0, "1": 1.0, "2": 0.0}},
            True,
            {
                "ndcg": {"NDCG@1": 0.5, "NDCG@2": 0.30657, "NDCG@3": 0.30657},
                "map": {"MAP@1": 0.25, "MAP@2": 0.25, "MAP@3": 0.25},
                "recall": {"Recall@1": 0.25, "Recall@2": 0.25, "Recall@3": 0.25},
                "precision": {"P@1": 0.5, "P@2": 0.25, "P@3": 0.16667},
            },
        ),
    ],
)
def test_metrics_at_k(relevant_docs, results, ignore_identical_ids, expected_metrics):
    scores = mteb.RetrievalEvaluator().evaluate(
        relevant_docs, results, [1, 2, 3], ignore_identical_ids=ignore_identical_ids
    )
    assert scores.ndcg == expected_metrics["ndcg"]
    assert scores.map == expected_metrics["map"]
    assert scores.recall == expected_metrics["recall"]
    assert scores.precision == expected_metrics["precision"]


@pytest.mark.parametrize(
    ("ignore_identical_ids", "expected_naucs"),
    [
        (
            True,
            {"nAUC_NDCG@3_max": 0.50843, "nAUC_NDCG@3_std": 0.18322, "nAUC_NDCG@3_diff1": 0.21416},
        ),
        (
            False,
            {
                "nAUC_NDCG@3_max": 0.8368244286523474,
                "nAUC_NDCG@3_std": 0.9125701917627439,
                "nAUC_NDCG@3_diff1": 0.950708977119359,
            },
        ),
    ],
)
def test_n_auc(ignore_identical_ids, expected_naucs):
    relevant_docs = {
        "0": {"0": 1, "1": 1},
        "1": {"0": 1},
        "2": {"0": 1, "1": 1, "2": 1},
        "3": {"0": 1},
        "4": {"0": 1, "1": 1},
    }
    results = {
        "0": {"0": 0.8, "1": 0.3, "2": 0.4},
        "1": {"0": 0.5, "1": 0.8, "2": 0.4},
        "2": {"0": 0.9, "1": 0.3, "2": 0.3},
        "3": {"0": 0.1, "1": 0.2, "2": 0.2},
        "4": {"0": 0.5, "1": 0.4, "2": 0.5},
    }
    scores = mteb.RetrievalEvaluator().evaluate(
        relevant_docs, results, [1, 2, 3], ignore_identical_ids=ignore_identical_ids
    )
    # The expected values are mteb's at the commit above, where queries of equal confidence
    # (here: several) were left out in the order given; since mteb 2.26.5 (its PR 5613), and
    # in the drop-in, each counts with its group's mean value. The old values with the old
    # rule, the drop-in's with the port of mteb 2.26.24's nauc (and mteb itself in
    # tests/test_installed_beir_mteb.py).
    ndcg = np.array([scores.all_scores[q]["ndcg_cut_3"] for q in results])
    confidence = [mteb.confidence_scores(list(docs.values())) for docs in results.values()]
    for name in ("nAUC_NDCG@3_max", "nAUC_NDCG@3_std", "nAUC_NDCG@3_diff1"):
        conf = np.array([c[name.rsplit("_", 1)[1]] for c in confidence])
        given = normalized_abstention_auc(conf, ndcg, ties="given")
        assert given == pytest.approx(expected_naucs[name], TOL)
        assert scores.naucs[name] == oracle.nauc(conf, ndcg)


# ---- test_evaluation_metrics.py ----


def test_recall_cap_no_relevant_docs_yields_none():
    qrels = {"q1": {"d1": 0, "d2": 0}}
    results = {"q1": {"d1": 0.9, "d2": 0.1}}
    assert mteb.recall_cap(qrels, results, [10]) == {"R_cap_at_10": [None]}


def test_recall_cap_counts_capped_relevant_hits():
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
    results = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    assert mteb.recall_cap(qrels, results, [10]) == {"R_cap_at_10": [1.0]}


def test_mrr_tiebreak_independent_of_insertion_order():
    qrels = {"q1": {"d_pos": 1}}
    tied = {"d_pos": 0.5, "d_x": 0.5, "d_y": 0.5}
    forward = mteb.mrr(qrels, {"q1": tied}, [10])["MRR@10"][0]
    reversed_order = mteb.mrr(qrels, {"q1": dict(reversed(tied.items()))}, [10])["MRR@10"][0]
    assert forward == reversed_order


def test_mrr_tiebreak_matches_pytrec_eval():
    import pytrec_eval

    qrels = {"q1": {"d_a": 1}}
    results = {"q1": {"d_a": 0.5, "d_x": 0.5, "d_y": 0.5}}
    got = mteb.mrr(qrels, results, [10])["MRR@10"][0]
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(results)["q1"]
    assert got == expected["recip_rank"] == 1 / 3


def test_p_mrr_tiebreak_independent_of_insertion_order():
    tied = {"0": 0.5, "1": 0.5, "2": 0.5}
    score = mteb.calculate_pmrr(
        {"a-og": tied}, {"a-changed": dict(reversed(tied.items()))}, {"a": ["0"]}
    )
    assert score == 0.0


def test_p_mrr():
    changed_qrels = {"a": ["0"]}
    original_run = {"a-og": {"0": 1, "1": 2, "2": 3, "3": 4}}
    assert (
        mteb.calculate_pmrr(
            original_run, {"a-changed": {"0": 1, "1": 2, "2": 3, "3": 4}}, changed_qrels
        )
        == 0.0
    )
    new_run = {"a-changed": {"0": 4, "1": 1, "2": 2, "3": 3}}
    assert mteb.calculate_pmrr(original_run, new_run, changed_qrels) == -0.75
    # A positive change: the runs flipped.
    assert (
        mteb.calculate_pmrr(
            {"a-og": {"0": 4, "1": 1, "2": 2, "3": 3}},
            {"a-changed": {"0": 1, "1": 2, "2": 3, "3": 4}},
            changed_qrels,
        )
        == 0.75
    )


# ---- ragmeter's own checks of the drop-in ----


def test_score_dict_keys_are_mtebs():
    qrels = {"0": {"0": 1, "1": 1}, "1": {"1": 1}}
    results = {"0": {"0": 1.0, "1": 0.9, "2": 0.8}, "1": {"0": 0.0, "1": 1.0, "2": 0.0}}
    got = mteb.retrieval_scores(qrels, copy.deepcopy(results), [1, 10])
    want_result = oracle.evaluate(qrels, copy.deepcopy(results), [1, 10])
    _, ndcg, _map, recall, precision, naucs, mrr, naucs_mrr, hit_rate = want_result
    want = oracle.make_score_dict(
        ndcg=ndcg,
        _map=_map,
        recall=recall,
        precision=precision,
        mrr=mrr,
        naucs=naucs,
        naucs_mrr=naucs_mrr,
        hit_rate=hit_rate,
        task_scores={},
    )
    assert list(got) == list(want)
    assert "ndcg_at_10" in got and "nauc_precision_at_10_max" in got and "hit_rate_at_1" in got
    _same(got, want)
    with pytest.raises(InvalidInputError, match="must include 1"):
        mteb.retrieval_scores(qrels, copy.deepcopy(results), [10])


def test_inputs_mteb_fails_on_raise_named_errors():
    with pytest.raises(KeyError):
        oracle.mrr({"q": {"a": 1}}, {"x": {"a": 1.0}}, [1])
    with pytest.raises(InvalidInputError, match="'x' has no judgments"):
        mteb.mrr({"q": {"a": 1}}, {"x": {"a": 1.0}}, [1])
    with pytest.raises(InvalidInputError, match="no changed document"):
        mteb.calculate_pmrr({}, {}, {"a": ["0"]})


def _same(got, want):
    """Equal, NaN equal to NaN; floats to 1e-12 (the means of p-MRR, which mteb takes with
    pandas, and nothing else, may differ in the last digit); dicts in any order (pytrec_eval
    gives a query's measures in its own order)."""
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for key in want:
            _same(got[key], want[key])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            _same(a, b)
    elif isinstance(want, float | np.floating) and math.isnan(want):
        assert math.isnan(got)
    elif isinstance(want, float | np.floating):
        assert got == pytest.approx(float(want), rel=1e-12, abs=1e-15)
    else:
        assert got == want


docs = st.sampled_from(["0", "1", "2", "3", "d1", "d10", "d9", "x"])
grades = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])
scores = st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.0, 2.0, -1.5])
query_ids = st.sampled_from(["0", "1", "2", "q", "q_1", "q_2", "r_1"])


@st.composite
def judged_case(draw):
    """qrels with at least one judgment per query, and results for some of its queries (mteb
    reads qrels[query_id] for every query of results)."""
    qrels = draw(
        st.dictionaries(
            query_ids, st.dictionaries(docs, grades, min_size=1, max_size=6), min_size=1, max_size=5
        )
    )
    ranked = draw(st.lists(st.sampled_from(sorted(qrels)), min_size=1, unique=True))
    results = {q: draw(st.dictionaries(docs, scores, min_size=0, max_size=7)) for q in ranked}
    return qrels, results


k_strategy = st.lists(st.integers(1, 8), min_size=1, max_size=4, unique=True).map(
    lambda ks: sorted(set(ks) | {1})
)


@settings(max_examples=300, deadline=None)
@given(judged_case(), k_strategy, st.booleans(), st.booleans())
def test_retrieval_scores_equal_mtebs(case, ks, ignore, skip_first):
    qrels, results = case
    mine, theirs = copy.deepcopy(results), copy.deepcopy(results)
    got = mteb.RetrievalEvaluator().evaluate(qrels, mine, ks, ignore, skip_first)
    want = oracle.evaluate(qrels, theirs, ks, ignore, skip_first)
    assert mine == theirs
    _same(tuple(got), tuple(want))


@settings(max_examples=300, deadline=None)
@given(judged_case(), k_strategy)
def test_custom_metrics_equal_mtebs(case, ks):
    qrels, results = case
    for name in ("mrr", "recall_cap", "hole", "top_k_accuracy"):
        _same(
            getattr(mteb, name)(qrels, results, ks), dict(getattr(oracle, name)(qrels, results, ks))
        )


@settings(max_examples=200, deadline=None)
@given(judged_case(), k_strategy)
def test_max_over_subqueries_equals_mtebs(case, ks):
    qrels, results = case
    results = {q: results.get(q, {"x": 1.0}) for q in qrels}
    _same(
        mteb.max_over_subqueries(qrels, results, ks), oracle.max_over_subqueries(qrels, results, ks)
    )


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c"]), st.lists(docs, min_size=1, max_size=3), min_size=1
    ),
    st.dictionaries(
        st.sampled_from(["a-og", "b-og", "c-og"]), st.dictionaries(docs, scores, max_size=6)
    ),
    st.dictionaries(
        st.sampled_from(["a-changed", "b-changed"]), st.dictionaries(docs, scores, max_size=6)
    ),
)
def test_p_mrr_equals_mtebs(changed, original, new):
    present = [q for q in changed if q + "-og" in original and q + "-changed" in new]
    if not present:
        with pytest.raises(InvalidInputError):
            mteb.calculate_pmrr(original, new, changed)
        return
    _same(
        mteb.calculate_pmrr(original, new, changed), oracle.calculate_pmrr(original, new, changed)
    )


def test_p_mrr_change_scores_equal_mtebs():
    qrels = {
        "a-og": {"0": 1, "1": 0},
        "a-changed": {"0": 0, "1": 1},
        "b-og": {"2": 2, "3": 1},
        "b-changed": {"2": 1, "3": 2},
    }
    results = {
        "a-og": {"0": 0.9, "1": 0.5, "2": 0.1},
        "a-changed": {"0": 0.4, "1": 0.6, "2": 0.5},
        "b-og": {"2": 0.3, "3": 0.3, "0": 0.2},
        "b-changed": {"2": 0.1, "3": 0.9},
    }
    changed = {"a": ["0", "1"], "b": ["2"]}
    got = mteb.evaluate_p_mrr_change(qrels, results, changed, [1, 3])
    _same(got, dict(oracle.evaluate_p_mrr_change(qrels, results, changed, [1, 3])))
