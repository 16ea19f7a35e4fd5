"""Rank intervals of systems' means from any campaign: how sure is "system A ranks second"?

The items are resampled with replacement, jointly for every system (the systems stay paired on
the items, as in Hall & Miller 2009, "Using the bootstrap to quantify the authority of an
empirical ranking", Ann. Statist. 37(6)), the systems ranked by their means on each resample
(1 = the highest mean), and each system's rank interval is the percentile interval of its
ranks. With clusters, whole clusters are resampled (the items of a cluster are not
independent).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ..per_query import per_query_results
from ._arguments import check_level, check_seed, resample_count

__all__ = ["RankInterval", "rank_intervals"]


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
    """

    mean: float
    rank: int
    low: int
    high: int


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
    for start in range(0, count, 1024):
        stop = min(count, start + 1024)
        if clusters is None:
            weights = rng.multinomial(n, np.full(n, 1.0 / n), size=stop - start).astype(float)
            means = weights @ matrix / n
        else:
            weights = rng.multinomial(g, np.full(g, 1.0 / g), size=stop - start).astype(float)
            means = (weights @ sums) / (weights @ sizes)[:, None]
        ranks[start:stop] = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)
    observed = matrix.mean(axis=0)
    observed_ranks = 1 + (observed[None, :] > observed[:, None]).sum(axis=1)
    low, high = np.quantile(ranks, [(1 - level) / 2, (1 + level) / 2], axis=0, method="nearest")
    order = np.argsort(-observed, kind="stable")
    return {
        names[k]: RankInterval(
            float(observed[k]), int(observed_ranks[k]), int(low[k]), int(high[k])
        )
        for k in order
    }
