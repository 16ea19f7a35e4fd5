"""The worked example of the nuggets guide (docs/guides/nuggets.md) shows numbers that
independent oracles give: the pool by its definition, the labels by the rule judge's rule
applied here to the words, the scores by the published formulas in exact fractions, the
agreement by scikit-learn's ``cohen_kappa_score`` and scipy's ``kendalltau``, the paired test
by the exhaustive sign-flip distribution, and the written answer file by ragnarok's own
checker (tests/nuggets/peers, commit 7233fa7)."""

from __future__ import annotations

import itertools
import os
from fractions import Fraction

import pytest
from doc_pages import DOCS, python_blocks, run_examples
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from ragmeter.judges.text import content_words

PAGE = DOCS / "guides" / "nuggets.md"
CREDIT = {"support": Fraction(1), "partial_support": Fraction(1, 2), "not_support": Fraction(0)}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("guide"))
    try:
        # the llama.cpp block needs a server: tests/test_docs_nuggets_llama.py runs it
        local = python_blocks(PAGE, "## With a local llama.cpp server")
        blocks = [b for b in python_blocks(PAGE) if b not in local]
        yield run_examples(blocks, name="nuggets guide")
    finally:
        os.chdir(here)


def test_the_pool_is_every_retrieved_segment_graded_2_or_more(page):
    qrels, runs = page["qrels"], page["runs"]
    for topic, ids in page["pooled"].items():
        retrieved = {d for run in runs.values() for d in run.get(topic, {})}
        assert set(ids) == {d for d in retrieved if qrels[topic].get(d, 0) >= 2}


def test_the_labels_are_the_rule_judges_rule(page):
    for answer in page["assignments"]:
        text = content_words(answer_text(page, answer.run_id, answer.topic_id))
        for nugget, label in zip(
            page["bank"][answer.topic_id].nuggets, answer.judgements[0].labels, strict=True
        ):
            words = content_words(nugget.text)
            share = len(words & text) / len(words)
            expected = (
                "support" if share == 1 else "partial_support" if share >= 0.5 else "not_support"
            )
            assert label == expected


def answer_text(page, run, topic):
    (answer,) = [a for a in page["answers"] if a.run_id == run and a.topic_id == topic]
    return answer.text


def _weighted(page, run):
    values = {}
    for answer in page["assignments"]:
        if answer.run_id != run:
            continue
        nuggets = page["bank"][answer.topic_id].nuggets
        weights = [Fraction(1) if n.importance == "vital" else Fraction(1, 2) for n in nuggets]
        labels = answer.judgements[0].labels
        values[answer.topic_id] = sum(
            w * CREDIT[lb] for w, lb in zip(weights, labels, strict=True)
        ) / sum(weights)
    return values


def test_the_scores_and_the_test_are_the_formulas(page):
    means = page["means"]
    for run in ("bm25", "dense"):
        values = _weighted(page, run)
        assert means[run]["nugget_weighted"] == pytest.approx(
            float(sum(values.values()) / len(values)), abs=1e-12
        )
    dense, bm25 = _weighted(page, "dense"), _weighted(page, "bm25")
    differences = [float(dense[t] - bm25[t]) for t in sorted(dense)]
    observed = abs(sum(differences))
    flips = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, differences, strict=True))) >= observed - 1e-12
        for signs in flips
    )
    item = page["item"]
    assert item.p_value == pytest.approx(extreme / len(flips), abs=1e-12)
    assert item.delta == pytest.approx(sum(differences) / len(differences), abs=1e-12)


def test_the_agreement_is_scikit_learns_and_scipys(page):
    auto = [lb for a in page["assignments"] for lb in a.judgements[0].labels]
    human = [row["assignment"] for row in page["rows"]]
    agreement = page["agreement"]
    assert agreement.kappa == pytest.approx(cohen_kappa_score(human, auto), abs=1e-12)
    assert sum(h != a for h, a in zip(human, auto, strict=True)) == 2

    def run_means(labels):
        per_run: dict[str, list[Fraction]] = {}
        position = 0
        for answer in page["assignments"]:
            n = len(answer.judgements[0].labels)
            mine = labels[position : position + n]
            position += n
            per_run.setdefault(answer.run_id, []).append(sum(CREDIT[x] for x in mine) / n)
        return {run: float(sum(v) / len(v)) for run, v in per_run.items()}

    h, a = run_means(human), run_means(auto)
    runs = sorted(h)
    tau = scipy_stats.kendalltau([h[r] for r in runs], [a[r] for r in runs]).statistic
    assert agreement.orderings["nugget_all"]["kendall_tau"] == pytest.approx(tau, abs=1e-12)
