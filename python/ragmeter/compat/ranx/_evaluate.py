"""ranx's ``evaluate`` (re-exported by :mod:`ragmeter.compat.ranx`, whose documentation
gives its rules), and the per-query values it and ``compare`` share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ...exceptions import InvalidInputError
from ...ranking.functions import ranking_metrics
from ._arrays import as_mapping
from ._data import Qrels, Run

__all__ = ["evaluate", "metric_names", "per_query_values", "save_in_run"]


def evaluate(
    qrels: Qrels | Mapping[Any, Mapping[Any, Any]],
    run: Run | Mapping[Any, Mapping[Any, Any]],
    metrics: str | Iterable[str],
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
) -> Any:
    """ranx's ``evaluate``: the metrics of ``run`` against ``qrels`` (see the module).

    Parameters
    ----------
    qrels, run
        :class:`Qrels` and :class:`Run`, or plain dicts.
    metrics
        One ranx metric name, or several.
    return_mean
        Means (default); False: each metric's per-query values (a NumPy array, queries sorted).
    return_std
        With ``return_mean``: ``{"mean": ..., "std": ...}`` per metric (population std).
    threads
        Threads of the core (0: all).
    save_results_in_run
        Keep ``scores``, ``mean_scores`` (and ``std_scores``) in ``run`` when it is a :class:`Run`.
    make_comparable
        Evaluate the judged queries only, a missing ranking being empty.

    Returns
    -------
    float, numpy.ndarray or dict
        One metric: its value; several: ``{metric: value}``.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: judged and ranked queries differ (without ``make_comparable``), an
        unknown metric name.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8}, "q2": {"d4": 0.9, "d3": 0.5}}
    >>> float(evaluate(qrels, run, "mrr"))
    0.75
    >>> {m: float(v) for m, v in evaluate(qrels, run, ["hits@1", "precision"]).items()}
    {'hits@1': 0.5, 'precision': 0.5}
    """
    names = metric_names(metrics)
    order, per_query = per_query_values(qrels, run, names, threads, make_comparable)
    if isinstance(run, Run) and save_results_in_run:
        save_in_run(run, order, per_query, return_std)
    result: dict[str, Any] = dict(per_query)
    if return_mean:
        for m, scores in per_query.items():
            mean = np.mean(scores)
            result[m] = {"mean": mean, "std": np.std(scores)} if return_std else mean
    return result[names[0]] if len(names) == 1 else result


def metric_names(metrics: Any) -> list[str]:
    """ranx's ``metrics``, one name or several, as a list (ranx's ``format_metrics``)."""
    if isinstance(metrics, str):
        return [metrics]
    iterable = isinstance(metrics, Iterable) and not isinstance(metrics, bytes | Mapping)
    names = list(metrics) if iterable else []
    if not names or not all(isinstance(m, str) for m in names):
        raise InvalidInputError(
            f"metrics: one or more ranx metric names such as 'ndcg@10', got {metrics!r}"
        )
    return names


def per_query_values(
    qrels: Any, run: Any, names: list[str], threads: int, make_comparable: bool
) -> tuple[list[Any], dict[str, np.ndarray]]:
    """The queries in ranx's order (sorted ids) and each metric's values on them (``names``
    from :func:`metric_names`), an undefined value 0, as :func:`evaluate` computes them (its
    rules and errors)."""
    judged = as_mapping(qrels, "qrels")
    ranked = as_mapping(run, "run")
    if make_comparable:
        ranked = {q: ranked.get(q, {}) for q in judged}
    if judged.keys() != ranked.keys():
        unranked = sorted(map(str, judged.keys() - ranked.keys()))
        unjudged = sorted(map(str, ranked.keys() - judged.keys()))
        raise InvalidInputError(
            f"qrels and run do not hold the same queries (judged, not ranked: {unranked[:5]}; "
            f"ranked, not judged: {unjudged[:5]}); pass make_comparable=True to evaluate the "
            f"judged queries, a missing ranking being empty"
        )
    order = sorted(judged)
    # ranx's recall without a cutoff is recall over the whole ranking (set recall); ragmeter
    # reads "recall" alone as trec_eval's family at its nine cutoffs.
    computed = {m: ("set_recall" if m == "recall" else m) for m in names}
    values = ranking_metrics(
        judged,
        ranked,
        metrics=list(dict.fromkeys(computed.values())),
        average=None,
        zero_division=0.0,
        n_threads=threads or None,
    )
    return order, {m: np.array([float(values[computed[m]][q]) for q in order]) for m in names}


def save_in_run(
    run: Run, order: list[Any], per_query: dict[str, np.ndarray], return_std: bool
) -> None:
    """Keep each metric's values in ``run`` as ranx does: ``scores`` per query,
    ``mean_scores`` and, with ``return_std``, ``std_scores``."""
    for m, scores in per_query.items():
        run.mean_scores[m] = float(np.mean(scores))
        if return_std:
            run.std_scores[m] = float(np.std(scores))
        run.scores[m] = dict(zip(order, scores.tolist(), strict=True))
