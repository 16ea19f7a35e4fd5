"""The tie-aware measures (ndcg_ta, map_ta, precision_ta, recall_ta, mrr_ta) against their
definition: the mean of the measure over every order of the documents with tied scores,
enumerated here (at most 8 tied documents per case), each order's value computed straight
from the measure's definition in Python. Also scikit-learn's ndcg_score (ignore_ties=False,
McSherry and Najork's averaging) and mteb PR 5516's float-gain nDCG, whose ties are credited
their group's mean gain.

Every input form reaches the core by its own path (dicts, TREC files, Arrow tables, repeated
ids with duplicates="first"), with max_docs and judged_docs_only."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from itertools import groupby

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from ragmeter import ranking_metrics
from ragmeter.io.trec import evaluate_trec

TIE_AWARE = {
    "ndcg_ta": "ndcg",
    "map_ta": "ap",
    "precision_ta": "precision",
    "recall_ta": "recall",
    "mrr_ta": "rr",
}


def _naive(measure, grades, judged, k, t):
    """The measure on one order: ``grades`` of the ranked documents in order (None: not
    judged), ``judged`` every judged grade; k None: the whole ranking."""
    depth = len(grades) if k is None else min(k, len(grades))
    rel = [g is not None and g >= t for g in grades]
    r = sum(1 for g in judged if g >= t)
    if measure == "precision":
        return sum(rel[:depth]) / k
    if measure == "recall":
        return math.nan if r == 0 else sum(rel[:depth]) / r
    if measure == "rr":
        return next((1 / (i + 1) for i in range(depth) if rel[i]), 0.0)
    if measure == "ap":
        if r == 0:
            return math.nan
        return sum(sum(rel[: i + 1]) / (i + 1) for i in range(depth) if rel[i]) / r
    gains = [g if g is not None and g > 0 else 0.0 for g in grades]
    dcg = sum(gains[i] / math.log2(i + 2) for i in range(depth))
    ideal = sorted((g for g in judged if g > 0), reverse=True)[: len(judged) if k is None else k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else math.nan


def _trec_sorted(run):
    # trec_eval's order: score descending, ties by id descending (byte-wise).
    by_id = sorted(run.items(), key=lambda d: d[0].encode(), reverse=True)
    return sorted(by_id, key=lambda d: -d[1])


def by_enumeration(measure, qrels, run, k, t=1.0, max_docs=None, judged_only=False):
    ranked = _trec_sorted(run)[:max_docs]
    if judged_only:
        ranked = [d for d in ranked if d[0] in qrels and qrels[d[0]] >= 0]
    groups = [
        [qrels.get(doc) for doc, _ in group]
        for _, group in groupby(ranked, key=lambda d: d[1] + 0.0)
    ]
    judged = list(qrels.values())
    values = [
        _naive(measure, [g for group in order for g in group], judged, k, t)
        for order in itertools.product(*(itertools.permutations(g) for g in groups))
    ]
    return math.fsum(values) / len(values)


def tied_documents(run, max_docs=None):
    ranked = _trec_sorted(run)[:max_docs]
    sizes = [len(list(g)) for _, g in groupby(ranked, key=lambda d: d[1] + 0.0)]
    return sum(n for n in sizes if n > 1)


docs = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "d10", "d9"])
grades = st.sampled_from([-1, 0, 0, 1, 1, 2, 0.5, 1.5, 3.25])
scores = st.sampled_from([0.0, -0.0, 1.0, 1.0, 2.5, 2.5, -3.0])


@st.composite
def cases(draw):
    run = draw(st.dictionaries(docs, scores, min_size=1, max_size=10))
    qrels = draw(st.dictionaries(docs, grades, min_size=1, max_size=8))
    max_docs = draw(st.sampled_from([None, None, 2, 5]))
    if tied_documents(run, max_docs) > 8:
        run = dict(list(run.items())[:4])
    return qrels, run, max_docs


def names(k):
    return [f"{m}@{k}" if m in ("precision_ta", "recall_ta") or k else m for m in TIE_AWARE]


def _close(got, want):
    return (math.isnan(got) and math.isnan(want)) or got == pytest.approx(
        want, rel=1e-12, abs=1e-14
    )


@settings(max_examples=300, deadline=None)
@given(cases(), st.sampled_from([None, 1, 3, 20]), st.sampled_from([1.0, 0.5, 2]))
def test_equal_to_the_mean_over_every_order_of_tied_documents(case, k, t):
    qrels, run, max_docs = case
    kk = k or 5
    got = ranking_metrics(
        {"q": qrels},
        {"q": run},
        metrics=[f"{m}@{kk}" if m in ("precision_ta", "recall_ta") or k else m for m in TIE_AWARE],
        relevance_threshold=t,
        max_docs=max_docs,
        zero_division=np.nan,
        average=None,
    )
    for measure, base in TIE_AWARE.items():
        name = f"{measure}@{kk}" if measure in ("precision_ta", "recall_ta") or k else measure
        depth = kk if measure in ("precision_ta", "recall_ta") else k
        want = by_enumeration(base, qrels, run, depth, t, max_docs)
        assert _close(got[name]["q"], want), (name, got[name]["q"], want)


@settings(max_examples=150, deadline=None)
@given(cases(), st.sampled_from([None, 2]))
def test_judged_documents_only(case, k):
    qrels, run, _ = case
    judged_run = {d: s for d, s in run.items() if d in qrels and qrels[d] >= 0}
    if tied_documents(judged_run) > 8:
        return
    kk = k or 3
    metrics = [f"{m}@{kk}" if m in ("precision_ta", "recall_ta") or k else m for m in TIE_AWARE]
    got = ranking_metrics(
        {"q": qrels},
        {"q": run},
        metrics=metrics,
        judged_docs_only=True,
        zero_division=np.nan,
        average=None,
    )
    for (measure, base), name in zip(TIE_AWARE.items(), metrics, strict=True):
        depth = kk if measure in ("precision_ta", "recall_ta") else k
        want = by_enumeration(base, qrels, run, depth, judged_only=True)
        assert _close(got[name]["q"], want), (name, got[name]["q"], want)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_every_input_form_gives_the_same_values(tmp_path_factory, case):
    qrels, run, max_docs = case
    metrics = ["ndcg_ta@3", "map_ta", "precision_ta@2", "recall_ta@4", "mrr_ta"]
    options = {"metrics": metrics, "max_docs": max_docs, "zero_division": np.nan}
    want = ranking_metrics({"q": qrels}, {"q": run}, average=None, **options)

    def table(rows, value):
        return pa.table(
            {
                "query_id": ["q"] * len(rows),
                "doc_id": [d for d, _ in rows],
                value: [v for _, v in rows],
            }
        )

    from_tables = ranking_metrics(
        table(list(qrels.items()), "relevance"),
        table(list(run.items()), "score"),
        average=None,
        **options,
    )
    # A run table that repeats each id at a lower score: duplicates="first" keeps the best.
    repeated = list(run.items()) + [(d, s - 10.0) for d, s in run.items()]
    from_repeats = ranking_metrics(
        table(list(qrels.items()), "relevance"),
        table(repeated, "score"),
        average=None,
        duplicates="first",
        **options,
    )
    # TREC files read integer grades: compared with the dicts of the same integer grades.
    folder = tmp_path_factory.mktemp("trec")
    integer = {d: int(g) for d, g in qrels.items()}
    (folder / "qrels").write_text("".join(f"q 0 {d} {g}\n" for d, g in integer.items()))
    (folder / "run").write_text("".join(f"q Q0 {d} 0 {s!r} tag\n" for d, s in run.items()))
    from_files = evaluate_trec(folder / "qrels", folder / "run", per_query=True, **options)
    from_integer_dicts = ranking_metrics({"q": integer}, {"q": run}, average=None, **options)
    for m in metrics:
        assert _close(from_tables[m]["q"], want[m]["q"]), m
        assert _close(from_repeats[m]["q"], want[m]["q"]), m
        assert _close(from_files[m]["q"], from_integer_dicts[m]["q"]), m


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=2, max_size=9),
    st.lists(st.sampled_from([0.1, 0.2, 0.2, 0.3]), min_size=9, max_size=9),
    st.sampled_from([None, 1, 2, 5]),
)
def test_ndcg_ta_equals_scikit_learns_ndcg_score_with_ties(gains, raw_scores, k):
    # scikit-learn averages the DCG over the orders of tied scores (McSherry and Najork) and
    # takes the ideal DCG over the documents scored: every judged document is ranked here.
    run = {f"d{i}": raw_scores[i] for i in range(len(gains))}
    qrels = {f"d{i}": g for i, g in enumerate(gains)}
    if sum(gains) == 0:
        return
    name = "ndcg_ta" if k is None else f"ndcg_ta@{k}"
    got = ranking_metrics({"q": qrels}, {"q": run}, metrics=[name], average=None)[name]["q"]
    want = ndcg_score([gains], [raw_scores[: len(gains)]], k=k, ignore_ties=False)
    assert got == pytest.approx(want, rel=1e-12)


def ndcg_float_scores(gains, results, k_values):
    """mteb PR 5516's ``ndcg_float_scores`` (https://github.com/embeddings-benchmark/mteb/pull/
    5516, as published with cohere-ai/rcp-ndcg), without its nAUCs: the documents of a group
    of equal scores are each credited the group's mean gain (gains as given, missing 0), the
    ideal DCG sorts all of a query's gains, an ideal DCG of 0 scores 0; the mean over the
    queries of ``results``, rounded to 5 decimals."""

    def dcg(values, k):
        return sum(g / math.log2(r + 1) for r, g in enumerate(values[:k], start=1))

    per_query = defaultdict(list)
    for query, doc_scores in results.items():
        query_gains = gains[query]
        ranking = sorted(doc_scores, key=lambda d: doc_scores[d], reverse=True)
        mean = {}
        for _, group in groupby(ranking, key=doc_scores.__getitem__):
            tied = list(group)
            value = sum(query_gains.get(d, 0.0) for d in tied) / len(tied)
            mean.update(dict.fromkeys(tied, value))
        ideal = sorted(query_gains.values(), reverse=True)
        for k in k_values:
            ideal_dcg = dcg(ideal, k)
            if ideal_dcg == 0.0:
                per_query[k].append(0.0)
                continue
            per_query[k].append(dcg([mean[d] for d in ranking[:k]], k) / ideal_dcg)
    return {k: round(sum(v) / len(v), 5) for k, v in per_query.items()}


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(docs, st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.75]), min_size=1),
        min_size=1,
    ),
    st.data(),
)
def test_ndcg_ta_is_mteb_pr_5516s_float_gain_ndcg(gains, data):
    results = {q: data.draw(st.dictionaries(docs, scores, min_size=1, max_size=8)) for q in gains}
    ks = [1, 3, 10]
    want = ndcg_float_scores(gains, results, ks)
    values = ranking_metrics(
        gains, results, metrics=[f"ndcg_ta@{k}" for k in ks], zero_division=0.0, average=None
    )
    for k in ks:
        per_query = [values[f"ndcg_ta@{k}"][q] for q in results]
        assert round(sum(per_query) / len(per_query), 5) == want[k]


def test_without_ties_the_values_are_the_measures_own_to_the_last_bit():
    qrels = {"q": {"a": 2, "b": 1, "x": 3, "c": 0}}
    run = {"q": {"a": 0.3, "b": 0.9, "c": 0.5, "d": 0.1}}
    pairs = [
        ("ndcg_ta@3", "ndcg@3"),
        ("map_ta", "map"),
        ("precision_ta@2", "precision@2"),
        ("recall_ta@3", "recall@3"),
        ("mrr_ta", "mrr"),
        ("ndcg_ta", "ndcg"),
    ]
    values = ranking_metrics(qrels, run, metrics=[m for p in pairs for m in p], average=None)
    for tie_aware, plain in pairs:
        assert values[tie_aware]["q"] == values[plain]["q"], tie_aware


def test_hand_computed_values():
    # trec_eval's E1: three tied documents, one relevant: trec_eval ranks it third (d id
    # descending); over the three orders it is first, second or third.
    values = ranking_metrics(
        {"q": {"a": 1}},
        {"q": {"a": 1.0, "b": 1.0, "c": 1.0}},
        metrics=["mrr", "mrr_ta", "precision_ta@1", "ndcg_ta"],
        average=None,
    )
    assert values["mrr"]["q"] == pytest.approx(1 / 3)
    assert values["mrr_ta"]["q"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert values["precision_ta@1"]["q"] == pytest.approx(1 / 3)
    assert values["ndcg_ta"]["q"] == pytest.approx((1 + 1 / math.log2(3) + 1 / 2) / 3)
    # A ranking given in order has no ties.
    ordered = ranking_metrics({"q": {"a": 1}}, {"q": ["c", "b", "a"]}, metrics=["mrr_ta"])
    assert float(ordered["mrr_ta"]) == pytest.approx(1 / 3)
