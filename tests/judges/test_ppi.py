"""Prediction-powered inference against the authors' package, ppi_python (ppi_py)."""

from __future__ import annotations

import math

import numpy as np
import ppi_py
import pytest
from scipy.stats import norm

from ragmeter import InvalidInputError
from ragmeter.judges import RubricMetric, Sample, ScriptedJudge, evaluate
from ragmeter.judges.ppi import classical_mean, normal_quantile, ppi_mean


def _campaign(seed: int, n: int = 40, big_n: int = 400):
    """Human pass/fail labels; a judge that is right 85% of the time and leans to 'pass'."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n + big_n) < 0.6
    flip = rng.random(n + big_n) < 0.15
    judge = np.where(flip, rng.random(n + big_n) < 0.8, truth).astype(float)
    return truth[:n].astype(float), judge[:n], judge[n:]


@pytest.mark.parametrize("probability", [0.5, 0.8, 0.95, 0.975, 0.995, 1e-6])
def test_normal_quantile_matches_scipy(probability):
    assert normal_quantile(probability) == pytest.approx(norm.ppf(probability), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_classical_ppi_matches_ppi_python(seed, confidence):
    y, yhat, unlabelled = _campaign(seed)
    ours = ppi_mean(y, yhat, unlabelled, confidence=confidence)
    alpha = 1 - confidence
    assert ours.mean == pytest.approx(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled, lam=1)[0])
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=alpha, lam=1)
    assert ours.ci == pytest.approx((low[0], high[0]), abs=1e-12)
    assert ours.lam == 1.0 and ours.method == "ppi"


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_power_tuned_ppi_matches_ppi_python(seed):
    y, yhat, unlabelled = _campaign(seed)
    ours = ppi_mean(y, yhat, unlabelled, power_tuning=True)
    assert ours.mean == pytest.approx(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled)[0])
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05)
    assert ours.ci == pytest.approx((low[0], high[0]), abs=1e-12)
    assert 0.0 <= ours.lam <= 1.0


def test_humans_only_mean_matches_ppi_python():
    y, _, _ = _campaign(5)
    low, high = ppi_py.classical_mean_ci(y, alpha=0.05)
    estimate = classical_mean(y)
    assert estimate.mean == pytest.approx(y.mean())
    assert estimate.ci == pytest.approx((low, high), abs=1e-12)


def test_ppi_is_undefined_without_enough_samples_and_checks_its_input():
    assert ppi_mean([1.0], [1.0], [0.0]).mean is None
    assert "two labelled" in (ppi_mean([1.0], [1.0], [0.0]).reason or "")
    with pytest.raises(InvalidInputError, match="pair up"):
        ppi_mean([1.0, 0.0], [1.0], [0.0])
    with pytest.raises(InvalidInputError, match="finite"):
        ppi_mean([1.0, math.nan], [1.0, 0.0], [0.0])
    with pytest.raises(InvalidInputError, match="confidence"):
        ppi_mean([1.0, 0.0], [1.0, 0.0], [0.0], confidence=95)


PASS_FAIL = RubricMetric(
    "verdict",
    "Judge $answer.",
    allowed_values=["pass", "fail"],
    score_fn=lambda p: p["value"] == "pass",
)


def test_judge_results_split_labelled_and_unlabelled_samples_for_ppi():
    y, yhat, unlabelled = _campaign(7, n=20, big_n=60)
    verdicts = [*yhat, *unlabelled]

    def answer(request):
        i = int(request.first_user_message().split("answer ")[1].split(".")[0])
        return {"value": "pass" if verdicts[i] else "fail", "reason": "scripted"}

    samples = [Sample("Q?", f"answer {i}.", id=str(i)) for i in range(80)]
    results = evaluate(samples, [PASS_FAIL], judge=ScriptedJudge({"rubric_verdict": answer}))
    labels = {str(i): float(y[i]) for i in range(20)}
    estimates = results.prediction_powered_mean(labels, "verdict")
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05, lam=1)
    assert estimates["ppi"].ci == pytest.approx((low[0], high[0]), abs=1e-12)
    assert (estimates["ppi"].n_labelled, estimates["ppi"].n_unlabelled) == (20, 60)
    assert estimates["judge"].mean == pytest.approx(np.mean(verdicts))
    assert estimates["human"].mean == pytest.approx(y.mean())
    with pytest.raises(InvalidInputError, match="numbers"):
        results.prediction_powered_mean({"0": "pass"}, "verdict")


def test_humans_only_and_ppi_lines_are_over_the_same_labelled_samples():
    """Issue 49 item 5: a labelled sample whose judge row failed was in the humans-only mean
    but not in PPI's labelled set, so the two lines printed side by side differed in samples."""
    y, yhat, unlabelled = _campaign(11, n=20, big_n=60)
    verdicts = [*yhat, *unlabelled]

    def answer(request):
        i = int(request.first_user_message().split("answer ")[1].split(".")[0])
        if i < 4:
            return "not JSON at all"  # four labelled samples get an error row
        return {"value": "pass" if verdicts[i] else "fail", "reason": "scripted"}

    samples = [Sample("Q?", f"answer {i}.", id=str(i)) for i in range(80)]
    results = evaluate(
        samples, [PASS_FAIL], judge=ScriptedJudge({"rubric_verdict": answer}), max_parse_retries=0
    )
    assert [r.status for r in results.rows[:5]] == ["error"] * 4 + ["ok"]
    labels = {str(i): float(y[i]) for i in range(20)}
    estimates = results.prediction_powered_mean(labels, "verdict")
    kept = y[4:]
    low, high = ppi_py.classical_mean_ci(kept, alpha=0.05)
    assert estimates["human"].mean == pytest.approx(kept.mean())
    assert estimates["human"].ci == pytest.approx((low, high), abs=1e-12)
    assert estimates["human"].n_labelled == estimates["ppi"].n_labelled == 16


def test_a_ppi_interval_is_cut_at_the_metrics_range():
    """Issue 49 item 5: a [0, 1] metric's PPI interval ran past 1.0. The true mean lies in
    [0, 1], so the interval cut there covers it whenever the normal one does."""
    y = np.array([1.0, 1.0, 1.0, 0.0, 1.0, 1.0])
    yhat = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    unlabelled = np.ones(30)
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05, lam=1)
    assert high[0] > 1.0  # the oracle's normal interval runs past the range
    cut = ppi_mean(y, yhat, unlabelled, bounds=(0.0, 1.0))
    assert cut.ci == pytest.approx((low[0], 1.0), abs=1e-12) and cut.clipped
    assert "cut at the metric's range [0, 1]" in str(cut)
    assert cut.mean == pytest.approx(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled, lam=1)[0])
    uncut = ppi_mean(y, yhat, unlabelled)
    assert uncut.ci[1] == pytest.approx(high[0], abs=1e-12) and not uncut.clipped
    # Results cut at the metric's declared range: a 0/1 rubric's is [0, 1].
    binary = RubricMetric("binary", "Judge $answer.", allowed_values=[0, 1])
    assert binary.value_range == (0.0, 1.0) and PASS_FAIL.value_range is None
    values = [*yhat, *unlabelled]

    def answer(request):
        i = int(request.first_user_message().split("answer ")[1].split(".")[0])
        return {"value": int(values[i]), "reason": "scripted"}

    samples = [Sample("Q?", f"answer {i}.", id=str(i)) for i in range(len(values))]
    results = evaluate(samples, [binary], judge=ScriptedJudge({"rubric_binary": answer}))
    labels = {str(i): float(y[i]) for i in range(len(y))}
    estimates = results.prediction_powered_mean(labels, "binary")
    assert estimates["ppi"].ci == pytest.approx(cut.ci, abs=1e-12) and estimates["ppi"].clipped
    assert estimates["human"].ci[1] <= 1.0
    with pytest.raises(InvalidInputError, match="bounds"):
        ppi_mean(y, yhat, unlabelled, bounds=(1.0, 0.0))
