"""Rank intervals of systems' means from any campaign: how sure is "system A ranks second"?

The items are resampled with replacement, jointly for every system (the systems stay paired on
the items, as in Hall & Miller 2009, "Using the bootstrap to quantify the authority of an
empirical ranking", Ann. Statist. 37(6)), the systems ranked by their means on each resample
(1 = the highest mean), and each system's rank interval is the percentile interval of its
ranks. With clusters, whole clusters are resampled (the items of a cluster are not
independent). The same resamples give each mean's percentile interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ..per_query import PerQueryResults, per_query_results
from ._arguments import check_level, check_seed, resample_count

__all__ = ["RankInterval", "metric_rankings", "rank_intervals"]


@dataclass(frozen=True)
class RankInterval:
    """One system's mean, rank and rank interval.

    Attributes
    ----------
    mean
        The mean over the items.
    rank
        Its rank (1 = the highest mean; 1 + the systems with a strictly higher mean).
    low, high
        The percentile interval of its rank over the resamples.
    mean_low, mean_high
        The percentile interval of its mean over the same resamples.
    """

    mean: float
    rank: int
    low: int
    high: int
    mean_low: float = math.nan
    mean_high: float = math.nan


def _matrix(
    systems: Mapping[str, Any], metric: str | None
) -> tuple[list[str], list[Any], np.ndarray]:
    names = list(systems)
    if len(names) < 2:
        raise InvalidInputError("systems: at least two systems to rank")
    columns = []
    items: list[Any] | None = None
    for name in names:
        given = systems[name]
        if (
            isinstance(given, Mapping)
            or hasattr(given, "metric_names")
            or hasattr(given, "per_query_results")
        ):
            values = per_query_results(given)
            chosen = metric if metric is not None else values.metric_names[0]
            column = values[chosen]
            if items is None:
                items = list(column)
            elif set(column) != set(items):
                raise InvalidInputError(f"systems: {name!r} has other items than {names[0]!r}")
            columns.append([column[q] for q in items])
        else:
            columns.append(list(np.asarray(given, dtype=float)))
    lengths = {len(c) for c in columns}
    if len(lengths) != 1:
        raise InvalidInputError("systems: every system needs a value for the same items")
    matrix = np.asarray(columns, dtype=float).T
    if not np.isfinite(matrix).all():
        raise InvalidInputError("systems: an undefined value; drop the item or give it a value")
    return names, items or list(range(matrix.shape[0])), matrix


def rank_intervals(
    systems: Mapping[str, Any],
    *,
    metric: str | None = None,
    clusters: Mapping[Any, Any] | None = None,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> dict[str, RankInterval]:
    """Each system's rank and bootstrap rank interval (see the module documentation).

    Parameters
    ----------
    systems
        ``{name: values}``: :class:`~ragmeter.PerQueryResults` (anything
        :func:`~ragmeter.per_query_results` reads) over the same items, or sequences aligned
        by item.
    metric
        The metric (default: the first of the first system).
    clusters
        ``{item: cluster}``: resample whole clusters.
    n_resamples, confidence, random_state
        Resamples, the intervals' level and the seed.

    Returns
    -------
    dict
        ``{name: RankInterval}``, best mean first.

    Examples
    --------
    >>> result = rank_intervals({"a": [1.0, 0.9, 0.8, 1.0], "b": [0.0, 0.1, 0.2, 0.0]})
    >>> (result["a"].rank, result["a"].low, result["a"].high)
    (1, 1, 1)
    """
    level = check_level("confidence", confidence)
    count = resample_count("n_resamples", n_resamples)
    seed = check_seed(random_state)
    names, items, matrix = _matrix(systems, metric)
    n = matrix.shape[0]
    rng = np.random.default_rng(seed)
    if clusters is not None:
        labels: dict[Any, int] = {}
        codes = np.array([labels.setdefault(clusters[q], len(labels)) for q in items])
        g = len(labels)
        sums = np.zeros((g, matrix.shape[1]))
        np.add.at(sums, codes, matrix)
        sizes = np.bincount(codes, minlength=g).astype(float)
    ranks = np.empty((count, len(names)), dtype=np.int64)
    resampled = np.empty((count, len(names)))
    # Resamples per block: the comparison of every pair of means is block x k x k booleans,
    # kept under 4 MiB (300 systems: 46 resamples a block).
    block = max(1, min(1024, 2**22 // len(names) ** 2))
    for start in range(0, count, block):
        stop = min(count, start + block)
        if clusters is None:
            weights = rng.multinomial(n, np.full(n, 1.0 / n), size=stop - start).astype(float)
            means = weights @ matrix / n
        else:
            weights = rng.multinomial(g, np.full(g, 1.0 / g), size=stop - start).astype(float)
            means = (weights @ sums) / (weights @ sizes)[:, None]
        ranks[start:stop] = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)
        resampled[start:stop] = means
    observed = matrix.mean(axis=0)
    observed_ranks = 1 + (observed[None, :] > observed[:, None]).sum(axis=1)
    bounds = [(1 - level) / 2, (1 + level) / 2]
    low, high = np.quantile(ranks, bounds, axis=0, method="nearest")
    mean_low, mean_high = np.quantile(resampled, bounds, axis=0)
    order = np.argsort(-observed, kind="stable")
    return {
        names[k]: RankInterval(
            float(observed[k]),
            int(observed_ranks[k]),
            int(low[k]),
            int(high[k]),
            float(mean_low[k]),
            float(mean_high[k]),
        )
        for k in order
    }


def metric_rankings(
    systems: dict[str, PerQueryResults],
    metrics: list[str],
    *,
    clusters: dict[Any, Any] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    random_state: int | None = 0,
) -> list[dict[str, Any]]:
    """Each metric's ranking: the systems' means, mean intervals, ranks and rank intervals
    over the items where every system has a value (:func:`ragmeter.stats.rank_intervals`).

    Parameters
    ----------
    systems
        ``{name: values}``.
    metrics
        The metrics (each one every system has).
    clusters
        ``{item: cluster}`` to resample whole clusters (default: the clusters the values
        record, when every item has one).
    confidence, n_resamples, random_state
        The intervals' level, the resamples and the seed.

    Returns
    -------
    list of dict
        Per metric: ``metric``, ``n_items``, ``n_left_out``, ``n_clusters`` and ``systems``
        (best first: ``system``, ``mean``, ``mean_low``, ``mean_high``, ``rank``, ``rank_low``,
        ``rank_high``).

    Raises
    ------
    InvalidInputError
        A metric a system lacks, fewer than two items every system has a value for.
    """
    if clusters is not None:
        systems = {n: v.with_clusters(clusters) for n, v in systems.items()}
    recorded: dict[Any, Any] = {}
    for values in systems.values():
        recorded.update(values.clusters or {})
    out = []
    for metric in metrics:
        lacking = [n for n, v in systems.items() if metric not in v]
        if lacking:
            raise InvalidInputError(f"-m: {lacking[0]!r} has no metric {metric!r}")
        columns = {n: v[metric] for n, v in systems.items()}
        first = next(iter(columns.values()))
        items = [q for q in first if all(q in c and not math.isnan(c[q]) for c in columns.values())]
        every = set().union(*(set(c) for c in columns.values()))
        if len(items) < 2:
            raise InvalidInputError(
                f"{metric}: {len(items)} items have a value for every system; ranking needs 2"
            )
        groups = recorded if recorded and all(q in recorded for q in items) else None
        found = rank_intervals(
            {n: [c[q] for q in items] for n, c in columns.items()},
            clusters=None if groups is None else dict(enumerate(groups[q] for q in items)),
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )
        out.append(
            {
                "metric": metric,
                "n_items": len(items),
                "n_left_out": len(every) - len(items),
                "n_clusters": None if groups is None else len({groups[q] for q in items}),
                "systems": [
                    {
                        "system": name,
                        "mean": r.mean,
                        "mean_low": r.mean_low,
                        "mean_high": r.mean_high,
                        "rank": r.rank,
                        "rank_low": r.low,
                        "rank_high": r.high,
                    }
                    for name, r in found.items()
                ],
            }
        )
    return out
