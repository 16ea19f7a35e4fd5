"""The two-way ANOVA without replication and the paired (topic-blocked) Tukey HSD.

Oracles: the worked example of Sakai's 情報アクセス評価方法論 (2015), table 5.1 (20 topics x 3
systems; the printed sums of squares, mean squares, F, p and ES_E, as the elinor test suite
quotes them); statsmodels' OLS ``score ~ C(system) + C(topic)`` with ``anova_lm`` (typ 2);
scipy.stats.studentized_range (p-values and the interval's quantile), scipy.stats.f and
scipy.special.betainc; scipy.stats.tukey_hsd for the one-way test kept as "tukey-oneway".
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy import stats as scipy_stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

from ragmeter import InvalidInputError, compare_many
from ragmeter.stats import MultipleComparison
from ragmeter.stats.anova import paired_tukey_hsd, two_way_anova
from ragmeter.stats.distributions import f_quantile, f_sf, regularized_beta

# Sakai (2015), table 5.1: nDCG@5 of systems A, B, C on 20 topics.
SAKAI_A = [
    0.7,
    0.3,
    0.2,
    0.6,
    0.4,
    0.4,
    0,
    0.7,
    0.1,
    0.3,
    0.5,
    0.4,
    0,
    0.6,
    0.5,
    0.3,
    0.1,
    0.5,
    0.2,
    0.1,
]
SAKAI_B = [
    0.5,
    0.1,
    0,
    0.2,
    0.4,
    0.3,
    0,
    0.5,
    0.3,
    0.3,
    0.4,
    0.4,
    0.1,
    0.4,
    0.2,
    0.1,
    0.1,
    0.6,
    0.3,
    0.2,
]
SAKAI_C = [
    0,
    0,
    0.2,
    0.1,
    0.3,
    0.3,
    0.1,
    0.2,
    0.4,
    0.4,
    0.4,
    0.3,
    0.3,
    0.2,
    0.2,
    0.2,
    0.1,
    0.5,
    0.4,
    0.3,
]


def sakai_matrix():
    return np.column_stack([SAKAI_A, SAKAI_B, SAKAI_C])


def test_sakai_worked_example():
    anova = two_way_anova(sakai_matrix())
    assert (anova.n_queries, anova.n_systems, anova.n_dropped) == (20, 3, 0)
    # The printed values (4 decimals; F to 3, p to 3).
    assert anova.ss_system == pytest.approx(0.1083, abs=5e-5)
    assert anova.ss_query == pytest.approx(1.0293, abs=5e-5)
    assert anova.ss_residual == pytest.approx(0.8317, abs=5e-5)
    assert anova.ms_system == pytest.approx(0.0542, abs=5e-5)
    assert anova.ms_query == pytest.approx(0.0542, abs=5e-5)
    assert anova.ms_residual == pytest.approx(0.0219, abs=5e-5)
    assert (anova.df_system, anova.df_query, anova.df_residual) == (2, 19, 38)
    assert anova.f_system == pytest.approx(2.475, abs=5e-4)
    assert anova.f_query == pytest.approx(2.475, abs=5e-4)
    assert anova.p_system == pytest.approx(0.098, abs=5e-4)
    assert anova.p_query == pytest.approx(0.009, abs=5e-4)
    tukey = paired_tukey_hsd(sakai_matrix())
    assert tukey.effect_size is not None
    assert tukey.effect_size[0, 1] == pytest.approx(0.5070, abs=5e-5)
    assert tukey.effect_size[0, 2] == pytest.approx(0.6760, abs=5e-5)
    assert tukey.effect_size[1, 2] == pytest.approx(0.1690, abs=5e-5)


def _long(matrix):
    n, m = matrix.shape
    return pd.DataFrame(
        {
            "score": matrix.ravel(),
            "topic": np.repeat([f"t{j}" for j in range(n)], m),
            "system": np.tile([f"s{i}" for i in range(m)], n),
        }
    )


@pytest.mark.parametrize("seed", range(6))
def test_anova_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 40)), int(rng.integers(2, 7))
    matrix = rng.uniform(0, 1, (n, 1)) + rng.normal(0, 0.1, (1, m)) + rng.normal(0, 0.15, (n, m))
    anova = two_way_anova(matrix)
    table = anova_lm(ols("score ~ C(system) + C(topic)", data=_long(matrix)).fit(), typ=2)
    assert anova.ss_system == pytest.approx(table.loc["C(system)", "sum_sq"], rel=1e-10)
    assert anova.ss_query == pytest.approx(table.loc["C(topic)", "sum_sq"], rel=1e-10)
    assert anova.ss_residual == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-10)
    assert anova.df_residual == table.loc["Residual", "df"] == (n - 1) * (m - 1)
    assert anova.f_system == pytest.approx(table.loc["C(system)", "F"], rel=1e-10)
    assert anova.p_system == pytest.approx(table.loc["C(system)", "PR(>F)"], rel=1e-9, abs=1e-15)
    assert anova.f_query == pytest.approx(table.loc["C(topic)", "F"], rel=1e-10)
    assert anova.p_query == pytest.approx(table.loc["C(topic)", "PR(>F)"], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_paired_tukey_equals_the_formula_with_scipy_distributions(seed):
    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(4, 60)), int(rng.integers(2, 8))
    matrix = rng.uniform(0, 1, (n, 1)) + rng.normal(0, 0.05, (1, m)) + rng.normal(0, 0.1, (n, m))
    result = paired_tukey_hsd(matrix, confidence_level=0.9)
    means = matrix.mean(axis=0)
    residual = matrix - means[None, :] - matrix.mean(axis=1)[:, None] + matrix.mean()
    v_e = (residual**2).sum() / ((n - 1) * (m - 1))
    se = math.sqrt(v_e / n)
    q_crit = scipy_stats.studentized_range.ppf(0.9, m, (n - 1) * (m - 1))
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            diff = means[i] - means[j]
            expected = scipy_stats.studentized_range.sf(abs(diff) / se, m, (n - 1) * (m - 1))
            assert result.p_value[i, j] == pytest.approx(expected, abs=1e-9)
            assert result.statistic[i, j] == pytest.approx(diff, abs=1e-14)
            assert result.ci_low[i, j] == pytest.approx(diff - q_crit * se, abs=1e-9)
            assert result.ci_high[i, j] == pytest.approx(diff + q_crit * se, abs=1e-9)
            assert result.effect_size[i, j] == pytest.approx(diff / math.sqrt(v_e), rel=1e-12)
    assert result.df == (n - 1) * (m - 1) and result.k == m


def test_pairing_by_query_sees_what_the_one_way_test_misses():
    """The issue's example: a +0.03 gain on every query (with a little noise) is invisible to
    the one-way test (the query effect stays in its error term) and plain to the paired one."""
    rng = np.random.default_rng(7)
    base = rng.uniform(0, 1, 100)
    systems = {
        "base": {"m": {f"q{i}": float(v) for i, v in enumerate(base)}},
        "gain": {
            "m": {f"q{i}": float(v) for i, v in enumerate(base + 0.03 + rng.normal(0, 0.005, 100))}
        },
    }
    paired = compare_many(systems, test="tukey")
    independent = compare_many(systems, test="tukey-oneway")
    assert paired["gain", "base"]["m"].p_value < 1e-12
    one_way = scipy_stats.tukey_hsd(
        list(systems["gain"]["m"].values()), list(systems["base"]["m"].values())
    ).pvalue[0, 1]
    assert independent["gain", "base"]["m"].p_value == pytest.approx(one_way, abs=1e-9)
    assert one_way > 0.3
    # With 2 systems the paired Tukey test is the paired t-test (q = sqrt(2) |t|).
    t = compare_many(systems, test="t", correction=None)["gain", "base"]["m"]
    expected = scipy_stats.ttest_rel(
        list(systems["gain"]["m"].values()), list(systems["base"]["m"].values())
    ).pvalue
    assert t.p_value == pytest.approx(expected, rel=1e-9)
    assert paired["gain", "base"]["m"].p_value == pytest.approx(expected, rel=1e-6, abs=1e-15)


def test_compare_many_tukey_is_the_paired_test_and_carries_the_anova():
    values = {
        name: {"ndcg": {f"t{j}": v for j, v in enumerate(column)}}
        for name, column in zip("ABC", (SAKAI_A, SAKAI_B, SAKAI_C), strict=True)
    }
    result = compare_many(values, test="tukey")
    assert result.test == "tukey" and result.correction == "tukey"
    tukey = paired_tukey_hsd(sakai_matrix())
    for a, b in result.pairs:
        i, j = "ABC".index(a), "ABC".index(b)
        item = result[a, b]["ndcg"]
        assert item.p_value == pytest.approx(tukey.p_value[i, j], abs=1e-15)
        assert item.ci_low == pytest.approx(tukey.ci_low[i, j], abs=1e-15)
        assert item.effect_size == pytest.approx(tukey.effect_size[i, j], abs=1e-15)
        assert item.p_value_adjusted == item.p_value
    anova = result.anova["ndcg"]
    assert anova is not None and anova.f_system == pytest.approx(2.475, abs=5e-4)
    assert "two-way ANOVA without replication over 20 queries x 3 systems" in result.to_table()
    assert "ES_E" in result["B", "A"].to_table()
    saved = result.to_dict()
    assert saved["anova"]["ndcg"]["df_residual"] == 38
    assert MultipleComparison.from_dict(saved) == result
    # Every campaign carries its ANOVA, whatever the test.
    assert compare_many(values, test="t").anova["ndcg"].ms_residual == anova.ms_residual


def test_queries_with_an_undefined_value_leave_the_anova():
    matrix = sakai_matrix().copy()
    matrix[3, 1] = math.nan
    anova = two_way_anova(matrix)
    assert (anova.n_queries, anova.n_dropped) == (19, 1)
    expected = two_way_anova(np.delete(sakai_matrix(), 3, axis=0))
    assert anova.ms_residual == expected.ms_residual
    with pytest.raises(InvalidInputError, match="at least 2 queries"):
        two_way_anova([[1.0, math.nan], [0.5, 0.2]])
    with pytest.raises(InvalidInputError, match="at least 2 systems"):
        two_way_anova([[1.0], [0.5]])
    with pytest.raises(InvalidInputError, match="2-D"):
        two_way_anova([1.0, 2.0])


def test_no_residual_variance():
    matrix = np.column_stack([np.arange(10.0), np.arange(10.0) + 1.0])  # exact in binary
    result = paired_tukey_hsd(matrix)
    # The studentized range's tail underflows to 0: reported as the bound 1e-16 (issue 44),
    # never as p = 0.
    assert scipy_stats.studentized_range.sf(math.inf, 2, 9) == 0.0
    assert result.p_value[0, 1] == 1e-16 and result.anova.f_system == math.inf
    assert result.anova.p_system == 1e-16
    assert "p < 1e-16" in result.anova.describe()


def test_f_distribution_equals_scipy():
    rng = np.random.default_rng(0)
    for _ in range(200):
        d1, d2 = float(rng.integers(1, 30)), float(rng.choice([1, 3, 38, 500, 20000]))
        f = float(rng.uniform(0.001, 40))
        expected = scipy_stats.f.sf(f, d1, d2)
        assert f_sf(f, d1, d2) == pytest.approx(expected, rel=1e-10, abs=1e-300)
        x, a, b = float(rng.uniform(0, 1)), float(rng.uniform(0.1, 50)), float(rng.uniform(0.1, 50))
        assert regularized_beta(x, a, b) == pytest.approx(
            special.betainc(a, b, x), rel=1e-11, abs=1e-15
        )
    for d1, d2 in ((2, 38), (5, 100), (1, 1)):
        assert f_quantile(0.95, d1, d2) == pytest.approx(scipy_stats.f.ppf(0.95, d1, d2), rel=1e-12)
