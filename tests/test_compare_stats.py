"""The tests and corrections of comparisons, against independent oracles.

scipy.stats (ttest_rel, wilcoxon, permutation_test, tukey_hsd, studentized_range, t, norm,
bootstrap) and statsmodels' multipletests; nothing is compared with a number copied from
ragmeter's own output.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

from ragmeter import (
    InvalidInputError,
    adjust_p_values,
    paired_bootstrap_test,
    paired_t_test,
    sign_flip_test,
    tukey_hsd,
    wilcoxon_test,
)
from ragmeter.stats.distributions import (
    normal_cdf,
    normal_two_sided,
    student_t_quantile,
    student_t_two_sided,
    studentized_range_sf,
    wilcoxon_distribution,
)

RNG = np.random.default_rng(20260101)


def differences(n, *, ties=False, zeros=0.0, seed=0):
    """Differences of per-query values: on a grid of 1/8 (many ties) or continuous, with a
    share of exact zeros."""
    rng = np.random.default_rng(seed)
    d = rng.integers(-6, 7, size=n) / 8.0 if ties else rng.normal(0.05, 0.3, size=n)
    d[rng.random(n) < zeros] = 0.0
    return d


# -- distributions ----------------------------------------------------------------------------


def test_student_t_tail_agrees_with_scipy_to_1e_12():
    worst = 0.0
    for df in (1, 2, 3, 5, 9, 19, 49, 99, 199, 999, 9_999, 99_999):
        t = np.concatenate([RNG.uniform(1e-3, 1, 50), RNG.uniform(1, 8, 100), [20.0, 60.0]])
        expected = 2 * scipy_stats.t.sf(t, df)
        ours = student_t_two_sided(t, df)
        fine = expected > 1e-300
        worst = max(worst, float(np.max(np.abs(ours[fine] - expected[fine]) / expected[fine])))
    assert worst < 1e-12
    assert student_t_two_sided(0.0, 5) == 1.0
    assert student_t_two_sided(math.inf, 5) == 0.0
    assert math.isnan(student_t_two_sided(math.nan, 5))


def test_student_t_quantile_agrees_with_scipy():
    for df in (1, 4, 30, 199, 9_999):
        for probability in (0.6, 0.9, 0.975, 0.995, 0.9999, 0.025):
            expected = scipy_stats.t.ppf(probability, df)
            assert student_t_quantile(probability, df) == pytest.approx(expected, rel=1e-12)


def test_normal_distribution_agrees_with_scipy():
    x = np.linspace(-12, 12, 100_001)
    assert np.max(np.abs(normal_cdf(x) - scipy_stats.norm.cdf(x))) < 1e-15
    z = np.array([0.0, 0.5, 1.96, 4.0, 9.0, 30.0])
    expected = 2 * scipy_stats.norm.sf(z)
    assert np.allclose(normal_two_sided(z), expected, rtol=1e-12, atol=0)


def test_wilcoxon_distribution_agrees_with_scipy():
    from scipy.stats._hypotests import _get_wilcoxon_distr

    for n in (1, 2, 7, 20, 50):
        assert np.allclose(wilcoxon_distribution(n), _get_wilcoxon_distr(n), rtol=1e-14, atol=0)


@pytest.mark.parametrize(
    ("k", "df"),
    [
        (2, 2),
        (2, 30),
        (3, 12),
        (5, 245),
        (10, 1990),
        (20, 19_980),
        (50, 499_950),
        (300, 298_701),  # all pairs of 300 systems over 1,000 queries
    ],
)
def test_studentized_range_agrees_with_scipy(k, df):
    q = np.array([0.05, 0.5, 1.0, 2.0, 3.0, 3.5, 4.5, 6.0, 9.0])
    expected = scipy_stats.studentized_range.sf(q, k, df)
    # scipy integrates to epsabs=1e-11.
    assert np.max(np.abs(studentized_range_sf(q, k, df) - expected)) < 1e-9


def test_studentized_range_of_many_points_is_evaluated_in_blocks():
    # More points than one block holds (the memory bound): every one as scipy gives it.
    q = np.linspace(0.0, 7.0, 40_001)
    found = studentized_range_sf(q, 12, 245)
    chosen = np.arange(0, q.size, 997)
    expected = scipy_stats.studentized_range.sf(q[chosen], 12, 245)
    assert np.max(np.abs(found[chosen] - expected)) < 1e-9


# -- the paired t-test ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_t_test_equals_scipy_ttest_rel(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    base = rng.uniform(0, 1, n)
    cand = np.clip(base + rng.normal(0.02, 0.2, n), 0, 1)
    if seed % 2:
        cand = np.round(cand, 1)  # ties and zeros
        base = np.round(base, 1)
    expected = scipy_stats.ttest_rel(cand, base)
    result = paired_t_test(cand - base, confidence_level=0.9)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-12, abs=1e-300)
    assert result.df == expected.df
    interval = expected.confidence_interval(0.9)
    assert result.ci_low == pytest.approx(interval.low, rel=1e-12, abs=1e-14)
    assert result.ci_high == pytest.approx(interval.high, rel=1e-12, abs=1e-14)
    d = cand - base
    assert result.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def _exact_sign_flip(d, alternative):
    """Every sign vector, counted by brute force (the oracle of equal differences)."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(d))))
    sums, observed = signs @ np.asarray(d), float(np.sum(d))
    tolerance = 1e-9 * float(np.abs(d).sum())
    extreme = {
        "two-sided": np.abs(sums) >= abs(observed) - tolerance,
        "greater": sums >= observed - tolerance,
        "less": sums <= observed + tolerance,
    }[alternative]
    return extreme.mean()


def test_t_test_edge_cases():
    # Every difference 0: scipy says NaN (0/0); no pair differs, so the exact test gives 1.
    with np.errstate(all="ignore"):
        expected = scipy_stats.ttest_1samp(np.zeros(6), 0.0)
    zero = paired_t_test(np.zeros(6))
    assert math.isnan(expected.pvalue) and zero.p_value == 1.0 and math.isnan(zero.statistic)
    # A constant non-zero difference: scipy says t = inf, p = 0, a certainty no equal values
    # give; here (issue 44) t = inf and p is the exact sign-flip test's, for every alternative.
    assert scipy_stats.ttest_1samp(np.full(6, 0.25), 0.0).pvalue == 0.0
    for alternative in ("two-sided", "greater", "less"):
        constant = paired_t_test(np.full(6, 0.25), alternative=alternative)
        assert constant.statistic == math.inf and math.isnan(constant.effect_size)
        assert constant.p_value == _exact_sign_flip(np.full(6, 0.25), alternative)
    # Equal up to the rounding of a subtraction: 0.005 worse on both, in values written with
    # 3 decimals (issue 44: scipy's p is ~1e-15 or 0, a pass of any gate).
    candidate, baseline = np.array([0.202, 0.417]), np.array([0.207, 0.422])
    rounded = candidate - (baseline - 0.01)
    assert np.std(rounded) > 0
    assert scipy_stats.ttest_rel(candidate, baseline - 0.01, alternative="greater").pvalue < 1e-14
    assert paired_t_test(rounded, alternative="greater").p_value == 0.25
    assert _exact_sign_flip(rounded, "greater") == 0.25
    rows = paired_t_test(np.array([[0.1, 0.3, -0.2], [0.5, 0.25, 0.0]]))
    assert rows.p_value.shape == (2,)
    with pytest.raises(InvalidInputError, match="confidence_level"):
        paired_t_test([0.1, 0.2], confidence_level=1.5)
    with pytest.raises(InvalidInputError, match="NaN"):
        paired_t_test([0.1, math.nan])


# -- the Wilcoxon signed-rank test ------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "ties", "zeros"),
    [
        (5, False, 0.0),
        (12, False, 0.0),
        (50, False, 0.0),  # exact distribution up to 50
        (51, False, 0.0),  # normal approximation beyond
        (9, True, 0.3),  # permutations up to 13 with ties or zeros
        (13, True, 0.0),
        (14, True, 0.2),  # normal approximation with the tie correction
        (40, True, 0.25),
        (300, True, 0.4),
        (1000, False, 0.1),
    ],
)
def test_wilcoxon_equals_scipy(n, ties, zeros):
    for seed in range(4):
        d = differences(n, ties=ties, zeros=zeros, seed=seed)
        if not np.any(d):
            continue
        expected = scipy_stats.wilcoxon(d)
        result = wilcoxon_test(d)
        assert result.statistic == expected.statistic
        assert result.p_value == pytest.approx(expected.pvalue, rel=1e-12)


def test_wilcoxon_all_zero_differences_follow_scipy():
    # up to 13 pairs scipy enumerates sign vectors (p = 1); beyond, the normal approximation
    # has no variance (NaN)
    with np.errstate(all="ignore"):
        small = scipy_stats.wilcoxon(np.zeros(10)).pvalue
        expected = scipy_stats.wilcoxon(np.zeros(30)).pvalue
    assert wilcoxon_test(np.zeros(10)).p_value == 1.0 == small
    assert math.isnan(wilcoxon_test(np.zeros(30)).p_value) and math.isnan(expected)


# -- the sign-flip test and the bootstrap -----------------------------------------------------


@pytest.mark.parametrize("n", [3, 9, 14])
def test_exact_sign_flip_equals_scipy_permutation_test(n):
    d = differences(n, ties=True, seed=n)
    expected = scipy_stats.permutation_test(
        (d,),
        lambda x, axis: np.abs(np.mean(x, axis=axis)),
        permutation_type="samples",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
    ).pvalue
    assert sign_flip_test(d).p_value == pytest.approx(expected, rel=1e-12)


def test_bootstrap_test_agrees_with_a_numpy_bootstrap_within_monte_carlo_error():
    d = differences(80, seed=3) * 0.3
    result = paired_bootstrap_test(d, n_resamples=40_000, random_state=5)
    rng = np.random.default_rng(0)
    means = d[rng.integers(0, d.size, size=(40_000, d.size))].mean(axis=1)
    expected = (1 + np.sum(np.abs(means - d.mean()) >= abs(d.mean()))) / 40_001
    assert abs(result.p_value - expected) < 5 * math.sqrt(expected * (1 - expected) / 40_000)
    interval = scipy_stats.bootstrap(
        (d,), np.mean, method="percentile", n_resamples=40_000, random_state=0
    ).confidence_interval
    spread = d.std() / math.sqrt(d.size)
    assert result.ci_low == pytest.approx(interval.low, abs=0.05 * spread)
    assert result.ci_high == pytest.approx(interval.high, abs=0.05 * spread)
    assert result.mean == pytest.approx(d.mean())
    constant = paired_bootstrap_test(np.full(20, 0.1), n_resamples=999)
    assert constant.p_value == 1 / 1000


# -- corrections ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ours", "theirs"), [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")]
)
def test_corrections_equal_statsmodels(ours, theirs):
    for seed in range(6):
        rng = np.random.default_rng(seed)
        p = rng.uniform(0, 1, size=int(rng.integers(1, 60))) ** 3
        p[rng.random(p.size) < 0.2] = p[0]  # ties
        expected = multipletests(p, method=theirs)[1]
        assert np.allclose(adjust_p_values(p, ours), expected, rtol=1e-14, atol=0)
    # NaN is left out of the family
    p = np.array([0.01, math.nan, 0.04, 0.03])
    adjusted = adjust_p_values(p, "bh")
    assert math.isnan(adjusted[1])
    assert np.allclose(adjusted[[0, 2, 3]], multipletests(p[[0, 2, 3]], method="fdr_bh")[1])
    with pytest.raises(InvalidInputError, match="method"):
        adjust_p_values(p, "sidak")


# -- Tukey's HSD ------------------------------------------------------------------------------


@pytest.mark.parametrize("equal_sizes", [True, False])
def test_tukey_equals_scipy(equal_sizes):
    rng = np.random.default_rng(4)
    groups = [
        rng.normal(mu, 1.0, size=40 if equal_sizes else 30 + 7 * i)
        for i, mu in enumerate([0.0, 0.3, 0.35, 0.9, 1.0])
    ]
    expected = scipy_stats.tukey_hsd(*groups)
    result = tukey_hsd(groups, confidence_level=0.9)
    assert np.allclose(result.statistic, expected.statistic, rtol=1e-13, atol=1e-15)
    assert np.max(np.abs(result.p_value - expected.pvalue)) < 1e-9
    interval = expected.confidence_interval(0.9)
    assert np.allclose(result.ci_low, interval.low, rtol=1e-7, atol=1e-9)
    assert np.allclose(result.ci_high, interval.high, rtol=1e-7, atol=1e-9)
    with pytest.raises(InvalidInputError, match="at least 2 groups"):
        tukey_hsd([[1.0, 2.0]])
