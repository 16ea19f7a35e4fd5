"""``ranx.metrics``: ranx's metric functions over its array form, ``metric(qrels, run, k,
rel_lvl)``, each computed by ragmeter's core through :func:`ragmeter.compat.ranx.evaluate`'s
rules (per-query values in query order, an undefined value 0), as ranx's return them."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ranking.functions import ranking_metrics
from ._arrays import as_mapping

__all__ = [
    "average_precision",
    "f1",
    "hit_rate",
    "hits",
    "ndcg",
    "ndcg_burges",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
]


def _values(name: str, qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    judged, ranked = as_mapping(qrels, "qrels"), as_mapping(run, "run")
    metric = f"{name}@{k}" if k else name
    if rel_lvl != 1:
        metric += f"-l{rel_lvl}"
    values = ranking_metrics(
        judged,
        {q: ranked.get(q, {}) for q in judged},
        metrics=[metric],
        average=None,
        zero_division=0.0,
    )
    return np.array([float(values[metric][q]) for q in sorted(judged)])


def hits(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``hits``: relevant documents in the top k, per query."""
    return _values("hits", qrels, run, k, rel_lvl)


def hit_rate(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``hit_rate``: 1 if a relevant document is in the top k, per query."""
    return _values("hit_rate", qrels, run, k, rel_lvl)


def precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``precision``, per query."""
    return _values("precision", qrels, run, k, rel_lvl)


def recall(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``recall``, per query."""
    return _values("recall", qrels, run, k, rel_lvl)


def f1(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``f1``, per query."""
    return _values("f1", qrels, run, k, rel_lvl)


def r_precision(qrels: Any, run: Any, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``r_precision``, per query."""
    return _values("r-precision", qrels, run, 0, rel_lvl)


def reciprocal_rank(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``reciprocal_rank`` (mrr), per query."""
    return _values("mrr", qrels, run, k, rel_lvl)


def average_precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``average_precision`` (map), per query."""
    return _values("map", qrels, run, k, rel_lvl)


def ndcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``ndcg`` (Järvelin's gains), per query."""
    return _values("ndcg", qrels, run, k, rel_lvl)


def ndcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``ndcg_burges`` (gains 2^g - 1), per query."""
    return _values("ndcg_burges", qrels, run, k, rel_lvl)
