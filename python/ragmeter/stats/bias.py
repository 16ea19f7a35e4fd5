"""Small statistics of a judge's biases: a binomial proportion's interval and a regression
slope's interval.

- :func:`wilson_interval`: Wilson's score interval for a proportion (Wilson, "Probable
  inference, the law of succession, and statistical inference", *JASA* 22, 1927; recommended
  over the Wald interval by Brown, Cai & DasGupta, *Statistical Science* 16, 2001), the
  longer-wins rate and the position-flip rate of a pairwise judge;
- :func:`clopper_pearson_interval`: the exact (conservative) binomial interval (Clopper &
  Pearson, *Biometrika* 26, 1934), from the beta distribution's quantiles;
- :func:`slope_interval`: the least-squares slope of ``y`` on ``x`` with Student's t interval
  on ``n - 2`` degrees of freedom (the textbook simple regression; e.g. Draper & Smith,
  *Applied Regression Analysis*, 3rd ed., 1998, section 1.4), a judge's score against the
  answer's length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from .distributions import (
    normal_quantile,
    regularized_beta,
    student_t_quantile,
    student_t_two_sided,
)

__all__ = [
    "Proportion",
    "Slope",
    "clopper_pearson_interval",
    "proportion",
    "slope_interval",
    "wilson_interval",
]


def _confidence(confidence: float) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 < confidence < 1.0)
    ):
        raise InvalidInputError(f"confidence must lie in (0, 1), e.g. 0.95, got {confidence!r}")
    return float(confidence)


def _counts(successes: int, n: int) -> None:
    if (
        isinstance(successes, bool)
        or isinstance(n, bool)
        or not isinstance(successes, int | np.integer)
        or not isinstance(n, int | np.integer)
        or n < 0
        or not 0 <= successes <= n
    ):
        raise InvalidInputError(
            f"a proportion needs 0 <= successes <= n, integers, got {successes!r} of {n!r}"
        )


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for ``successes / n`` (``statsmodels``'
    ``proportion_confint(method="wilson")``); ``(nan, nan)`` when ``n`` is 0.

    Examples
    --------
    >>> [round(b, 4) for b in wilson_interval(68, 100)]
    [0.5834, 0.7633]
    """
    _counts(successes, n)
    chosen = _confidence(confidence)
    if n == 0:
        return math.nan, math.nan
    z = normal_quantile(1.0 - (1.0 - chosen) / 2.0)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _beta_quantile(probability: float, a: float, b: float) -> float:
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if regularized_beta(middle, a, b) < probability:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def clopper_pearson_interval(
    successes: int, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """The exact binomial interval (``statsmodels``' ``proportion_confint(method="beta")``):
    the ``alpha / 2`` quantile of Beta(k, n - k + 1) and the ``1 - alpha / 2`` quantile of
    Beta(k + 1, n - k); ``(nan, nan)`` when ``n`` is 0.

    Examples
    --------
    >>> [round(b, 4) for b in clopper_pearson_interval(68, 100)]
    [0.5792, 0.7698]
    """
    _counts(successes, n)
    alpha = 1.0 - _confidence(confidence)
    if n == 0:
        return math.nan, math.nan
    low = 0.0 if successes == 0 else _beta_quantile(alpha / 2, successes, n - successes + 1)
    high = 1.0 if successes == n else _beta_quantile(1 - alpha / 2, successes + 1, n - successes)
    return low, high


@dataclass(frozen=True)
class Proportion:
    """A rate with its binomial interval: ``successes`` of ``n``.

    ``rate`` and ``ci`` are ``None`` when ``n`` is 0 (``reason`` says so).
    """

    successes: int
    n: int
    rate: float | None
    ci: tuple[float, float] | None
    confidence: float
    method: str = "wilson"
    reason: str | None = None

    def covers(self, value: float) -> bool:
        """Whether the interval holds ``value``."""
        return self.ci is not None and self.ci[0] <= value <= self.ci[1]

    def __str__(self) -> str:
        if self.rate is None or self.ci is None:
            return f"undefined ({self.reason})"
        return (
            f"{self.rate:.3f} ({self.successes} of {self.n}), {self.confidence:.0%} "
            f"{self.method} CI [{self.ci[0]:.3f}, {self.ci[1]:.3f}]"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "successes": self.successes,
            "n": self.n,
            "rate": self.rate,
            "ci": None if self.ci is None else list(self.ci),
            "confidence": self.confidence,
            "method": self.method,
            "reason": self.reason,
        }


def proportion(
    successes: int, n: int, *, confidence: float = 0.95, method: str = "wilson"
) -> Proportion:
    """``successes / n`` with its Wilson (default) or Clopper-Pearson (``"exact"``) interval."""
    if method not in ("wilson", "exact"):
        raise InvalidInputError(f"method must be 'wilson' or 'exact', got {method!r}")
    _counts(successes, n)
    if n == 0:
        return Proportion(successes, n, None, None, confidence, method, "no case to count")
    interval = (wilson_interval if method == "wilson" else clopper_pearson_interval)(
        successes, n, confidence
    )
    return Proportion(successes, n, successes / n, interval, confidence, method)


@dataclass(frozen=True)
class Slope:
    """The least-squares slope of ``y`` on ``x`` with its t interval.

    ``slope``, ``ci``, ``stderr`` and ``p_value`` (two-sided, slope 0) are ``None`` when
    undefined: fewer than three points, or ``x`` constant (``reason``).
    """

    slope: float | None
    intercept: float | None
    ci: tuple[float, float] | None
    stderr: float | None
    p_value: float | None
    n: int
    confidence: float
    reason: str | None = None

    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely on one side of 0."""
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)

    def __str__(self) -> str:
        if self.slope is None or self.ci is None:
            return f"undefined ({self.reason})"
        p = (
            "p < 1e-16"
            if self.p_value is not None and self.p_value < 1e-16
            else f"p = {self.p_value:.3g}"
        )
        return (
            f"{self.slope:.4g} per unit of x, {self.confidence:.0%} CI [{self.ci[0]:.4g}, "
            f"{self.ci[1]:.4g}], {p} (n = {self.n})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "slope": self.slope,
            "intercept": self.intercept,
            "ci": None if self.ci is None else list(self.ci),
            "stderr": self.stderr,
            "p_value": self.p_value,
            "n": self.n,
            "confidence": self.confidence,
            "reason": self.reason,
        }


def slope_interval(x: Sequence[float], y: Sequence[float], *, confidence: float = 0.95) -> Slope:
    """The least-squares slope of ``y`` on ``x``, ``b = Sxy / Sxx``, its standard error
    ``sqrt(SSE / (n - 2) / Sxx)`` and the interval ``b +- t(n - 2) se`` (``scipy.stats.
    linregress``'s slope and stderr; ``statsmodels`` OLS's ``conf_int``).

    Examples
    --------
    >>> fit = slope_interval([1, 2, 3, 4, 5], [2.1, 3.9, 6.2, 7.8, 10.1])
    >>> round(fit.slope, 4), fit.excludes_zero()
    (1.99, True)
    """
    chosen = _confidence(confidence)
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise InvalidInputError(
            f"x and y must be two lists of one length, got {xs.shape} and {ys.shape}"
        )
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))):
        raise InvalidInputError("x and y must be finite numbers")
    n = len(xs)
    if n < 3:
        return Slope(None, None, None, None, None, n, chosen, "fewer than three points")
    dx = xs - xs.mean()
    sxx = float(dx @ dx)
    if sxx == 0.0:
        return Slope(None, None, None, None, None, n, chosen, "x does not vary")
    slope = float(dx @ (ys - ys.mean())) / sxx
    intercept = float(ys.mean() - slope * xs.mean())
    residuals = ys - (intercept + slope * xs)
    stderr = math.sqrt(float(residuals @ residuals) / (n - 2) / sxx)
    half = student_t_quantile(1.0 - (1.0 - chosen) / 2.0, n - 2) * stderr
    if stderr == 0.0:
        p_value = 0.0 if slope != 0 else 1.0
    else:
        p_value = float(student_t_two_sided(abs(slope) / stderr, n - 2))
    return Slope(slope, intercept, (slope - half, slope + half), stderr, p_value, n, chosen)
