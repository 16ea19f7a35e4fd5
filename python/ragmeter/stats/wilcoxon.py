"""The Wilcoxon signed-rank test of one row of paired differences, as ``scipy.stats.wilcoxon``
computes it (its statistic, p-value and method); :func:`~ragmeter.stats.wilcoxon_test` and
the table's ``"wilcoxon"`` test are built on :func:`wilcoxon_one`.

Reference: F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin
1(6), 1945.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .distributions import normal_tail, wilcoxon_distribution

__all__ = ["WILCOXON_EXACT_MAX", "WILCOXON_PERMUTATION_MAX", "wilcoxon_one"]

#: scipy's ``wilcoxon(method="auto")`` uses the normal approximation beyond this many pairs.
WILCOXON_EXACT_MAX = 50
#: ... and, with ties or zeros, enumerates every sign vector up to this many pairs.
WILCOXON_PERMUTATION_MAX = 13


def _rank_average(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of ``values`` (1-based, ties averaged) and the sizes of the tie groups."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, ordered.size])
    average = starts + (sizes + 1) / 2.0
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(average, sizes)
    return ranks, sizes


def wilcoxon_one(d: np.ndarray, alternative: str = "two-sided") -> tuple[float, float, str]:
    """``(statistic, p, method)`` of the Wilcoxon signed-rank test of the defined differences
    ``d``, as ``scipy.stats.wilcoxon(d, alternative=...)`` computes them
    (``zero_method="wilcox"``, no continuity correction, ``method="auto"``): the statistic is
    ``min(W+, W-)`` two-sided and ``W+`` one-sided."""
    n_total = d.size
    if n_total == 0:
        return math.nan, math.nan, "none"
    nonzero = d[d != 0]
    count = nonzero.size
    ranks, sizes = _rank_average(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    r_minus = float(ranks[nonzero < 0].sum())
    statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    has_ties = bool((sizes > 1).any())
    n_zero = n_total - count
    if n_total <= WILCOXON_EXACT_MAX and not has_ties and n_zero == 0:
        # The exact null distribution of W+; its tails.
        pmf = wilcoxon_distribution(count)
        k = round(r_plus)
        mean = count * (count + 1) / 4
        cdf = pmf[: k + 1].sum() if k <= mean else 1.0 - pmf[k + 1 :].sum()
        sf = pmf[k:].sum() if k <= mean else 1.0 - pmf[:k].sum()
        tails = {"greater": sf, "less": cdf, "two-sided": 2.0 * min(cdf, sf)}
        return statistic, float(min(1.0, tails[alternative])), "exact"
    if n_total <= WILCOXON_PERMUTATION_MAX:
        # Every sign vector of the non-zero differences (zeros change nothing), as scipy's
        # permutation test enumerates them, with its relative tolerance for equal values.
        if count == 0:
            return statistic, 1.0, "permutation"
        signs = np.array(list(itertools.product((0.0, 1.0), repeat=count)))
        null = signs @ ranks
        gamma = abs(100 * np.finfo(np.float64).eps * r_plus)
        p_less = np.count_nonzero(null <= r_plus + gamma) / null.size
        p_greater = np.count_nonzero(null >= r_plus - gamma) / null.size
        tails = {"greater": p_greater, "less": p_less, "two-sided": 2.0 * min(p_less, p_greater)}
        return statistic, float(min(1.0, tails[alternative])), "permutation"
    mean = count * (count + 1) * 0.25
    variance = (count * (count + 1.0) * (2.0 * count + 1.0) - (sizes**3 - sizes).sum() / 2) / 24
    if variance <= 0:
        return statistic, math.nan, "normal"
    z = (r_plus - mean) / math.sqrt(variance)
    return statistic, float(normal_tail(z, alternative)), "normal"
