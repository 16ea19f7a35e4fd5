"""PyTerrier's pt.Experiment with ragmeter: the provider, the test callables, the per-query table.

Oracles: ir_measures' default pipeline (pytrec_eval, cwl_eval, ...) for the values, through
``pt.Experiment`` itself without ragmeter's provider; scipy.stats (ttest_rel, wilcoxon) and a
brute-force enumeration of every sign vector for the tests. ``pt.Experiment`` runs on in-memory
transformers (``pt.Transformer.from_df``): no index, no Java, no network.
"""

from __future__ import annotations

import itertools
import math
import random

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import AP, RR, SDCG, Bpref, Judged, P, R, nDCG
from scipy import stats

import ragmeter
from ragmeter.integrations import ir_measures as provider_module
from ragmeter.integrations import pyterrier as rm_pt
from ragmeter.ranking import FAMILIES

MEASURES = [AP, nDCG @ 10, P @ 5, R @ 100, RR, Bpref, Judged @ 10, SDCG(max_rel=3) @ 10]
NOT_TAKEN = [RR @ 10]  # ir_measures gives it to its msmarco provider
#: Every measure ragmeter's provider takes: each declared example of a family whose
#: ir_measures provider it takes over (the list tests/test_integration_ir_measures.py checks
#: through ir_measures.iter_calc), here through pt.Experiment.
EVERY_TAKEN = list(
    dict.fromkeys(
        measure
        for fam in FAMILIES
        if fam.ir_measures_provider in provider_module.PROVIDERS_TAKEN_OVER
        for example in fam.ir_measures_examples
        for measure in [ir_measures.parse_measure(example)]
        if provider_module.RagmeterProvider().supports(measure)
    )
)


def brute_force_sign_flip(d):
    d = np.asarray(d, dtype=float)
    observed = abs(d.sum())
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=d.size)))
    sums = np.abs(signs @ d)
    return float((sums >= observed - 1e-9 * np.abs(d).sum()).mean())


def experiment_data(seed=0, n_queries=20):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(30)]
    topics = pd.DataFrame({"qid": [str(q) for q in range(n_queries)], "query": ["x"] * n_queries})
    qrels_rows, runs = [], [[], []]
    for q in range(n_queries):
        for d in rng.sample(docs, 8):
            qrels_rows.append((str(q), d, rng.choice([0, 1, 2, 3])))
        for system in (0, 1):
            ranked = rng.sample(docs, 15)
            for rank, d in enumerate(ranked):
                runs[system].append((str(q), d, float(15 - rank) + rng.random() / 8, rank))
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"])
    transformers = [
        pt.Transformer.from_df(pd.DataFrame(r, columns=["qid", "docno", "score", "rank"]))
        for r in runs
    ]
    return topics, qrels, transformers


@pytest.fixture
def without_provider():
    provider_module.uninstall()
    yield
    provider_module.uninstall()


def test_provider_gives_pt_experiment_the_same_values_and_means(without_provider):
    topics, qrels, systems = experiment_data()
    assert len(EVERY_TAKEN) >= 40
    measures = list(dict.fromkeys(EVERY_TAKEN + MEASURES)) + NOT_TAKEN
    names = ["bm25", "dense"]
    before = pt.Experiment(systems, topics, qrels, measures, names=names, perquery=True)
    before_means = pt.Experiment(systems, topics, qrels, measures, names=names)
    provider = provider_module.install()
    assert all(provider.supports(m) for m in MEASURES)
    assert not any(provider.supports(m) for m in NOT_TAKEN)
    after = pt.Experiment(systems, topics, qrels, measures, names=names, perquery=True)
    after_means = pt.Experiment(systems, topics, qrels, measures, names=names)
    key = ["name", "qid", "measure"]
    merged = before.merge(after, on=key, suffixes=("_theirs", "_ours"))
    assert len(merged) == len(before) == len(after) == 2 * 20 * len(measures)
    np.testing.assert_allclose(merged["value_ours"], merged["value_theirs"], rtol=1e-9, atol=1e-12)
    for column in before_means.columns.drop("name"):
        np.testing.assert_allclose(after_means[column], before_means[column], rtol=1e-9)


@pytest.mark.parametrize(
    ("callable_", "oracle"),
    [
        (rm_pt.t_test, lambda a, b: stats.ttest_rel(a, b)),
        (rm_pt.wilcoxon, lambda a, b: stats.wilcoxon(a, b)),
    ],
)
def test_t_and_wilcoxon_equal_scipy(callable_, oracle):
    rng = np.random.default_rng(3)
    for n in (5, 12, 40, 80):
        a, b = rng.random(n).round(2), rng.random(n).round(2)
        ours = callable_(a, b)
        theirs = oracle(a, b)
        assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-9)
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-9)
        assert ours[1] == ours.pvalue  # PyTerrier reads index 1


def test_sign_flip_exact_equals_brute_force_and_sampled_is_close():
    rng = np.random.default_rng(5)
    a, b = rng.random(14), rng.random(14)
    exact = brute_force_sign_flip(a - b)
    assert rm_pt.sign_flip(a, b).pvalue == pytest.approx(exact, abs=1e-12)
    assert rm_pt.sign_flip_exact(a, b).pvalue == pytest.approx(exact, abs=1e-12)
    assert rm_pt.sign_flip(a, b).statistic == pytest.approx(float(np.mean(a - b)))
    a, b = rng.random(18), rng.random(18) + 0.1
    exact = brute_force_sign_flip(a - b)
    sampled = rm_pt.sign_flip_sampled.with_options(n_resamples=40_000)(a, b)
    assert sampled.comparison.p_value_method == "sampled"
    # 40,000 sign vectors: the standard error of p is below 0.0025.
    assert sampled.pvalue == pytest.approx(exact, abs=0.01)
    assert rm_pt.sign_flip(a, b).comparison.p_value_method == "sampled"


def test_undefined_values_are_left_out_of_the_pair():
    a = np.array([0.5, math.nan, 0.75, 1.0, 0.25, 0.6])
    b = np.array([0.25, 0.5, 0.5, math.nan, 0.25, 0.1])
    kept = ~np.isnan(a) & ~np.isnan(b)
    assert rm_pt.t_test(a, b).pvalue == pytest.approx(stats.ttest_rel(a[kept], b[kept]).pvalue)
    assert rm_pt.sign_flip(a, b).pvalue == pytest.approx(brute_force_sign_flip(a[kept] - b[kept]))


def test_bad_inputs_are_refused():
    with pytest.raises(ragmeter.InvalidInputError, match="aligned by query"):
        rm_pt.t_test([1.0, 2.0], [1.0])
    with pytest.raises(ragmeter.InvalidInputError, match="options"):
        rm_pt.sign_flip.with_options(alpha=0.1)
    with pytest.raises(ragmeter.InvalidInputError, match="test"):
        rm_pt.PairedTest("no-such-test")


def test_pt_experiment_reports_ragmeter_p_values(without_provider):
    topics, qrels, systems = experiment_data(seed=1, n_queries=12)
    names = ["bm25", "dense"]
    table = pt.Experiment(
        systems, topics, qrels, [AP, nDCG @ 10], names=names, baseline=0, test=rm_pt.sign_flip
    )
    per_query = pt.Experiment(systems, topics, qrels, [AP, nDCG @ 10], names=names, perquery=True)
    for measure in ("AP", "nDCG@10"):
        rows = per_query[per_query.measure == measure].pivot(
            index="qid", columns="name", values="value"
        )
        expected = brute_force_sign_flip(rows["dense"] - rows["bm25"])
        assert table.loc[1, f"{measure} p-value"] == pytest.approx(expected, abs=1e-12)
    table = pt.Experiment(systems, topics, qrels, [AP], names=names, baseline=0, test=rm_pt.t_test)
    rows = per_query[per_query.measure == "AP"].pivot(index="qid", columns="name", values="value")
    assert table.loc[1, "AP p-value"] == pytest.approx(
        stats.ttest_rel(rows["dense"], rows["bm25"]).pvalue, rel=1e-9
    )


def test_per_query_table_feeds_compare_many(without_provider):
    provider_module.install()
    topics, qrels, systems = experiment_data(seed=2, n_queries=15)
    table = pt.Experiment(
        systems, topics, qrels, [AP, nDCG @ 10], names=["bm25", "dense"], perquery=True
    )
    values = rm_pt.per_query_results(table)
    assert list(values) == ["bm25", "dense"]
    assert values["dense"].manifest.producer == "pyterrier.Experiment"
    assert values["dense"].manifest.measures["AP"]["family"] == "map"
    # The oracle: ir_measures' own values (pytrec_eval), without ragmeter's provider.
    provider_module.uninstall()
    run = systems[1].transform(topics).rename(columns={"qid": "query_id", "docno": "doc_id"})
    judged = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    expected = {
        (str(m.measure), m.query_id): m.value
        for m in ir_measures.iter_calc([AP, nDCG @ 10], judged, run)
    }
    for (measure, qid), value in expected.items():
        assert values["dense"][measure][qid] == pytest.approx(value, rel=1e-12)
    campaign = ragmeter.compare_many(values, baseline="bm25", test="t")
    item = campaign["dense", "bm25"]["AP"]
    a = np.array([values["dense"]["AP"][q] for q in values["bm25"].query_ids])
    b = np.array(list(values["bm25"]["AP"].values()))
    assert item.p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)


def test_per_query_table_refuses_what_is_not_one():
    with pytest.raises(ragmeter.InvalidInputError, match="columns name, qid, measure"):
        rm_pt.per_query_results([{"qid": "1", "value": 0.5}])
    twice = [{"name": "a", "qid": "1", "measure": "AP", "value": v} for v in (0.5, 0.25)]
    with pytest.raises(ragmeter.InvalidInputError, match="second value"):
        rm_pt.per_query_results(twice)
    with pytest.raises(ragmeter.InputTypeError):
        rm_pt.per_query_results(42)
