"""Every test of paired differences, two- and one-sided (``alternative=`` as scipy's), on arrays,
in campaigns and in their power (issue 44, item 1).

Oracles: scipy.stats (``ttest_rel``, ``wilcoxon``, ``permutation_test`` with every sign
vector), a brute-force enumeration of sign vectors written here, the bootstrap's resampled
means from the same draws counted here, statsmodels' ``TTestPower`` for the one-sided design.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ragmeter import InvalidInputError, compare, compare_many
from ragmeter import _core as core
from ragmeter.stats import (
    ComparisonOptions,
    bootstrap_confidence_interval,
    paired_bootstrap_test,
    paired_t_test,
    sign_flip_test,
    wilcoxon_test,
)
from ragmeter.stats.paired import BOOTSTRAP_STREAM
from ragmeter.stats.power import power, queries_needed, topic_set_size

scipy_stats = pytest.importorskip("scipy.stats")
statsmodels_power = pytest.importorskip("statsmodels.stats.power")

ALTERNATIVES = ("two-sided", "greater", "less")


def brute_force_sign_flip(d: np.ndarray, alternative: str) -> float:
    """The share of all 2^n sign vectors at least as extreme as the observed sum."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
    sums, observed = signs @ d, float(d.sum())
    tolerance = 1e-9 * float(np.abs(d).sum())
    extreme = {
        "two-sided": np.abs(sums) >= abs(observed) - tolerance,
        "greater": sums >= observed - tolerance,
        "less": sums <= observed + tolerance,
    }[alternative]
    return float(extreme.mean())


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(6))
def test_sign_flip_equals_brute_force_and_scipy_permutation_test(seed, alternative):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 13))
    d = np.round(rng.normal(0.02, 0.1, n), 2 if seed % 2 else 12)  # ties when rounded
    result = sign_flip_test(d, alternative=alternative)
    assert result.method == "exact" and result.alternative == alternative
    assert result.p_value == brute_force_sign_flip(d, alternative)
    if np.ptp(d) > 0:  # scipy's enumeration (its tolerance differs on exact ties)
        reference = scipy_stats.permutation_test(
            (d,), np.sum, permutation_type="samples", alternative=alternative, n_resamples=np.inf
        )
        assert result.p_value == pytest.approx(reference.pvalue, abs=1e-12)
    assert result.p_value >= (2.0 if alternative == "two-sided" else 1.0) / 2**n


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(6))
def test_t_test_equals_scipy_ttest_rel(seed, alternative):
    rng = np.random.default_rng(10 + seed)
    n = int(rng.integers(2, 300))
    base = rng.uniform(0, 1, n)
    cand = np.clip(base + rng.normal(0.01, 0.2, n), 0, 1)
    expected = scipy_stats.ttest_rel(cand, base, alternative=alternative)
    result = paired_t_test(cand - base, alternative=alternative)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(max(expected.pvalue, 1e-16), rel=1e-11)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize(
    ("n", "round_to"), [(8, None), (30, None), (11, 1), (40, 1), (70, None)]
)  # exact, exact, permutation (ties), normal (ties), normal
def test_wilcoxon_equals_scipy(n, round_to, alternative):
    rng = np.random.default_rng(n)
    d = rng.normal(0.05, 0.2, n)
    if round_to is not None:
        d = np.round(d, round_to)
    expected = scipy_stats.wilcoxon(d, alternative=alternative)
    result = wilcoxon_test(d, alternative=alternative)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-9)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_bootstrap_counts_its_own_resampled_means(alternative):
    # The test and bootstrap_confidence_interval draw the same resamples for one seed: the
    # p-value is the share of resampled means beyond the bound, counted here.
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(0.02, 0.1, 25), 2)
    result = paired_bootstrap_test(d, alternative=alternative, n_resamples=3000, random_state=9)
    means = core.bootstrap_mean_differences(
        np.ascontiguousarray(d[None, :]), n_resamples=3000, seed=9
    )[0]
    m = d.mean()
    tolerance = 1e-9 * np.abs(d).mean()
    gap = means - m
    extreme = {
        "two-sided": np.abs(gap) >= abs(m) - tolerance,
        "greater": gap >= m - tolerance,
        "less": gap <= m + tolerance,
    }[alternative]
    assert result.p_value == pytest.approx((extreme.sum() + 1) / 3001, abs=1e-12)
    low, high = bootstrap_confidence_interval(d, n_resamples=3000, random_state=9)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high))


@pytest.mark.parametrize("test", ["sign-flip", "t", "wilcoxon", "bootstrap"])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_compare_runs_the_one_sided_test_of_the_table(test, alternative):
    rng = np.random.default_rng(5)
    ids = [f"q{i}" for i in range(24)]
    base = rng.uniform(0.2, 0.8, 24)
    cand = base + rng.normal(0.03, 0.08, 24)
    result = compare(
        {"m": dict(zip(ids, cand.tolist(), strict=True))},
        {"m": dict(zip(ids, base.tolist(), strict=True))},
        test=test,
        alternative=alternative,
        n_resamples=4000,
        n_bootstrap=0,
    )["m"]
    d = cand - base
    expected = {
        "sign-flip": lambda: sign_flip_test(d, alternative=alternative, n_resamples=4000).p_value,
        "t": lambda: scipy_stats.ttest_rel(cand, base, alternative=alternative).pvalue,
        "wilcoxon": lambda: scipy_stats.wilcoxon(d, alternative=alternative).pvalue,
        # The campaign's bootstrap draws from seed ^ BOOTSTRAP_STREAM (seed 0): the test on
        # arrays with that seed, checked above against its own resampled means.
        "bootstrap": lambda: (
            paired_bootstrap_test(
                d, alternative=alternative, n_resamples=4000, random_state=BOOTSTRAP_STREAM
            ).p_value
        ),
    }[test]
    assert result.p_value == pytest.approx(expected(), rel=1e-9)
    assert (
        "one-sided"
        in compare(
            {"m": dict(zip(ids, cand.tolist(), strict=True))},
            {"m": dict(zip(ids, base.tolist(), strict=True))},
            test=test,
            alternative=alternative,
            n_bootstrap=0,
        ).describe_test()
    )


def test_campaign_sign_flip_matches_the_single_test_one_sided():
    rng = np.random.default_rng(8)
    ids = [f"q{i}" for i in range(12)]
    systems = {name: rng.uniform(0, 1, 12) for name in ("a", "b", "c")}
    data = {n: {"m": dict(zip(ids, v.tolist(), strict=True))} for n, v in systems.items()}
    campaign = compare_many(data, baseline="a", alternative="greater", correction=None)
    for candidate in ("b", "c"):
        d = systems[candidate] - systems["a"]
        assert campaign[candidate]["m"].p_value == brute_force_sign_flip(d, "greater")
    # Seen from the baseline, the same p-value is the other alternative's.
    mirrored = campaign["a", "b"]
    assert mirrored.options is not None and mirrored.options.alternative == "less"
    assert mirrored["m"].p_value == campaign["b"]["m"].p_value


@pytest.mark.parametrize("test", ["tukey", "tukey-oneway", "randomised-tukey", "westfall-young"])
def test_tests_of_many_systems_are_two_sided_only(test):
    with pytest.raises(InvalidInputError, match="two-sided only"):
        ComparisonOptions(test=test, alternative="greater", baseline="a")


def test_an_unknown_alternative_is_refused():
    with pytest.raises(InvalidInputError, match="alternative"):
        paired_t_test([0.1, 0.2], alternative="larger")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="alternative"):
        ComparisonOptions(alternative="one-sided")


@pytest.mark.parametrize(("n", "d", "alpha"), [(2, 1.0, 0.05), (10, 0.5, 0.05), (120, 0.2, 0.01)])
def test_one_sided_power_is_statsmodels(n, d, alpha):
    expected = statsmodels_power.TTestPower().power(
        effect_size=d, nobs=n, alpha=alpha, alternative="larger"
    )
    assert power(n, 1.0, d, alpha=alpha, alternative="greater") == pytest.approx(expected, abs=1e-9)
    assert power(n, 1.0, d, alpha=alpha, alternative="less") == pytest.approx(expected, abs=1e-9)
    two = statsmodels_power.TTestPower().power(effect_size=d, nobs=n, alpha=alpha)
    assert power(n, 1.0, d, alpha=alpha) == pytest.approx(two, abs=1e-9)


@pytest.mark.parametrize(("effect", "sd"), [(0.02, 0.1), (0.05, 0.1), (0.5, 0.2)])
def test_one_sided_topic_set_size_is_the_smallest_n_statsmodels_powers(effect, sd):
    solved = statsmodels_power.TTestPower().solve_power(
        effect_size=effect / sd, alpha=0.05, power=0.8, alternative="larger"
    )
    design = topic_set_size(sd**2, effect, alternative="greater")
    assert design.n_queries == max(2, math.ceil(solved - 1e-9))
    assert queries_needed(effect, sd, alpha=0.05, power=0.8) == design.n_queries
    assert "one-sided" in design.describe()
    # The two-sided design needs more queries.
    assert topic_set_size(sd**2, effect).n_queries > design.n_queries
    with pytest.raises(InvalidInputError, match="no one-sided form"):
        topic_set_size(1.0, 0.5, design="anova", n_systems=3, alternative="greater")
