"""ragmeter's ir_measures provider against ir_measures' own default pipeline.

The oracle is ir_measures itself (its ``DefaultPipeline`` before :func:`install`: pytrec_eval,
cwl_eval and its other providers): for every measure a family of ragmeter declares as an
example of its ir_measures provider (``ir_measures_examples``) and that the provider takes,
the per-query values through ``ir_measures.iter_calc`` with the provider installed equal the
values without it, for DataFrame, dict and ``Qrel``/``ScoredDoc`` inputs. Measures it does not
take come from the provider ir_measures chose before.

Ties: pytrec_eval orders tied scores as trec_eval does (doc id descending), as ragmeter does
for every measure; cwl_eval and the compat and judged providers order them otherwise, so their
runs here have distinct scores (the documented difference: with ties, ragmeter's values of
their measures follow trec_eval's order).
"""

from __future__ import annotations

import logging
import math
import random

import ir_measures
import pandas as pd
import pytest

from ragmeter.integrations import ir_measures as provider_module
from ragmeter.ranking import FAMILIES

logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)

EXAMPLES = [
    (fam, example)
    for fam in FAMILIES
    if fam.ir_measures_provider in provider_module.PROVIDERS_TAKEN_OVER
    for example in fam.ir_measures_examples
]


@pytest.fixture
def installed():
    provider = provider_module.install()
    yield provider
    provider_module.uninstall()


def dataset(seed: int, ties: bool, n_queries: int = 12):
    """Judgments and a run: graded judgments (-1 to 3), unjudged documents ranked, a judged
    query the run lacks, a run query without judgments, a query without a relevant one."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(40)]
    qrels, run = {}, {}
    offset = 0
    for q in range(1, n_queries + 1):
        judged = {
            d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, 15))
        }
        judged[rng.choice(docs)] = rng.choice([0, 1, 2])
        if q == 3:
            judged = {d: 0 for d in judged}  # nothing relevant
        qrels[str(q)] = judged
        ranked = rng.sample(docs, rng.randint(1, 25))
        if ties:
            scores = [rng.choice([0.5, 1.0, 1.5, 2.0]) for _ in ranked]
        else:
            scores = [
                (offset + i + 1) / 1024 for i in rng.sample(range(len(ranked) * 4), len(ranked))
            ]
        offset += len(ranked) * 4 + 1
        if q != 5:  # judged, not ranked
            run[str(q)] = dict(zip(ranked, scores, strict=True))
    run["99"] = {"d1": 1.0, "d2": 0.5}  # ranked, not judged
    return qrels, run


def frames(qrels, run):
    q = pd.DataFrame(
        [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    r = pd.DataFrame(
        [(qid, d, s) for qid, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    return q, r


def per_query(measures, qrels, run):
    return {
        (str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)
    }


def taken(provider, examples):
    return [
        (fam, ir_measures.parse_measure(e))
        for fam, e in examples
        if provider.supports(ir_measures.parse_measure(e))
    ]


def test_the_provider_takes_most_declared_measures(installed):
    measures = taken(installed, EXAMPLES)
    names = {str(m) for _, m in measures}
    assert len(measures) >= 0.8 * len(EXAMPLES), sorted(names)
    for must in ("nDCG@10", "P@5", "AP", "R@100", "RR", "Bpref", "infAP", "Judged@10"):
        assert must in names or any(n.startswith(must) for n in names), must


@pytest.mark.parametrize("form", ["frame", "dict", "rows"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_values_equal_ir_measures_default_pipeline(installed, form, seed):
    measures = taken(installed, EXAMPLES)
    for ties in (True, False):
        qrels, run = dataset(seed, ties)
        chosen = [m for fam, m in measures if not ties or fam.ir_measures_provider == "pytrec_eval"]
        if form == "frame":
            given = frames(qrels, run)
        elif form == "dict":
            given = (qrels, run)
        else:
            given = (
                [ir_measures.Qrel(q, d, g) for q, ds in qrels.items() for d, g in ds.items()],
                [ir_measures.ScoredDoc(q, d, s) for q, ds in run.items() for d, s in ds.items()],
            )
        ours = per_query(chosen, *given)
        provider_module.uninstall()
        try:
            theirs = per_query(chosen, qrels, run)
        finally:
            provider_module.install()
        assert set(ours) == set(theirs)
        for key, want in theirs.items():
            got = ours[key]
            if isinstance(want, float) and math.isnan(want):
                assert math.isnan(got), key
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (key, ties)


def test_measures_it_does_not_take_fall_back(installed):
    qrels, run = dataset(4, ties=False)
    kept = [ir_measures.RR @ 10, ir_measures.ERR_IA @ 5, ir_measures.Accuracy()]
    for measure in kept:
        assert not installed.supports(measure), measure
    evaluator = ir_measures.DefaultPipeline.evaluator(
        [ir_measures.nDCG @ 10, ir_measures.RR @ 10], qrels
    )
    kinds = [type(e).__name__ for e in evaluator.evaluators]
    assert kinds == ["RagmeterEvaluator", "MsMarcoEvaluator"]
    msmarco = ir_measures.msmarco.calc_aggregate([ir_measures.RR @ 10], qrels, run)
    assert ir_measures.calc_aggregate([ir_measures.RR @ 10], qrels, run) == msmarco


def test_install_is_idempotent_and_uninstall_restores_the_pipeline():
    before = list(ir_measures.DefaultPipeline.providers)
    first = provider_module.install()
    second = provider_module.install()
    assert first is second is ir_measures.providers.registry["ragmeter"]
    assert ir_measures.DefaultPipeline.providers == [first, *before]
    assert provider_module.installed()
    provider_module.uninstall()
    assert ir_measures.DefaultPipeline.providers == before
    assert not provider_module.installed()


def test_a_document_ranked_twice_keeps_its_last_score_as_pytrec_eval(installed):
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame(
        {"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]}
    )
    ours = ir_measures.calc_aggregate([ir_measures.P @ 1, ir_measures.RR], qrels, run)
    theirs = ir_measures.pytrec_eval.calc_aggregate([ir_measures.P @ 1, ir_measures.RR], qrels, run)
    assert ours == theirs == {ir_measures.P @ 1: 0.0, ir_measures.RR: 0.5}


def test_an_empty_run_gives_every_judged_query_its_default(installed):
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    empty = pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    rows = list(ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, empty))
    assert sorted((m.query_id, m.value) for m in rows) == [("1", 0.0), ("2", 0.0)]


def test_the_entry_point_names_the_provider():
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    target = pyproject["project"]["entry-points"]["ir_measures.providers"]["ragmeter"]
    module, name = target.split(":")
    assert module == provider_module.__name__
    assert getattr(provider_module, name) is provider_module.RagmeterProvider
