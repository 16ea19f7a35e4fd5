"""The ranking examples of the front page (README.md) and of the ranking guide
(docs/guides/ranking-metrics.md) print what the pages show, and what they show is what
pytrec_eval (trec_eval) and ranx give on the same judgments and runs."""

from __future__ import annotations

import pytest
import pytrec_eval
from doc_pages import DOCS, ROOT, python_blocks, run_examples

GUIDE = DOCS / "guides" / "ranking-metrics.md"


def trec_eval_values(qrels, run, measures):
    """{measure: {query: value}} from pytrec_eval; a ranking list becomes descending scores."""
    judged = {
        q: ({d: 1 for d in j} if not isinstance(j, dict) else dict(j)) for q, j in qrels.items()
    }
    scored = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}
    found = pytrec_eval.RelevanceEvaluator(judged, set(measures)).evaluate(scored)
    return {m: {q: found[q][m] for q in found} for m in measures}


def mean(values: dict) -> float:
    return sum(values.values()) / len(values)


def test_the_guide_functions_example_equals_trec_eval():
    blocks = python_blocks(GUIDE, "## The functions")
    namespace = run_examples(blocks, name="ranking-metrics functions")
    qrels, runs = namespace["qrels"], namespace["runs"]
    oracle = trec_eval_values(qrels, runs, ["recall_2", "ndcg_cut_3", "recip_rank", "success_1"])
    ragmeter = namespace["ranking_metrics"]
    ours = ragmeter(qrels, runs, metrics=["recall@2", "ndcg@3", "mrr", "hit_rate@1"])
    assert ours["recall@2"] == pytest.approx(mean(oracle["recall_2"])) == 0.75
    assert round(mean(oracle["ndcg_cut_3"]), 4) == 0.6956  # what the page shows
    assert ours["ndcg@3"] == pytest.approx(mean(oracle["ndcg_cut_3"]), abs=1e-15)
    assert ours["mrr"] == pytest.approx(mean(oracle["recip_rank"])) == 0.75
    assert ours["hit_rate@1"] == pytest.approx(mean(oracle["success_1"])) == 0.5
    per_query = ragmeter(qrels, runs, metrics=["mrr"], average=None)["mrr"]
    assert per_query == pytest.approx(oracle["recip_rank"]) and per_query == {"q1": 1.0, "q2": 0.5}


def test_the_names_example_and_the_front_page_equal_trec_eval_and_ranx():
    from ranx import Qrels, Run, evaluate

    namespace = run_examples(python_blocks(GUIDE, "## The functions"), name="functions")
    run_examples(python_blocks(GUIDE, "## Measure names"), namespace, name="names")
    front = run_examples(python_blocks(ROOT / "README.md")[:1], name="README ranking")
    qrels, run = front["qrels"], front["run"]
    assert qrels == namespace["qrels"] and run == namespace["runs"]
    oracle = trec_eval_values(qrels, run, ["P_1", "recall_2", "recip_rank"])
    shown = {"P_1": 0.5, "R@2": 0.75, "mrr": 0.75}  # what both pages show
    assert shown == pytest.approx(
        {
            "P_1": mean(oracle["P_1"]),
            "R@2": mean(oracle["recall_2"]),
            "mrr": mean(oracle["recip_rank"]),
        }
    )
    # The front page's ranx name ndcg@10-l2 keeps trec_eval's gains, which ignore the relevance
    # level (ranx zeroes grades below 2): it is trec_eval's ndcg_cut.10.
    ours = front["ranking_metrics"](qrels, run, metrics=["ndcg@10-l2"])["ndcg@10-l2"]
    assert ours == pytest.approx(mean(trec_eval_values(qrels, run, ["ndcg_cut_10"])["ndcg_cut_10"]))
    ranx_qrels = Qrels(
        {q: ({d: 1 for d in j} if not isinstance(j, dict) else j) for q, j in qrels.items()}
    )
    ranx_run = Run({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()})
    assert evaluate(ranx_qrels, ranx_run, "mrr") == pytest.approx(shown["mrr"])  # ranx's name too
