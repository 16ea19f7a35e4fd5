"""Nugget and citation scores as the values every consumer reads (issue 45 items 3-4).

Oracles: the published formulas computed here with exact fractions from the labels (a
brute-force reference written from the guide's formulas, not from ragmeter's code), scipy's
``ttest_rel`` for the paired comparison of two runs' nugget scores, and ragmeter's rule judge,
whose labels are known from the words (every content word of a sentence in the cited passage:
``full``).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from scipy import stats as scipy_stats

from ragmeter import InvalidInputError, compare, compare_many
from ragmeter.gate import gate
from ragmeter.io import read_per_query
from ragmeter.judges import RuleJudge
from ragmeter.nuggets import (
    CITATION_METRICS,
    Nugget,
    NuggetAssignments,
    NuggetBank,
    RagAnswer,
    TopicNuggets,
    citation_scores,
    evaluate_citations,
)

LABELS = ["support", "partial_support", "not_support"]
CREDIT = {"support": Fraction(1), "partial_support": Fraction(1, 2), "not_support": Fraction(0)}


def _bank(seed: int = 7, topics: int = 25) -> NuggetBank:
    rng = random.Random(seed)
    return NuggetBank(
        tuple(
            TopicNuggets(
                f"t{t}",
                f"query {t}",
                tuple(
                    Nugget(f"fact {t}.{i}", rng.choice(["vital", "okay"]))
                    for i in range(rng.randint(2, 9))
                ),
            )
            for t in range(topics)
        ),
        {"source": "test"},
    )


def _rows(bank: NuggetBank, runs: dict[str, float], seed: int = 3) -> list[dict]:
    """One row per nugget per answer; run ``r`` supports a nugget with probability runs[r]."""
    rng = random.Random(seed)
    rows = []
    for run, p in runs.items():
        for topic in bank:
            for i in range(len(topic.nuggets)):
                u = rng.random()
                label = "support" if u < p else "partial_support" if u < p + 0.2 else "not_support"
                rows.append(
                    {"run_id": run, "topic_id": topic.topic_id, "nugget": i, "assignment": label}
                )
    return rows


def _reference_vital_strict(bank: NuggetBank, rows: list[dict], run: str) -> dict[str, float]:
    """sum_V s* / |V| per topic, undefined (absent) without a vital nugget."""
    values = {}
    for topic in bank:
        vital = [i for i, n in enumerate(topic.nuggets) if n.importance == "vital"]
        if not vital:
            continue
        labels = {
            r["nugget"]: r["assignment"]
            for r in rows
            if r["run_id"] == run and r["topic_id"] == topic.topic_id
        }
        values[topic.topic_id] = float(
            Fraction(sum(labels[i] == "support" for i in vital), len(vital))
        )
    return values


def _reference_weighted(bank: NuggetBank, rows: list[dict], run: str) -> dict[str, float]:
    """(sum_V s + 0.5 sum_O s) / (|V| + 0.5 |O|) per topic."""
    values = {}
    for topic in bank:
        labels = {
            r["nugget"]: r["assignment"]
            for r in rows
            if r["run_id"] == run and r["topic_id"] == topic.topic_id
        }
        weights = [
            Fraction(1) if n.importance == "vital" else Fraction(1, 2) for n in topic.nuggets
        ]
        numerator = sum(w * CREDIT[labels[i]] for i, w in enumerate(weights))
        values[topic.topic_id] = float(numerator / sum(weights))
    return values


def test_two_runs_nugget_scores_compare_as_any_per_query_values():
    bank = _bank()
    rows = _rows(bank, {"good": 0.6, "weak": 0.35})
    scores = NuggetAssignments.from_table(rows, bank).scores()
    good, weak = scores.per_query_results("good"), scores.per_query_results("weak")
    for run, values in (("good", good), ("weak", weak)):
        expected = _reference_vital_strict(bank, rows, run)
        got = values["nugget_vital_strict"]
        assert {t for t, v in got.items() if not math.isnan(v)} == set(expected)
        for topic, value in expected.items():
            assert got[topic] == pytest.approx(value, abs=1e-12)
        for topic, value in _reference_weighted(bank, rows, run).items():
            assert values["nugget_weighted"][topic] == pytest.approx(value, abs=1e-12)
    result = compare(good, weak, metrics="nugget_weighted", test="t")
    a = _reference_weighted(bank, rows, "good")
    b = _reference_weighted(bank, rows, "weak")
    topics = sorted(a)
    expected_t = scipy_stats.ttest_rel([a[t] for t in topics], [b[t] for t in topics])
    item = result["nugget_weighted"]
    assert item.delta == pytest.approx(sum(a[t] - b[t] for t in topics) / len(topics), abs=1e-12)
    assert item.p_value == pytest.approx(expected_t.pvalue, rel=1e-9)
    # The vital scores leave out the topics without a vital nugget, and say how many.
    vital = compare(good, weak, metrics="nugget_vital_strict", test="t")["nugget_vital_strict"]
    n_vital = len(_reference_vital_strict(bank, rows, "good"))
    assert vital.n_pairs == n_vital
    means = scores.means()["good"]["nugget_vital_strict"]
    assert means.n_queries == n_vital and means.n_undefined == len(bank) - n_vital
    many = compare_many([good, weak], metrics=["nugget_all"])
    assert set(many.systems) == {"good", "weak"}
    # The gate reads them too: "good" is shown not worse than "weak" by 0.05.
    assert bool(gate(good, weak, metrics="nugget_weighted", margin=0.05))


def test_scores_against_another_bank_are_refused_and_saved_values_read_back(tmp_path):
    bank = _bank()
    rows = _rows(bank, {"good": 0.6})
    values = NuggetAssignments.from_table(rows, bank).scores().per_query_results("good")
    edited = NuggetBank(
        (TopicNuggets(bank.topic_ids[0], "query 0", (Nugget("other", "vital"),)), *tuple(bank)[1:]),
        {"source": "test"},
    )
    other_rows = [r for r in rows if r["topic_id"] != bank.topic_ids[0]] + [
        {"run_id": "other", "topic_id": bank.topic_ids[0], "nugget": 0, "assignment": "support"}
    ]
    other_rows = [{**r, "run_id": "other"} if r["run_id"] == "good" else r for r in other_rows]
    other = NuggetAssignments.from_table(other_rows, edited).scores().per_query_results("other")
    with pytest.raises(InvalidInputError) as refused:
        compare(other, values, metrics="nugget_all")
    assert f"bank.content_hash: '{edited.content_hash}' vs '{bank.content_hash}'" in str(
        refused.value
    )
    path = values.write(tmp_path / "good.json")
    back = read_per_query(path)
    assert back.manifest == values.manifest
    for metric in values.metric_names:
        for topic, value in values[metric].items():
            assert (math.isnan(value) and math.isnan(back[metric][topic])) or back[metric][
                topic
            ] == value


def _reference_citations(n_sentences, pairs):
    weight = {"full": Fraction(1), "partial": Fraction(1, 2), "none": Fraction(0)}
    precision = sum(weight[s] for _, _, s in pairs) / len(pairs) if pairs else None
    by_sentence: dict[int, list[Fraction]] = {}
    for sentence, _, support in pairs:
        by_sentence.setdefault(sentence, []).append(weight[support])
    recall = sum(sum(w) / len(w) for w in by_sentence.values()) / n_sentences
    supported = Fraction(sum(Fraction(1) in w for w in by_sentence.values()), n_sentences)
    if precision is None:
        f1 = None
    elif precision + recall == 0:
        f1 = Fraction(0)
    else:
        f1 = 2 * precision * recall / (precision + recall)
    return {
        "citation_precision": precision,
        "citation_recall": recall,
        "citation_f1": f1,
        "argue_sentence_precision": supported,
    }


def test_citation_scores_equal_the_formulas_on_random_answers():
    rng = random.Random(45)
    checked = 0
    for _ in range(300):
        n = rng.randint(1, 6)
        pairs = [
            (s, c, rng.choice(["full", "partial", "none"]))
            for s in range(n)
            for c in range(4)
            if rng.random() < 0.3
        ]
        got = citation_scores(n, pairs)
        for metric, value in _reference_citations(n, pairs).items():
            if value is None:
                assert got[metric].status == "undefined" and got[metric].value is None
            else:
                assert got[metric].value == pytest.approx(float(value), abs=1e-12)
                checked += 1
    assert checked > 1000


def test_citations_judged_through_the_engine():
    segments = {
        "s1": "The Eiffel Tower was finished in 1889 in Paris.",
        "s2": "Gustave Eiffel's company designed and built the tower.",
    }
    answer = RagAnswer.build(
        "run",
        "t1",
        [
            ("The tower was finished in 1889.", [0, 1]),  # s1 full, s2 none
            ("Gustave Eiffel's company built the tower.", [1]),  # s2 full
            ("It is painted brown.", []),  # uncited
        ],
        ["s1", "s2"],
    )
    uncited = RagAnswer.build("run", "t2", [("Nothing cited here.", [])], [])
    scores = evaluate_citations(
        [answer, uncited],
        {"t1": "When was the Eiffel Tower built?", "t2": "Anything?"},
        segments,
        judge=RuleJudge(),
        progress=False,
    )
    values = scores.per_query_results("run")
    expected = _reference_citations(3, [(0, 0, "full"), (0, 1, "none"), (1, 1, "full")])
    for metric in CITATION_METRICS:
        assert values[metric]["t1"] == pytest.approx(float(expected[metric]), abs=1e-12)
    # No citation at all: precision is undefined (no pair), recall 0 (no sentence supported).
    assert math.isnan(values["citation_precision"]["t2"])
    assert values["citation_recall"]["t2"] == 0.0
    assert values.manifest.producer == "ragmeter.nuggets.citations"


def test_a_sample_without_citations_is_undefined_with_its_reason():
    scores = citation_scores(None, [])
    assert {s.status for s in scores.values()} == {"undefined"}
    assert {s.reason_code for s in scores.values()} == {"missing_citations"}
