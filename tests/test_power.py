"""Topic-set-size design (Sakai, IRJ 2016): the power of the paired t-test and of the one-way
ANOVA, the queries needed, the difference detectable, the pilot variances, ``ragmeter compare
--power``.

Oracles: scipy.stats.nct and ncf (the noncentral distributions and the power computed from
them, brute-force searches for the smallest n); published sample sizes: Cohen (1988) and
G*Power 3 (Faul et al. 2007) for the paired / one-sample t-test with d = 0.2, 0.5, 0.8 at
alpha = 0.05 and power 0.8 (199, 34 and 15 pairs) and for the one-way ANOVA with f = 0.25
(64, 53 and 45 per group with 2, 3 and 4 groups: totals 128, 159, 180); R's
power.t.test(delta = 1, sd = 1, type = "paired") (10 pairs). Sakai's tools use the same
formulas: his ANOVA noncentrality n minD^2 / (2 sigma^2) is Cohen's f^2 m n with
f = minD / sqrt(2 m sigma^2). statsmodels' one-way OLS (its mse_resid) for the pooled
within-system variance.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.formula.api import ols

from ragmeter import InvalidInputError, compare, compare_many, evaluate_trec
from ragmeter.cli import main
from ragmeter.stats.distributions import noncentral_f_sf, noncentral_t_sf
from ragmeter.stats.power import (
    campaign_designs,
    detectable_difference,
    pilot_variance,
    power,
    topic_set_size,
)


def scipy_power(n, variance, difference, alpha, design, m=2):
    if design == "paired-t":
        df = n - 1
        critical = scipy_stats.t.ppf(1 - alpha / 2, df)
        delta = math.sqrt(n) * difference / math.sqrt(variance)
        return scipy_stats.nct.sf(critical, df, delta) + scipy_stats.nct.cdf(-critical, df, delta)
    df1, df2 = m - 1, m * (n - 1)
    critical = scipy_stats.f.ppf(1 - alpha, df1, df2)
    return scipy_stats.ncf.sf(critical, df1, df2, n * difference**2 / (2 * variance))


def test_noncentral_distributions_equal_scipy():
    rng = np.random.default_rng(0)
    for _ in range(300):
        df = float(rng.choice([1, 2, 5, 19, 99, 1000, 50000]))
        delta, t = float(rng.uniform(-6, 12)), float(rng.uniform(-8, 14))
        assert noncentral_t_sf(t, df, delta) == pytest.approx(
            scipy_stats.nct.sf(t, df, delta), abs=1e-11
        )
        d1, d2 = float(rng.integers(1, 25)), float(rng.choice([2, 7, 38, 400, 20000]))
        lam, f = float(rng.uniform(0, 150)), float(rng.uniform(0.01, 12))
        assert noncentral_f_sf(f, d1, d2, lam) == pytest.approx(
            scipy_stats.ncf.sf(f, d1, d2, lam), abs=1e-11
        )


@pytest.mark.parametrize(("d", "pairs"), [(0.2, 199), (0.5, 34), (0.8, 15), (1.0, 10)])
def test_paired_t_sizes_are_the_published_ones(d, pairs):
    result = topic_set_size(1.0, d, alpha=0.05, power=0.8)
    assert result.n_queries == pairs
    assert result.achieved_power >= 0.8 > power(pairs - 1, 1.0, d)
    # The same with a variance and a difference in a metric's units.
    assert topic_set_size(0.04, 0.2 * d).n_queries == pairs


@pytest.mark.parametrize(("groups", "per_group"), [(2, 64), (3, 53), (4, 45)])
def test_anova_sizes_are_the_published_ones(groups, per_group):
    f = 0.25
    difference = f * math.sqrt(2 * groups)  # Sakai's minD with sigma = 1
    result = topic_set_size(1.0, difference, design="anova", n_systems=groups)
    assert result.n_queries == per_group
    assert result.n_queries * groups == {2: 128, 3: 159, 4: 180}[groups]


@pytest.mark.parametrize("seed", range(8))
def test_sizes_are_the_smallest_that_reach_the_power(seed):
    rng = np.random.default_rng(seed)
    design = ("paired-t", "anova")[seed % 2]
    m = 2 if design == "paired-t" else int(rng.integers(2, 12))
    variance = float(rng.uniform(0.005, 0.1))
    difference = float(rng.uniform(0.03, 0.2))
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    target = float(rng.choice([0.7, 0.8, 0.9]))
    result = topic_set_size(
        variance, difference, alpha=alpha, power=target, design=design, n_systems=m
    )
    n = result.n_queries
    assert scipy_power(n, variance, difference, alpha, design, m) >= target - 1e-9
    assert n == 2 or scipy_power(n - 1, variance, difference, alpha, design, m) < target + 1e-9
    assert result.achieved_power == pytest.approx(
        scipy_power(n, variance, difference, alpha, design, m), abs=1e-10
    )
    # The inverse: with n queries the detectable difference is at most the one asked for,
    # and the power there is the target.
    inverse = detectable_difference(
        n, variance, alpha=alpha, power=target, design=design, n_systems=m
    )
    assert inverse.min_difference <= difference * (1 + 1e-9)
    assert scipy_power(n, variance, inverse.min_difference, alpha, design, m) == pytest.approx(
        target, abs=1e-8
    )


def test_arguments_are_checked():
    with pytest.raises(InvalidInputError, match="variance: must be a finite number > 0"):
        topic_set_size(0.0, 0.1)
    with pytest.raises(InvalidInputError, match="n_systems: the ANOVA design"):
        topic_set_size(0.1, 0.1, design="anova")
    with pytest.raises(InvalidInputError, match="design: must be"):
        topic_set_size(0.1, 0.1, design="t")
    with pytest.raises(InvalidInputError, match="power: must lie strictly"):
        topic_set_size(0.1, 0.1, power=1.0)
    with pytest.raises(InvalidInputError, match="too small to detect"):
        topic_set_size(1.0, 1e-6)
    with pytest.raises(InvalidInputError, match="n_queries: must be an int >= 2"):
        detectable_difference(1, 0.1)


def pilot_systems(n=30, seed=4):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, n)
    return {
        f"run{i}": {
            "map": {
                f"q{j}": float(v) for j, v in enumerate(base + 0.03 * i + rng.normal(0, 0.1, n))
            }
        }
        for i in range(3)
    }


def test_pilot_variances():
    systems = pilot_systems()
    pair = compare(systems["run1"], systems["run0"])
    d = np.array(list(systems["run1"]["map"].values())) - np.array(
        list(systems["run0"]["map"].values())
    )
    assert pilot_variance(pair, "map") == pytest.approx(d.var(ddof=1), rel=1e-12)
    campaign = compare_many(systems)
    frame = pd.DataFrame(
        [(s, v) for s, by in systems.items() for v in by["map"].values()],
        columns=["system", "score"],
    )
    within = ols("score ~ C(system)", data=frame).fit().mse_resid
    assert pilot_variance(campaign, "map", design="anova") == pytest.approx(within, rel=1e-10)
    pooled = np.mean(
        [
            (
                np.array(list(systems[a]["map"].values()))
                - np.array(list(systems[b]["map"].values()))
            ).var(ddof=1)
            for a, b in campaign.pairs
        ]
    )
    assert pilot_variance(campaign, "map") == pytest.approx(pooled, rel=1e-12)
    with pytest.raises(InvalidInputError, match="estimates the variance of the paired"):
        pilot_variance(pair, "map", design="anova")
    rows = campaign_designs(campaign, power=0.8, min_difference=0.05)
    assert [(r["metric"], r["design"], r["n_systems"]) for r in rows] == [
        ("map", "paired-t", 2),
        ("map", "anova", 3),
    ]
    for row in rows:
        assert (
            row["needed"]
            == topic_set_size(
                row["variance"], 0.05, design=row["design"], n_systems=row["n_systems"]
            ).n_queries
        )
        assert scipy_power(
            30, row["variance"], row["detectable"], 0.05, row["design"], row["n_systems"]
        ) == pytest.approx(0.8, abs=1e-8)


def test_the_command_prints_the_design(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    systems = pilot_systems(n=12)
    Path("qrels.txt").write_text("".join(f"q{j} 0 d{j} 1\n" for j in range(12)))
    for name, by in systems.items():
        # A run per system whose reciprocal rank of the one relevant document tracks its map.
        lines = []
        for j, value in enumerate(by["map"].values()):
            rank = 1 + int(max(0.0, min(0.99, 1 - value)) * 4)
            for r in range(1, 6):
                doc = f"d{j}" if r == rank else f"x{j}_{r}"
                lines.append(f"q{j} Q0 {doc} {r} {10 - r} {name}\n")
        Path(f"{name}.txt").write_text("".join(lines))
    status = main(
        [
            "compare",
            "qrels.txt",
            "run0.txt",
            "run1.txt",
            "run2.txt",
            "-m",
            "recip_rank",
            "--power",
            "--margin",
            "0.1",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "Topic-set-size design (Sakai, IRJ 2016)" in out and "queries for 0.1" in out
    line = next(x for x in out.splitlines() if x.startswith("recip_rank") and "ANOVA, 3 runs" in x)
    result = compare_many({n: ragmeter_per_query(f"{n}.txt") for n in ("run0", "run1", "run2")})
    expected = campaign_designs(result, min_difference=0.1)[1]
    assert line.split()[-1] == str(expected["needed"])
    assert f"{expected['detectable']:.4f}" in line


def ragmeter_per_query(run):
    return evaluate_trec(
        "qrels.txt", run, metrics=["recip_rank"], per_query=True, zero_division="trec_eval"
    )
