"""The worked example of docs/guides/comparing-many-systems.md, recomputed without ragmeter's
statistics: nDCG@10 by pytrec_eval, the two-way ANOVA by statsmodels (OLS C(system) +
C(topic)), the paired Tukey p-values and intervals by scipy's studentized range, the
topic-set sizes by scipy's noncentral F and t; the guide must print these numbers (sybil
checks that the code prints what the guide shows).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytrec_eval
from scipy import stats as scipy_stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

GUIDE = Path(__file__).parent.parent / "docs" / "guides" / "comparing-many-systems.md"
GRADES = [2, 1, 1, 0, 0, 0]
SHIFTS = {"bm25": lambda q: q % 3, "dense": lambda q: q % 2, "hybrid": lambda q: (q % 4 == 0) * 2}


def per_query_ndcg():
    qrels = {f"q{q}": {f"d{q}_{d}": g for d, g in enumerate(GRADES)} for q in range(1, 13)}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    matrix = []
    for shift in SHIFTS.values():
        run = {
            f"q{q}": {f"d{q}_{(d + shift(q)) % 6}": float(6 - r) for r, d in enumerate(range(6))}
            for q in range(1, 13)
        }
        scores = evaluator.evaluate(run)
        matrix.append([scores[f"q{q}"]["ndcg_cut_10"] for q in range(1, 13)])
    return np.array(matrix).T  # topics x systems


def smallest_n(power_of, target=0.8):
    n = 2
    while power_of(n) < target:
        n += 1
    return n


def test_the_guide_prints_the_independently_computed_numbers():
    text = GUIDE.read_text()
    x = per_query_ndcg()
    n, m = x.shape
    means = x.mean(axis=0)
    for mean in means:
        assert f"{mean:.4f}" in text
    frame = pd.DataFrame(
        {
            "score": x.ravel(),
            "topic": np.repeat(np.arange(n), m).astype(str),
            "system": np.tile(list(SHIFTS), n),
        }
    )
    table = anova_lm(ols("score ~ C(system) + C(topic)", data=frame).fit(), typ=2)
    v_e = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    f, p = table.loc["C(system)", "F"], table.loc["C(system)", "PR(>F)"]
    assert f"F(2, 22) = {f:.4g}, p = {p:.4g}; residual variance V_E = {v_e:.4g}" in text
    se = math.sqrt(v_e / n)
    q_crit = scipy_stats.studentized_range.ppf(0.95, m, (n - 1) * (m - 1))
    names = list(SHIFTS)
    for a, b in (("dense", "bm25"), ("hybrid", "bm25"), ("hybrid", "dense")):
        i, j = names.index(a), names.index(b)
        diff = means[i] - means[j]
        p_pair = scipy_stats.studentized_range.sf(abs(diff) / se, m, (n - 1) * (m - 1))
        row = (
            f"{diff:+.4f}  [{diff - q_crit * se:+.4f}, {diff + q_crit * se:+.4f}]   unclear  "
            f"{diff / math.sqrt(v_e):+.2f}   {p_pair:.4f}      {p_pair:.4f}"
        )
        assert row in text, row
    # Topic-set size for 0.05: the ANOVA design with the within-system variance, the paired
    # t-test with the pooled variance of the per-query differences.
    within = ((x - means) ** 2).sum() / (m * (n - 1))

    def anova_power(k):
        df1, df2 = m - 1, m * (k - 1)
        critical = scipy_stats.f.ppf(0.95, df1, df2)
        return scipy_stats.ncf.sf(critical, df1, df2, k * 0.05**2 / (2 * within))

    pairs = [(1, 0), (2, 0), (2, 1)]
    pooled = np.mean([np.var(x[:, i] - x[:, j], ddof=1) for i, j in pairs])

    def t_power(k):
        critical = scipy_stats.t.ppf(0.975, k - 1)
        delta = math.sqrt(k) * 0.05 / math.sqrt(pooled)
        return scipy_stats.nct.sf(critical, k - 1, delta) + scipy_stats.nct.cdf(
            -critical, k - 1, delta
        )

    anova_line = f"ANOVA, 3 runs    {within:.4g}       12"
    assert anova_line in text and text.split(anova_line)[1].split("\n")[0].split()[-1] == str(
        smallest_n(anova_power)
    )
    t_line = f"paired t         {pooled:.4g}       12"
    assert t_line in text and text.split(t_line)[1].split("\n")[0].split()[-1] == str(
        smallest_n(t_power)
    )
