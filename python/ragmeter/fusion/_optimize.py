"""Grid search over a fusion method's parameters (ranx 0.3's grids and names), any ranx or
trec_eval measure name as the objective, returning the best configuration and the whole table.

The grid is searched on the queries of ``qrels``: the best score is optimistic for those
queries (see :class:`~ragmeter.fusion.FusionEstimator` for tuning on held-out folds)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ..io import read_qrels, read_run
from ..ranking.functions import ranking_metrics
from ._fuse import fuse, prepare_runs, train_fusion
from .declarations import METHODS

__all__ = ["FusionSearch", "fusion_grid", "optimize_fusion"]


@dataclass(frozen=True)
class FusionSearch:
    """The result of :func:`optimize_fusion`: the best parameters, their score, and every
    configuration tried with its score (mean over ``n_queries`` training queries)."""

    method: str
    norm: str | None
    metric: str
    best_params: dict[str, Any]
    best_score: float
    n_queries: int
    table: list[tuple[dict[str, Any], float]] = field(repr=False)


def _arange(low: float, high: float, step: float) -> list[float]:
    digits = str(step)[::-1].find(".")
    return [float(round(x, digits)) for x in np.arange(low, high + step, step)]


def fusion_grid(method: str, n_runs: int, **bounds: Any) -> list[dict[str, Any]]:
    """ranx's grid for ``method``: weights in steps of ``step`` (0.1) summing to 1 for the
    weighted methods, ``k`` 10..100 by 10 (RRF), ``gamma``/``sigma``/``phi`` 0.01..1 by 0.01,
    ``n_segments`` 1..100 (ProbFuse), ``w`` 1..100 (SlideFuse); ``bounds`` override ranx's
    ``min_*``, ``max_*`` and ``step``."""
    if method not in METHODS:
        raise InvalidInputError(f"method: unknown fusion method {method!r}")
    b = dict(bounds)
    trials: list[dict[str, Any]]
    # ranx's grids are by parameter (every method that takes weights searches them alike).
    searched = METHODS[method].parameters
    if "weights" in searched:
        weights = _arange(0, 1, b.pop("step", 0.1))
        trials = [
            {"weights": list(seq)}
            for seq in itertools.product(*[weights] * n_runs)
            if sum(seq) == 1.0
        ]
    elif "k" in searched:
        trials = [
            {"k": k} for k in range(b.pop("min_k", 10), b.pop("max_k", 100) + 1, b.pop("step", 10))
        ]
    elif name := next((p for p in ("gamma", "sigma", "phi") if p in searched), None):
        values = _arange(b.pop(f"min_{name}", 0.01), b.pop(f"max_{name}", 1.0), b.pop("step", 0.01))
        trials = [{name: v} for v in values]
    elif "n_segments" in searched:
        low, high = b.pop("min_n_segments", 1), b.pop("max_n_segments", 100)
        trials = [{"n_segments": n} for n in range(low, high + 1)]
    elif "w" in searched:
        trials = [{"w": w} for w in range(b.pop("min_w", 1), b.pop("max_w", 100) + 1)]
    else:
        trials = [{}]
    if b:
        raise InvalidInputError(f"{method}: unknown search bounds {sorted(b)}")
    return trials


def optimize_fusion(
    qrels: Any,
    runs: Sequence[Any],
    method: str = "wsum",
    norm: str | None = "min-max",
    metric: str = "ndcg",
    *,
    n_threads: int | None = None,
    **bounds: Any,
) -> FusionSearch:
    """Search ``method``'s parameters on ``qrels``' queries for the best mean ``metric``
    (a ranx or trec_eval measure name, evaluated with trec_eval semantics by
    :func:`~ragmeter.ranking_metrics`; undefined values score 0 as in ranx). As ranx, the last
    configuration with the best score wins. Trained methods learn their parameters from
    ``qrels`` too (ProbFuse for every ``n_segments``, SlideFuse once).

    >>> qrels = {"q1": {"d3": 1}, "q2": {"d1": 1}}
    >>> a = {"q1": {"d1": 3.0, "d3": 1.0}, "q2": {"d1": 2.0, "d2": 1.0}}
    >>> b = {"q1": {"d3": 5.0, "d2": 1.0}, "q2": {"d2": 2.0, "d1": 1.5}}
    >>> search = optimize_fusion(qrels, [a, b], method="wsum", metric="mrr")
    >>> search.best_score, len(search.table)
    (0.75, 11)
    """
    if method not in METHODS:
        raise InvalidInputError(f"method: unknown fusion method {method!r}")
    judged = read_qrels(qrels)
    read = [read_run(r) for r in runs]
    queries = sorted(judged)
    # Read once: every trial fuses the same runs (the grid is often hundreds of trials).
    restricted = prepare_runs([{q: r.get(q, {}) for q in queries} for r in read])
    decl = METHODS[method]
    fixed: dict[str, Any] = {}
    if method == "slidefuse":
        fixed["probs"] = train_fusion(judged, restricted, method, norm=norm, n_threads=n_threads)
    elif decl.training is not None and method != "probfuse":
        fixed[str(decl.trained_parameter)] = train_fusion(
            judged, restricted, method, norm=norm, n_threads=n_threads
        )
    table: list[tuple[dict[str, Any], float]] = []
    best: tuple[dict[str, Any], float] | None = None
    for trial in fusion_grid(method, len(read), **bounds):
        params = dict(fixed)
        if method == "probfuse":
            params["probs"] = train_fusion(
                judged,
                restricted,
                method,
                norm=norm,
                n_segments=trial["n_segments"],
                n_threads=n_threads,
            )
        else:
            params.update(trial)
        fused = fuse(restricted, method=method, norm=norm, params=params, n_threads=n_threads)
        values = ranking_metrics(
            judged,
            fused.to_dict(),
            metrics=[metric],
            average=None,
            zero_division=0.0,
            n_threads=n_threads,
        )[metric]
        score = float(np.mean([float(values[q]) for q in queries])) if queries else 0.0
        table.append((trial, score))
        if best is None or score >= best[1]:
            best = ({**params, **trial} if method != "probfuse" else params, score)
    assert best is not None
    best_params = {k: v for k, v in best[0].items() if k != "n_segments"}
    return FusionSearch(method, norm, metric, best_params, best[1], len(queries), table)
