"""Exact tests of paired binary outcomes at any number of pairs: the exact sign test and the
exact McNemar test (the same test: the number of pairs the candidate wins among the pairs that
differ is binomial with p = 1/2 under the null hypothesis), with the mid-p option.

* McNemar (1947): for two systems scored 0/1 on the same items, only the discordant items
  count: ``b`` (candidate right, baseline wrong) and ``c`` (the reverse). Under the null
  hypothesis of equal accuracy, ``b ~ Binomial(b + c, 1/2)``. The two-sided p-value is
  ``min(1, 2 P(X <= min(b, c)))``, as ``statsmodels.stats.contingency_tables.mcnemar(table,
  exact=True)`` and ``scipy.stats.binomtest(b, b + c)`` compute it; one-sided, ``P(X >= b)``
  (candidate better) or ``P(X <= b)``.
* The sign test is the same on any paired values: wins and losses, ties left out.
* Mid-p (Lancaster 1961; Fagerland, Lydersen & Laake 2013, "The McNemar test for binary
  matched-pairs data: mid-p and asymptotic are better than exact conditional", BMC Medical
  Research Methodology 13:91): half the probability of the observed count is left out of the
  tail (two-sided: twice the one-sided mid-p tail, at most 1). It is not a level-alpha test in
  the strict sense (its size can exceed alpha slightly) but is closer to alpha on average than
  the conservative exact test; the result says which was computed.

The binomial tail is computed from the regularized incomplete beta function
(``P(X <= k) = I_{1/2}(n - k, k + 1)``) with no enumeration, so any ``n`` (tested against
statsmodels and scipy at n = 100,000) costs the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._distributions import regularized_beta
from ..exceptions import InvalidInputError

__all__ = ["ExactTest", "binomial_tail", "mcnemar_exact", "sign_test"]

_ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class ExactTest:
    """The result of an exact sign or McNemar test.

    Attributes
    ----------
    wins, losses
        The discordant pairs: the candidate better (``b``), the baseline better (``c``).
    ties
        The pairs left out (equal values).
    p_value
        The p-value of ``alternative``.
    alternative
        ``"two-sided"``, ``"greater"`` (the candidate better) or ``"less"``.
    mid_p
        Whether the p-value is the mid-p.
    method
        What was computed, in words.
    """

    wins: int
    losses: int
    ties: int
    p_value: float
    alternative: str
    mid_p: bool
    method: str

    @property
    def n(self) -> int:
        """The discordant pairs (``wins + losses``)."""
        return self.wins + self.losses


def binomial_tail(k: int, n: int) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, 1/2)`` (``scipy.stats.binom.cdf(k, n, 0.5)``).

    >>> round(binomial_tail(2, 10) * 1024, 9)  # 1 + 10 + 45
    56.0
    """
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if 2 * k + 1 == n:
        return 0.5
    if 2 * k + 1 > n:
        return 1.0 - binomial_tail(n - k - 1, n)
    return regularized_beta(0.5, float(n - k), float(k + 1))


def _pmf(k: int, n: int) -> float:
    if k < 0 or k > n:
        return 0.0
    return math.exp(
        math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0)
    )


def _count(value: Any, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise InvalidInputError(f"{argument}: a count (an int >= 0), got {value!r}")
    return int(value)


def mcnemar_exact(
    wins: int,
    losses: int,
    *,
    alternative: str = "two-sided",
    mid_p: bool = False,
    ties: int = 0,
) -> ExactTest:
    """The exact McNemar test (exact sign test) of ``wins`` against ``losses`` discordant
    pairs (see the module documentation).

    Parameters
    ----------
    wins
        Pairs where the candidate is right and the baseline wrong (``b``).
    losses
        Pairs where the baseline is right and the candidate wrong (``c``).
    alternative
        ``"two-sided"`` (default), ``"greater"`` (the candidate better) or ``"less"``.
    mid_p
        Report the mid-p value instead of the exact conditional one.
    ties
        The concordant pairs, reported only.

    Returns
    -------
    ExactTest
        The counts and the p-value.

    Examples
    --------
    >>> round(mcnemar_exact(9, 2).p_value, 6)  # statsmodels mcnemar([[0, 9], [2, 0]], exact=True)
    0.06543
    """
    b, c = _count(wins, "wins"), _count(losses, "losses")
    if alternative not in _ALTERNATIVES:
        raise InvalidInputError(
            f"alternative: one of {', '.join(map(repr, _ALTERNATIVES))}, got {alternative!r}"
        )
    n = b + c
    half = 0.5 if mid_p else 0.0
    if n == 0:
        p = 1.0
    elif alternative == "greater":
        p = binomial_tail(c, n) - half * _pmf(b, n)  # P(X >= b) = P(X <= c) by symmetry
    elif alternative == "less":
        p = binomial_tail(b, n) - half * _pmf(b, n)
    else:
        low = min(b, c)
        p = min(1.0, 2.0 * (binomial_tail(low, n) - half * _pmf(low, n)))
        if b == c and not mid_p:
            p = 1.0
    method = (
        f"exact {'mid-p ' if mid_p else ''}McNemar / sign test ({alternative}): "
        f"{b} wins and {c} losses of Binomial({n}, 1/2)"
    )
    return ExactTest(b, c, _count(ties, "ties"), max(0.0, min(1.0, p)), alternative, mid_p, method)


def sign_test(
    candidate: Any,
    baseline: Any,
    *,
    alternative: str = "two-sided",
    mid_p: bool = False,
) -> ExactTest:
    """The exact sign test of paired values (0/1 scores: the exact McNemar test): the
    candidate's wins and losses, ties left out.

    Parameters
    ----------
    candidate, baseline
        The paired values (same length; NaN pairs are refused).
    alternative, mid_p
        As for :func:`mcnemar_exact`.

    Returns
    -------
    ExactTest
        The counts and the p-value.

    Examples
    --------
    >>> sign_test([1, 1, 0, 1], [0, 1, 0, 0]).wins
    2
    """
    a = np.asarray(candidate, dtype=float)
    b = np.asarray(baseline, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise InvalidInputError(
            f"candidate, baseline: paired values of one length, got shapes {a.shape} and {b.shape}"
        )
    if np.isnan(a).any() or np.isnan(b).any():
        raise InvalidInputError("candidate, baseline: a pair holds NaN; drop undefined pairs first")
    wins = int(np.sum(a > b))
    losses = int(np.sum(a < b))
    return mcnemar_exact(
        wins, losses, alternative=alternative, mid_p=mid_p, ties=int(a.size - wins - losses)
    )
