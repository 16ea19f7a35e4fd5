"""Paired significance tests of per-query differences, on arrays.

Each test takes the differences ``d_i = candidate_i - baseline_i`` of the queries both systems
were evaluated on: one row (one test) or a 2-D array with one row per metric.

* :func:`sign_flip_test`: the two-sided paired sign-flip (Fisher randomisation) test, exact up
  to 16 pairs and seeded sampling beyond, in the Rust core;
* :func:`paired_t_test`: the paired Student t-test (``scipy.stats.ttest_rel``; ranx's default),
  with the t confidence interval of the mean difference;
* :func:`wilcoxon_test`: the Wilcoxon signed-rank test as ``scipy.stats.wilcoxon`` computes it
  by default (zeros dropped, exact distribution, permutations or the normal approximation);
* :func:`paired_bootstrap_test`: the paired bootstrap (shift) test with a percentile interval;
* :func:`bootstrap_confidence_interval`: a percentile bootstrap interval of a mean difference.

scipy is not needed (numpy and the Rust core compute everything); the tests compare every
p-value with scipy's.

References: R. A. Fisher, *The Design of Experiments* (1935); M. D. Smucker, J. Allan and
B. Carterette, "A comparison of statistical significance tests for information retrieval
evaluation", CIKM 2007; F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics
Bulletin 1(6), 1945; B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
Stat. Appl. Genet. Mol. Biol. 9(1), 2010; B. Efron and R. Tibshirani, *An Introduction to the
Bootstrap* (1993), sections 13 and 16; J. Cohen, *Statistical Power Analysis for the
Behavioral Sciences* (1988) (the standardised mean difference ``d_z``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import _core
from ..exceptions import InvalidInputError
from ..options import check_n_threads
from ._arguments import (
    RESAMPLE_MEMORY_VALUES,
    check_level,
    check_seed,
    float_array,
    resample_count,
)
from .distributions import (
    normal_two_sided,
    student_t_quantile,
    student_t_two_sided,
    wilcoxon_distribution,
)

__all__ = [
    "BOOTSTRAP_STREAM",
    "EXACT_LIMIT",
    "EXACT_MAX_PAIRS",
    "PairedTestResult",
    "SignFlipResult",
    "bootstrap_confidence_interval",
    "paired_bootstrap_test",
    "paired_t_test",
    "sign_flip_test",
    "wilcoxon_test",
]

#: ``method="auto"`` enumerates every sign vector up to this many pairs, and samples beyond.
EXACT_MAX_PAIRS = 16
#: The exact test refuses more pairs than this (2^24 sign vectors).
EXACT_LIMIT = 24
#: Seed offset of the bootstrap, so that it does not reuse the sign-flip test's random stream.
BOOTSTRAP_STREAM = 0x3007_5724_9C1D_E5A1
#: scipy's ``wilcoxon(method="auto")`` uses the normal approximation beyond this many pairs.
WILCOXON_EXACT_MAX = 50
#: ... and, with ties or zeros, enumerates every sign vector up to this many pairs.
WILCOXON_PERMUTATION_MAX = 13

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


# -- the sign-flip test -----------------------------------------------------------------------


@dataclass(frozen=True)
class SignFlipResult:
    """The result of :func:`sign_flip_test`.

    Parameters
    ----------
    p_value
        The two-sided p-value: a float for 1-D input, an array (one per row) for 2-D.
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
    """

    p_value: Any
    count: Any
    n_patterns: int
    method: Literal["exact", "sampled"]
    n_pairs: int
    random_state: int | None


def sign_flip_test(
    differences: Any,
    *,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> SignFlipResult:
    """Two-sided paired sign-flip randomisation test of mean differences.

    ``differences`` holds, for each pair ``i`` (a query), the candidate's score minus the
    baseline's: one row (one test) or a 2-D array with one row per metric, in which case
    every row is tested with the same sign vectors. Under the null hypothesis each difference
    is as likely to have either sign; the p-value is the share of sign vectors ``s`` with

        ``|sum_i s_i d_i| >= |sum_i d_i| - 1e-9 * sum_i |d_i|``

    (the tolerance only absorbs floating-point rounding, so ties count).

    * ``method="exact"`` enumerates all ``2**n`` sign vectors, the identity included, so
      ``p = count / 2**n`` and the smallest possible p-value is ``2 / 2**n`` (at most 24 pairs).
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
    """
    matrix, single = _matrix(differences)
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
        n_threads=check_n_threads(n_threads),
    )
    return SignFlipResult(
        p_value=float(p_values[0]) if single else p_values,
        count=int(counts[0]) if single else counts,
        n_patterns=int(n_patterns),
        method="exact" if exact else "sampled",
        n_pairs=n_pairs,
        random_state=seed,
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
        The test's statistic: t; ``min(W+, W-)`` for Wilcoxon, as scipy reports it; the mean
        difference for the bootstrap.
    p_value
        The two-sided p-value.
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
        The confidence interval of the mean difference at ``confidence_level`` (the t
        interval, or bootstrap percentiles; None for Wilcoxon).
    confidence_level
        The interval's level.
    df
        The degrees of freedom of the t-test.
    n_resamples, random_state
        The bootstrap's resamples and seed.
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


def effect_sizes(mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Cohen's ``d_z = mean / sd`` of paired differences; NaN where ``sd`` is 0 or undefined."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((sd > 0) & np.isfinite(sd), mean / sd, math.nan)


def t_rows(
    d: np.ndarray, confidence_level: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The paired t-test of every row of ``d`` (NaN left out): ``(n, mean, t, p, low, high,
    effect size)``. As scipy: zero standard deviation gives t = +-inf and p = 0 when the mean
    is not 0, NaN when it is; fewer than 2 values give NaN."""
    n, mean, sd = row_moments(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        standard_error = sd / np.sqrt(n)
        t = mean / standard_error
    df = (n - 1).astype(np.float64)
    p = np.full(n.shape, math.nan)
    usable = n >= 2
    p[usable] = student_t_two_sided(t[usable], df[usable])
    low = np.full(n.shape, math.nan)
    high = np.full(n.shape, math.nan)
    if confidence_level is not None:
        for degrees in np.unique(df[usable]):
            rows = usable & (df == degrees)
            margin = student_t_quantile((1.0 + confidence_level) / 2.0, float(degrees))
            with np.errstate(over="ignore"):  # differences near the float range: +-inf
                low[rows] = mean[rows] - margin * standard_error[rows]
                high[rows] = mean[rows] + margin * standard_error[rows]
    return n, mean, t, p, low, high, effect_sizes(mean, sd)


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


def wilcoxon_one(d: np.ndarray) -> tuple[float, float, str]:
    """``(min(W+, W-), p, method)`` of the two-sided Wilcoxon signed-rank test of the defined
    differences ``d``, as ``scipy.stats.wilcoxon(d)`` computes them (``zero_method="wilcox"``,
    no continuity correction, ``method="auto"``)."""
    n_total = d.size
    if n_total == 0:
        return math.nan, math.nan, "none"
    nonzero = d[d != 0]
    count = nonzero.size
    ranks, sizes = _rank_average(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    r_minus = float(ranks[nonzero < 0].sum())
    statistic = min(r_plus, r_minus)
    has_ties = bool((sizes > 1).any())
    n_zero = n_total - count
    if n_total <= WILCOXON_EXACT_MAX and not has_ties and n_zero == 0:
        # The exact null distribution of W+; a two-sided p-value from the smaller tail.
        pmf = wilcoxon_distribution(count)
        k = round(r_plus)
        mean = count * (count + 1) / 4
        cdf = pmf[: k + 1].sum() if k <= mean else 1.0 - pmf[k + 1 :].sum()
        sf = pmf[k:].sum() if k <= mean else 1.0 - pmf[:k].sum()
        return statistic, float(min(1.0, 2.0 * min(cdf, sf))), "exact"
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
        return statistic, float(min(1.0, 2.0 * min(p_less, p_greater))), "permutation"
    mean = count * (count + 1) * 0.25
    variance = (count * (count + 1.0) * (2.0 * count + 1.0) - (sizes**3 - sizes).sum() / 2) / 24
    if variance <= 0:
        return statistic, math.nan, "normal"
    z = (r_plus - mean) / math.sqrt(variance)
    return statistic, float(normal_two_sided(z)), "normal"


def paired_t_test(differences: Any, *, confidence_level: float = 0.95) -> PairedTestResult:
    """Two-sided paired Student t-test of the mean of ``differences`` (one row, or one test
    per row of a 2-D array), as ``scipy.stats.ttest_rel(candidate, baseline)``.

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom; the interval is
    ``mean(d) -+ t_(1 + level)/2 * sd(d) / sqrt(n)``. With zero standard deviation, t is
    infinite and p = 0 when the mean is not 0, and both are NaN when it is (every difference
    is 0), as in scipy; fewer than 2 pairs give NaN.

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one test per row.
    confidence_level
        The level of the t interval of the mean difference.

    Returns
    -------
    PairedTestResult
        t, the p-value, the degrees of freedom, the interval and Cohen's ``d_z``.

    Raises
    ------
    InvalidInputError
        NaN or infinite differences, a ``confidence_level`` outside (0, 1).

    Examples
    --------
    >>> result = paired_t_test([0.5, 0.25, 0.0, 0.125])
    >>> round(result.statistic, 6), round(result.p_value, 6), result.df
    (2.04939, 0.132842, 3)
    """
    matrix, single = _matrix(differences, require_pairs=True)
    level = check_level("confidence_level", confidence_level)
    n, mean, t, p, low, high, size = t_rows(matrix, level)
    df = n - 1
    return PairedTestResult(
        test="t",
        statistic=_unwrap(t, single),
        p_value=_unwrap(p, single),
        method="t",
        n_pairs=_unwrap(n, single),
        mean=_unwrap(mean, single),
        effect_size=_unwrap(size, single),
        ci_low=_unwrap(low, single),
        ci_high=_unwrap(high, single),
        confidence_level=level,
        df=_unwrap(df, single),
    )


def wilcoxon_test(differences: Any) -> PairedTestResult:
    """Two-sided Wilcoxon signed-rank test of ``differences`` (one row, or one test per row),
    exactly as ``scipy.stats.wilcoxon(d)`` computes it by default: zero differences are
    dropped (``zero_method="wilcox"``), ties get average ranks; up to 50 pairs without ties or
    zeros the exact distribution of ``W+`` is used, up to 13 pairs with ties or zeros every
    sign vector is enumerated, and otherwise the normal approximation with the tie correction
    (no continuity correction). ``statistic`` is ``min(W+, W-)``. As in scipy, more than 13
    pairs that are all zero give NaN (the normal approximation has no variance).

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one test per row.

    Returns
    -------
    PairedTestResult
        ``min(W+, W-)``, the p-value and how it was computed, the mean difference and Cohen's
        ``d_z``.

    Raises
    ------
    InvalidInputError
        NaN or infinite differences.

    Examples
    --------
    >>> result = wilcoxon_test([0.5, 0.25, -0.125, 0.375, 0.75])
    >>> result.statistic, result.p_value, result.method
    (1.0, 0.125, 'exact')
    """
    matrix, single = _matrix(differences, require_pairs=True)
    results = [wilcoxon_one(row) for row in matrix]
    statistics = np.array([r[0] for r in results])
    p_values = np.array([r[1] for r in results])
    methods = [r[2] for r in results]
    n, mean, sd = row_moments(matrix)
    return PairedTestResult(
        test="wilcoxon",
        statistic=_unwrap(statistics, single),
        p_value=_unwrap(p_values, single),
        method=methods[0] if single else methods,
        n_pairs=_unwrap(n, single),
        mean=_unwrap(mean, single),
        effect_size=_unwrap(effect_sizes(mean, sd), single),
    )


def paired_bootstrap_test(
    differences: Any,
    *,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> PairedTestResult:
    """Two-sided paired bootstrap test of the mean of ``differences`` (one row, or one test
    per row resampled with the same pairs), with its percentile interval.

    Each of ``n_resamples`` resamples draws the pairs with replacement; the p-value is
    ``(1 + #{|mean* - mean| >= |mean|}) / (1 + n_resamples)`` (the shift method: under the
    null hypothesis the resampled means vary around the observed one as the observed one
    varies around 0; Efron and Tibshirani 1993, section 16.4), compared exactly; the interval
    holds the ``(1 -+ confidence_level) / 2`` quantiles of the resampled means. The draws are
    those of :func:`bootstrap_confidence_interval` for the same ``random_state``.

    Parameters
    ----------
    differences
        One row of per-pair differences, or a 2-D array with one test per row.
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
        NaN or infinite differences, a bad level, ``n_resamples`` or seed.

    Examples
    --------
    >>> result = paired_bootstrap_test([0.1] * 30, n_resamples=999)
    >>> result.p_value, round(result.ci_low, 12), round(result.ci_high, 12)
    (0.001, 0.1, 0.1)
    """
    matrix, single = _matrix(differences, require_pairs=True)
    level = check_level("confidence_level", confidence_level)
    resamples = resample_count("n_resamples", n_resamples)
    seed = check_seed(random_state)
    values = np.ascontiguousarray(np.stack([matrix, np.zeros_like(matrix)]))
    low, high, counts, valid = _core.bootstrap_pairs(
        values,
        np.array([[0, 1]], dtype=np.uint64),
        n_resamples=resamples,
        seed=seed,
        confidence_level=level,
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
        effect_size=_unwrap(effect_sizes(mean, sd), single),
        ci_low=_unwrap(low[0], single),
        ci_high=_unwrap(high[0], single),
        confidence_level=level,
        n_resamples=resamples,
        random_state=seed,
    )
