"""Paired significance tests of per-query differences, on arrays.

Each test takes the differences ``d_i = candidate_i - baseline_i`` of the queries both systems
were evaluated on: one row (one test) or a 2-D array with one row per metric, and an
``alternative`` as scipy's: ``"two-sided"`` (the systems differ), ``"greater"`` (the candidate
is better: the mean difference is above 0) or ``"less"``.

* :func:`sign_flip_test`: the paired sign-flip (Fisher randomisation) test, exact up to 16
  pairs and seeded sampling beyond, in the Rust core;
* :func:`paired_t_test`: the paired Student t-test (``scipy.stats.ttest_rel``; ranx's default),
  with the t confidence interval of the mean difference;
* :func:`wilcoxon_test`: the Wilcoxon signed-rank test as ``scipy.stats.wilcoxon`` computes it
  by default (zeros dropped, exact distribution, permutations or the normal approximation);
* :func:`paired_bootstrap_test`: the paired bootstrap (shift) test with a percentile interval;
* :func:`bootstrap_confidence_interval`: a percentile bootstrap interval of a mean difference.

Small samples: each test has a minimum number of pairs (:data:`MIN_PAIRS`) below which it is
refused ("not enough queries"): 2 for the t-test (its variance needs two), 20 for the
bootstrap test (below, its plug-in variance makes it reject a true null far more often than
``alpha``, and it reports p-values no exact test of so few pairs can reach: from 1 to 5
differences of one sign it gives ``1 / (B + 1)`` where the exact sign-flip test gives 1 to
``1/16``), 1 for the others. An exact test's p-value is never below its smallest attainable
value (``2 / 2^n`` two-sided, ``1 / 2^n`` one-sided). Differences that do not vary (their
standard deviation at most :data:`ZERO_VARIANCE` times their magnitude: equal values up to
rounding) give the t-test no variance to go by: t is infinite, and instead of ``p = 0``
(scipy's) the p-value is that of the exact sign-flip test of equal differences, ``1 / 2^n``
one-sided (``2 / 2^n`` two-sided, 1 for zeros): 2 equal differences never show more than
``1/4``. p-values below ``1e-16`` are reported as that bound
(:mod:`~ragmeter.stats.pvalues`).

scipy is not needed (numpy and the Rust core compute everything); the tests compare every
p-value with scipy's and with brute-force enumeration.

References: R. A. Fisher, *The Design of Experiments* (1935); M. D. Smucker, J. Allan and
B. Carterette, "A comparison of statistical significance tests for information retrieval
evaluation", CIKM 2007; F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics
Bulletin 1(6), 1945; B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
Stat. Appl. Genet. Mol. Biol. 9(1), 2010; B. Efron and R. Tibshirani, *An Introduction to the
Bootstrap* (1993), sections 13 and 16; J. Urbano, H. Lima and A. Hanjalic, "Statistical
significance testing in information retrieval: an empirical analysis of type I, type II and
type III errors", SIGIR 2019 (the bootstrap's excess type I error on small topic sets);
J. Cohen, *Statistical Power Analysis for the Behavioral Sciences* (1988) (the standardised
mean difference ``d_z``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import _core
from ..exceptions import InvalidInputError
from ..options import check_n_threads
from ._arguments import (
    RESAMPLE_MEMORY_VALUES,
    Alternative,
    check_alternative,
    check_level,
    check_seed,
    float_array,
    resample_count,
)
from .distributions import student_t_quantile, student_t_tail
from .pvalues import bound_p_values
from .wilcoxon import wilcoxon_one

__all__ = [
    "BOOTSTRAP_STREAM",
    "EXACT_LIMIT",
    "EXACT_MAX_PAIRS",
    "MIN_PAIRS",
    "ZERO_VARIANCE",
    "PairedTestResult",
    "SignFlipResult",
    "bootstrap_confidence_interval",
    "check_enough_pairs",
    "equal_differences_p",
    "paired_bootstrap_test",
    "paired_t_test",
    "sign_flip_test",
    "t_from_moments",
    "wilcoxon_test",
]

#: ``method="auto"`` enumerates every sign vector up to this many pairs, and samples beyond.
EXACT_MAX_PAIRS = 16
#: The exact test refuses more pairs than this (2^24 sign vectors).
EXACT_LIMIT = 24
#: Seed offset of the bootstrap, so that it does not reuse the sign-flip test's random stream.
BOOTSTRAP_STREAM = 0x3007_5724_9C1D_E5A1
#: The fewest pairs each test accepts (see the module documentation): below, it is refused on
#: arrays and undefined ("not enough queries") in a comparison. Read by the table of tests.
MIN_PAIRS = {"sign-flip": 1, "t": 2, "wilcoxon": 1, "bootstrap": 20}
#: Differences whose standard deviation is at most this share of their largest magnitude (of
#: the values they were computed from, in a comparison) do not vary: equal values, up to the
#: rounding of their subtraction. The t statistic of such differences is undefined.
ZERO_VARIANCE = 1e-9

Method = Literal["auto", "exact", "sampled"]


_NO_PAIR = "differences: a paired test needs at least one pair of per-query values, got none"


def _matrix(
    differences: Any, *, allow_nan: bool = False, require_pairs: bool = False
) -> tuple[np.ndarray, bool]:
    array = float_array(
        differences, "differences", "one difference per query, or a 2-D array (one row per metric)"
    )
    if array.ndim == 1:
        matrix, single = np.ascontiguousarray(array[None, :]), True
    elif array.ndim == 2:
        matrix, single = np.ascontiguousarray(array), False
    else:
        raise InvalidInputError(
            f"differences: expected one row of per-pair differences or a 2-D array (one row per "
            f"metric), got an array of shape {array.shape}"
        )
    if not allow_nan and np.isnan(matrix).any():
        raise InvalidInputError(
            "differences: holds NaN (an undefined value); drop those pairs first (the "
            "comparisons of ragmeter.compare leave them out pair by pair)"
        )
    if np.isinf(matrix).any():
        raise InvalidInputError("differences: holds an infinite value")
    if require_pairs and matrix.shape[1] == 0:
        raise InvalidInputError(_NO_PAIR)
    return matrix, single


def _unwrap(values: np.ndarray, single: bool) -> Any:
    return values[0].item() if single else values


def check_enough_pairs(test: str, n_pairs: int, title: str) -> None:
    """Refuse fewer pairs than the test ``test`` needs (:data:`MIN_PAIRS`), saying why.

    Parameters
    ----------
    test
        A key of :data:`MIN_PAIRS`.
    n_pairs
        The pairs there are.
    title
        How the message names the test.

    Raises
    ------
    InvalidInputError
        Not enough queries.
    """
    needed = MIN_PAIRS[test]
    if n_pairs < needed:
        advice = "" if test == "sign-flip" else "; the exact sign-flip test takes any number"
        raise InvalidInputError(
            f"differences: not enough queries: the {title} needs at least {needed} pairs, got "
            f"{n_pairs}{advice}"
        )


# -- the sign-flip test -----------------------------------------------------------------------


@dataclass(frozen=True)
class SignFlipResult:
    """The result of :func:`sign_flip_test`.

    Parameters
    ----------
    p_value
        The p-value of the alternative: a float for 1-D input, an array (one per row) for 2-D.
    count
        Sign vectors at least as extreme as the observed one (same shape).
    n_patterns
        Sign vectors examined: ``2**n_pairs`` when exact, ``n_resamples`` when sampled.
    method
        ``"exact"`` or ``"sampled"``.
    n_pairs
        The number of pairs (queries).
    random_state
        The seed of the sampled test (None when exact).
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    p_value: Any
    count: Any
    n_patterns: int
    method: Literal["exact", "sampled"]
    n_pairs: int
    random_state: int | None
    alternative: str = "two-sided"


def sign_flip_test(
    differences: Any,
    *,
    alternative: Alternative = "two-sided",
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> SignFlipResult:
    """Paired sign-flip randomisation test of mean differences, two- or one-sided.

    ``differences`` holds, for each pair ``i`` (a query), the candidate's score minus the
    baseline's: one row (one test) or a 2-D array with one row per metric, in which case
    every row is tested with the same sign vectors. Under the null hypothesis each difference
    is as likely to have either sign; with ``T = sum_i d_i``, ``T* = sum_i s_i d_i`` and the
    tolerance ``tol = 1e-9 * sum_i |d_i|`` (it only absorbs floating-point rounding, so ties
    count), the p-value is the share of sign vectors ``s`` with

    * ``|T*| >= |T| - tol`` (``alternative="two-sided"``, the default),
    * ``T* >= T - tol`` (``"greater"``: the candidate is better), or
    * ``T* <= T + tol`` (``"less"``).

    * ``method="exact"`` enumerates all ``2**n`` sign vectors, the identity included, so
      ``p = count / 2**n`` and the smallest possible p-value is ``2 / 2**n`` two-sided,
      ``1 / 2**n`` one-sided (at most 24 pairs).
    * ``method="sampled"`` draws ``n_resamples`` sign vectors from ``random_state``, and
      ``p = (count + 1) / (n_resamples + 1)`` (never 0; Phipson and Smyth 2010). The signs come
      from a portable generator in fixed batches, so the result is the same for any
      ``n_threads`` and any platform.
    * ``method="auto"`` (default) is exact up to 16 pairs and sampled beyond.

    All-zero differences give p = 1.

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one row per metric.
    alternative
        ``"two-sided"`` (default), ``"greater"`` or ``"less"``.
    method
        ``"auto"`` (default), ``"exact"`` or ``"sampled"``.
    n_resamples
        Random sign vectors of the sampled test.
    random_state
        Seed of the sampled test (None: fresh entropy, recorded in the result).
    n_threads
        Threads of the Rust core.

    Returns
    -------
    SignFlipResult
        p-values, counts, the number of sign vectors and the seed.

    Raises
    ------
    InvalidInputError
        Undefined (NaN) or infinite differences (drop undefined pairs first, or set them to
        0, which for this statistic is the same), an unknown ``method``, more than 24 pairs
        for ``method="exact"``, a bad ``n_resamples`` or ``random_state``.

    Examples
    --------
    >>> result = sign_flip_test([0.5, 0.25, 0.0, 0.125])
    >>> result.method, result.p_value, result.n_patterns
    ('exact', 0.25, 16)
    >>> sign_flip_test([0.5, 0.25, 0.0, 0.125], alternative="greater").p_value
    0.125
    """
    matrix, single = _matrix(differences, require_pairs=True)
    chosen = check_alternative(alternative)
    if method not in ("auto", "exact", "sampled"):
        raise InvalidInputError(f"method: must be 'auto', 'exact' or 'sampled', got {method!r}")
    n_pairs = matrix.shape[1]
    exact = method == "exact" or (method == "auto" and n_pairs <= EXACT_MAX_PAIRS)
    if exact and n_pairs > EXACT_LIMIT:
        raise InvalidInputError(
            f"method='exact' enumerates 2**n sign vectors and is limited to {EXACT_LIMIT} "
            f"pairs, got {n_pairs}; use method='sampled' or 'auto'"
        )
    resamples = resample_count("n_resamples", n_resamples)
    seed = None if exact else check_seed(random_state)
    p_values, counts, n_patterns = _core.sign_flip_test(
        matrix,
        exact=exact,
        n_resamples=resamples,
        seed=0 if seed is None else seed,
        alternative=chosen,
        n_threads=check_n_threads(n_threads),
    )
    return SignFlipResult(
        p_value=float(p_values[0]) if single else p_values,
        count=int(counts[0]) if single else counts,
        n_patterns=int(n_patterns),
        method="exact" if exact else "sampled",
        n_pairs=n_pairs,
        random_state=seed,
        alternative=chosen,
    )


def bootstrap_confidence_interval(
    differences: Any,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> tuple[Any, Any]:
    """Percentile bootstrap interval of the mean of ``differences`` (one row, or one row per
    metric resampled with the same pairs); NaN entries are left out of each resample's mean.

    Each of ``n_resamples`` resamples draws the pairs with replacement (from a portable
    generator in fixed batches, independent of ``n_threads``); the interval is the
    ``(1 - confidence_level) / 2`` and ``(1 + confidence_level) / 2`` quantiles of the resampled
    means (linear interpolation).

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one row per metric.
    confidence_level
        The interval's level, strictly between 0 and 1.
    n_resamples
        Resamples of the pairs.
    random_state
        Seed (None: fresh entropy).
    n_threads
        Threads of the Rust core.

    Returns
    -------
    tuple
        ``(low, high)``: floats for one row, arrays for 2-D.

    Raises
    ------
    InvalidInputError
        Infinite differences, a level outside (0, 1), a bad ``n_resamples`` or seed.

    Examples
    --------
    >>> bootstrap_confidence_interval([0.25] * 7)
    (0.25, 0.25)
    """
    matrix, single = _matrix(differences, allow_nan=True)
    check_level("confidence_level", confidence_level)
    resamples = resample_count("n_resamples", n_resamples)
    if resamples * matrix.shape[0] > RESAMPLE_MEMORY_VALUES:
        raise InvalidInputError(
            f"n_resamples: {resamples:,} resamples of {matrix.shape[0]} rows keep "
            f"{resamples * matrix.shape[0] * 8 / 2**30:.1f} GiB of means in memory; ask for at "
            f"most {RESAMPLE_MEMORY_VALUES // matrix.shape[0]:,} resamples (or fewer rows at once)"
        )
    seed = check_seed(random_state)
    means = _core.bootstrap_mean_differences(
        matrix, n_resamples=resamples, seed=seed, n_threads=check_n_threads(n_threads)
    )
    alpha = (1.0 - confidence_level) / 2.0
    low = np.full(matrix.shape[0], math.nan)
    high = np.full(matrix.shape[0], math.nan)
    for row in range(matrix.shape[0]):
        defined = means[row][~np.isnan(means[row])]
        if defined.size:
            low[row], high[row] = np.quantile(defined, [alpha, 1.0 - alpha])
    if single:
        return float(low[0]), float(high[0])
    return low, high


# -- the t-test, the Wilcoxon test and the bootstrap test -------------------------------------


@dataclass(frozen=True)
class PairedTestResult:
    """The result of :func:`paired_t_test`, :func:`wilcoxon_test` or
    :func:`paired_bootstrap_test`: floats for one row of differences, arrays (one entry per
    row) for 2-D input.

    Parameters
    ----------
    test
        ``"t"``, ``"wilcoxon"`` or ``"bootstrap"``.
    statistic
        The test's statistic: t; ``min(W+, W-)`` for the two-sided Wilcoxon test and ``W+``
        for a one-sided one, as scipy reports them; the mean difference for the bootstrap.
    p_value
        The p-value of ``alternative`` (NaN when undefined: no variance for the t-test).
    method
        How it was computed: ``"t"``; ``"exact"``, ``"permutation"`` or ``"normal"`` for
        Wilcoxon (a list for 2-D input); ``"sampled"`` for the bootstrap.
    n_pairs
        The number of pairs.
    mean
        The mean difference.
    effect_size
        Cohen's ``d_z``: the mean difference over the standard deviation of the differences
        (NaN when that is 0).
    ci_low, ci_high
        The two-sided confidence interval of the mean difference at ``confidence_level``
        (the t interval, or bootstrap percentiles; None for Wilcoxon), whatever the
        alternative: the one-sided bound at ``1 - alpha`` is an end of the interval at
        ``1 - 2 alpha``.
    confidence_level
        The interval's level.
    df
        The degrees of freedom of the t-test.
    n_resamples, random_state
        The bootstrap's resamples and seed.
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    test: str
    statistic: Any
    p_value: Any
    method: Any
    n_pairs: Any
    mean: Any
    effect_size: Any
    ci_low: Any = None
    ci_high: Any = None
    confidence_level: float | None = None
    df: Any = None
    n_resamples: int | None = None
    random_state: int | None = None
    alternative: str = "two-sided"


def row_moments(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of ``d`` (NaN left out): the number of values, their mean and their standard
    deviation (``ddof=1``, NaN below 2 values), computed as numpy's mean and var compute them."""
    defined = ~np.isnan(d)
    n = defined.sum(axis=1)
    filled = np.where(defined, d, 0.0)
    # Each row divided by a power of two near its largest magnitude (exact, so the results are
    # those of the unscaled row) keeps the squares from underflowing (tiny differences would
    # give sd = 0, so t = inf and p = 0) and the sums from overflowing.
    largest = np.abs(filled).max(axis=1) if filled.shape[1] else np.zeros(filled.shape[0])
    exponent = np.frexp(np.where(largest > 0, largest, 1.0))[1] - 1
    scale = np.ldexp(1.0, exponent)[:, None]
    scaled = filled / scale
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = scaled.sum(axis=1) / n
        centred = np.where(defined, scaled - mean[:, None], 0.0)
        sd = np.sqrt((centred * centred).sum(axis=1) / (n - 1))
    mean = mean * scale[:, 0]
    sd = sd * scale[:, 0]
    sd[n < 2] = math.nan
    mean[n == 0] = math.nan
    return n, mean, sd


def no_variance(sd: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Where differences of standard deviation ``sd`` do not vary: ``sd <= 1e-9 * scale``
    (:data:`ZERO_VARIANCE`), ``scale`` the largest magnitude of the values they come from."""
    with np.errstate(invalid="ignore"):
        return np.asarray(sd <= ZERO_VARIANCE * scale)


def effect_sizes(mean: np.ndarray, sd: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Cohen's ``d_z = mean / sd`` of paired differences; NaN where ``sd`` is 0, undefined, or
    (given the values' ``scale``) within rounding of 0 (:func:`no_variance`)."""
    flat = np.zeros_like(sd, dtype=bool) if scale is None else no_variance(sd, scale)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((sd > 0) & np.isfinite(sd) & ~flat, mean / sd, math.nan)


def row_scales(d: np.ndarray) -> np.ndarray:
    """The largest magnitude of each row of ``d`` (NaN left out; 0 for an empty row)."""
    if d.shape[1] == 0:
        return np.zeros(d.shape[0])
    with np.errstate(invalid="ignore"):
        filled = np.where(np.isnan(d), 0.0, np.abs(d))
    return np.asarray(filled.max(axis=1))


def equal_differences_p(
    mean: np.ndarray, n: np.ndarray, zero: np.ndarray, alternative: str
) -> np.ndarray:
    """The exact sign-flip p-value of ``n`` equal differences of value ``mean`` (``zero``:
    they are 0): only the identity (and, two-sided, its mirror) reaches their sum, so ``p =
    1 / 2^n`` in their direction (``2 / 2^n`` two-sided), 1 against it and 1 for zeros."""
    smallest = np.ldexp(1.0, -n.astype(np.int64))
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * smallest)
    else:
        toward = mean > 0 if alternative == "greater" else mean < 0
        p = np.where(toward, smallest, 1.0)
    return np.asarray(np.where(zero, 1.0, p))


def t_rows(
    d: np.ndarray,
    confidence_level: float | None,
    *,
    alternative: str = "two-sided",
    scale: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The paired t-test of every row of ``d`` (NaN left out) under ``alternative``: ``(n,
    mean, t, p, low, high, effect size)``, the interval two-sided at ``confidence_level``.

    Fewer than 2 values give t and p NaN. Differences that do not vary (:func:`no_variance`
    with ``scale``, by default each row's largest magnitude: equal values up to the rounding
    of their subtraction) have an infinite t (NaN when they are 0); their p-value is not
    ``P(T >= inf) = 0`` (scipy's) but that of the exact sign-flip test of equal differences
    (:func:`equal_differences_p`: ``1 / 2^n`` one-sided, ``2 / 2^n`` two-sided, 1 for
    zeros), the smallest a test of ``n`` pairs can attain: the normal model the t-test
    assumes has no variance to go by there."""
    n, mean, sd = row_moments(d)
    scales = row_scales(d) if scale is None else np.asarray(scale, dtype=np.float64)
    return t_from_moments(n, mean, sd, scales, confidence_level, alternative)


def t_from_moments(
    n: np.ndarray,
    mean: np.ndarray,
    sd: np.ndarray,
    scales: np.ndarray,
    confidence_level: float | None,
    alternative: str = "two-sided",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`t_rows` from the differences' counts, means and standard deviations
    (:func:`row_moments`) and their scales (any shape, elementwise): the same results without
    the differences themselves."""
    with np.errstate(invalid="ignore", divide="ignore"):
        standard_error = sd / np.sqrt(n)
        t = mean / standard_error
    df = (n - 1).astype(np.float64)
    flat = (n >= 2) & no_variance(sd, scales)
    usable = (n >= 2) & ~flat
    with np.errstate(invalid="ignore"):
        zero = flat & (np.abs(mean) <= ZERO_VARIANCE * scales)
    t = np.where(usable, t, math.nan)
    t = np.where(flat & ~zero, np.copysign(math.inf, mean), t)
    p = np.full(n.shape, math.nan)
    p[usable] = student_t_tail(t[usable], df[usable], alternative)
    p[flat] = equal_differences_p(mean[flat], n[flat], zero[flat], alternative)
    low = np.full(n.shape, math.nan)
    high = np.full(n.shape, math.nan)
    if confidence_level is not None:
        defined = n >= 2
        for degrees in np.unique(df[defined]):
            rows = defined & (df == degrees)
            margin = student_t_quantile((1.0 + confidence_level) / 2.0, float(degrees))
            with np.errstate(over="ignore"):  # differences near the float range: +-inf
                low[rows] = mean[rows] - margin * standard_error[rows]
                high[rows] = mean[rows] + margin * standard_error[rows]
    return n, mean, t, p, low, high, effect_sizes(mean, sd, scales)


def paired_t_test(
    differences: Any,
    *,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
) -> PairedTestResult:
    """Paired Student t-test of the mean of ``differences`` (one row, or one test per row of a
    2-D array), as ``scipy.stats.ttest_rel(candidate, baseline, alternative=...)``.

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom; the p-value is
    ``P(|T| >= |t|)`` (two-sided), ``P(T >= t)`` (``"greater"``) or ``P(T <= t)``
    (``"less"``); the interval is ``mean(d) -+ t_(1 + level)/2 * sd(d) / sqrt(n)``, two-sided
    whatever the alternative (scipy gives the one-sided bound with an infinite end; that bound
    at ``1 - alpha`` is this interval's end at ``1 - 2 alpha``). Assumes independent
    differences with an about normal mean (Student 1908; Smucker et al. 2007).

    Differences that do not vary (every difference equal up to the rounding of the
    subtraction: :data:`ZERO_VARIANCE`) have an infinite t (NaN when they are 0); scipy then
    gives ``p = 0``, a certainty no equal values can give: the p-value here is that of the
    exact sign-flip test of equal differences, ``1 / 2^n`` one-sided in their direction, 1
    against it, ``2 / 2^n`` two-sided, 1 for zeros (2 equal differences: ``1/4`` one-sided).
    p-values below ``1e-16`` are reported as ``1e-16`` (:mod:`~ragmeter.stats.pvalues`).

    Parameters
    ----------
    differences
        One row of per-pair differences (at least 2), or a 2-D array with one test per row.
    alternative
        ``"two-sided"`` (default), ``"greater"`` or ``"less"``.
    confidence_level
        The level of the t interval of the mean difference.

    Returns
    -------
    PairedTestResult
        t, the p-value, the degrees of freedom, the interval and Cohen's ``d_z``.

    Raises
    ------
    InvalidInputError
        Fewer than 2 pairs (not enough queries), NaN or infinite differences, an unknown
        alternative, a ``confidence_level`` outside (0, 1).

    Examples
    --------
    >>> result = paired_t_test([0.5, 0.25, 0.0, 0.125])
    >>> round(result.statistic, 6), round(result.p_value, 6), result.df
    (2.04939, 0.132842, 3)
    >>> round(paired_t_test([0.5, 0.25, 0.0, 0.125], alternative="greater").p_value, 6)
    0.066421
    """
    matrix, single = _matrix(differences, require_pairs=True)
    chosen = check_alternative(alternative)
    level = check_level("confidence_level", confidence_level)
    check_enough_pairs("t", matrix.shape[1], "paired t-test")
    n, mean, t, p, low, high, size = t_rows(matrix, level, alternative=chosen)
    df = n - 1
    return PairedTestResult(
        test="t",
        statistic=_unwrap(t, single),
        p_value=_unwrap(bound_p_values(p), single),
        method="t",
        n_pairs=_unwrap(n, single),
        mean=_unwrap(mean, single),
        effect_size=_unwrap(size, single),
        ci_low=_unwrap(low, single),
        ci_high=_unwrap(high, single),
        confidence_level=level,
        df=_unwrap(df, single),
        alternative=chosen,
    )


def wilcoxon_test(differences: Any, *, alternative: Alternative = "two-sided") -> PairedTestResult:
    """Wilcoxon signed-rank test of ``differences`` (one row, or one test per row), exactly as
    ``scipy.stats.wilcoxon(d, alternative=...)`` computes it by default: zero differences are
    dropped (``zero_method="wilcox"``), ties get average ranks; up to 50 pairs without ties or
    zeros the exact distribution of ``W+`` is used, up to 13 pairs with ties or zeros every
    sign vector is enumerated, and otherwise the normal approximation with the tie correction
    (no continuity correction). ``statistic`` is ``min(W+, W-)`` two-sided and ``W+``
    one-sided (``"greater"``: the differences lie above 0). Assumes differences symmetric
    about their median (Wilcoxon 1945). As in scipy, more than 13 pairs that are all zero give
    NaN (the normal approximation has no variance).

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one test per row.
    alternative
        ``"two-sided"`` (default), ``"greater"`` or ``"less"``.

    Returns
    -------
    PairedTestResult
        The statistic, the p-value and how it was computed, the mean difference and Cohen's
        ``d_z``.

    Raises
    ------
    InvalidInputError
        NaN or infinite differences, an unknown alternative.

    Examples
    --------
    >>> result = wilcoxon_test([0.5, 0.25, -0.125, 0.375, 0.75])
    >>> result.statistic, result.p_value, result.method
    (1.0, 0.125, 'exact')
    >>> wilcoxon_test([0.5, 0.25, -0.125, 0.375, 0.75], alternative="greater").p_value
    0.0625
    """
    matrix, single = _matrix(differences, require_pairs=True)
    chosen = check_alternative(alternative)
    results = [wilcoxon_one(row, chosen) for row in matrix]
    statistics = np.array([r[0] for r in results])
    p_values = bound_p_values([r[1] for r in results])
    methods = [r[2] for r in results]
    n, mean, sd = row_moments(matrix)
    return PairedTestResult(
        test="wilcoxon",
        statistic=_unwrap(statistics, single),
        p_value=_unwrap(p_values, single),
        method=methods[0] if single else methods,
        n_pairs=_unwrap(n, single),
        mean=_unwrap(mean, single),
        effect_size=_unwrap(effect_sizes(mean, sd, row_scales(matrix)), single),
        alternative=chosen,
    )


def paired_bootstrap_test(
    differences: Any,
    *,
    alternative: Alternative = "two-sided",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> PairedTestResult:
    """Paired bootstrap test of the mean of ``differences`` (one row, or one test per row
    resampled with the same pairs), with its percentile interval.

    Each of ``n_resamples`` resamples draws the pairs with replacement; with ``m`` the
    observed mean and ``m*`` a resample's, the p-value is ``(1 + #{extreme}) / (1 +
    n_resamples)`` where a resample is extreme when ``|m* - m| >= |m|`` (two-sided),
    ``m* - m >= m`` (``"greater"``) or ``m* - m <= m`` (``"less"``): the shift method, under
    the null hypothesis the resampled means vary around the observed one as the observed one
    varies around 0 (Efron and Tibshirani 1993, section 16.4). Resampled means equal to the
    bound count, with the sign-flip test's tolerance (``1e-9`` of the mean absolute
    difference), so the p-value does not depend on how the same values are written in
    floating point. The interval holds the ``(1 -+ confidence_level) / 2`` quantiles of the
    resampled means (two-sided whatever the alternative). The draws are those of
    :func:`bootstrap_confidence_interval` for the same ``random_state``.

    The test needs at least 20 pairs (:data:`MIN_PAIRS`): its variance is the plug-in one
    (divisor ``n``), so on small samples it rejects a true null hypothesis well above
    ``alpha`` (Urbano et al. 2019), and from a handful of differences of one sign it reports
    ``1 / (B + 1)``, below what an exact test of so few pairs can reach. Use
    :func:`sign_flip_test` (exact) for fewer.

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one test per row.
    alternative
        ``"two-sided"`` (default), ``"greater"`` or ``"less"``.
    n_resamples
        Resamples of the pairs.
    confidence_level
        The level of the percentile interval.
    random_state
        Seed (None: fresh entropy, recorded in the result).
    n_threads
        Threads of the Rust core.

    Returns
    -------
    PairedTestResult
        The mean difference, the p-value, the interval and Cohen's ``d_z``.

    Raises
    ------
    InvalidInputError
        Fewer than 20 pairs (not enough queries), NaN or infinite differences, a bad
        alternative, level, ``n_resamples`` or seed.

    Examples
    --------
    >>> result = paired_bootstrap_test([0.1] * 30, n_resamples=999)
    >>> result.p_value, round(result.ci_low, 12), round(result.ci_high, 12)
    (0.001, 0.1, 0.1)
    """
    matrix, single = _matrix(differences, require_pairs=True)
    chosen = check_alternative(alternative)
    level = check_level("confidence_level", confidence_level)
    resamples = resample_count("n_resamples", n_resamples)
    seed = check_seed(random_state)
    check_enough_pairs("bootstrap", matrix.shape[1], "paired bootstrap test")
    values = np.ascontiguousarray(np.stack([matrix, np.zeros_like(matrix)]))
    low, high, counts, valid = _core.bootstrap_pairs(
        values,
        np.array([[0, 1]], dtype=np.uint64),
        n_resamples=resamples,
        seed=seed,
        confidence_level=level,
        alternative=chosen,
        n_threads=check_n_threads(n_threads),
    )
    n, mean, sd = row_moments(matrix)
    p = (counts[0] + 1.0) / (valid[0] + 1.0)
    return PairedTestResult(
        test="bootstrap",
        statistic=_unwrap(mean, single),
        p_value=_unwrap(p, single),
        method="sampled",
        n_pairs=_unwrap(n, single),
        mean=_unwrap(mean, single),
        effect_size=_unwrap(effect_sizes(mean, sd, row_scales(matrix)), single),
        ci_low=_unwrap(low[0], single),
        ci_high=_unwrap(high[0], single),
        confidence_level=level,
        n_resamples=resamples,
        random_state=seed,
        alternative=chosen,
    )
