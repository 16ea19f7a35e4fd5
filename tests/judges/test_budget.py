"""Budget-aware judging (issue 49 item 3): a stratified sample judged within a budget, the
items left never asked, the estimate design-based, and a run extended through the cache.

Oracles: the judge's own request log (which items were asked), the stratified mean and its
variance computed here from Cochran's formulas with numpy, and the full judging of every item.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from ragmeter.exceptions import InvalidInputError
from ragmeter.judges import (
    RubricMetric,
    Sample,
    ScriptedJudge,
    evaluate,
    evaluate_within_budget,
)

RUBRIC = RubricMetric("correct", "Is this right? $answer", allowed_values=[0, 1])
rng = np.random.default_rng(49)
N = 600
TOPIC = [i % 6 for i in range(N)]
TRUTH = [int(rng.random() < 0.2 + 0.1 * TOPIC[i]) for i in range(N)]
SAMPLES = [
    Sample(f"Topic {TOPIC[i]}?", f"answer {i}.", id=f"s{i}", metadata={"topic": TOPIC[i]})
    for i in range(N)
]


def judge() -> ScriptedJudge:
    def answer(request):
        i = int(request.first_user_message().split("answer ")[1].split(".")[0])
        return {"value": TRUTH[i], "reason": "scripted"}

    return ScriptedJudge({"rubric_correct": answer}, name="scripted")


def _asked(the_judge) -> set[str]:
    return {
        f"s{int(r.first_user_message().split('answer ')[1].split('.')[0])}"
        for r in the_judge.requests
    }


def test_a_call_budget_judges_a_stratified_sample_and_no_other_item():
    the_judge = judge()
    result = evaluate_within_budget(
        SAMPLES,
        RUBRIC,
        judge=the_judge,
        max_calls=180,
        strata=lambda s: s.metadata["topic"],
        min_pilot=60,
    )
    assert result.calls <= 180 and len(the_judge.requests) == result.calls
    assert _asked(the_judge) == set(result.judged) and len(result.judged) == result.calls
    assert result.stopped == "the budget is spent"
    # The estimate is Cochran's stratified mean over the judged items, with its variance.
    by_topic = {
        h: [TRUTH[int(s[1:])] for s in result.judged if TOPIC[int(s[1:])] == h] for h in range(6)
    }
    sizes = {h: TOPIC.count(h) for h in range(6)}
    mean = sum(sizes[h] / N * np.mean(v) for h, v in by_topic.items())
    variance = sum(
        (sizes[h] / N) ** 2 * (1 - len(v) / sizes[h]) * np.var(v, ddof=1) / len(v)
        for h, v in by_topic.items()
    )
    assert result.mean == pytest.approx(mean)
    half = norm.ppf(0.975) * math.sqrt(variance)
    assert result.ci == pytest.approx((mean - half, mean + half))
    assert "of 600 items judged" in str(result)


def test_a_larger_budget_later_extends_the_run_through_the_cache(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    first_judge = judge()
    first = evaluate_within_budget(
        SAMPLES,
        RUBRIC,
        judge=first_judge,
        max_calls=120,
        strata=TOPIC,
        min_pilot=60,
        cache=cache,
    )
    more_judge = judge()
    more = evaluate_within_budget(
        SAMPLES,
        RUBRIC,
        judge=more_judge,
        max_calls=150,
        strata=TOPIC,
        min_pilot=60,
        cache=cache,
    )
    # The items judged before are judged again from the cache (no call), new ones are added.
    assert set(first.judged) <= set(more.judged)
    assert _asked(more_judge).isdisjoint(first.judged)
    assert more.calls == len(more_judge.requests) <= 150
    assert len(more.judged) == len(first.judged) + more.calls


def test_a_target_width_and_a_proxy():
    # A cheap proxy that agrees with the judge on 90% of the items.
    proxy = [t if rng.random() < 0.9 else 1 - t for t in TRUTH]
    result = evaluate_within_budget(
        SAMPLES, RUBRIC, judge=judge(), ci_width=0.15, strata=TOPIC, proxy=proxy, min_pilot=60
    )
    assert result.stopped == "the interval is as narrow as asked"
    assert result.ci[1] - result.ci[0] <= 0.15 and result.calls < N
    assert result.estimate.method == "difference"
    full = evaluate(SAMPLES, [RUBRIC], judge=judge(), progress=False)
    assert abs(np.mean(full.values("correct")) - result.mean) < 0.15


def test_bad_budgets_are_refused():
    with pytest.raises(InvalidInputError, match="budget"):
        evaluate_within_budget(SAMPLES, RUBRIC, judge=judge())
    with pytest.raises(InvalidInputError, match="prices"):
        evaluate_within_budget(SAMPLES, RUBRIC, judge=judge(), max_cost=1.0)
    with pytest.raises(InvalidInputError, match="strata has"):
        evaluate_within_budget(SAMPLES, RUBRIC, judge=judge(), max_calls=10, strata=[1, 2])
