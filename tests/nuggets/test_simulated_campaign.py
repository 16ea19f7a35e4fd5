"""A simulated campaign (issue 45, Proof): runs with a known true coverage, a noisy assessor
judging every answer three times. Reported and checked: Kendall's tau between the runs ordered
by their nugget scores and by their true coverage, and the coverage of the judge-noise
intervals of the runs' means (``NuggetScores.interval``: between- and within-topic variance
components, ragmeter.stats.repeated) over many campaigns.

The truth is known by construction: run r supports each nugget with probability p_r; the
assessor gives each label independently per repeat, flipping it with probability e (two
grades), so the expected score of run r is mu_r = p_r (1 - e) + (1 - p_r) e; a 95% interval of
a run's mean over topics must cover mu_r about 95% of the time (binomial bounds below).
"""

from __future__ import annotations

import random

from scipy import stats as scipy_stats

from ragmeter.nuggets import (
    AnswerAssignment,
    Judgement,
    Nugget,
    NuggetAssignments,
    NuggetBank,
    TopicNuggets,
)

RUNS = [0.15 + 0.08 * r for r in range(8)]  # true coverage of each run
NOISE = 0.15
REPEATS = 3


def _campaign(rng: random.Random, topics: int = 30) -> NuggetAssignments:
    bank = NuggetBank(
        tuple(
            TopicNuggets(
                f"t{t}",
                f"query {t}",
                tuple(Nugget(f"fact {t}.{i}", "vital") for i in range(rng.randint(4, 12))),
            )
            for t in range(topics)
        ),
        {"source": "simulation"},
    )
    answers = []
    for r, p in enumerate(RUNS):
        for topic in bank:
            truth = [rng.random() < p for _ in topic.nuggets]
            judgements = tuple(
                Judgement(
                    tuple(
                        "support" if (t != (rng.random() < NOISE)) else "not_support" for t in truth
                    )
                )
                for _ in range(REPEATS)
            )
            answers.append(AnswerAssignment(f"run{r}", topic.topic_id, judgements))
    return NuggetAssignments(bank, tuple(answers), grades=2, source="simulation")


def test_run_orderings_and_interval_coverage_of_a_simulated_campaign(capsys):
    rng = random.Random(2026)
    expected = {f"run{r}": p * (1 - NOISE) + (1 - p) * NOISE for r, p in enumerate(RUNS)}
    campaigns, covered, total, taus = 80, 0, 0, []
    for _ in range(campaigns):
        scores = _campaign(rng).scores()
        ordering = scores.ordering("nugget_all")
        runs = sorted(ordering)
        taus.append(
            scipy_stats.kendalltau(
                [ordering[r] for r in runs], [expected[r] for r in runs]
            ).statistic
        )
        for run in runs:
            low, high = scores.interval(run, "nugget_all").ci
            covered += low <= expected[run] <= high
            total += 1
    coverage = covered / total
    mean_tau = sum(taus) / len(taus)
    with capsys.disabled():
        print(
            f"\nsimulated campaign: {campaigns} campaigns x {len(RUNS)} runs x 30 topics, "
            f"{REPEATS} repeats, noise {NOISE}: mean tau {mean_tau:.3f}, 95% interval coverage "
            f"{coverage:.3f} ({covered}/{total})"
        )
    # 640 intervals at 95%: the binomial 99.9% range (about [0.925, 0.972]).
    low, high = scipy_stats.binom.ppf([0.0005, 0.9995], total, 0.95) / total
    assert low <= coverage <= high
    # Runs 0.08 apart in coverage over 30 topics are ordered nearly right.
    assert mean_tau > 0.8
