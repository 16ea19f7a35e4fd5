"""Fractional grades, read by every family as its declaration says (``MeasureFamily.grades``,
``GRADE_RULES``): checked family by family against the rule itself (a "relevance" family's
values depend only on which side of the threshold a grade is) and against brute-force
definitions of the graded measures with fractional gains. Integer grades keep trec_eval's
values: the trec_eval, pytrec_eval, ir_measures and ranx oracle suites hold them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmeter import ranking_metrics
from ragmeter.exceptions import RagmeterError
from ragmeter.ranking import FAMILIES, parse_measures
from ragmeter.ranking.declarations import GRADE_RULES

docs = st.sampled_from(["a", "b", "c", "d", "e", "f", "d10", "d9"])
fractional = st.sampled_from([-1.5, -1, 0, 0.25, 0.5, 0.99, 1, 1.5, 2.75, 3])
scores = st.floats(-2, 2, allow_nan=False).map(lambda s: round(s, 1))


def _queries():
    return st.dictionaries(
        st.sampled_from(["q1", "q2"]),
        st.tuples(
            st.dictionaries(docs, fractional, min_size=1, max_size=7),
            st.dictionaries(docs, scores, min_size=1, max_size=8),
        ),
        min_size=1,
    )


def _relevance_measures():
    names = []
    for fam in FAMILIES:
        if fam.grades != "relevance" or fam.kernel is None or fam.subtopic_judgments:
            continue
        if any(default is None for _, default in fam.parameters):
            continue
        if fam.trec_parameters == "levels":
            names.append(f"{fam.name}@0.5")
        else:
            names.append(fam.name + ("@3" if fam.cutoff == "required" else ""))
    return names


RELEVANCE = _relevance_measures()


def test_every_family_declares_a_grade_rule():
    assert {f.grades for f in FAMILIES} <= set(GRADE_RULES)
    assert len(RELEVANCE) > 30
    # The families that read gains say so.
    rules = {f.name: f.grades for f in FAMILIES}
    assert rules["ndcg_cut"] == rules["err"] == rules["ndcg_ta"] == "gain"
    assert rules["ndcg"] == rules["g"] == "gain_table"
    assert rules["precision"] == rules["map"] == rules["bpref"] == "relevance"


@settings(max_examples=150, deadline=None)
@given(_queries(), st.sampled_from([1.0, 0.5, 2.0]))
def test_relevance_families_read_only_the_side_of_the_threshold(queries, t):
    # Relevant (>= t), judged non-relevant (0 <= grade < t) and in the pool unjudged (< 0):
    # the values are those of the grades 1, 0 and -1 at the threshold 1.
    qrels = {q: judged for q, (judged, _) in queries.items()}
    run = {q: ranked for q, (_, ranked) in queries.items()}

    def side(g):
        return 1 if g >= t else (0 if g >= 0 else -1)

    classes = {q: {d: side(g) for d, g in judged.items()} for q, judged in qrels.items()}
    options = {"metrics": RELEVANCE, "zero_division": np.nan, "average": None}
    got = ranking_metrics(qrels, run, relevance_threshold=t, **options)
    want = ranking_metrics(classes, run, relevance_threshold=1, **options)
    for name in got:
        for q in qrels:
            a, b = got[name][q], want[name][q]
            assert (isinstance(a, float) and math.isnan(a) and math.isnan(b)) or a == b, name


def _trec_order(ranked):
    # Score descending, ties by id descending byte-wise (two stable sorts).
    by_id = sorted(ranked.items(), key=lambda x: x[0].encode(), reverse=True)
    return [d for d, _ in sorted(by_id, key=lambda x: -x[1])]


def _ndcg(order, judged, k):
    top = order[: len(order) if k is None else k]
    dcg = sum(max(judged.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
    ideal = ideal if k is None else ideal[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else math.nan


def _err(order, judged, k):
    # gdeval: stopping probability (2^g - 1) / 2^4, grades above 4 as 4, <= 0 nothing.
    value, p_continue = 0.0, 1.0
    for i, d in enumerate(order[: len(order) if k is None else k]):
        g = min(max(judged.get(d, 0), 0), 4)
        stop = (2**g - 1) / 16
        value += p_continue * stop / (i + 1)
        p_continue *= 1 - stop
    return value if any(g > 0 for g in judged.values()) else math.nan


def _dcg(order, judged, k):
    top = order[: len(order) if k is None else k]
    return sum(max(judged.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))


def _rbp_graded(order, judged, k, p=0.8):
    top = order[: len(order) if k is None else k]
    return sum((1 - p) * p**i * judged[d] for i, d in enumerate(top) if judged.get(d, 0) > 0)


@settings(max_examples=200, deadline=None)
@given(_queries(), st.sampled_from([None, 1, 3, 10]))
def test_graded_measures_with_fractional_gains_equal_brute_force(queries, k):
    qrels = {q: judged for q, (judged, _) in queries.items()}
    run = {q: ranked for q, (_, ranked) in queries.items()}
    at = "" if k is None else f"@{k}"
    names = {
        f"ndcg{at}": _ndcg,
        f"err{at}": _err,
        f"rbp_graded{at}": _rbp_graded,
        # trec_eval's gain table without pairs: the grades are the gains.
        f"dcg{at}": _dcg,
    }
    if k is not None:
        names[f"ndcg_cut.{k}"] = _ndcg
    values = ranking_metrics(qrels, run, metrics=list(names), zero_division=np.nan, average=None)
    for name, reference in names.items():
        column = values[name.replace(".", "_")]
        for q in qrels:
            want = reference(_trec_order(run[q]), qrels[q], k)
            got = column[q]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(
                want, rel=1e-12, abs=1e-15
            ), (name, q)


def test_gain_pairs_refuse_fractional_grades():
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"a": 2.5}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 1.0}}
    with pytest.raises(RagmeterError, match=r"map integer grades, but a document is judged 2\.5"):
        ranking_metrics(qrels, run, metrics=["ndcg.1=3,2=7"])
    with pytest.raises(RagmeterError, match=r"judged 2\.5"):
        ranking_metrics(qrels, run, metrics=["nDCG(gains={0: 0, 1: 1, 2: 3})@10"])
    # Without pairs the grades are the gains.
    value = ranking_metrics(qrels, run, metrics=["ndcg"], average=None)["ndcg"]["q2"]
    assert value == 1.0
    # Integer grades with pairs are read as before.
    ranking_metrics({"q1": qrels["q1"]}, {"q1": run["q1"]}, metrics=["ndcg.1=3,2=7"])


def test_relstring_shows_the_integer_part():
    values = ranking_metrics(
        {"q": {"a": 0.9, "b": 2.5, "c": -0.5, "d": 12.25}},
        {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "e": 0.0}},
        metrics=["relstring"],
        average=None,
    )
    assert values["relstring"]["q"] == "02.>-"


def test_fractional_grades_in_parsed_names():
    # A family that takes a relevance threshold of its own reads a fractional one.
    (measure,) = parse_measures("P(rel=0.5)@2")
    assert measure.relevance_threshold == 0.5
    values = ranking_metrics(
        {"q": {"a": 0.5, "b": 0.4}}, {"q": {"a": 2.0, "b": 1.0}}, metrics=["P(rel=0.5)@2", "P@2"]
    )
    assert float(values["P(rel=0.5)@2"]) == 0.5
    assert float(values["P@2"]) == 0.0
