"""Binomial intervals and the regression slope of ragmeter.stats.bias (issue 49 item 4),
against statsmodels and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.proportion import proportion_confint
from statsmodels.tools import add_constant

from ragmeter.exceptions import InvalidInputError
from ragmeter.stats.bias import (
    clopper_pearson_interval,
    proportion,
    slope_interval,
    wilson_interval,
)

CASES = [(0, 10), (1, 10), (5, 10), (10, 10), (68, 100), (129, 1000), (3, 7), (999, 1000)]


@pytest.mark.parametrize(("k", "n"), CASES)
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(k, n, confidence):
    expected = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert wilson_interval(k, n, confidence) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("k", "n"), CASES)
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_clopper_pearson_matches_statsmodels(k, n, confidence):
    expected = proportion_confint(k, n, alpha=1 - confidence, method="beta")
    expected = (0.0 if np.isnan(expected[0]) else expected[0], expected[1])
    assert clopper_pearson_interval(k, n, confidence) == pytest.approx(expected, abs=1e-9)


def test_a_proportion_says_when_it_is_undefined_and_refuses_bad_counts():
    assert proportion(0, 0).rate is None and "no case" in str(proportion(0, 0))
    assert proportion(68, 100).covers(0.68) and not proportion(68, 100).covers(0.5)
    with pytest.raises(InvalidInputError):
        proportion(11, 10)
    with pytest.raises(InvalidInputError):
        wilson_interval(3, 10, confidence=1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_slope_matches_scipy_and_statsmodels(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(5, 200, size=60).astype(float)
    y = 0.002 * x + rng.normal(0, 0.2, size=60)
    fit = slope_interval(x, y, confidence=0.95)
    reference = stats.linregress(x, y)
    assert fit.slope == pytest.approx(reference.slope, rel=1e-12)
    assert fit.intercept == pytest.approx(reference.intercept, rel=1e-12)
    assert fit.stderr == pytest.approx(reference.stderr, rel=1e-10)
    assert fit.p_value == pytest.approx(reference.pvalue, rel=1e-8, abs=1e-15)
    ols = OLS(y, add_constant(x)).fit()
    assert fit.ci == pytest.approx(tuple(ols.conf_int(alpha=0.05)[1]), rel=1e-10)


def test_the_slope_is_undefined_without_spread():
    assert slope_interval([1, 1, 1], [0, 1, 2]).slope is None
    assert "fewer than three" in slope_interval([1, 2], [0, 1]).reason
