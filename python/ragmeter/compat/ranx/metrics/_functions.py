"""The functions of ``ranx.metrics``: ranx's metric functions over its array form
(``metric(qrels, run, k, rel_lvl)``), computed by ragmeter's core under the rules of
:func:`ragmeter.compat.ranx.evaluate` (per-query values in query order, an undefined value
0), as ranx returns them."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....exceptions import InvalidInputError
from ....ranking.functions import ranking_metrics
from .._arrays import as_mapping

__all__ = [
    "average_precision",
    "bpref",
    "dcg",
    "dcg_burges",
    "f1",
    "hit_rate",
    "hits",
    "ndcg",
    "ndcg_burges",
    "precision",
    "r_precision",
    "rank_biased_precision",
    "recall",
    "reciprocal_rank",
]


def _values(name: str, qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Per-query values of ranx's metric ``name`` at ``k`` (0: the whole ranking) with
    relevance level ``rel_lvl``, queries in sorted order as ranx returns them."""
    judged, ranked = as_mapping(qrels, "qrels"), as_mapping(run, "run")
    # ranx's recall without a cutoff is recall over the whole ranking: set recall (``recall``
    # alone is trec_eval's family at its nine cutoffs).
    metric = f"{name}@{k}" if k else ("set_recall" if name == "recall" else name)
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


def dcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``dcg`` (Järvelin's gains), per query."""
    return _values("dcg", qrels, run, k, rel_lvl)


def dcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``dcg_burges`` (gains 2^g - 1), per query."""
    return _values("dcg_burges", qrels, run, k, rel_lvl)


def bpref(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``bpref``, per query."""
    return _values("bpref", qrels, run, k, rel_lvl)


def rank_biased_precision(qrels: Any, run: Any, p: float, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``rank_biased_precision`` with persistence ``p`` (0 < p < 1), per query."""
    text = repr(float(p))
    if not 0.0 < float(p) < 1.0 or not text.startswith("0."):
        raise InvalidInputError(f"p: the persistence must be in (0, 1), got {p!r}")
    return _values(f"rbp.{text[2:]}", qrels, run, 0, rel_lvl)
