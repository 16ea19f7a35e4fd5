"""The one-sided paired tests a gate decides with, and the queries a decision would need.

Each test takes per-item values ``x`` (differences candidate - baseline, or one system's
values for a floor) and a threshold ``theta``, and tests ``H0: mean(x) <= theta`` against
``H1: mean(x) > theta`` on the shifted values ``x - theta``:

* ``"t"``: the one-sided paired Student t-test (``scipy.stats.ttest_rel(candidate, baseline +
  theta, alternative="greater")``; its assumption: the mean difference is about normal, which
  holds for IR metrics from some 25-50 queries on; Smucker, Allan and Carterette, CIKM 2007;
  Sakai 2016);
* ``"sign-flip"``: the one-sided paired randomisation (sign-flip) test of the shifted values
  (exact up to 16 items, ``n_resamples`` random sign vectors beyond, ``p = (count + 1) /
  (n_resamples + 1)``; Phipson and Smyth 2010). Flipping the sign of ``x_i - theta`` assumes
  the shifted differences are symmetric about 0 under H0 (Fisher 1935; the usual
  assumption of shifted randomisation tests for non-inferiority).

:func:`queries_needed` is the topic-set size of the one-sided paired t-test (Sakai,
"Topic set size design", Information Retrieval Journal 19(3), 2016, eq. 12 with the normal
quantiles of a one-sided test): ``n = ((z_(1-alpha) + z_power) / d)^2 + z_(1-alpha)^2 / 2``
for the standardised effect ``d = effect / sd``, corrected to the smallest ``n`` whose exact
power (noncentral t) reaches the target. (:func:`ragmeter.stats.power.topic_set_size` is the
two-sided design of ``compare``; a gate's test is one-sided, so its size is this one, over the
same noncentral t.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats.distributions import (
    noncentral_t_sf,
    normal_cdf,
    student_t_quantile,
    student_t_two_sided,
)
from ..stats.paired import EXACT_MAX_PAIRS, row_moments

__all__ = [
    "GATE_TESTS",
    "OneSidedResult",
    "normal_quantile",
    "one_sided_t_power",
    "one_sided_test",
    "queries_needed",
]

#: The gate's tests: name -> what it assumes (the CLI's ``--test`` choices and the docs read it).
GATE_TESTS: dict[str, str] = {
    "t": "one-sided paired t-test: the mean difference is about normal (many queries)",
    "sign-flip": "one-sided paired sign-flip test of the shifted differences: they are "
    "symmetric about the threshold under H0 (exact up to 16 queries)",
}

_BATCH_VALUES = 4_000_000  # sign-vector values per batch of the sampled test (32 MB)


@dataclass(frozen=True)
class OneSidedResult:
    """A one-sided test of ``mean(x) > theta``.

    Parameters
    ----------
    n
        Items tested (defined values).
    mean, sd
        Mean and standard deviation (``ddof=1``) of the values (not shifted).
    statistic
        t of the shifted values, or their sum for the sign-flip test.
    p_value
        One-sided p-value of ``H0: mean <= theta``.
    ci_low, ci_high
        The two-sided t interval of the mean at level ``1 - 2 alpha``: ``ci_low`` is the
        one-sided ``1 - alpha`` lower bound (the test passes at ``alpha`` exactly when the t
        bound lies above ``theta``), ``ci_high`` the one-sided upper bound.
    method
        ``"t"``, ``"exact"`` or ``"sampled"``.
    """

    n: int
    mean: float
    sd: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    method: str


def normal_quantile(probability: float) -> float:
    """The standard normal quantile (bisection on :func:`normal_cdf`, to 1e-12)."""
    if not 0.0 < probability < 1.0:
        return math.nan
    low, high = -10.0, 10.0
    while high - low > 1e-12:
        middle = 0.5 * (low + high)
        if float(normal_cdf(middle)) < probability:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def _t_greater(t: float, df: float) -> float:
    """``P(T >= t)`` for Student's t with ``df`` degrees of freedom."""
    if math.isnan(t):
        return math.nan
    two_sided = float(student_t_two_sided(abs(t), df))
    return two_sided / 2.0 if t > 0 else 1.0 - two_sided / 2.0


def _sign_flip_greater(
    shifted: np.ndarray, n_resamples: int, random_state: int
) -> tuple[float, str]:
    """One-sided sign-flip p-value of ``sum(shifted) > 0``: the share of sign vectors whose
    signed sum is at least the observed one (a tolerance of 1e-9 of the absolute sum absorbs
    rounding, so ties count)."""
    n = shifted.size
    observed = float(shifted.sum())
    tolerance = 1e-9 * float(np.abs(shifted).sum())
    if n <= EXACT_MAX_PAIRS:
        patterns = 1 << n
        bits = (np.arange(patterns)[:, None] >> np.arange(n)[None, :]) & 1
        sums = (1 - 2 * bits) @ shifted
        return float(np.count_nonzero(sums >= observed - tolerance)) / patterns, "exact"
    generator = np.random.default_rng(random_state)
    count = 0
    batch = max(1, _BATCH_VALUES // n)
    done = 0
    while done < n_resamples:
        size = min(batch, n_resamples - done)
        signs = generator.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        count += int(np.count_nonzero(signs @ shifted >= observed - tolerance))
        done += size
    return (count + 1.0) / (n_resamples + 1.0), "sampled"


def one_sided_test(
    values: np.ndarray,
    theta: float,
    *,
    test: str,
    alpha: float,
    n_resamples: int = 9999,
    random_state: int = 0,
) -> OneSidedResult:
    """Test ``H0: mean(values) <= theta`` one-sidedly (NaN values are left out).

    With fewer than 2 values the p-value is NaN (nothing can be shown). For the t-test, values
    that do not vary give p = 0 when their mean is above ``theta``, 1 when it is not (scipy
    gives NaN when every shifted value is 0; no evidence is p = 1 here).

    Parameters
    ----------
    values
        Per-item values (differences, or one system's values).
    theta
        The threshold of H0.
    test
        ``"t"`` or ``"sign-flip"``.
    alpha
        The level of the interval (``1 - 2 alpha`` two-sided).
    n_resamples, random_state
        Sign vectors and seed of the sampled sign-flip test.

    Returns
    -------
    OneSidedResult
        The test and its interval.
    """
    defined = values[~np.isnan(values)]
    n_array, mean_array, sd_array = row_moments(defined[None, :])
    n, mean, sd = int(n_array[0]), float(mean_array[0]), float(sd_array[0])
    if n < 2:
        return OneSidedResult(n, mean, sd, math.nan, math.nan, math.nan, math.nan, test)
    standard_error = sd / math.sqrt(n)
    margin = student_t_quantile(1.0 - alpha, n - 1) * standard_error
    low, high = mean - margin, mean + margin
    if test == "t":
        shifted_mean = mean - theta
        if standard_error == 0:
            t = math.copysign(math.inf, shifted_mean) if shifted_mean != 0 else math.nan
            p = 0.0 if shifted_mean > 0 else 1.0
        else:
            t = shifted_mean / standard_error
            p = _t_greater(t, n - 1)
        return OneSidedResult(n, mean, sd, t, p, low, high, "t")
    shifted = defined - theta
    p, method = _sign_flip_greater(shifted, n_resamples, random_state)
    return OneSidedResult(n, mean, sd, float(shifted.sum()), p, low, high, method)


def one_sided_t_power(n: int, d: float, alpha: float) -> float:
    """The power of the one-sided one-sample (paired) t-test at level ``alpha`` with ``n``
    items when the true standardised effect is ``d``: ``P(T' > t_(1-alpha)(n - 1))`` for the
    noncentral t with ``n - 1`` degrees of freedom and noncentrality ``d sqrt(n)``
    (:func:`~ragmeter.stats.distributions.noncentral_t_sf`, the one
    :mod:`ragmeter.stats.power` uses for its two-sided design).

    Examples
    --------
    >>> round(one_sided_t_power(27, 0.5, 0.05), 4)
    0.8118
    """
    critical = student_t_quantile(1.0 - alpha, float(n - 1))
    return float(noncentral_t_sf(critical, float(n - 1), d * math.sqrt(n)))


def queries_needed(effect: float, sd: float, *, alpha: float, power: float) -> int | None:
    """The smallest number of items with which a one-sided paired t-test at level ``alpha``
    detects ``effect`` (the true mean minus the threshold, > 0) with probability ``power``,
    for differences of standard deviation ``sd``: Sakai 2016's normal approximation as the
    start, then the exact power (:func:`one_sided_t_power`) one item at a time. None when
    ``effect <= 0`` (no number of items shows it) or ``sd`` is undefined.

    Examples
    --------
    >>> queries_needed(0.02, 0.1, alpha=0.05, power=0.8)
    156
    """
    if not (effect > 0) or not math.isfinite(sd):
        return None
    if sd == 0:
        return 2
    z_alpha = normal_quantile(1.0 - alpha)
    z_power = normal_quantile(power)
    d = effect / sd
    n = max(2, math.ceil(((z_alpha + z_power) / d) ** 2 + z_alpha**2 / 2.0))
    if n > 10_000_000:
        return n  # far beyond any query set: the approximation is exact enough to say so
    while n > 2 and one_sided_t_power(n - 1, d, alpha) >= power:
        n -= 1
    while one_sided_t_power(n, d, alpha) < power:
        n += 1
    return n
