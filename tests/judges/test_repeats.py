"""Repeats and judge noise: independent calls, cache keys, flakiness, variance components and
the coverage of the interval that includes the judge's noise (checked by simulation)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from scipy import stats

from ragmeter import InvalidInputError
from ragmeter.judges import RubricMetric, Sample, ScriptedJudge, evaluate
from ragmeter.per_query import per_query_results
from ragmeter.stats.repeated import variance_components

GRADE = RubricMetric("grade", "Grade $answer.", allowed_values=[0, 1, 2, 3, 4])
SAMPLES = [Sample("Q?", f"answer {i}.", id=str(i)) for i in range(8)]


def _item(request) -> int:
    return int(request.first_user_message().split("answer ")[1].split(".")[0])


def noisy_judge(noise: float = 1.0, name: str = "noisy") -> ScriptedJudge:
    """A judge whose grade is item i's true grade (i mod 5) plus seeded noise: the answer is a
    function of (item, seed), so a repeat with another seed draws anew."""

    def answer(request):
        i = _item(request)
        rng = random.Random(f"{i}/{request.seed}")
        grade = min(4, max(0, round(i % 5 + rng.gauss(0.0, noise))))
        return {"value": grade, "reason": f"seed {request.seed}"}

    return ScriptedJudge({"rubric_grade": answer}, name=name)


def test_each_repeat_is_its_own_call_with_its_own_seed():
    judge = noisy_judge()
    results = evaluate(SAMPLES, [GRADE], judge=judge, repeats=3, progress=False)
    assert len(judge.requests) == 3 * len(SAMPLES)
    assert sorted({r.seed for r in judge.requests}) == [0, 1, 2]
    for row in results.rows:
        assert row.repeats is not None and len(row.repeats) == 3
        values = [s.value for s in row.repeats]
        assert row.value == pytest.approx(np.mean(values))
        assert row.score.evidence["values"] == values
        assert row.score.evidence["spread"] == max(values) - min(values)
        assert [s.reasons for s in row.repeats] == [(f"seed {k}",) for k in range(3)]
    assert results.total_usage().calls == 3 * len(SAMPLES)


def test_repeats_without_a_seed_are_still_keyed_apart():
    judge = noisy_judge()
    evaluate(SAMPLES[:2], [GRADE], judge=judge, repeats=4, seed=None, progress=False)
    assert len(judge.requests) == 8  # not memoised into one call per sample
    assert {r.seed for r in judge.requests} == {None}
    assert sorted({r.repeat for r in judge.requests}) == [0, 1, 2, 3]


def test_repeat_zero_is_served_by_a_cache_written_without_repeats(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    first = evaluate(SAMPLES, [GRADE], judge=noisy_judge(), cache=cache, progress=False)
    assert first.total_usage().calls == len(SAMPLES)
    judge = noisy_judge()
    again = evaluate(SAMPLES, [GRADE], judge=judge, cache=cache, repeats=3, progress=False)
    assert again.total_usage().calls == 2 * len(SAMPLES)
    assert {r.repeat for r in judge.requests} == {1, 2}
    assert [row.repeats[0].value for row in again.rows] == first.values("grade")
    # and a rerun with repeats makes no call at all
    rerun = evaluate(SAMPLES, [GRADE], judge=noisy_judge(), cache=cache, repeats=3, progress=False)
    assert rerun.total_usage().calls == 0
    assert rerun.values("grade") == again.values("grade")


def test_the_dry_run_counts_every_repeat():
    estimate = evaluate(SAMPLES, [GRADE], judge=noisy_judge(), repeats=5, dry_run=True)
    assert estimate.calls == 5 * len(SAMPLES)


def test_flaky_items_cross_the_threshold_between_repeats():
    verdict = RubricMetric(
        "verdict",
        "Judge $answer.",
        allowed_values=["pass", "fail"],
        score_fn=lambda p: p["value"] == "pass",
    )

    def answer(request):
        # item 0 always passes; item 1 passes on even seeds only
        verdict = "pass" if _item(request) == 0 or request.seed % 2 == 0 else "fail"
        return {"value": verdict, "reason": "scripted"}

    results = evaluate(
        SAMPLES[:2], [verdict], judge=ScriptedJudge({"rubric_verdict": answer}), repeats=3
    )
    assert results.flaky("verdict") == ["1"]
    flaky = results.rows[1]
    assert flaky.flaky and "cross 0.5" in flaky.score.evidence["flaky_reason"]
    assert flaky.value == pytest.approx(2 / 3)
    assert not results.rows[0].flaky


def test_saved_results_carry_every_repeat_and_old_rows_keep_their_form():
    plain = evaluate(SAMPLES[:2], [GRADE], judge=noisy_judge(), progress=False)
    assert all("repeats" not in record for record in plain.to_records())
    assert "repeats" not in plain.to_report_dict()
    results = evaluate(SAMPLES[:2], [GRADE], judge=noisy_judge(), repeats=2, progress=False)
    lines = [json.loads(line) for line in results.to_jsonl().splitlines()]
    assert [len(line["repeats"]) for line in lines] == [2, 2]
    assert lines[0]["repeats"][1]["reasons"] == ["seed 1"]
    report = results.to_report_dict()
    assert report["format_version"] == 3
    assert report["manifest"]["repeats"] == 2
    assert report["repeats"]["grade"]["repeats"] == 2


def test_per_query_values_of_a_run_with_repeats_are_the_item_means_and_say_so():
    results = evaluate(SAMPLES, [GRADE], judge=noisy_judge(), repeats=3, progress=False)
    per_query = per_query_results(results, name="noisy")
    assert per_query["grade"] == {row.sample_id: row.value for row in results.rows}
    assert per_query.manifest.settings["judge_value"] == "mean of 3 repeats"
    assert per_query.repeat_counts("grade") == {row.sample_id: (3, 3) for row in results.rows}
    assert per_query.repeats["grade"] == {
        row.sample_id: tuple(s.value for s in row.repeats) for row in results.rows
    }


def test_repeats_and_threshold_are_checked():
    with pytest.raises(InvalidInputError, match="repeats"):
        evaluate(SAMPLES, [GRADE], judge=noisy_judge(), repeats=0)
    with pytest.raises(InvalidInputError, match="flaky_threshold"):
        evaluate(SAMPLES, [GRADE], judge=noisy_judge(), repeats=2, flaky_threshold="high")


# -- the statistics: variance components against statsmodels, coverage by simulation --------


def test_variance_components_match_statsmodels_reml_on_a_balanced_design():
    import pandas as pd
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(11)
    a, r = 25, 4
    item_effect = rng.normal(0.0, 0.6, a)
    y = 2.0 + item_effect[:, None] + rng.normal(0.0, 0.4, (a, r))
    ours = variance_components(y.tolist())
    frame = pd.DataFrame({"y": y.ravel(), "item": np.repeat(np.arange(a), r)})
    fit = smf.mixedlm("y ~ 1", frame, groups=frame["item"]).fit(reml=True)
    # For a balanced one-way design the REML estimates are the ANOVA ones when positive.
    # (statsmodels' optimiser stops at a tolerance: agreement to 1e-4)
    assert ours.within == pytest.approx(fit.scale, rel=1e-4)
    assert ours.between == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=1e-4)
    assert ours.mean == pytest.approx(float(fit.fe_params.iloc[0]), rel=1e-9)


def test_variance_components_match_statsmodels_anova_mean_squares_when_unbalanced():
    import pandas as pd
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(12)
    items = [list(rng.normal(k * 0.3, 0.5, int(rng.integers(2, 6)))) for k in range(12)]
    frame = pd.DataFrame(
        {
            "y": [v for item in items for v in item],
            "item": [k for k, it in enumerate(items) for _ in it],
        }
    )
    table = sm.stats.anova_lm(smf.ols("y ~ C(item)", frame).fit())
    msb, msw = table["mean_sq"].iloc[0], table["mean_sq"].iloc[1]
    n = np.array([len(item) for item in items])
    n0 = (n.sum() - (n**2).sum() / n.sum()) / (len(items) - 1)
    ours = variance_components(items)
    assert ours.within == pytest.approx(msw, rel=1e-10)
    assert ours.between == pytest.approx(max(0.0, (msb - msw) / n0), rel=1e-10)


def _campaigns(rng, n_campaigns, a, r, between_sd, within_sd):
    item = rng.normal(0.0, between_sd, (n_campaigns, a, 1))
    return 0.5 + item + rng.normal(0.0, within_sd, (n_campaigns, a, r))


# 20,000 campaigns estimate a coverage to within +-0.15% (one binomial standard error), so a
# bound of three standard errors on either side tells an exact 95% interval from one that
# under-covers by half a point (1,000 campaigns could not: their standard error is 0.7%).
N_CAMPAIGNS = 20_000
COVERAGE_SLACK = 3 * np.sqrt(0.95 * 0.05 / N_CAMPAIGNS)


def _coverage(campaigns, truth):
    covered = 0
    for values in campaigns:
        low, high = variance_components(values.tolist()).ci
        covered += low <= truth <= high
    return covered / len(campaigns)


def _grade_campaigns(rng, n_campaigns, a, r):
    # 0-4 grades: an item's true grade uniform on 0..4, each judgement that grade plus N(0, 1)
    # judge noise, rounded and clipped to 0..4. Symmetric about 2, so the population mean is 2.
    true = rng.integers(0, 5, (n_campaigns, a, 1))
    return np.clip(np.rint(true + rng.normal(0.0, 1.0, (n_campaigns, a, r))), 0, 4), 2.0


def _verdict_campaigns(rng, n_campaigns, a, r):
    # 0/1 verdicts: an item's chance of a 1 drawn from Beta(2, 2) (mean 0.5), each judgement a
    # Bernoulli draw of it.
    chance = rng.beta(2.0, 2.0, (n_campaigns, a, 1))
    return (rng.random((n_campaigns, a, r)) < chance).astype(float), 0.5


@pytest.mark.parametrize(
    "shape",
    ["normal 30x3", "normal 12x5", "grades 0-4 30x3", "verdicts 0/1 50x3"],
)
def test_the_interval_covers_at_the_nominal_rate_for_every_shape(shape):
    """20,000 simulated campaigns per shape: the Student's t interval over item means is exact
    for normal item means, and close for bounded grades and verdicts at these sizes; neither
    under- nor over-covering by more than three standard errors."""
    rng = np.random.default_rng(sum(map(ord, shape)))
    if shape == "normal 30x3":
        campaigns, truth = _campaigns(rng, N_CAMPAIGNS, 30, 3, 0.2, 0.3), 0.5
    elif shape == "normal 12x5":
        campaigns, truth = _campaigns(rng, N_CAMPAIGNS, 12, 5, 0.1, 0.4), 0.5
    elif shape == "grades 0-4 30x3":
        campaigns, truth = _grade_campaigns(rng, N_CAMPAIGNS, 30, 3)
    else:
        campaigns, truth = _verdict_campaigns(rng, N_CAMPAIGNS, 50, 3)
    coverage = _coverage(campaigns, truth)
    assert abs(coverage - 0.95) <= COVERAGE_SLACK, coverage


@pytest.mark.parametrize(
    ("a", "r", "between_sd", "within_sd"), [(30, 3, 0.2, 0.3), (12, 5, 0.1, 0.4)]
)
def test_the_estimators_are_unbiased_and_beat_the_naive_interval(a, r, between_sd, within_sd):
    """1,000 simulated campaigns of a items judged r times by a judge of known noise."""
    rng = np.random.default_rng(2024)
    campaigns = _campaigns(rng, 1000, a, r, between_sd, within_sd)
    covered = naive_covered = 0
    within = []
    between = []
    from ragmeter.stats.distributions import student_t_quantile

    for values in campaigns:
        summary = variance_components(values.tolist())
        low, high = summary.ci
        covered += low <= 0.5 <= high
        within.append(summary.within)
        between.append(summary.between)
        # the naive interval: every judgement an independent observation
        flat = values.ravel()
        half = student_t_quantile(0.975, flat.size - 1) * flat.std(ddof=1) / np.sqrt(flat.size)
        naive_covered += abs(flat.mean() - 0.5) <= half
    assert naive_covered < covered
    # The ANOVA estimators are unbiased: within, and between before its truncation at 0.
    means = campaigns.mean(axis=2)
    msb = r * means.var(axis=1, ddof=1)
    msw = campaigns.var(axis=2, ddof=1).mean(axis=1)
    untruncated = (msb - msw) / r
    assert np.array(between) == pytest.approx(np.maximum(0.0, untruncated), abs=1e-12)
    assert np.mean(within) == pytest.approx(within_sd**2, rel=0.03)
    assert np.mean(untruncated) == pytest.approx(between_sd**2, abs=3 * untruncated.std() / 30)


SCORE = RubricMetric(
    "score",
    "Score $answer.",
    schema={
        "type": "object",
        "properties": {"value": {"type": "number"}},
        "required": ["value"],
    },
    score_fn=lambda parsed: parsed["value"],
)


def test_variance_components_recover_a_scripted_judges_known_noise():
    """Through evaluate(): item i's true score is mu_i, the judge adds N(0, 0.3**2) noise
    drawn from (item, seed); between-item sd 0.5. a = 40 items, r = 4 repeats."""
    a, r, within_sd = 40, 4, 0.3
    truth = np.random.default_rng(5).normal(0.0, 0.5, a)

    def answer(request):
        i = _item(request)
        noise = np.random.default_rng([i, request.seed]).normal(0.0, within_sd)
        return {"value": float(truth[i] + noise)}

    samples = [Sample("Q?", f"answer {i}.", id=str(i)) for i in range(a)]
    results = evaluate(
        samples, [SCORE], judge=ScriptedJudge({"rubric.score": answer}), repeats=r, progress=False
    )
    summary = results.repeat_summary("score")
    values = [[s.value for s in row.repeats] for row in results.rows]
    assert summary.n_items == a and summary.n_values == a * r and summary.repeats == r
    # within ~ sigma^2 chi2(a (r - 1)) / (a (r - 1)): relative sd sqrt(2 / 120) = 0.13
    assert 0.6 * within_sd**2 <= summary.within <= 1.4 * within_sd**2
    assert summary.mean == pytest.approx(np.mean(values))
    lo, hi = summary.ci
    assert lo <= float(np.mean(truth)) <= hi
    assert str(summary).startswith(f"{summary.mean:.4f}, 95% CI")


def test_repeats_over_http_send_one_seed_per_repeat_and_resume_from_the_cache(tmp_path):
    from ragmeter.judges import OpenAICompatibleJudge
    from ragmeter.judges.testing import LoopbackOpenAIServer

    cache = str(tmp_path / "judge.sqlite")
    scripted = noisy_judge()
    with LoopbackOpenAIServer(judge=scripted) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="noisy-m")
        results = evaluate(SAMPLES[:4], [GRADE], judge=judge, repeats=3, cache=cache)
        seeds = sorted(request.body["seed"] for request in server.requests)
        assert server.count("chat") == 12
        again = evaluate(SAMPLES[:4], [GRADE], judge=judge, repeats=3, cache=cache)
        assert server.count("chat") == 12  # every repeat answered by the cache
    assert seeds == [0] * 4 + [1] * 4 + [2] * 4
    # each repeat's value is the scripted judge's draw for that (item, seed)
    offline = evaluate(SAMPLES[:4], [GRADE], judge=noisy_judge(), repeats=3, progress=False)
    assert [[s.value for s in row.repeats] for row in results.rows] == [
        [s.value for s in row.repeats] for row in offline.rows
    ]
    assert again.values("grade") == results.values("grade")


def test_a_summary_says_how_many_values_were_usable_and_never_gives_a_zero_width_interval():
    """Issue 49 item 5: 24 of 30 repeats without a value printed "95% CI [0.5000, 0.5000] (mean
    of 2 item means, 3 repeats, 3 flaky)"."""
    values = [[0.0, 1.0, 0.5], [0.5, 0.5, 0.5]] + [[]] * 8
    summary = variance_components(values, repeats=3)
    assert (summary.n_values, summary.n_asked, summary.n_items) == (6, 30, 2)
    assert summary.ci is None and "all equal" in summary.ci_reason
    text = str(summary)
    assert "6 of 30 values usable" in text and "no interval" in text and "CI" not in text
    # Two values, each of its own item: the judge's noise cannot be measured.
    lone = variance_components([[0.25], [0.75]] + [[]] * 3, repeats=3)
    assert lone.within is None and "no item has two usable values" in lone.within_reason
    assert "judge noise undefined" in str(lone) and "2 of 15 values usable" in str(lone)
    # A usual interval is still the t interval over the item means (scipy's).
    means = [0.5, 1.0, 0.25]
    usual = variance_components([[0.0, 1.0], [1.0, 1.0], [0.0, 0.5]])
    expected = stats.t.interval(0.95, 2, loc=np.mean(means), scale=stats.sem(means))
    assert usual.ci == pytest.approx(expected, abs=1e-12) and usual.ci_reason is None
