"""ragmeter against ranx, per measure and per query, for every family with a ranx name.

The names are built from the declarations (the ranx name, ``@k`` where the family takes a
cutoff, ``-l2`` unless the family's gains ignore the relevance threshold on purpose, as
trec_eval's nDCG does and ranx's does not), so a new family is tested here without editing
a list.

Conventions where ranx and ragmeter differ by declaration (see each family's
``differences``), kept out of the comparison:

* ranx scores an undefined value (R = 0, ideal DCG = 0) 0: ragmeter runs with
  ``zero_division=0.0``;
* ranx breaks ties in scores by insertion order: the runs have distinct scores;
* ranx's bpref counts negative grades as non-relevant and is NaN without a judged
  non-relevant document: grades are >= 0 and every query has a judged non-relevant document.

ranx is called one query at a time: with several queries its bpref gives wrong values for
some of them (0 for a query whose only ranked document is relevant).
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter.ranking import FAMILIES

ranx = pytest.importorskip("ranx")

RANX_FAMILIES = [
    f for f in FAMILIES if f.ranx_name is not None or f.ranx_persistence_name is not None
]


def ranx_names(fam):
    names = []
    if fam.ranx_persistence_name is not None:
        # ranx's rbp.95 / rbp@95: p = 0.95, -lN its relevance level.
        for p in (".95", ".8", "@5", ".05"):
            names += [f"{fam.ranx_persistence_name}{p}", f"{fam.ranx_persistence_name}{p}-l2"]
    if fam.ranx_name is None:
        return names
    # The name alone: the whole ranking (ranx's k = 0).
    alone = fam.cutoff != "required" or fam.ranx_whole_ranking is not None
    bases = [fam.ranx_name] if alone else []
    if fam.cutoff != "none":
        bases += [f"{fam.ranx_name}@1", f"{fam.ranx_name}@3", f"{fam.ranx_name}@10"]
    for base in bases:
        names.append(base)
        if not fam.threshold_unused:
            names.append(f"{base}-l2")
    return names


NAMES = [name for fam in RANX_FAMILIES for name in ranx_names(fam)]


def test_the_issue_names_are_declared():
    # ranx's own spelling of R-precision is r-precision.
    for name in ["hits@10", "hit_rate@10", "precision@10", "recall@10", "f1@10", "r-precision",
                 "mrr", "map", "dcg@10", "dcg_burges@10", "ndcg@10", "ndcg_burges@10", "bpref",
                 "map@100-l2"]:  # fmt: skip
        assert ragmeter.ranking.parse_metric(name).family.ranx_name is not None, name
    # ranx's names alone and its RBP syntax are read as ranx reads them.
    for name in ["hits", "hit_rate", "precision", "rbp.95", "rbp@5-l2"]:
        assert name in NAMES, name


def test_ranx_spellings_that_are_not_its_own_keep_their_meaning():
    # 'recall' alone is trec_eval's recall group (trec_eval has that name); ranx's is set_recall.
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 2.0, "x": 1.0}}
    ours = ragmeter.ranking_metrics(qrels, run, metrics=["recall", "set_recall"])
    assert ours["recall_5"] == ours["set_recall"] == 0.5
    assert float(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "recall")) == 0.5
    # Other spellings of precision still need a cutoff, written before ranx's level.
    for name, example in [("p", "p@10"), ("prec-l2", "prec@10-l2")]:
        with pytest.raises(ValueError, match=f"needs a cutoff, e.g. '{example}'"):
            ragmeter.ranking_metrics(qrels, run, metrics=[name])
    with pytest.raises(ValueError, match=r"persistence p = 0.00 must be above 0"):
        ragmeter.ranking_metrics(qrels, run, metrics=["rbp.00"])


def compare(qrels, run):
    ours = ragmeter.ranking_metrics(qrels, run, metrics=NAMES, average=None, zero_division=0.0)
    for q in qrels:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = ranx.evaluate(
                ranx.Qrels({q: qrels[q]}), ranx.Run({q: run[q]}), NAMES, return_mean=False
            )
        for name in NAMES:
            want = float(np.asarray(expected[name]).reshape(-1)[0])
            context = (name, q, qrels[q], sorted(run[q].items(), key=lambda d: -d[1]))
            assert ours[name][q] == pytest.approx(want, abs=1e-12), context


def test_ranx_own_hits_example():
    # ranx's test of hits: 2.5 over two queries (2 and 3 relevant in the top k).
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 1}, "q2": {"d1": 1, "d2": 1, "d3": 1, "d4": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "x": 0.7}, "q2": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    ours = ragmeter.ranking_metrics(qrels, run, metrics=["hits@3"])["hits@3"]
    assert ours == ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "hits@3") == 2.5


doc_ids = st.sampled_from([f"d{i}" for i in range(25)])


@st.composite
def query(draw):
    judged = draw(st.dictionaries(doc_ids, st.integers(0, 4), min_size=1, max_size=14))
    judged[draw(doc_ids)] = 0
    ranked = draw(st.lists(doc_ids, unique=True, min_size=1, max_size=22))
    rng = random.Random(draw(st.integers(0, 2**32)))
    scores = [(i + 1) / 1024 for i in rng.sample(range(len(ranked) * 4), len(ranked))]
    return judged, dict(zip(ranked, scores, strict=True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(query(), min_size=1, max_size=5))
def test_matches_ranx_per_query(queries):
    qrels = {f"q{i}": judged for i, (judged, _) in enumerate(queries)}
    run = {f"q{i}": ranked for i, (_, ranked) in enumerate(queries)}
    compare(qrels, run)


def test_where_ranx_differs_on_purpose():
    # ranx's ndcg sets the gain of grades below its level to 0; ragmeter keeps trec_eval's
    # gains (the family says so) and agrees with pytrec_eval's ndcg_cut, whatever the level.
    import pytrec_eval

    qrels = {"q": {"a": 1, "b": 3, "c": 0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 3.0}}
    ours = ragmeter.ranking_metrics(qrels, run, metrics=["ndcg@3-l2"])["ndcg@3-l2"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg@3-l2")
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3"}).evaluate(run)["q"]["ndcg_cut_3"]
    assert float(ours) == pytest.approx(trec, abs=1e-12)
    assert float(ours) != pytest.approx(theirs)
    assert "ranx" in ragmeter.ranking.parse_metric("ndcg@3").family.differences
