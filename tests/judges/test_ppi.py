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
