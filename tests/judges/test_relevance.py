"""The UMBRELA relevance judge filling qrels holes: holes found, originals untouched, LLM labels
marked, agreement (scikit-learn, krippendorff) and system-order tau (scipy) reported."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from ragmeter import InvalidInputError
from ragmeter.judges import ScriptedJudge, evaluate
from ragmeter.judges.relevance import (
    LLM_ITERATION,
    UMBRELA_RELEVANCE,
    fill_qrels_holes,
    top_k_holes,
    write_llm_qrels,
)
from ragmeter.ranking.functions import ranking_metrics

rng = np.random.default_rng(3)
DOCS = [f"d{i}" for i in range(30)]
TRUE_GRADE = {d: int(rng.integers(0, 4)) for d in DOCS}
QUERIES = {"q1": "what is a tower", "q2": "who built it"}
DOCUMENTS = {d: f"passage {d} grade {TRUE_GRADE[d]}" for d in DOCS}
# People judged the first 15 documents of each query.
QRELS = {q: {d: TRUE_GRADE[d] for d in DOCS[:15]} for q in QUERIES}
RUNS = {
    name: {
        q: [str(d) for d in np.random.default_rng(seed * 10 + j).permutation(DOCS)]
        for j, q in enumerate(QUERIES)
    }
    for seed, name in enumerate(["bm25", "dense", "hybrid", "splade"])
}


def grader(flip: float = 0.0):
    """Answers the passage's true grade, or grade - 1 with probability ``flip``."""

    def answer(request):
        found = re.search(
            r"Passage: <data:contexts>\npassage (d\d+) grade (\d)", request.first_user_message()
        )
        doc, grade = found.group(1), int(found.group(2))
        wrong = np.random.default_rng(int(doc[1:])).random() < flip
        return {"value": max(0, grade - 1) if wrong else grade, "reason": "scripted"}

    return ScriptedJudge({"rubric_umbrela_relevance": answer}, name="grader")


def brute_force_holes(k):
    holes = set()
    for run in RUNS.values():
        for q, ranking in run.items():
            holes |= {(q, d) for d in ranking[:k] if d not in QRELS[q]}
    return holes


def test_holes_are_the_unjudged_documents_of_every_top_k():
    assert set(top_k_holes(QRELS, RUNS, 10)) == brute_force_holes(10)
    assert len(top_k_holes(QRELS, RUNS, 10)) == len(brute_force_holes(10))
    with pytest.raises(InvalidInputError, match="k must"):
        top_k_holes(QRELS, RUNS, 0)


def test_fill_labels_the_holes_and_leaves_the_human_qrels_alone(tmp_path):
    before = {q: dict(d) for q, d in QRELS.items()}
    fill = fill_qrels_holes(QRELS, RUNS, QUERIES, DOCUMENTS, judge=grader(), k=10, n_held_back=12)
    assert before == QRELS
    holes = brute_force_holes(10)
    assert {(q, d) for q, docs in fill.llm_qrels.items() for d in docs} == holes
    assert all(fill.llm_qrels[q][d] == TRUE_GRADE[d] for q, d in holes)
    assert fill.share["llm"] == len(holes) and fill.share["unlabelled"] == 0
    top = {(q, d) for run in RUNS.values() for q, r in run.items() for d in r[:10]}
    assert fill.share["human"] + fill.share["llm"] == len(top)
    # a perfect judge agrees perfectly, and the filled qrels order the systems as the truth
    assert fill.agreement["krippendorff_alpha"] == pytest.approx(1.0)
    truth = {q: {d: TRUE_GRADE[d] for d in DOCS} for q in QUERIES}
    filled = fill.filled_qrels(QRELS)
    for name, run in RUNS.items():
        expected = float(ranking_metrics(truth, run, metrics=["ndcg@10"])["ndcg@10"])
        assert fill.system_scores["filled"][name] == pytest.approx(expected)
    for q, d in holes:
        assert filled[q][d] == TRUE_GRADE[d]
    assert all(filled[q][d] == g for q, docs in QRELS.items() for d, g in docs.items())
    path = tmp_path / "llm.qrels"
    write_llm_qrels(path, fill.llm_qrels)
    lines = path.read_text().splitlines()
    assert len(lines) == len(holes)
    assert all(line.split()[1] == LLM_ITERATION for line in lines)


def test_agreement_and_system_tau_against_the_oracles():
    fill = fill_qrels_holes(
        QRELS, RUNS, QUERIES, DOCUMENTS, judge=grader(flip=0.4), k=10, n_held_back=20, seed=5
    )
    report = fill.agreement
    assert report["raters"] == ["llm", "human"] and report["n_units"] == 20
    import random

    held = random.Random(5).sample(
        list(
            dict.fromkeys(
                (q, d)
                for run in RUNS.values()
                for q, r in run.items()
                for d in r[:10]
                if d in QRELS[q]
            )
        ),
        20,
    )
    llm = [fill.results.rows[len(brute_force_holes(10)) + i].value for i in range(20)]
    human = [QRELS[q][d] for q, d in held]
    assert report["cohen_kappa"] == pytest.approx(
        cohen_kappa_score([int(v) for v in llm], human, weights="quadratic")
    )
    names = list(RUNS)
    expected = kendalltau(
        [fill.system_scores["human"][n] for n in names],
        [fill.system_scores["filled"][n] for n in names],
    ).statistic
    assert fill.system_tau == pytest.approx(expected)


def test_the_relevance_judge_is_an_ordinary_judge_metric():
    estimate = evaluate(
        [__import__("ragmeter.judges", fromlist=["Sample"]).Sample("q", "", ("p",))],
        [UMBRELA_RELEVANCE],
        judge=grader(),
        dry_run=True,
    )
    assert estimate.calls == 1
    with pytest.raises(InvalidInputError, match="no text for document"):
        fill_qrels_holes(QRELS, RUNS, QUERIES, {}, judge=grader(), k=5)


def test_fill_shows_its_progress_when_asked():
    """Issue 49 item 5: progress= reached evaluate twice (TypeError), so a long labelling showed
    nothing."""
    ticks = []
    fill = fill_qrels_holes(
        QRELS,
        RUNS,
        QUERIES,
        DOCUMENTS,
        judge=grader(),
        k=5,
        n_held_back=3,
        progress=lambda done, total: ticks.append((done, total)),
    )
    total = len(fill.results.rows)
    assert ticks and ticks[-1] == (total, total)
    assert [done for done, _ in ticks] == sorted(done for done, _ in ticks)
