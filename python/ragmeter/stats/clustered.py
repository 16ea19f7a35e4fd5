"""Statistics of items that come in clusters: several questions about one passage, one
document or one conversation are not independent, and an interval that treats them as
independent is too narrow (the design effect says by how much).

* :func:`cluster_mean`: the mean of item values with its cluster-robust standard error (the
  Liang & Zeger 1986 sandwich estimator with the usual small-sample factor ``G / (G - 1)``,
  CR1, as ``statsmodels`` OLS ``cov_type="cluster"`` computes it for a constant), a t interval
  on ``G - 1`` degrees of freedom (Cameron & Miller 2015, "A practitioner's guide to
  cluster-robust inference", J. Human Resources 50(2)), the naive standard error beside it,
  and Kish's design effect, the ratio of the two variances (Kish 1965, *Survey Sampling*).
* :func:`cluster_paired`: the same for the per-item differences of two systems, with the
  p-value of ``alternative`` (paired over items, robust over clusters).
* :func:`cluster_bootstrap`: the percentile interval of the mean, clusters resampled with
  replacement (Field & Welsh 2007, "Bootstrapping clustered data", JRSS-B 69(3)).
* :func:`cluster_sign_flip`: the randomisation test of paired differences that flips the sign
  of each cluster's sum together (exact up to 16 clusters, else sampled): valid when each
  cluster's differences are symmetric about 0 under the null hypothesis, whatever the
  dependence inside a cluster.
* :func:`repeats_mean`: the mean over every repeat of every item (epochs of an Inspect log,
  repeated judge calls), each item a cluster of its repeats (or the items' own clusters).
* :func:`design_effect`: the variance of the mean under clustering over its variance under
  independence (``1 + (m - 1) ICC`` for equal clusters of ``m``).

Clusters are given as a mapping ``{item: cluster}`` or a sequence aligned with the values;
:func:`compare_clustered` reads them from :class:`~ragmeter.PerQueryResults` (their
``clusters``: a table's ``cluster`` column, a harness's ``cluster=`` field).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._distributions import student_t_quantile, student_t_two_sided
from ..exceptions import InvalidInputError
from ..per_query import per_query_results
from ._arguments import check_level, check_seed, resample_count

__all__ = [
    "ClusterTest",
    "ClusteredMean",
    "cluster_bootstrap",
    "cluster_mean",
    "cluster_paired",
    "cluster_sign_flip",
    "clusters_note",
    "compare_clustered",
    "design_effect",
    "design_effects",
    "repeats_mean",
]

_ALTERNATIVES = ("two-sided", "greater", "less")
#: Up to this many clusters the sign-flip test enumerates every sign vector.
EXACT_CLUSTERS = 16


@dataclass(frozen=True)
class ClusteredMean:
    """A mean with its cluster-robust standard error and interval.

    Attributes
    ----------
    mean
        The mean over the items.
    se
        The cluster-robust (CR1) standard error.
    ci
        The t interval at ``confidence`` on ``n_clusters - 1`` degrees of freedom.
    naive_se
        The standard error that treats the items as independent (``s / sqrt(n)``).
    design_effect
        ``(se / naive_se) ** 2`` (Kish's design effect; NaN when ``naive_se`` is 0).
    n_items, n_clusters
        What the mean is over.
    confidence
        The interval's level.
    p_value
        For a paired difference, the p-value of ``alternative`` (H0: mean 0); else None.
    alternative
        The alternative of ``p_value``.
    """

    mean: float
    se: float
    ci: tuple[float, float]
    naive_se: float
    design_effect: float
    n_items: int
    n_clusters: int
    confidence: float
    p_value: float | None = None
    alternative: str | None = None

    @property
    def naive_ci(self) -> tuple[float, float]:
        """The t interval that treats the items as independent (``n - 1`` degrees of
        freedom), for comparison."""
        q = student_t_quantile(0.5 + self.confidence / 2, self.n_items - 1)
        return (self.mean - q * self.naive_se, self.mean + q * self.naive_se)


@dataclass(frozen=True)
class ClusterTest:
    """A clustered randomisation or bootstrap result.

    Attributes
    ----------
    statistic
        The mean (bootstrap) or the mean difference (sign flip).
    p_value
        The sign-flip test's p-value (None for the bootstrap).
    ci
        The bootstrap's percentile interval (None for the sign flip).
    n_items, n_clusters
        What it is over.
    n_resamples
        Resamples drawn (0: the sign-flip test enumerated every sign vector).
    random_state
        The seed used.
    method
        What was computed, in words.
    """

    statistic: float
    p_value: float | None
    ci: tuple[float, float] | None
    n_items: int
    n_clusters: int
    n_resamples: int
    random_state: int | None
    method: str


def _values(values: Any, argument: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size < 2:
        raise InvalidInputError(f"{argument}: at least two values in one dimension")
    if not np.isfinite(array).all():
        raise InvalidInputError(f"{argument}: holds NaN or infinite values; drop them first")
    return array


def _cluster_codes(clusters: Any, n: int, items: Sequence[Any] | None) -> np.ndarray:
    """Each value's cluster as a code 0..G-1 (in order of first appearance)."""
    if isinstance(clusters, Mapping):
        if items is None:
            raise InvalidInputError(
                "clusters: a mapping {item: cluster} needs the values as a mapping {item: value}"
            )
        missing = [q for q in items if q not in clusters]
        if missing:
            raise InvalidInputError(f"clusters: no cluster for {', '.join(map(repr, missing[:5]))}")
        labels = [clusters[q] for q in items]
    else:
        labels = list(clusters)
    if len(labels) != n:
        raise InvalidInputError(f"clusters: {len(labels)} clusters for {n} values")
    codes: dict[Any, int] = {}
    return np.array([codes.setdefault(label, len(codes)) for label in labels], dtype=np.intp)


def _prepared(values: Any, clusters: Any, argument: str) -> tuple[np.ndarray, np.ndarray]:
    items = list(values) if isinstance(values, Mapping) else None
    array = _values(list(values.values()) if isinstance(values, Mapping) else values, argument)
    codes = _cluster_codes(clusters, array.size, items)
    if codes.max() + 1 < 2:
        raise InvalidInputError("clusters: at least two clusters are needed")
    return array, codes


def _alternative(alternative: str) -> str:
    if alternative not in _ALTERNATIVES:
        raise InvalidInputError(
            f"alternative: one of {', '.join(map(repr, _ALTERNATIVES))}, got {alternative!r}"
        )
    return alternative


def _robust(array: np.ndarray, codes: np.ndarray) -> tuple[float, float, float, int]:
    n = array.size
    g = int(codes.max()) + 1
    mean = float(array.mean())
    sums = np.bincount(codes, weights=array - mean, minlength=g)
    variance = g / (g - 1) * float(np.sum(sums**2)) / n**2
    naive = float(array.var(ddof=1)) / n
    return mean, math.sqrt(variance), math.sqrt(naive), g


def cluster_mean(values: Any, clusters: Any, *, confidence: float = 0.95) -> ClusteredMean:
    """The mean of ``values`` with its cluster-robust standard error and t interval (see the
    module documentation).

    Parameters
    ----------
    values
        The item values: a sequence, or a mapping ``{item: value}``.
    clusters
        Each item's cluster: a sequence aligned with ``values`` or a mapping ``{item:
        cluster}``.
    confidence
        The interval's level.

    Returns
    -------
    ClusteredMean
        The mean, both standard errors, the interval and the design effect.

    Examples
    --------
    >>> result = cluster_mean([1, 1, 0, 0, 1, 0], ["a", "a", "b", "b", "c", "c"])
    >>> round(result.se ** 2, 6), round(result.design_effect, 4)  # 3/2 * 2/36 and (1/12)/(0.3/6)
    (0.083333, 1.6667)
    """
    level = check_level("confidence", confidence)
    array, codes = _prepared(values, clusters, "values")
    mean, se, naive, g = _robust(array, codes)
    q = student_t_quantile(0.5 + level / 2, g - 1)
    effect = (se / naive) ** 2 if naive > 0 else math.nan
    return ClusteredMean(
        mean, se, (mean - q * se, mean + q * se), naive, effect, array.size, g, level
    )


def cluster_paired(
    candidate: Any,
    baseline: Any,
    clusters: Any,
    *,
    confidence: float = 0.95,
    alternative: str = "two-sided",
) -> ClusteredMean:
    """The mean per-item difference ``candidate - baseline`` with its cluster-robust standard
    error, t interval (``G - 1`` degrees of freedom) and p-value of ``alternative`` (H0: no
    difference).

    Parameters
    ----------
    candidate, baseline
        The paired item values (sequences of one length, or mappings over the same items).
    clusters
        Each item's cluster (a sequence, or a mapping over the items).
    confidence, alternative
        The interval's level; ``"two-sided"``, ``"greater"`` (the candidate better) or
        ``"less"``.

    Returns
    -------
    ClusteredMean
        Of the differences, with ``p_value``.
    """
    _alternative(alternative)
    if isinstance(candidate, Mapping) and isinstance(baseline, Mapping):
        if set(candidate) != set(baseline):
            raise InvalidInputError("candidate, baseline: the same items on both sides")
        differences: Any = {q: float(candidate[q]) - float(baseline[q]) for q in candidate}
    else:
        a = _values(candidate, "candidate")
        b = _values(baseline, "baseline")
        if a.shape != b.shape:
            raise InvalidInputError("candidate, baseline: paired values of one length")
        differences = a - b
    result = cluster_mean(differences, clusters, confidence=confidence)
    if result.se == 0:
        p = 1.0 if result.mean == 0 else 0.0
    else:
        t = result.mean / result.se
        two = float(student_t_two_sided(t, result.n_clusters - 1))
        if alternative == "two-sided":
            p = two
        elif (alternative == "greater") == (t > 0):
            p = two / 2
        else:
            p = 1 - two / 2
    return ClusteredMean(
        result.mean,
        result.se,
        result.ci,
        result.naive_se,
        result.design_effect,
        result.n_items,
        result.n_clusters,
        result.confidence,
        p,
        alternative,
    )


def design_effect(values: Any, clusters: Any) -> float:
    """Kish's design effect of the mean of ``values``: its cluster-robust variance over its
    variance under independence.

    >>> round(design_effect([1, 1, 0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 2, 2, 3, 3]), 4)  # 28/12
    2.3333
    """
    return cluster_mean(values, clusters).design_effect


def design_effects(differences: Mapping[str, Any], clusters: Sequence[Any]) -> dict[str, float]:
    """Kish's design effect of each metric's mean over its defined items (NaN left out):
    ``{metric: deff}``, NaN where fewer than 2 items or 2 clusters remain or the values do
    not vary.

    Parameters
    ----------
    differences
        ``{metric: values}`` (a pair's per-item differences), each aligned with ``clusters``.
    clusters
        Each item's cluster.

    Returns
    -------
    dict
        The design effect of each metric.
    """
    labels = np.asarray(clusters, dtype=object)
    found = {}
    for metric, values in differences.items():
        array = np.asarray(values, dtype=float)
        keep = ~np.isnan(array)
        if keep.sum() < 2 or len(set(labels[keep].tolist())) < 2:
            found[metric] = math.nan
            continue
        found[metric] = cluster_mean(array[keep], labels[keep].tolist()).design_effect
    return found


def clusters_note(
    n_items: int,
    n_clusters: int,
    test: str,
    uses: bool,
    effects: Mapping[str, Sequence[float]],
    of: str = "the mean difference",
) -> str:
    """The sentence a comparison or a gate prints about the clusters of its items: whether its
    test uses them and the design effect of each metric (over the pairs or checks).

    Parameters
    ----------
    n_items, n_clusters
        The compared items and their clusters.
    test
        The test's name.
    uses
        Whether the test accounts for the clusters.
    effects
        ``{metric: design effects}`` (one per pair of systems, or per check).
    of
        What the design effects are of.

    Returns
    -------
    str
        The note.
    """
    shown = []
    for metric, values in effects.items():
        finite = sorted(v for v in values if not math.isnan(v))
        if not finite:
            shown.append(f"{metric} n/a")
        elif len(values) == 1 or finite[0] == finite[-1]:
            shown.append(f"{metric} {finite[0]:.2f}")
        else:
            shown.append(f"{metric} {finite[0]:.2f} to {finite[-1]:.2f} over {len(values)} pairs")
    effect = (
        f"; design effect of {of} (Kish: the cluster-robust variance over the "
        "independent one): " + ", ".join(shown)
        if shown
        else ""
    )
    if uses:
        return (
            f"The {n_items} queries are in {n_clusters} clusters; the {test} test accounts "
            f"for them: its p-values and intervals are cluster-robust{effect}."
        )
    return (
        f"The values put the {n_items} queries in {n_clusters} clusters, which the {test} test "
        "ignores: it treats every query as independent, so its intervals and p-values are too "
        "narrow when the queries of a cluster are alike (a design effect above 1). "
        f"test='cluster-t' (--test cluster-t) accounts for them{effect}."
    )


def cluster_bootstrap(
    values: Any,
    clusters: Any,
    *,
    n_resamples: int = 9999,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> ClusterTest:
    """The percentile interval of the mean, whole clusters resampled with replacement (the
    resampled mean is over the items of the drawn clusters).

    Parameters
    ----------
    values, clusters
        As for :func:`cluster_mean`.
    n_resamples, confidence, random_state
        Resamples, the interval's level and the seed.

    Returns
    -------
    ClusterTest
        The mean and its interval.
    """
    level = check_level("confidence", confidence)
    count = resample_count("n_resamples", n_resamples)
    seed = check_seed(random_state)
    array, codes = _prepared(values, clusters, "values")
    g = int(codes.max()) + 1
    sums = np.bincount(codes, weights=array, minlength=g)
    sizes = np.bincount(codes, minlength=g).astype(float)
    rng = np.random.default_rng(seed)
    means = np.empty(count)
    for start in range(0, count, 4096):
        stop = min(count, start + 4096)
        draws = rng.multinomial(g, np.full(g, 1.0 / g), size=stop - start).astype(float)
        means[start:stop] = (draws @ sums) / (draws @ sizes)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return ClusterTest(
        float(array.mean()),
        None,
        (float(low), float(high)),
        array.size,
        g,
        count,
        seed,
        f"cluster bootstrap: {g} clusters resampled with replacement, {count} resamples, "
        f"percentile interval",
    )


def cluster_sign_flip(
    candidate: Any,
    baseline: Any,
    clusters: Any,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 9999,
    random_state: int | None = 0,
) -> ClusterTest:
    """The cluster-level sign-flip test of paired differences: the sum of the differences
    against its distribution when each cluster's sum keeps or flips its sign (exact over
    every sign vector up to :data:`EXACT_CLUSTERS` clusters, else ``n_resamples`` sampled, the
    observed vector counted: ``(1 + hits) / (1 + n_resamples)``).

    Parameters
    ----------
    candidate, baseline
        The paired item values (sequences of one length).
    clusters
        Each item's cluster.
    alternative, n_resamples, random_state
        ``"two-sided"``, ``"greater"`` or ``"less"``; resamples and seed of the sampled test.

    Returns
    -------
    ClusterTest
        The mean difference and the p-value.
    """
    _alternative(alternative)
    a = _values(candidate, "candidate")
    b = _values(baseline, "baseline")
    if a.shape != b.shape:
        raise InvalidInputError("candidate, baseline: paired values of one length")
    d = a - b
    codes = _cluster_codes(clusters, d.size, None)
    g = int(codes.max()) + 1
    sums = np.bincount(codes, weights=d, minlength=g)
    observed = float(sums.sum())
    tolerance = 1e-12 * max(1.0, float(np.abs(sums).sum()))

    def hits(totals: np.ndarray) -> int:
        if alternative == "greater":
            return int(np.sum(totals >= observed - tolerance))
        if alternative == "less":
            return int(np.sum(totals <= observed + tolerance))
        return int(np.sum(np.abs(totals) >= abs(observed) - tolerance))

    seed: int | None = None
    if g <= EXACT_CLUSTERS:
        signs = 1.0 - 2.0 * ((np.arange(2**g)[:, None] >> np.arange(g)) & 1)
        p = hits(signs @ sums) / 2**g
        count = 0
        how = f"exact over all {2**g} sign vectors"
    else:
        count = resample_count("n_resamples", n_resamples)
        seed = check_seed(random_state)
        rng = np.random.default_rng(seed)
        found = 0
        for start in range(0, count, 4096):
            size = min(4096, count - start)
            signs = rng.choice(np.array([-1.0, 1.0]), size=(size, g))
            found += hits(signs @ sums)
        p = (1 + found) / (1 + count)
        how = f"{count} sampled sign vectors"
    return ClusterTest(
        float(d.mean()),
        min(1.0, p),
        None,
        d.size,
        g,
        count,
        seed,
        f"cluster-level sign-flip test ({alternative}): the signs of {g} clusters' sums of "
        f"differences flipped together, {how}",
    )


def compare_clustered(
    candidate: Any,
    baseline: Any,
    metric: str,
    *,
    clusters: Mapping[Any, Any] | None = None,
    confidence: float = 0.95,
    alternative: str = "two-sided",
) -> ClusteredMean:
    """:func:`cluster_paired` of one metric of two systems' values
    (:class:`~ragmeter.PerQueryResults`, or anything :func:`~ragmeter.per_query_results`
    reads), over the items both have, with the clusters given or recorded with the values.

    Raises
    ------
    InvalidInputError
        No clusters given nor recorded, clusters that disagree between the two systems, an
        undefined value on an item both have.
    """
    a = per_query_results(candidate)
    b = per_query_results(baseline)
    if clusters is None:
        ca, cb = a.clusters, b.clusters
        if ca is None and cb is None:
            raise InvalidInputError(
                "clusters: none given and none recorded with the values (a cluster column, "
                "or cluster= when reading a harness's file)"
            )
        if ca is not None and cb is not None:
            shared = set(ca) & set(cb)
            differ = [q for q in shared if ca[q] != cb[q]]
            if differ:
                raise InvalidInputError(
                    f"clusters: the two systems put {differ[0]!r} in different clusters "
                    f"({ca[differ[0]]!r} and {cb[differ[0]]!r})"
                )
        clusters = {**(cb or {}), **(ca or {})}
    va, vb = a[metric], b[metric]
    items = [q for q in va if q in vb]
    return cluster_paired(
        {q: va[q] for q in items},
        {q: vb[q] for q in items},
        clusters,
        confidence=confidence,
        alternative=alternative,
    )


def repeats_mean(values: Any, metric: str, *, confidence: float = 0.95) -> ClusteredMean:
    """The mean of ``metric`` over every usable repeat of every item, with the cluster-robust
    error that treats the repeats of an item (and the items of a cluster, when the values
    record clusters) as one cluster: the epochs of an Inspect log are not independent
    observations of the model's accuracy.

    Parameters
    ----------
    values
        :class:`~ragmeter.PerQueryResults` (anything :func:`~ragmeter.per_query_results`
        reads) with repeats.
    metric
        The metric.
    confidence
        The interval's level.

    Returns
    -------
    ClusteredMean
        Over the repeats (``n_items`` counts observations), clustered by item or cluster.
    """
    per = per_query_results(values)
    repeats = per.repeats.get(metric)
    column = per[metric]
    recorded = per.clusters or {}
    observations: list[float] = []
    labels: list[Any] = []
    for item in column:
        given = repeats.get(item) if repeats else None
        draws = given if given is not None else (column[item],)
        for value in draws:
            if not math.isnan(value):
                observations.append(float(value))
                labels.append(recorded.get(item, ("item", item)))
    return cluster_mean(observations, labels, confidence=confidence)
