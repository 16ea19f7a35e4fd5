"""Randomisation tests of many systems evaluated on the same queries, in the Rust core.

* :func:`randomised_tukey_hsd`: the randomised Tukey HSD test of every pair of systems
  (Carterette 2012; Sakai 2018, ch. 5): a family-wise test that keeps the pairing of queries;
* :func:`westfall_young`: Westfall and Young's max-T step-down adjustment of many candidates
  against one baseline, from the sign vectors of :func:`~ragmeter.stats.sign_flip_test`
  (Boytsov, Belova and Westfall, SIGIR 2013).

Both are exact (every permutation) on small inputs and sampled from a seed otherwise; a
sampled p-value is ``(count + 1) / (n_resamples + 1)`` (never 0), and the same for any
``n_threads`` and any platform.

References: B. Carterette, "Multiple testing in statistical analysis of systems-based
information retrieval experiments", ACM TOIS 30(1), 2012; T. Sakai, *Laboratory Experiments in
Information Retrieval*, Springer, 2018, ch. 4-5; T. Sakai, "Statistical reform in information
retrieval?", SIGIR Forum 48(1), 2014; P. H. Westfall and S. S. Young, *Resampling-Based
Multiple Testing*, Wiley, 1993 (algorithm 2.8); L. Boytsov, A. Belova and P. Westfall,
"Deciding on an adjustment for multiplicity in IR experiments", SIGIR 2013.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import _core
from ..exceptions import InvalidInputError
from ..options import check_n_threads
from ._arguments import check_seed, float_array, resample_count
from .registry import CampaignInput, CampaignOutcome

__all__ = [
    "EXACT_MAX_PERMUTATIONS",
    "RandomisedTukeyResult",
    "WestfallYoungResult",
    "randomised_tukey_campaign",
    "randomised_tukey_hsd",
    "westfall_young",
    "westfall_young_campaign",
]

#: ``method="auto"`` of :func:`randomised_tukey_hsd` enumerates every permutation when there
#: are at most this many once the first query is fixed (``(m!)^(n-1)``), and samples beyond.
EXACT_MAX_PERMUTATIONS = 1 << 16
#: The exact randomised Tukey test refuses more than this many ``(m!)^(n-1)`` permutations.
EXACT_PERMUTATION_LIMIT = 1 << 24
#: ``method="auto"`` of :func:`westfall_young` is exact up to this many queries (2^16 sign
#: vectors), as :func:`~ragmeter.stats.sign_flip_test`; the exact test takes at most 24.
EXACT_MAX_PAIRS = 16
EXACT_PAIR_LIMIT = 24

Method = Literal["auto", "exact", "sampled"]


def _named_matrix(
    values: Any, names: Any, argument: str, expected: str, *, columns: bool
) -> tuple[np.ndarray, tuple[str, ...]]:
    """A 2-D float array from an array or a mapping name -> per-query values (the names become
    the columns when ``columns``, else the rows), and the names."""
    if isinstance(values, Mapping):
        keys = tuple(str(k) for k in values)
        rows = [float_array(v, f"{argument}[{k!r}]", expected) for k, v in values.items()]
        lengths = {r.shape for r in rows}
        if len(lengths) > 1 or any(r.ndim != 1 for r in rows):
            raise InvalidInputError(
                f"{argument}: every entry must hold one value per query, the same queries in "
                f"the same order; got shapes {sorted(r.shape for r in rows)}"
            )
        matrix = np.array(rows, dtype=np.float64).reshape(len(rows), -1)
        if columns:
            matrix = matrix.T
        if names is not None:
            raise InvalidInputError(
                f"names: {argument} is a mapping, whose keys already name the systems; "
                "leave names out"
            )
        return np.ascontiguousarray(matrix), keys
    matrix = float_array(values, argument, expected)
    if matrix.ndim != 2:
        raise InvalidInputError(
            f"{argument}: expected a 2-D array ({expected}), got shape {matrix.shape}"
        )
    count = matrix.shape[1] if columns else matrix.shape[0]
    if names is None:
        keys = tuple(str(i) for i in range(count))
    else:
        keys = tuple(str(n) for n in names)
        if len(keys) != count:
            raise InvalidInputError(f"names: expected {count} names, got {len(keys)}")
    return np.ascontiguousarray(matrix), keys


def _refuse_undefined(
    matrix: np.ndarray, argument: str, names: tuple[str, ...], by_row: bool
) -> None:
    bad = np.argwhere(~np.isfinite(matrix))
    if bad.size:
        row, column = (int(x) for x in bad[0])
        query, name = (row, names[column]) if by_row else (column, names[row])
        raise InvalidInputError(
            f"{argument}: query #{query} of {name!r} is {matrix[row, column]}; every system "
            "must have a defined value on every query: drop the queries where one is undefined"
        )


# -- the randomised Tukey HSD test ------------------------------------------------------------


@dataclass(frozen=True)
class RandomisedTukeyResult:
    """The result of :func:`randomised_tukey_hsd`.

    Parameters
    ----------
    systems
        The systems' names, in the order of the matrices' rows and columns.
    means
        Each system's mean over the ``n_queries`` queries.
    mean_differences
        ``mean_differences[i, j] = means[i] - means[j]``.
    p_values
        Family-wise p-value of every pair (symmetric; 1 on the diagonal).
    counts
        Permutations whose largest difference of means reached the pair's (symmetric).
    effect_sizes
        Sakai's standardised difference ``(mean_i - mean_j) / sqrt(V_E)``, with ``V_E`` the
        residual variance of the two-way ANOVA without replication (NaN when ``V_E = 0``).
    residual_variance
        ``V_E = sum_qs (x_qs - xbar_q. - xbar_.s + xbar_..)^2 / ((n - 1)(m - 1))`` (NaN for one
        query).
    n_queries
        The queries (rows) of the test.
    n_permutations
        Permutations examined: ``(m!)^n`` when exact, ``n_resamples`` when sampled.
    method
        ``"exact"`` or ``"sampled"``.
    random_state
        The seed of the sampled test (None when exact).
    """

    systems: tuple[str, ...]
    means: np.ndarray
    mean_differences: np.ndarray
    p_values: np.ndarray
    counts: np.ndarray
    effect_sizes: np.ndarray
    residual_variance: float
    n_queries: int
    n_permutations: int
    method: Literal["exact", "sampled"]
    random_state: int | None


def _reduced_permutations(n_systems: int, n_queries: int, limit: int) -> int | None:
    """``(m!)^(n-1)``, or None when it exceeds ``limit``."""
    factorial = math.factorial(n_systems)
    total = 1
    for _ in range(n_queries - 1):
        total *= factorial
        if total > limit:
            return None
    return total


def randomised_tukey_hsd(
    scores: Any,
    *,
    systems: Any = None,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> RandomisedTukeyResult:
    """Randomised Tukey HSD test of every pair of systems evaluated on the same queries.

    ``scores`` is a ``queries x systems`` matrix (or a mapping ``system -> per-query scores``,
    the same queries in the same order). Under the null hypothesis that all systems are
    exchangeable on every query, each query's row of scores is as likely in any order: each
    permutation shuffles every row independently (the pairing by query is kept, unlike the
    one-way Tukey-Kramer test of :func:`~ragmeter.stats.tukey_hsd`) and records the largest
    difference of system means ``D* = max_s mean*_s - min_s mean*_s``. The p-value of the pair
    ``(i, j)`` is the share of permutations with

        ``D* >= |mean_i - mean_j| - 1e-9 * sum_q (max_s x_qs - min_s x_qs) / n``

    (the tolerance only absorbs floating-point rounding, so ties count). Comparing every pair
    with the distribution of the *largest* difference controls the family-wise error rate over
    all ``m (m - 1) / 2`` pairs (Carterette 2012; Sakai 2018, section 5.2).

    * ``method="exact"``: all ``(m!)^n`` permutations, the identity included, so
      ``p = count / (m!)^n`` (permuting every row alike only relabels the systems, so the
      ``(m!)^(n-1)`` permutations that keep the first query fixed are enumerated, at most
      2^24);
    * ``method="sampled"``: ``n_resamples`` random permutations from ``random_state``,
      ``p = (count + 1) / (n_resamples + 1)`` (never 0), the same for any ``n_threads``;
    * ``method="auto"`` (default): exact up to 2^16 permutations, sampled beyond.

    Identical systems give p = 1. Every system must have a value on every query: undefined
    values are refused (drop those queries first).

    Parameters
    ----------
    scores
        ``queries x systems`` per-query scores, or a mapping ``system -> per-query scores``.
    systems
        Names of the columns of an array (default ``"0"``, ``"1"``, ...).
    method
        ``"auto"`` (default), ``"exact"`` or ``"sampled"``.
    n_resamples
        Random permutations of the sampled test.
    random_state
        Seed of the sampled test (None: fresh entropy, recorded in the result).
    n_threads
        Threads of the Rust core.

    Returns
    -------
    RandomisedTukeyResult
        Means, mean differences, p-values, effect sizes, the permutation count and the seed.

    Raises
    ------
    InvalidInputError
        Fewer than two systems or no query, an undefined or infinite score, an unknown
        ``method``, too many permutations for ``method="exact"``, a bad ``n_resamples`` or
        ``random_state``.

    Examples
    --------
    >>> result = randomised_tukey_hsd({"bm25": [0.5, 0.25, 0.5], "dense": [0.75, 0.5, 1.0]})
    >>> result.method, result.n_permutations, result.p_values[0, 1].item()
    ('exact', 8, 0.25)
    """
    matrix, names = _named_matrix(
        scores, systems, "scores", "one row per query, one column per system", columns=True
    )
    n_queries, n_systems = matrix.shape
    if n_systems < 2:
        raise InvalidInputError(
            f"scores: needs at least two systems (columns) to compare, got {n_systems}"
        )
    if n_queries == 0:
        raise InvalidInputError("scores: needs at least one query (row), got none")
    _refuse_undefined(matrix, "scores", names, by_row=True)
    if method not in ("auto", "exact", "sampled"):
        raise InvalidInputError(f"method: must be 'auto', 'exact' or 'sampled', got {method!r}")
    exact = method == "exact" or (
        method == "auto"
        and _reduced_permutations(n_systems, n_queries, EXACT_MAX_PERMUTATIONS) is not None
    )
    if exact and _reduced_permutations(n_systems, n_queries, EXACT_PERMUTATION_LIMIT) is None:
        raise InvalidInputError(
            f"method='exact' enumerates (m!)^(n-1) permutations, at most "
            f"{EXACT_PERMUTATION_LIMIT:,}; {n_systems} systems x {n_queries} queries are too "
            "many: use method='sampled' or 'auto'"
        )
    resamples = resample_count("n_resamples", n_resamples)
    seed = None if exact else check_seed(random_state)
    pair_p, pair_counts, n_permutations = _core.randomised_tukey(
        matrix,
        exact=exact,
        n_resamples=resamples,
        seed=0 if seed is None else seed,
        n_threads=check_n_threads(n_threads),
    )
    upper = np.triu_indices(n_systems, 1)
    p_values = np.ones((n_systems, n_systems))
    p_values[upper] = pair_p
    p_values.T[upper] = pair_p
    counts = np.full((n_systems, n_systems), n_permutations, dtype=np.uint64)
    counts[upper] = pair_counts
    counts.T[upper] = pair_counts
    means = matrix.mean(axis=0)
    differences = means[:, None] - means[None, :]
    if n_queries > 1:
        residuals = matrix - matrix.mean(axis=1, keepdims=True) - means + matrix.mean()
        residual_variance = float((residuals**2).sum() / ((n_queries - 1) * (n_systems - 1)))
    else:
        residual_variance = math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        effects = (
            differences / math.sqrt(residual_variance)
            if residual_variance > 0
            else np.full_like(differences, math.nan)
        )
    return RandomisedTukeyResult(
        systems=names,
        means=means,
        mean_differences=differences,
        p_values=p_values,
        counts=counts,
        effect_sizes=effects,
        residual_variance=residual_variance,
        n_queries=n_queries,
        n_permutations=int(n_permutations),
        method="exact" if exact else "sampled",
        random_state=seed,
    )


# -- Westfall-Young max-T ---------------------------------------------------------------------


@dataclass(frozen=True)
class WestfallYoungResult:
    """The result of :func:`westfall_young`.

    Parameters
    ----------
    candidates
        The candidates' names, in the order of every array.
    adjusted_p_values
        Step-down max-T adjusted p-value per candidate (family-wise error rate).
    raw_p_values
        The unadjusted sign-flip p-value per candidate, from the same sign vectors.
    statistics
        The observed ``|t|`` (or ``|mean difference|``) per candidate.
    mean_differences
        The mean difference (candidate minus baseline) per candidate.
    n_pairs
        The queries of the test.
    n_patterns
        Sign vectors examined: ``2**n_pairs`` when exact, ``n_resamples`` when sampled.
    statistic
        ``"t"`` or ``"mean"``.
    method
        ``"exact"`` or ``"sampled"``.
    random_state
        The seed of the sampled test (None when exact).
    """

    candidates: tuple[str, ...]
    adjusted_p_values: np.ndarray
    raw_p_values: np.ndarray
    statistics: np.ndarray
    mean_differences: np.ndarray
    n_pairs: int
    n_patterns: int
    statistic: Literal["t", "mean"]
    method: Literal["exact", "sampled"]
    random_state: int | None


def westfall_young(
    differences: Any,
    *,
    candidates: Any = None,
    statistic: Literal["t", "mean"] = "t",
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    n_threads: int | None = None,
) -> WestfallYoungResult:
    """Westfall-Young max-T step-down adjusted p-values of many candidates against one baseline.

    ``differences`` holds, per candidate, the per-query differences candidate minus baseline on
    the same queries: a ``candidates x queries`` array or a mapping ``candidate -> per-query
    differences``. Each sign vector ``s`` (those of :func:`~ragmeter.stats.sign_flip_test`
    for the same seed, or all ``2**n``) flips the same queries for *every* candidate, which
    keeps the dependence between the candidates' tests. With the candidates ordered by
    decreasing observed statistic ``|T_(1)| >= ... >= |T_(k)|``, the adjusted p-value of the
    ``j``-th is

        ``p~_(j) = max_{l <= j} share of s with max_{r >= l} |T*_(r)| >= |T_(l)|``

    (successive maxima, monotonicity enforced; Westfall and Young 1993, algorithm 2.8). The
    statistic is the paired t statistic ``t = sum d / sqrt((n sum d^2 - (sum d)^2) / (n - 1))``
    (``statistic="t"``, max-T, the default; an infinite ``t`` when every difference is the
    same non-zero value, i.e. ``n sum d^2 - (sum d)^2 <= 1e-10 n sum d^2``, which absorbs the
    rounding of the two sums) or the absolute mean difference (``statistic="mean"``). Exact p-values
    are ``count / 2**n``; sampled ones ``(count + 1) / (n_resamples + 1)``. Comparisons carry
    the sign-flip test's tolerance, so ties count.

    The adjusted p-values control the family-wise error rate (strongly, under subset
    pivotality) like Holm's, but use the correlation of the tests instead of a bound: before
    the monotonicity step, the ``j``-th lies between its raw p-value and the union bound
    ``sum_{r >= j}`` of the raw p-values of the candidates at or below it. Identical systems
    (all differences 0) give p = 1.

    Parameters
    ----------
    differences
        ``candidates x queries`` differences, or a mapping ``candidate -> differences``.
    candidates
        Names of the rows of an array (default ``"0"``, ``"1"``, ...).
    statistic
        ``"t"`` (default) or ``"mean"``.
    method
        ``"auto"`` (exact up to 16 queries, the default), ``"exact"`` or ``"sampled"``.
    n_resamples
        Random sign vectors of the sampled test.
    random_state
        Seed of the sampled test (None: fresh entropy, recorded in the result).
    n_threads
        Threads of the Rust core.

    Returns
    -------
    WestfallYoungResult
        Adjusted and raw p-values, statistics, the number of sign vectors and the seed.

    Raises
    ------
    InvalidInputError
        No candidate or query, an undefined or infinite difference, fewer than two queries
        with ``statistic="t"``, an unknown ``statistic`` or ``method``, more than 24 queries
        for ``method="exact"``, a bad ``n_resamples`` or ``random_state``.

    Examples
    --------
    >>> result = westfall_young({"a": [0.5, 0.25, 0.5, 0.25], "b": [0.0, 0.25, -0.25, 0.0]})
    >>> result.method, result.n_patterns
    ('exact', 16)
    >>> result.raw_p_values.tolist(), result.adjusted_p_values.tolist()
    ([0.125, 1.0], [0.125, 1.0])
    """
    matrix, names = _named_matrix(
        differences,
        candidates,
        "differences",
        "one row per candidate, one value per query",
        columns=False,
    )
    n_candidates, n_pairs = matrix.shape
    if n_candidates == 0 or n_pairs == 0:
        raise InvalidInputError(
            f"differences: needs at least one candidate and one query, got {n_candidates} x "
            f"{n_pairs}"
        )
    _refuse_undefined(matrix, "differences", names, by_row=False)
    if statistic not in ("t", "mean"):
        raise InvalidInputError(f"statistic: must be 't' or 'mean', got {statistic!r}")
    if statistic == "t" and n_pairs < 2:
        raise InvalidInputError(
            "differences: the t statistic needs at least two queries, got 1; use statistic='mean'"
        )
    if method not in ("auto", "exact", "sampled"):
        raise InvalidInputError(f"method: must be 'auto', 'exact' or 'sampled', got {method!r}")
    exact = method == "exact" or (method == "auto" and n_pairs <= EXACT_MAX_PAIRS)
    if exact and n_pairs > EXACT_PAIR_LIMIT:
        raise InvalidInputError(
            f"method='exact' enumerates 2**n sign vectors and is limited to {EXACT_PAIR_LIMIT} "
            f"queries, got {n_pairs}; use method='sampled' or 'auto'"
        )
    resamples = resample_count("n_resamples", n_resamples)
    seed = None if exact else check_seed(random_state)
    adjusted, raw, statistics, n_patterns = _core.westfall_young(
        matrix,
        statistic=statistic,
        exact=exact,
        n_resamples=resamples,
        seed=0 if seed is None else seed,
        n_threads=check_n_threads(n_threads),
    )
    return WestfallYoungResult(
        candidates=names,
        adjusted_p_values=adjusted,
        raw_p_values=raw,
        statistics=statistics,
        mean_differences=matrix.mean(axis=1),
        n_pairs=n_pairs,
        n_patterns=int(n_patterns),
        statistic=statistic,
        method="exact" if exact else "sampled",
        random_state=seed,
    )


# -- the campaign tests of the table (ragmeter.stats.builtin registers them) ------------------


def _complete_queries(values: np.ndarray, systems: np.ndarray) -> list[np.ndarray]:
    """Per metric, the queries where every one of ``systems`` has a value."""
    return [~np.isnan(values[systems, m, :]).any(axis=0) for m in range(values.shape[1])]


def _campaign_exact(
    sample: CampaignInput, counts: list[int], small_enough: Any, limit_ok: Any, unit: str
) -> bool:
    """Whether a campaign test enumerates: one decision for every metric, so that the caption's
    count is every metric's (exact needs the same number of complete queries everywhere)."""
    same = len(set(counts)) <= 1
    if sample.method == "exact":
        if not same or not limit_ok(counts[0]):
            raise InvalidInputError(
                f"method='exact': the exact test enumerates every {unit} and needs the same "
                f"queries (with a value for every system) for every metric, at most the size "
                f"limit; the metrics have {sorted(set(counts))} such queries: use "
                "method='sampled' or 'auto'"
            )
        return True
    return sample.method == "auto" and same and small_enough(counts[0])


def randomised_tukey_campaign(sample: CampaignInput) -> CampaignOutcome:
    """The ``"randomised-tukey"`` test of :data:`~ragmeter.stats.TESTS` over a campaign.

    For each metric, :func:`randomised_tukey_hsd` of all systems on the queries where every
    system has a value; each pair's p-value is adjusted over all pairs of systems of the metric
    (the family of the randomised Tukey test), its statistic the mean difference over those
    queries and its effect size Sakai's ``ES_E`` (as the paired Tukey test's: one kind of
    effect size for the tests of the two-way ANOVA's residual).

    Parameters
    ----------
    sample
        The campaign.

    Returns
    -------
    CampaignOutcome
        p-values, mean differences, ``ES_E`` and the permutation count.
    """
    shape = sample.delta.shape
    n_systems = sample.values.shape[0]
    systems = np.arange(n_systems)
    complete = _complete_queries(sample.values, systems)
    counts = [int(c.sum()) for c in complete]
    exact = _campaign_exact(
        sample,
        counts,
        lambda n: n > 0 and _reduced_permutations(n_systems, n, EXACT_MAX_PERMUTATIONS) is not None,
        lambda n: (
            n > 0 and _reduced_permutations(n_systems, n, EXACT_PERMUTATION_LIMIT) is not None
        ),
        "permutation",
    )
    pairs = np.asarray(sample.pairs, dtype=np.intp).reshape(-1, 2)
    p = np.full(shape, math.nan)
    statistic = np.full(shape, math.nan)
    effect = np.full(shape, math.nan)
    methods = np.full(shape, "", dtype=object)
    examined = 0
    for m, rows in enumerate(complete):
        if not rows.any():
            continue
        result = randomised_tukey_hsd(
            np.ascontiguousarray(sample.values[:, m, rows].T),
            method="exact" if exact else "sampled",
            n_resamples=sample.n_resamples,
            random_state=sample.seed,
            n_threads=sample.n_threads,
        )
        p[:, m] = result.p_values[pairs[:, 0], pairs[:, 1]]
        statistic[:, m] = result.mean_differences[pairs[:, 0], pairs[:, 1]]
        effect[:, m] = result.effect_sizes[pairs[:, 0], pairs[:, 1]]
        methods[:, m] = result.method
        examined = result.n_permutations
    return CampaignOutcome(
        p_value=p,
        statistic=statistic,
        methods=methods,
        method="exact" if exact else "sampled",
        n_examined=examined,
        effect_size=effect,
    )


def westfall_young_campaign(sample: CampaignInput) -> CampaignOutcome:
    """The ``"westfall-young"`` test of :data:`~ragmeter.stats.TESTS` over a campaign.

    For each metric, :func:`westfall_young` (max-T, the t statistic) of every candidate against
    the baseline on the queries where the baseline and every candidate have a value; the
    p-values are adjusted over the candidates of the metric.

    Parameters
    ----------
    sample
        The campaign (with a baseline).

    Returns
    -------
    CampaignOutcome
        Adjusted p-values, t statistics and the number of sign vectors.
    """
    if sample.baseline is None:
        raise InvalidInputError(
            "baseline: the westfall-young test compares candidates with one baseline; name it"
        )
    shape = sample.delta.shape
    pairs = np.asarray(sample.pairs, dtype=np.intp).reshape(-1, 2)
    candidates = pairs[:, 0]
    systems = np.concatenate([candidates, [sample.baseline]])
    complete = _complete_queries(sample.values, systems)
    counts = [int(c.sum()) for c in complete]
    exact = _campaign_exact(
        sample,
        counts,
        lambda n: 2 <= n <= EXACT_MAX_PAIRS,
        lambda n: 2 <= n <= EXACT_PAIR_LIMIT,
        "sign vector",
    )
    p = np.full(shape, math.nan)
    statistic = np.full(shape, math.nan)
    methods = np.full(shape, "", dtype=object)
    examined = 0
    for m, rows in enumerate(complete):
        if rows.sum() < 2:
            continue
        values = sample.values[:, m, rows]
        result = westfall_young(
            np.ascontiguousarray(values[candidates] - values[sample.baseline]),
            method="exact" if exact else "sampled",
            n_resamples=sample.n_resamples,
            random_state=sample.seed,
            n_threads=sample.n_threads,
        )
        p[:, m] = result.adjusted_p_values
        statistic[:, m] = result.statistics * np.sign(result.mean_differences)
        methods[:, m] = result.method
        examined = result.n_patterns
    return CampaignOutcome(
        p_value=p,
        statistic=statistic,
        methods=methods,
        method="exact" if exact else "sampled",
        n_examined=examined,
    )
