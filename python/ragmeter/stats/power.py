"""Topic-set-size design: how many queries a comparison needs, and which difference a given
number of queries can detect (T. Sakai, "Topic set size design", Information Retrieval
Journal 19(3), 2016, after Y. Nagata's sample size design).

Two designs, as Sakai's Excel tools:

* ``"paired-t"``: the paired t-test of two systems, two-sided (``alternative="two-sided"``)
  or one-sided (``"greater"``/``"less"``: the gate's non-inferiority and superiority tests).
  With ``sigma_t^2`` the variance of the per-query differences, ``n`` queries and the smallest
  difference that matters ``min_difference``, the test's statistic is noncentral t with
  ``n - 1`` degrees of freedom and noncentrality ``sqrt(n) min_difference / sigma_t``; the
  power is the probability that it falls beyond ``+-t_{1 - alpha/2}(n - 1)`` (two-sided), or
  beyond ``t_{1 - alpha}(n - 1)`` in the tested direction (one-sided).
* ``"anova"``: the one-way ANOVA of ``m`` systems, which must detect a range of
  ``min_difference`` between the best and the worst system (the other means at the midpoint,
  the least favourable case). With ``sigma^2`` the within-system variance, the statistic is
  noncentral F with ``m - 1`` and ``m (n - 1)`` degrees of freedom and noncentrality
  ``n min_difference^2 / (2 sigma^2)``.

The required number of queries is the smallest ``n`` whose power reaches the target
(``1 - beta``); the detectable difference with ``n`` queries is the smallest
``min_difference`` whose power does. The noncentral distributions are computed in numpy
(:mod:`~ragmeter.stats.distributions`; the tests compare them with scipy.stats.nct and ncf).

Variances come from a pilot (:func:`pilot_variance`): the variance of the per-query
differences of a :class:`~ragmeter.stats.Comparison` (paired t), or, from a campaign, the
pooled variance of the per-query differences over its pairs (paired t) or the pooled
within-system variance (ANOVA, Sakai 2016's estimate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..exceptions import InvalidInputError
from ..options import shorten
from ._arguments import Alternative, check_alternative, check_level
from .distributions import (
    f_quantile,
    noncentral_f_sf,
    noncentral_t_sf,
    normal_quantile,
    student_t_quantile,
)
from .results import Comparison, MultipleComparison

__all__ = [
    "DESIGNS",
    "MAX_QUERIES",
    "TopicSetSize",
    "campaign_designs",
    "detectable_difference",
    "pilot_variance",
    "power",
    "queries_needed",
    "topic_set_size",
]

Design = Literal["paired-t", "anova"]
#: The designs and what they test.
DESIGNS: dict[str, str] = {
    "paired-t": "the two-sided paired t-test of two systems",
    "anova": "the one-way ANOVA of m systems (a range of the difference between the best "
    "and the worst)",
}
#: The largest number of queries the searches consider.
MAX_QUERIES = 10**7


def _positive(argument: str, value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.integer | np.floating)
        or not math.isfinite(float(value))
        or float(value) <= 0
    ):
        raise InvalidInputError(
            f"{argument}: must be a finite number > 0, got {shorten(value, 40)}"
        )
    return float(value)


def _design(design: Any, n_systems: Any, alternative: Any = "two-sided") -> tuple[str, int, str]:
    if design not in DESIGNS:
        raise InvalidInputError(f"design: must be 'paired-t' or 'anova', got {design!r}")
    sides = check_alternative(alternative)
    if design == "paired-t":
        return design, 2, sides
    if sides != "two-sided":
        raise InvalidInputError(
            "alternative: the ANOVA design is an F test, which has no one-sided form; use "
            "design='paired-t' for a one-sided test"
        )
    if isinstance(n_systems, bool) or not isinstance(n_systems, int | np.integer) or n_systems < 2:
        raise InvalidInputError(
            f"n_systems: the ANOVA design compares m >= 2 systems; pass n_systems, got "
            f"{n_systems!r}"
        )
    return design, int(n_systems), sides


def _power(
    n: int,
    variance: float,
    difference: float,
    alpha: float,
    design: str,
    m: int,
    alternative: str = "two-sided",
) -> float:
    if design == "paired-t":
        df = n - 1
        delta = math.sqrt(n) * difference / math.sqrt(variance)
        if alternative != "two-sided":
            # A difference of this size in the tested direction (the power is the same for
            # "greater" with +difference and "less" with -difference).
            return noncentral_t_sf(student_t_quantile(1.0 - alpha, df), df, delta)
        critical = student_t_quantile(1.0 - alpha / 2.0, df)
        return noncentral_t_sf(critical, df, delta) + (1.0 - noncentral_t_sf(-critical, df, delta))
    df1, df2 = m - 1, m * (n - 1)
    critical = f_quantile(1.0 - alpha, df1, df2)
    return noncentral_f_sf(critical, df1, df2, n * difference**2 / (2.0 * variance))


def power(
    n_queries: int,
    variance: float,
    min_difference: float,
    *,
    alpha: float = 0.05,
    design: Design = "paired-t",
    n_systems: int | None = None,
    alternative: Alternative = "two-sided",
) -> float:
    """The power of the design with ``n_queries`` queries to detect ``min_difference``.

    Parameters
    ----------
    n_queries
        Queries (``>= 2``).
    variance
        ``sigma_t^2`` (paired t: of the per-query differences) or ``sigma^2`` (ANOVA: the
        within-system variance).
    min_difference
        The difference to detect (ANOVA: the range of the system means).
    alpha
        The significance level.
    design
        ``"paired-t"`` or ``"anova"``.
    n_systems
        ``m``, for the ANOVA design.
    alternative
        ``"two-sided"`` (default), or ``"greater"``/``"less"`` for a one-sided paired t-test
        (a difference of ``min_difference`` in the tested direction).

    Returns
    -------
    float
        The probability of rejecting the null hypothesis.

    Examples
    --------
    >>> round(power(34, 1.0, 0.5), 4)  # Cohen's d = 0.5 with 34 pairs
    0.8078
    >>> round(power(27, 1.0, 0.5, alternative="greater"), 4)  # one-sided
    0.8118
    """
    if isinstance(n_queries, bool) or not isinstance(n_queries, int | np.integer) or n_queries < 2:
        raise InvalidInputError(f"n_queries: must be an int >= 2, got {n_queries!r}")
    design_name, m, sides = _design(design, n_systems, alternative)
    return _power(
        int(n_queries),
        _positive("variance", variance),
        _positive("min_difference", min_difference),
        check_level("alpha", alpha),
        design_name,
        m,
        sides,
    )


@dataclass(frozen=True)
class TopicSetSize:
    """A topic-set-size design: the queries needed, or the difference detectable.

    Parameters
    ----------
    design
        ``"paired-t"`` or ``"anova"``.
    n_queries
        The queries (needed, or given).
    min_difference
        The difference (given, or detectable).
    variance
        The variance estimate used.
    alpha
        The significance level.
    power
        The target power (``1 - beta``).
    achieved_power
        The power of ``n_queries`` queries against ``min_difference``.
    n_systems
        ``m`` (2 for the paired t-test).
    alternative
        ``"two-sided"``, or ``"greater"``/``"less"`` (a one-sided paired t-test).
    """

    design: str
    n_queries: int
    min_difference: float
    variance: float
    alpha: float
    power: float
    achieved_power: float
    n_systems: int
    alternative: str = "two-sided"

    def describe(self) -> str:
        """The design in one sentence.

        Returns
        -------
        str
            What was asked and the answer.
        """
        test = DESIGNS[self.design].replace("m systems", f"{self.n_systems} systems")
        if self.alternative != "two-sided":
            test = test.replace("two-sided", f"one-sided ({self.alternative})")
        return (
            f"{test}: {self.n_queries} queries detect a difference of {self.min_difference:.4g} "
            f"with power {self.achieved_power:.3f} (target {self.power:g}) at alpha = "
            f"{self.alpha:g}, variance {self.variance:.4g}"
        )


def topic_set_size(
    variance: float,
    min_difference: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    design: Design = "paired-t",
    n_systems: int | None = None,
    alternative: Alternative = "two-sided",
) -> TopicSetSize:
    """The smallest number of queries whose power to detect ``min_difference`` reaches
    ``power`` (Sakai 2016), for a two-sided or a one-sided test (the gate's).

    Parameters
    ----------
    variance
        ``sigma_t^2`` (paired t) or ``sigma^2`` (ANOVA); a number or :func:`pilot_variance`.
    min_difference
        The smallest difference that matters (ANOVA: the range of the system means).
    alpha
        The significance level.
    power
        The target power ``1 - beta``.
    design
        ``"paired-t"`` or ``"anova"``.
    n_systems
        ``m``, for the ANOVA design.
    alternative
        ``"two-sided"`` (default), or ``"greater"``/``"less"`` (the one-sided paired t-test).

    Returns
    -------
    TopicSetSize
        The queries needed and the power they reach.

    Raises
    ------
    InvalidInputError
        A parameter out of range, or a difference no number of queries up to
        :data:`MAX_QUERIES` can detect.

    Examples
    --------
    >>> topic_set_size(1.0, 0.5).n_queries  # d = 0.5, alpha 0.05, power 0.8
    34
    >>> topic_set_size(1.0, math.sqrt(2 * 4) * 0.25, design="anova", n_systems=4).n_queries
    45
    >>> topic_set_size(0.01, 0.02, alternative="greater").n_queries  # one-sided, d = 0.2
    156
    """
    design_name, m, sides = _design(design, n_systems, alternative)
    sigma2 = _positive("variance", variance)
    difference = _positive("min_difference", min_difference)
    level = check_level("alpha", alpha)
    target = check_level("power", power)

    def enough(n: int) -> bool:
        return _power(n, sigma2, difference, level, design_name, m, sides) >= target

    if design_name == "paired-t":
        # Sakai 2016's normal approximation (eq. 12) as the start, then the exact power one
        # query at a time: a few evaluations of the noncentral t instead of a bisection.
        z_alpha = normal_quantile(1.0 - (level if sides != "two-sided" else level / 2.0))
        z_beta = normal_quantile(target)
        start = ((z_alpha + z_beta) * math.sqrt(sigma2) / difference) ** 2 + z_alpha**2 / 2.0
        if start <= MAX_QUERIES:
            n = max(2, math.ceil(start))
            if enough(n):
                while n > 2 and enough(n - 1):
                    n -= 1
                if n > 2 or enough(2):
                    return _design_result(
                        design_name, n, difference, sigma2, level, target, m, sides
                    )
            else:
                while not enough(n):
                    n += 1
                    if n > MAX_QUERIES:
                        break
                else:
                    return _design_result(
                        design_name, n, difference, sigma2, level, target, m, sides
                    )
    low, high = 1, 2
    while not enough(high):
        low, high = high, high * 2
        if high > MAX_QUERIES:
            raise InvalidInputError(
                f"min_difference: {difference:g} needs more than {MAX_QUERIES:,} queries at "
                f"variance {sigma2:g}; it is too small to detect"
            )
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return _design_result(design_name, high, difference, sigma2, level, target, m, sides)


def _design_result(
    design: str,
    n: int,
    difference: float,
    variance: float,
    alpha: float,
    target: float,
    m: int,
    alternative: str,
) -> TopicSetSize:
    return TopicSetSize(
        design=design,
        n_queries=n,
        min_difference=difference,
        variance=variance,
        alpha=alpha,
        power=target,
        achieved_power=_power(n, variance, difference, alpha, design, m, alternative),
        n_systems=m,
        alternative=alternative,
    )


def queries_needed(effect: float, sd: float, *, alpha: float, power: float) -> int | None:
    """The smallest number of queries with which the one-sided paired t-test at ``alpha``
    detects a true mean ``effect`` above its null value with probability ``power``, for
    differences of standard deviation ``sd``: :func:`topic_set_size` of the one-sided design
    (``alternative="greater"``; the gate's "queries needed"). None when no number would do:
    ``effect <= 0``, an undefined ``sd`` or one within rounding of 0 (``sd <= 1e-9 effect``:
    equal differences, whose p-value is the exact sign-flip test's ``1 / 2^n``), or more than
    :data:`MAX_QUERIES`.

    Parameters
    ----------
    effect
        The true mean minus the threshold of the null hypothesis.
    sd
        The standard deviation of the per-query differences.
    alpha
        The one-sided level.
    power
        The target power.

    Returns
    -------
    int or None
        The queries needed.

    Examples
    --------
    >>> queries_needed(0.02, 0.1, alpha=0.05, power=0.8)
    156
    """
    if not (effect > 0) or not (math.isfinite(sd) and sd > 1e-9 * effect):
        return None  # no variance (equal differences): the t-test's power says nothing
    try:
        design = topic_set_size(sd * sd, effect, alpha=alpha, power=power, alternative="greater")
    except InvalidInputError:
        return None  # beyond any query set
    return design.n_queries


def detectable_difference(
    n_queries: int,
    variance: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    design: Design = "paired-t",
    n_systems: int | None = None,
    alternative: Alternative = "two-sided",
) -> TopicSetSize:
    """The smallest difference ``n_queries`` queries detect with ``power`` (the inverse of
    :func:`topic_set_size`), by bisection on the power (increasing in the difference) to a
    relative width of 1e-10.

    Parameters
    ----------
    n_queries
        The queries available (``>= 2``).
    variance
        ``sigma_t^2`` (paired t) or ``sigma^2`` (ANOVA).
    alpha, power, design, n_systems, alternative
        As :func:`topic_set_size`.

    Returns
    -------
    TopicSetSize
        The detectable difference (``min_difference``).

    Examples
    --------
    >>> round(detectable_difference(34, 1.0).min_difference, 3)
    0.495
    """
    if isinstance(n_queries, bool) or not isinstance(n_queries, int | np.integer) or n_queries < 2:
        raise InvalidInputError(f"n_queries: must be an int >= 2, got {n_queries!r}")
    design_name, m, sides = _design(design, n_systems, alternative)
    sigma2 = _positive("variance", variance)
    level = check_level("alpha", alpha)
    target = check_level("power", power)
    n = int(n_queries)
    scale = math.sqrt(sigma2)
    low, high = 0.0, scale
    while _power(n, sigma2, high, level, design_name, m, sides) < target:
        low, high = high, high * 2.0
    while high - low > 1e-10 * high:
        middle = 0.5 * (low + high)
        if _power(n, sigma2, middle, level, design_name, m, sides) >= target:
            high = middle
        else:
            low = middle
    return TopicSetSize(
        design=design_name,
        n_queries=n,
        min_difference=high,
        variance=sigma2,
        alpha=level,
        power=target,
        achieved_power=_power(n, sigma2, high, level, design_name, m, sides),
        n_systems=m,
        alternative=sides,
    )


def pilot_variance(pilot: Any, metric: str, *, design: Design = "paired-t") -> float:
    """A variance estimate from a pilot comparison, for :func:`topic_set_size`.

    * a :class:`~ragmeter.stats.Comparison` (two systems), ``"paired-t"``: the sample variance
      of the per-query differences;
    * a :class:`~ragmeter.stats.MultipleComparison`, ``"paired-t"``: the pooled sample
      variance of the per-query differences over its compared pairs;
    * a :class:`~ragmeter.stats.MultipleComparison`, ``"anova"``: the pooled within-system
      variance ``sum_i sum_j (x_ij - mean_i)^2 / (m (n - 1))`` (the residual of the one-way
      ANOVA; Sakai 2016's estimate).

    Queries with an undefined value are left out (of the pair, or of every system).

    Parameters
    ----------
    pilot
        The pilot comparison.
    metric
        The metric.
    design
        ``"paired-t"`` or ``"anova"``.

    Returns
    -------
    float
        The variance.

    Raises
    ------
    InvalidInputError
        An unknown metric, a design the pilot cannot estimate, too few queries.
    """
    if design not in DESIGNS:
        raise InvalidInputError(f"design: must be 'paired-t' or 'anova', got {design!r}")
    if isinstance(pilot, Comparison):
        if design != "paired-t":
            raise InvalidInputError(
                "design: a comparison of two systems estimates the variance of the paired "
                "t-test; pass a campaign (compare_many) for the ANOVA design"
            )
        if metric not in pilot.differences:
            raise InvalidInputError(f"metric: {metric!r} is not compared ({pilot.metric_names})")
        d = np.array(pilot.differences[metric], dtype=np.float64)
        d = d[~np.isnan(d)]
        if d.size < 2:
            raise InvalidInputError(f"pilot: {metric} has fewer than 2 paired queries")
        return float(d.var(ddof=1))
    if not isinstance(pilot, MultipleComparison):
        raise InvalidInputError(
            f"pilot: expected a Comparison or a MultipleComparison, got {type(pilot).__name__}"
        )
    if metric not in pilot.metric_names:
        raise InvalidInputError(f"metric: {metric!r} is not compared ({list(pilot.metric_names)})")
    values = pilot.values[:, list(pilot.metric_names).index(metric), :]
    if design == "anova":
        complete = values[:, ~np.isnan(values).any(axis=0)]
        m, n = complete.shape
        if n < 2:
            raise InvalidInputError(f"pilot: {metric} has fewer than 2 queries every system has")
        centred = complete - complete.mean(axis=1, keepdims=True)
        return float((centred**2).sum() / (m * (n - 1)))
    squares, degrees = 0.0, 0
    for a, b in pilot.pairs:
        d = values[pilot.systems.index(a)] - values[pilot.systems.index(b)]
        d = d[~np.isnan(d)]
        if d.size >= 2:
            squares += float(((d - d.mean()) ** 2).sum())
            degrees += d.size - 1
    if degrees == 0:
        raise InvalidInputError(f"pilot: {metric} has no pair with 2 paired queries")
    return squares / degrees


def campaign_designs(
    pilot: MultipleComparison,
    *,
    power: float = 0.8,
    min_difference: float | None = None,
) -> list[dict[str, Any]]:
    """Both designs for every metric of a pilot campaign, at its own alpha: the variance
    (:func:`pilot_variance`), the difference its number of queries detects, and, with
    ``min_difference``, the queries needed to detect that (``ragmeter compare --power``).

    Parameters
    ----------
    pilot
        The pilot campaign (its systems, queries and alpha).
    power
        The target power.
    min_difference
        The smallest difference that matters (None: only the detectable differences).

    Returns
    -------
    list of dict
        One row per metric and design: ``metric``, ``design``, ``n_systems``, ``variance``,
        ``n_queries`` (the pilot's), ``detectable`` (the difference they detect),
        ``min_difference`` and ``needed`` (None without ``min_difference``).
    """
    rows: list[dict[str, Any]] = []
    m = len(pilot.systems)
    for metric in pilot.metric_names:
        for design in ("paired-t", "anova"):
            variance = pilot_variance(pilot, metric, design=design)
            systems = 2 if design == "paired-t" else m
            values = pilot.values[:, list(pilot.metric_names).index(metric), :]
            n = int((~np.isnan(values).any(axis=0)).sum())
            usable = variance > 0 and n >= 2
            detectable = (
                detectable_difference(
                    n,
                    variance,
                    alpha=pilot.alpha,
                    power=power,
                    design=design,
                    n_systems=systems,
                ).min_difference
                if usable
                else math.nan
            )
            needed = (
                topic_set_size(
                    variance,
                    min_difference,
                    alpha=pilot.alpha,
                    power=power,
                    design=design,
                    n_systems=systems,
                ).n_queries
                if usable and min_difference is not None
                else None
            )
            rows.append(
                {
                    "metric": metric,
                    "design": design,
                    "n_systems": systems,
                    "variance": variance,
                    "n_queries": n,
                    "detectable": detectable,
                    "min_difference": min_difference,
                    "needed": needed,
                }
            )
    return rows
