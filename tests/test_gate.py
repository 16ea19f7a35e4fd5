"""The gate's decision (ragmeter.gate): one-sided paired tests against scipy and statsmodels,
the sign-flip test against brute-force enumeration and scipy's permutation test, the queries
needed against the noncentral t power, error rates on simulated campaigns, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
weightstats = pytest.importorskip("statsmodels.stats.weightstats")
multitest = pytest.importorskip("statsmodels.stats.multitest")

from doc_pages import DOCS, python_blocks, run_examples  # noqa: E402

from ragmeter.exceptions import InvalidInputError  # noqa: E402
from ragmeter.gate import (  # noqa: E402
    GateCheck,
    GateOptions,
    GateValues,
    gate,
    gate_values,
    queries_needed,
)
from ragmeter.per_query import PerQueryResults  # noqa: E402
from ragmeter.stats.power import power as design_power  # noqa: E402


def one_sided_test(
    d: np.ndarray, theta: float, *, test: str, alpha: float, **kw: object
) -> GateCheck:
    """``H0: mean(d) <= theta``: the gate's floor check of ``d`` (the engine's one-sided test
    of the values shifted by ``theta``)."""
    values = {"d": {f"q{i}": float(v) for i, v in enumerate(d)}}
    return gate(values, floors={"d": theta}, test=test, alpha=alpha, **kw).checks[0]


def one_sided_t_power(n: int, d: float, alpha: float) -> float:
    return design_power(n, 1.0, d, alpha=alpha, alternative="greater")


def _systems(n: int, shift: float, sd: float, seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, n)
    cand = base + shift + rng.normal(0, sd, n)
    ids = [f"q{i}" for i in range(n)]
    return (
        {"ndcg@10": dict(zip(ids, cand.tolist(), strict=True))},
        {"ndcg@10": dict(zip(ids, base.tolist(), strict=True))},
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("margin", [0.0, 0.01, 0.05])
def test_non_inferiority_p_is_scipy_ttest_rel_on_shifted_values(seed: int, margin: float) -> None:
    cand, base = _systems(30, -0.01, 0.05, seed)
    c = np.array(list(cand["ndcg@10"].values()))
    b = np.array(list(base["ndcg@10"].values()))
    check = gate(cand, base, margin=margin).checks[0]
    expected = scipy_stats.ttest_rel(c + margin, b, alternative="greater")
    assert check.p_value == pytest.approx(expected.pvalue, rel=1e-10, abs=1e-14)
    # The one-sided 95% lower bound is the low end of the two-sided 90% interval.
    se = np.std(c - b, ddof=1) / math.sqrt(30)
    low = np.mean(c - b) - scipy_stats.t.ppf(0.95, 29) * se
    assert check.ci_low == pytest.approx(low, rel=1e-10)
    assert check.confidence_level == pytest.approx(0.9)
    assert check.passed == (expected.pvalue <= 0.05)


@pytest.mark.parametrize("seed", range(5))
def test_non_inferiority_p_is_the_lower_test_of_statsmodels_ttost_paired(seed: int) -> None:
    cand, base = _systems(25, 0.0, 0.1, seed)
    c = np.array(list(cand["ndcg@10"].values()))
    b = np.array(list(base["ndcg@10"].values()))
    _, (_, p_low, _), _ = weightstats.ttost_paired(c, b, -0.02, 0.02)
    check = gate(cand, base, margin=0.02).checks[0]
    assert check.p_value == pytest.approx(p_low, rel=1e-10)
    assert check.passed == (p_low <= 0.05)


def test_superiority_is_scipy_ttest_rel_against_plus_margin() -> None:
    cand, base = _systems(40, 0.04, 0.05, 1)
    c = np.array(list(cand["ndcg@10"].values()))
    b = np.array(list(base["ndcg@10"].values()))
    check = gate(cand, base, margin=0.01, superiority=True).checks[0]
    expected = scipy_stats.ttest_rel(c - 0.01, b, alternative="greater").pvalue
    assert check.kind == "superiority" and check.threshold == 0.01
    assert check.p_value == pytest.approx(expected, rel=1e-10)


def test_floor_is_scipy_ttest_1samp_greater() -> None:
    cand, _ = _systems(30, 0.0, 0.05, 2)
    v = np.array(list(cand["ndcg@10"].values()))
    result = gate(cand, floors={"ndcg@10": 0.45})
    expected = scipy_stats.ttest_1samp(v, 0.45, alternative="greater").pvalue
    assert result.checks[0].p_value == pytest.approx(expected, rel=1e-10)
    assert result.checks[0].kind == "floor"


def _brute_force_greater(shifted: np.ndarray) -> float:
    observed = shifted.sum()
    count = sum(
        np.dot(signs, shifted) >= observed - 1e-9 * np.abs(shifted).sum()
        for signs in itertools.product((1.0, -1.0), repeat=shifted.size)
    )
    return count / 2**shifted.size


@pytest.mark.parametrize("seed", range(4))
def test_exact_sign_flip_matches_brute_force_and_scipy_permutation_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.01, 0.05, 11)
    result = one_sided_test(d, -0.01, test="sign-flip", alpha=0.05)
    assert result.method == "exact"
    assert result.p_value == pytest.approx(_brute_force_greater(d + 0.01), abs=1e-15)
    reference = scipy_stats.permutation_test(
        (d + 0.01,),
        np.mean,
        permutation_type="samples",
        alternative="greater",
        n_resamples=math.inf,
    )
    assert result.p_value == pytest.approx(reference.pvalue, abs=1e-12)


def test_sampled_sign_flip_is_near_the_exact_value_and_seeded() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(0.0, 0.05, 18)
    sampled = one_sided_test(d, -0.005, test="sign-flip", alpha=0.05, n_resamples=20000)
    # Every one of the 2^18 sign vectors, enumerated here (beyond the exact path's 16).
    shifted = d + 0.005
    signs = 1 - 2 * ((np.arange(2**18)[:, None] >> np.arange(18)[None, :]) & 1)
    exact = np.mean(signs @ shifted >= shifted.sum() - 1e-9 * np.abs(shifted).sum())
    assert sampled.method == "sampled"
    # Monte-Carlo error of 20000 draws: sd <= 0.0036.
    assert abs(sampled.p_value - exact) < 0.015
    again = one_sided_test(d, -0.005, test="sign-flip", alpha=0.05, n_resamples=20000)
    assert again.p_value == sampled.p_value


@pytest.mark.parametrize(("effect", "sd"), [(0.01, 0.05), (0.05, 0.1), (0.03, 0.2), (0.1, 0.1)])
def test_queries_needed_is_the_smallest_n_with_the_power_of_the_noncentral_t(
    effect: float, sd: float
) -> None:
    def power(n: int) -> float:
        critical = scipy_stats.t.ppf(0.95, n - 1)
        return 1 - scipy_stats.nct.cdf(critical, n - 1, effect * math.sqrt(n) / sd)

    n = queries_needed(effect, sd, alpha=0.05, power=0.8)
    assert n is not None
    assert power(n) >= 0.8 > power(n - 1)


@pytest.mark.parametrize(
    ("n", "d", "alpha"),
    [(2, 1.0, 0.05), (3, 1.5, 0.1), (10, 0.5, 0.05), (120, 0.2, 0.05), (5000, 0.03, 0.01)],
)
def test_one_sided_t_power_is_scipy_noncentral_t(n: int, d: float, alpha: float) -> None:
    critical = scipy_stats.t.ppf(1 - alpha, n - 1)
    expected = 1 - scipy_stats.nct.cdf(critical, n - 1, d * math.sqrt(n))
    assert one_sided_t_power(n, d, alpha) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
@pytest.mark.parametrize("target", [0.7, 0.9])
@pytest.mark.parametrize("d", [0.2, 1.0, 1.5])
def test_queries_needed_is_exact_where_the_approximation_is_not(
    alpha: float, target: float, d: float
) -> None:
    def power(n: int) -> float:
        critical = scipy_stats.t.ppf(1 - alpha, n - 1)
        return 1 - scipy_stats.nct.cdf(critical, n - 1, d * math.sqrt(n))

    n = queries_needed(d, 1.0, alpha=alpha, power=target)
    assert n is not None
    assert power(n) >= target and (n == 2 or power(n - 1) < target)


def _rejection_rate(test: str, shift: float, n: int, reps: int, seed: int, **kw: object) -> float:
    rng = np.random.default_rng(seed)
    margin = 0.02
    rejections = 0
    for _ in range(reps):
        d = rng.normal(shift, 0.08, n)
        result = one_sided_test(d, -margin, test=test, alpha=0.05, random_state=0, **kw)  # type: ignore[arg-type]
        rejections += result.p_value <= 0.05
    return rejections / reps


@pytest.mark.parametrize(("test", "kw"), [("t", {}), ("sign-flip", {"n_resamples": 299})])
def test_type_one_error_at_the_margin_is_at_most_alpha(test: str, kw: dict) -> None:
    reps = 400
    rate = _rejection_rate(test, -0.02, 30, reps, seed=11, **kw)
    # alpha plus three Monte-Carlo standard errors.
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize(("test", "kw"), [("t", {}), ("sign-flip", {"n_resamples": 299})])
def test_power_at_no_difference_is_what_queries_needed_planned(test: str, kw: dict) -> None:
    n = queries_needed(0.02, 0.08, alpha=0.05, power=0.8)
    assert n is not None
    reps = 400
    rate = _rejection_rate(test, 0.0, n, reps, seed=12, **kw)
    print(f"{test}: power {rate:.3f} over {reps} campaigns of {n} queries (planned 0.8)")
    assert abs(rate - 0.8) <= 3 * math.sqrt(0.8 * 0.2 / reps) + 0.02


def test_holm_over_metrics_is_statsmodels_multipletests() -> None:
    rng = np.random.default_rng(3)
    ids = [f"q{i}" for i in range(30)]
    base = {m: dict(zip(ids, rng.uniform(0.3, 0.7, 30).tolist(), strict=True)) for m in "abc"}
    cand = {
        m: {q: v + rng.normal(s, 0.05) for q, v in base[m].items()}
        for m, s in zip("abc", (0.0, -0.005, 0.01), strict=True)
    }
    result = gate(cand, base, margin=0.01)
    p = [c.p_value for c in result.checks]
    expected = multitest.multipletests(p, method="holm")[1]
    assert [c.p_adjusted for c in result.checks] == pytest.approx(expected, rel=1e-12)
    assert result.correction == "holm"
    uncorrected = gate(cand, base, margin=0.01, correction=None)
    assert [c.p_adjusted for c in uncorrected.checks] == pytest.approx(p)


def test_a_failure_says_worse_or_not_enough_queries() -> None:
    cand, base = _systems(40, -0.05, 0.03, 4)
    worse = gate(cand, base, margin=0.01).checks[0]
    assert worse.outcome == "worse" and not worse.passed
    assert "worse than the baseline by more than the margin" in worse.reason(0.05)
    assert worse.queries_needed is None
    assert worse.worst and worse.worst[0][1] < 0

    cand, base = _systems(12, 0.0, 0.1, 4)
    unclear = gate(cand, base, margin=0.01).checks[0]
    assert unclear.outcome == "inconclusive" and not unclear.passed
    text = unclear.reason(0.05)
    assert "not enough evidence" in text and "queries would be needed" in text
    assert unclear.queries_needed is not None and unclear.queries_needed > 12


def test_fewer_than_two_pairs_never_pass() -> None:
    result = gate({"m": {"q1": 0.9, "q2": math.nan}}, {"m": {"q1": 0.1, "q2": 0.2}}, margin=0.1)
    check = result.checks[0]
    assert not result.passed and check.n == 1 and check.n_left_out == 1
    assert "at least 2" in check.reason(0.05)


def test_repeats_are_averaged_and_a_flaky_item_is_reported() -> None:
    ids = [f"s{i}" for i in range(20)]
    base = {"faithful": {s: 1.0 for s in ids}}
    cand = {"faithful": {s: ([1.0, 0.0, 1.0] if s == "s3" else [1.0, 1.0, 1.0]) for s in ids}}
    values = gate_values(cand)
    assert values.values["faithful"]["s3"] == pytest.approx(2 / 3)
    check = gate(cand, base, margin=0.05).checks[0]
    assert check.mean == pytest.approx(-1 / 60)
    assert check.flaky == (("candidate", "s3", (1.0, 0.0, 1.0)),)
    assert check.judge_variance["candidate"] == pytest.approx(np.var([1, 0, 1], ddof=1) / 20)
    assert any("flaky" in line for line in check.details())


# -- bad input ------------------------------------------------------------------------------


def test_different_query_sets_are_refused_naming_them_or_skipped() -> None:
    cand, base = _systems(10, 0.0, 0.05, 0)
    del cand["ndcg@10"]["q3"]
    with pytest.raises(InvalidInputError, match=r"only in baseline: 'q3'.*missing='skip'"):
        gate(cand, base, margin=0.01)
    result = gate(cand, base, margin=0.01, missing="skip")
    assert result.excluded == {"baseline": ("q3",)}
    assert result.checks[0].n == 9
    assert "'q3'" in result.to_text()


@pytest.mark.parametrize("margin", [-0.01, math.inf, math.nan])
def test_a_margin_that_is_not_a_size_is_refused(margin: float) -> None:
    cand, base = _systems(10, 0.0, 0.05, 0)
    with pytest.raises(InvalidInputError, match=r"without a sign|size >= 0"):
        gate(cand, base, margin=margin)


def test_a_margin_in_percent_is_refused() -> None:
    cand, base = _systems(10, 0.0, 0.05, 0)
    with pytest.raises(InvalidInputError, match="not in percent"):
        gate(cand, base, margin=1.0)


def test_no_margin_is_refused_with_what_to_give() -> None:
    cand, base = _systems(10, 0.0, 0.05, 0)
    with pytest.raises(InvalidInputError, match="give the margin"):
        gate(cand, base)


def test_a_metric_not_in_the_results_is_refused() -> None:
    cand, base = _systems(10, 0.0, 0.05, 0)
    with pytest.raises(InvalidInputError, match=r"'map' is not in the baseline's results"):
        gate(cand, base, metrics=["map"], margin=0.01)


def test_different_definitions_settings_or_judges_are_refused() -> None:
    cand, base = _systems(10, 0.0, 0.05, 0)
    stored = gate_values(base)
    changed = GateValues(
        stored.values,
        definitions={"ndcg@10": {**stored.definition("ndcg@10"), "cutoff": 20}},
    )
    with pytest.raises(InvalidInputError, match=r"not defined the same way.*cutoff: 20 vs 10"):
        gate(cand, changed, margin=0.01)
    judged_a = GateValues(stored.values, judges={"judge": {"model": "a"}})
    judged_b = GateValues(gate_values(cand).values, judges={"judge": {"model": "b"}})
    with pytest.raises(InvalidInputError, match=r"judged differently \(judge.model: 'a' vs 'b'"):
        gate(judged_b, judged_a, margin=0.01)
    thresholds = [
        PerQueryResults(v, name=n, parameters={"relevance_threshold": t})
        for v, n, t in ((base, "b", 1), (cand, "c", 2))
    ]
    with pytest.raises(InvalidInputError, match="relevance_threshold"):
        gate(thresholds[1], thresholds[0], margin=0.01)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"test": "tukey"}, "test"),
        ({"test": "westfall-young"}, "test"),
        ({"alternative": "less"}, "alternative"),
        ({"confidence_level": 0.95}, "confidence_level"),
        ({"family": "metric"}, "family"),
        ({"alpha": 0.5}, "alpha"),
        ({"alpha": 0}, "alpha"),
        ({"correction": "sidak"}, "correction"),
        ({"missing": "zero"}, "missing"),
        ({"power": 1.0}, "power"),
    ],
)
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        GateOptions(**options)


def test_outputs_hold_the_numbers() -> None:
    cand, base = _systems(30, -0.03, 0.03, 6)
    result = gate(cand, base, margin=0.01, floors={"ndcg@10": 0.3})
    data = result.to_dict()
    assert data["passed"] is False and data["checks"][0]["outcome"] == "worse"
    markdown = result.to_markdown()
    assert "| ndcg@10 non-inferiority (margin 0.01) | **fail: worse**" in markdown
    lines = result.verdict_lines()
    assert len(lines) == 2 and lines[0].startswith("ragmeter gate: FAIL")


def test_the_guide_shows_what_scipy_computes() -> None:
    """The numbers of docs/guides/quality-gates.md, against scipy (sybil checks that the page
    prints them; this checks that they are right)."""
    page = DOCS / "guides" / "quality-gates.md"
    namespace = run_examples(python_blocks(page, "## The decision in Python"), name="guide")
    c = np.array(list(namespace["candidate"]["ndcg@10"].values()))
    b = np.array(list(namespace["baseline"]["ndcg@10"].values()))
    check = namespace["result"].checks[0]
    expected = scipy_stats.ttest_rel(c + 0.01, b, alternative="greater").pvalue
    assert check.p_value == pytest.approx(expected, rel=1e-10)
    _, (_, p_low, _), _ = weightstats.ttost_paired(c, b, -0.01, 0.01)
    assert check.p_value == pytest.approx(p_low, rel=1e-10)
    floor = namespace["both"].checks[1]
    assert floor.p_value == pytest.approx(
        scipy_stats.ttest_1samp(c, 0.55, alternative="greater").pvalue, rel=1e-10
    )


def test_options_are_validated_as_compare_validates_them() -> None:
    from ragmeter.stats import ComparisonOptions

    options = GateOptions(test="student", correction="auto", random_state=None)
    assert options.test == "t" and options.correction == "holm"
    assert isinstance(options.random_state, int)
    assert GateOptions(test="fisher").comparison_options(0.01) == ComparisonOptions(
        test="sign-flip", alpha=0.05, confidence_level=0.95, margin=0.01
    )
    for bad in ({"random_state": -1}, {"n_resamples": 0}, {"missing": "zero"}):
        with pytest.raises(InvalidInputError) as gate_error:
            GateOptions(**bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError) as compare_error:
            ComparisonOptions(**bad)  # type: ignore[arg-type]
        assert str(gate_error.value) == str(compare_error.value)


def test_judge_results_with_repeats_failures_and_identity() -> None:
    from ragmeter.judges import RuleJudge, Sample, evaluate
    from ragmeter.judges.results import JudgeResults, SampleResult
    from ragmeter.judges.score import Score

    samples = [
        Sample(f"Who wrote Hamlet {i}?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
        for i in range(12)
    ]
    baseline = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    first, second = baseline.rows[0], baseline.rows[1]
    extra = [
        SampleResult(first.sample_id, "groundedness", Score.ok(0.0), first.judge),
        SampleResult(second.sample_id, "groundedness", Score.error("timeout", "no answer"), "j"),
    ]
    candidate = JudgeResults(
        [*baseline.rows, *extra],
        metrics=baseline._metrics,
        manifest=baseline.manifest,
    )
    values = gate_values(candidate)
    assert values.values["groundedness"][first.sample_id] == 0.5
    assert values.repeats["groundedness"][first.sample_id] == (1.0, 0.0)
    # The failed call is a repeat without a usable value: asked twice, usable once.
    assert values.values.repeat_counts("groundedness")[second.sample_id] == (2, 1)
    assert values.failed["groundedness"] == (second.sample_id,)
    assert values.judges is not None and values.judges["judge"]["name"] == "rule-judge"
    check = gate(candidate, baseline, margin=0.1).checks[0]
    assert check.n == 12 and check.flaky[0][1] == first.sample_id
    assert check.failed == {"candidate": (second.sample_id,)}
    other = dict(baseline.manifest, judge={**baseline.manifest["judge"], "threshold": 0.9})
    rejudged = JudgeResults(baseline.rows, metrics=baseline._metrics, manifest=other)
    with pytest.raises(InvalidInputError, match=r"judged differently \(judge\.threshold"):
        gate(rejudged, baseline, margin=0.1)


def test_rows_of_evaluate_with_repeats_are_gated_on_their_repeats() -> None:
    # JudgeResults of evaluate(repeats=N): one row per (sample, metric), holding its repeats.
    from ragmeter.judges import RuleJudge, Sample, evaluate
    from ragmeter.judges.results import JudgeResults, SampleResult
    from ragmeter.judges.score import Score

    samples = [
        Sample(f"Who wrote Hamlet {i}?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
        for i in range(10)
    ]
    judged = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    ids = [row.sample_id for row in judged.rows]
    scripted = {s: (1.0, 0.0, 1.0) if s == ids[0] else (0.5, 0.5, 0.5) for s in ids}
    rows = [
        SampleResult(
            sample,
            "groundedness",
            Score.ok(sum(scores) / 3),
            "judge",
            repeats=tuple(Score.ok(v) for v in scores),
        )
        for sample, scores in scripted.items()
    ]
    results = JudgeResults(rows, metrics=judged._metrics, manifest=judged.manifest)
    values = gate_values(results)
    assert values.values["groundedness"][ids[0]] == pytest.approx(2 / 3)
    assert values.repeats["groundedness"][ids[0]] == (1.0, 0.0, 1.0)
    check = gate(results, results, margin=0.1).checks[0]
    assert check.flaky and check.flaky[0][1] == ids[0]
