"""An anytime-valid test of a mean difference: a test whose type I error stays at most
``alpha`` however often the data are looked at (after every change of a CI job, after every
batch of a growing evaluation set), by testing by betting.

Waudby-Smith & Ramdas (2024), "Estimating means of bounded random variables by betting",
JRSS-B 86(1): for values ``x_1, x_2, ...`` in ``[lower, upper]`` and the null hypothesis
``H0: mean <= m`` (one-sided; the gate's "the candidate is worse by the margin or more"), the
capital of a gambler who bets against ``H0``,

    K_t = prod_{i <= t} (1 + lambda_i (x_i - m)),   0 <= lambda_i <= c / (m - lower),

is a nonnegative supermartingale under ``H0`` when each bet ``lambda_i`` depends only on
``x_1 .. x_{i-1}`` (predictable). By Ville's inequality ``P(sup_t K_t >= 1/alpha) <=
alpha``: rejecting ``H0`` the first time the capital reaches ``1/alpha`` is a level-alpha
test at any stopping time, so at every look of a job that looks again and again. The bets here
are their aGRAPA rule (section 5.3: the approximate growth-rate adaptive bet
``(mu_hat - m) / (sigma_hat^2 + (mu_hat - m)^2)`` from the earlier values, clipped to
``[0, c / (m - lower)]`` with ``c = 1/2``). ``"less"`` is the same test of ``-x``;
``"two-sided"`` averages the two capitals (an average of e-values is an e-value) against
``1/alpha``.

The values are taken in the order given: the order the evaluation set grew (shuffle a fixed
set once, with a recorded seed, before the first look; never reorder after looking). The
per-item differences of two systems on a score in [0, 1] lie in [-1, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ._arguments import check_level

__all__ = ["SequentialTest", "betting_capital", "sequential_test"]

_ALTERNATIVES = ("two-sided", "greater", "less")
#: The bet's cap as a fraction of the largest bet that keeps the capital positive.
_CAP = 0.5


@dataclass(frozen=True)
class SequentialTest:
    """The result of :func:`sequential_test`.

    Attributes
    ----------
    rejected
        Whether the capital reached ``1 / alpha`` at some look (H0 rejected, anytime-valid).
    rejected_at
        The number of values at the first look where it did (None if never).
    e_value
        The capital after the last value (an e-value for H0).
    max_e_value
        The largest capital at a look.
    p_value
        The anytime-valid p-value ``min(1, 1 / max_e_value)``.
    n
        The values used.
    null, alternative, alpha, lower, upper
        The test's hypothesis and bounds.
    method
        What was computed, in words.
    """

    rejected: bool
    rejected_at: int | None
    e_value: float
    max_e_value: float
    p_value: float
    n: int
    null: float
    alternative: str
    alpha: float
    lower: float
    upper: float
    method: str


def betting_capital(values: np.ndarray, null: float, lower: float) -> np.ndarray:
    """The capital ``K_t`` after each value (the last axis) of the one-sided bet against
    ``mean <= null`` with aGRAPA bets; ``values`` may hold many sequences (rows), betting is
    vectorised over them.

    >>> capital = betting_capital(np.array([1.0, 1.0, 1.0]), 0.0, -1.0)
    >>> bool(capital[-1] > 1.0)
    True
    """
    x = np.atleast_2d(np.asarray(values, dtype=float))
    rows, n = x.shape
    cap = _CAP / (null - lower)
    log_capital = np.zeros((rows, n))
    total = np.zeros(rows)
    sum_x = np.zeros(rows)
    sum_x2 = np.zeros(rows)
    for t in range(n):
        count = t
        # predictable estimates from the values before t (a prior mean of `null`, variance 1/4)
        mean = (sum_x + null) / (count + 1)
        variance = (sum_x2 - sum_x**2 / max(count, 1) + 0.25) / (count + 1)
        edge = mean - null
        bet = np.clip(edge / (variance + edge**2), 0.0, cap)
        total += np.log1p(bet * (x[:, t] - null))
        log_capital[:, t] = total
        sum_x += x[:, t]
        sum_x2 += x[:, t] ** 2
    capital = np.exp(log_capital)
    return capital[0] if np.ndim(values) == 1 else capital


def sequential_test(
    values: Any,
    *,
    null: float = 0.0,
    alternative: str = "greater",
    alpha: float = 0.05,
    lower: float = -1.0,
    upper: float = 1.0,
    looks: Any = None,
) -> SequentialTest:
    """The anytime-valid betting test of the mean of ``values`` (see the module
    documentation).

    Parameters
    ----------
    values
        The values in the order they arrived (per-item differences: candidate - baseline).
    null
        The mean under H0: ``"greater"`` tests ``H0: mean <= null`` (the gate's
        non-inferiority: ``null = -margin``), ``"less"`` ``H0: mean >= null``.
    alternative
        ``"greater"`` (default), ``"less"`` or ``"two-sided"`` (H0: mean = null).
    alpha
        The level, held over every look.
    lower, upper
        Bounds every value lies in (refused otherwise), strictly around ``null``.
    looks
        The numbers of values at which the job looked (default: after every value); the
        verdict is the first look whose capital reaches ``1 / alpha``.

    Returns
    -------
    SequentialTest
        The verdict, the e-values and the anytime-valid p-value.

    Examples
    --------
    >>> result = sequential_test([0.5] * 40, alpha=0.05)
    >>> result.rejected, result.p_value < 0.05
    (True, True)
    """
    level = check_level("alpha", alpha)
    if alternative not in _ALTERNATIVES:
        raise InvalidInputError(
            f"alternative: one of {', '.join(map(repr, _ALTERNATIVES))}, got {alternative!r}"
        )
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < null < upper):
        raise InvalidInputError(
            f"lower, null, upper: need lower < null < upper, got {lower}, {null}, {upper}"
        )
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise InvalidInputError("values: one or more values in one dimension")
    if not np.isfinite(x).all():
        raise InvalidInputError("values: holds NaN or infinite values; drop them first")
    if x.min() < lower or x.max() > upper:
        raise InvalidInputError(
            f"values: lie in [{x.min():g}, {x.max():g}], outside the bounds [{lower:g}, "
            f"{upper:g}] the test's validity rests on"
        )
    if alternative == "greater":
        capital = betting_capital(x, null, lower)
    elif alternative == "less":
        capital = betting_capital(-x, -null, -upper)
    else:
        capital = 0.5 * (betting_capital(x, null, lower) + betting_capital(-x, -null, -upper))
    if looks is None:
        at = np.arange(1, x.size + 1)
    else:
        at = np.unique(np.asarray(looks, dtype=int))
        if at.size == 0 or at[0] < 1 or at[-1] > x.size:
            raise InvalidInputError(f"looks: numbers of values from 1 to {x.size}")
    seen = capital[at - 1]
    reached = np.nonzero(seen >= 1.0 / level)[0]
    first = int(at[reached[0]]) if reached.size else None
    best = float(seen.max())
    return SequentialTest(
        first is not None,
        first,
        float(capital[-1]),
        best,
        min(1.0, 1.0 / best),
        x.size,
        float(null),
        alternative,
        level,
        float(lower),
        float(upper),
        f"anytime-valid betting test (Waudby-Smith & Ramdas 2024, aGRAPA bets), {alternative}, "
        f"H0 mean {'<=' if alternative == 'greater' else '>=' if alternative == 'less' else '='}"
        f" {null:g}, values in [{lower:g}, {upper:g}], {at.size} looks",
    )
