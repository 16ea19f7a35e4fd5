"""Agreement of automatic with human nugget assignments in one call (issue 45 item 5).

Oracles: scikit-learn's ``cohen_kappa_score``, the ``krippendorff`` package's ``alpha``,
scipy's ``kendalltau`` between the run orderings, and tau_ap computed here from Yilmaz, Aslam
and Robertson's definition (SIGIR 2008) by brute force; the run means are computed here from
the labels with the published formula (sum_N s / |N|).
"""

from __future__ import annotations

import random
from fractions import Fraction

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from ragmeter import InvalidInputError
from ragmeter.nuggets import Nugget, NuggetAssignments, NuggetBank, TopicNuggets, agreement_with

ORDER = {"not_support": 0, "partial_support": 1, "support": 2}
CREDIT = {"support": Fraction(1), "partial_support": Fraction(1, 2), "not_support": Fraction(0)}


def _bank(topics: int = 20) -> NuggetBank:
    rng = random.Random(11)
    return NuggetBank(
        tuple(
            TopicNuggets(
                f"t{t}",
                f"query {t}",
                tuple(
                    Nugget(f"fact {t}.{i}", "vital" if i % 2 == 0 else "okay")
                    for i in range(rng.randint(2, 8))
                ),
            )
            for t in range(topics)
        ),
        {"source": "test"},
    )


def _campaign(bank: NuggetBank, runs: int = 8, noise: float = 0.25):
    """A human assessor and a noisy automatic one: run r supports a nugget with probability
    0.2 + 0.07 r; the automatic label differs from the human one with probability ``noise``."""
    rng = random.Random(5)
    human, auto = [], []
    for r in range(runs):
        for topic in bank:
            for i in range(len(topic.nuggets)):
                u = rng.random()
                p = 0.2 + 0.07 * r
                label = "support" if u < p else "partial_support" if u < p + 0.2 else "not_support"
                other = rng.choice(list(ORDER)) if rng.random() < noise else label
                key = {"run_id": f"run{r}", "topic_id": topic.topic_id, "nugget": i}
                human.append({**key, "assignment": label})
                auto.append({**key, "assignment": other})
    return human, auto


def _run_means(rows: list[dict], bank: NuggetBank) -> dict[str, float]:
    per: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        per.setdefault((row["run_id"], row["topic_id"]), []).append(row["assignment"])
    by_run: dict[str, list[Fraction]] = {}
    for (run, _), labels in per.items():
        by_run.setdefault(run, []).append(sum(CREDIT[x] for x in labels) / len(labels))
    return {run: float(sum(v) / len(v)) for run, v in by_run.items()}


def _tau_ap(reference: dict[str, float], other: dict[str, float]) -> float:
    ranked = sorted(other, key=lambda s: -other[s])
    n = len(ranked)
    total = 0.0
    for i in range(1, n):
        above = ranked[:i]
        total += sum(reference[a] > reference[ranked[i]] for a in above) / i
    return 2 / (n - 1) * total - 1


def test_agreement_equals_sklearn_krippendorff_and_scipy():
    bank = _bank()
    human_rows, auto_rows = _campaign(bank)
    human = NuggetAssignments.from_table(human_rows, bank)
    auto = NuggetAssignments.from_table(auto_rows, bank, assessor="auto")
    result = agreement_with(auto, human)
    h = [r["assignment"] for r in human_rows]
    a = [r["assignment"] for r in auto_rows]
    assert result.n_labels == len(h) and result.n_answers == 8 * len(bank)
    assert result.kappa == pytest.approx(cohen_kappa_score(h, a), abs=1e-12)
    reliability = np.array([[ORDER[x] for x in h], [ORDER[x] for x in a]], dtype=float)
    expected_alpha = krippendorff.alpha(reliability, level_of_measurement="ordinal")
    assert result.alpha == pytest.approx(expected_alpha, abs=1e-9)
    for label in ORDER:
        hb = [x == label for x in h]
        ab = [x == label for x in a]
        assert result.per_label[label]["kappa"] == pytest.approx(
            cohen_kappa_score(hb, ab), abs=1e-12
        )
        nominal = krippendorff.alpha(
            np.array([hb, ab], dtype=float), level_of_measurement="nominal"
        )
        assert result.per_label[label]["alpha"] == pytest.approx(nominal, abs=1e-9)
        assert result.per_label[label]["n_human"] == sum(hb)
    human_means, auto_means = _run_means(human_rows, bank), _run_means(auto_rows, bank)
    runs = sorted(human_means)
    tau = scipy_stats.kendalltau([human_means[r] for r in runs], [auto_means[r] for r in runs])
    ordering = result.orderings["nugget_all"]
    assert ordering["n_runs"] == 8
    assert ordering["kendall_tau"] == pytest.approx(tau.statistic, abs=1e-12)
    assert ordering["tau_ap"] == pytest.approx(_tau_ap(human_means, auto_means), abs=1e-12)
    assert result.to_dict()["orderings"]["nugget_all"]["n_runs"] == 8


def test_a_tie_between_runs_leaves_tau_ap_undefined_with_a_note():
    bank = _bank(topics=2)
    human_rows, _ = _campaign(bank, runs=3, noise=0)
    # Two runs labelled alike by the automatic assessor: their means tie.
    auto_rows = [
        {**r, "assignment": "support" if r["run_id"] != "run2" else r["assignment"]}
        for r in human_rows
    ]
    result = agreement_with(
        NuggetAssignments.from_table(auto_rows, bank),
        NuggetAssignments.from_table(human_rows, bank),
    )
    assert np.isnan(result.orderings["nugget_all"]["tau_ap"])
    assert any("tau_ap undefined" in note for note in result.notes)


def test_assignments_over_different_banks_are_refused():
    bank = _bank(topics=2)
    other = NuggetBank((TopicNuggets("t0", "query 0", (Nugget("x", "vital"),)),), {})
    rows = [{"run_id": "r", "topic_id": "t0", "nugget": 0, "assignment": "support"}]
    human_rows, _ = _campaign(bank, runs=1)
    with pytest.raises(InvalidInputError, match="different banks"):
        agreement_with(
            NuggetAssignments.from_table(rows, other),
            NuggetAssignments.from_table(human_rows, bank),
        )
