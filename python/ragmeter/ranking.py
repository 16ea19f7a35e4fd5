"""Ranking metrics: precision, recall, hit rate, MRR, MAP, R-precision and nDCG at k.

The arithmetic runs in ragmeter's Rust core over all queries in parallel. The semantics are
trec_eval's, so the numbers agree with trec_eval, pytrec_eval and ir_measures:

* relevant means ``grade >= relevance_threshold`` (default 1); an unjudged document has grade 0
  and a negative grade means judged but unjudgeable (never relevant, no gain);
* ``R`` is the number of relevant judged documents of the query, retrieved or not;
* a ranking given as a sequence is already ordered, best first; a scored ranking
  ``{doc_id: score}`` is sorted by score descending, ties broken by doc id compared byte-wise
  (UTF-8), descending, exactly as trec_eval does; int ids are compared by their decimal text;
* P@k divides by k even when fewer than k documents were ranked; recall@k, AP and R-precision
  divide by R; nDCG uses the grade as a linear gain, a ``log2(rank + 1)`` discount and an ideal
  ranking of all judged positive grades cut at k; its gains ignore ``relevance_threshold``.

Undefined values (division by ``R = 0``, or an ideal DCG of 0 for nDCG) follow
``zero_division`` as in scikit-learn: ``"warn"`` scores 0.0 with an
:class:`~ragmeter.UndefinedMetricWarning`, ``0.0``/``1.0`` score that value, ``np.nan`` leaves
the value undefined and excludes it from the mean. Precision, hit rate and MRR are always
defined.

References: trec_eval 10.0 (NIST, https://github.com/usnistgov/trec_eval); K. Järvelin and
J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from . import _core
from ._inputs import (
    AlignedQueries,
    align_queries,
    check_choice,
    check_n_threads,
    check_threshold,
    check_zero_division,
)
from .exceptions import UndefinedMetricWarning

__all__ = [
    "METRIC_NAMES",
    "MeanScore",
    "MetricResults",
    "MetricSpec",
    "hit_rate_at_k",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "parse_metric",
    "precision_at_k",
    "r_precision",
    "ranking_metrics",
    "recall_at_k",
]

ZeroDivision = Literal["warn"] | float
Average = Literal["mean"] | None

#: Accepted metric names; ``@k`` is a positive integer cutoff.
METRIC_NAMES = (
    "precision@k",
    "recall@k",
    "hit_rate@k",
    "mrr",
    "mrr@k",
    "map",
    "map@k",
    "r_precision",
    "ndcg",
    "ndcg@k",
)

# Spellings of each metric kind, lower case: ragmeter's own names, trec_eval's and ir_measures'.
_KIND_ALIASES = {
    "precision": ("precision", "p"),
    "recall": ("recall", "r"),
    "hit_rate": ("hit_rate", "hitrate", "hits", "success"),
    "reciprocal_rank": ("mrr", "rr", "recip_rank", "reciprocal_rank"),
    "average_precision": ("map", "ap", "map_cut", "average_precision"),
    "r_precision": ("r_precision", "rprec", "r-precision"),
    "ndcg": ("ndcg", "ndcg_cut"),
}
_KIND_OF = {alias: kind for kind, aliases in _KIND_ALIASES.items() for alias in aliases}
_NEEDS_K = {"precision", "recall", "hit_rate"}
_NAME_PATTERN = re.compile(r"^\s*([a-z_\-]+?)\s*(?:[@_.]\s*(\d+))?\s*$")

_UNDEFINED_REASON = {
    "recall": "no relevant judged document (R = 0)",
    "average_precision": "no relevant judged document (R = 0)",
    "r_precision": "no relevant judged document (R = 0)",
    "ndcg": "no judged document with a positive grade (ideal DCG = 0)",
}


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: ``kind`` is the kernel's metric and ``k`` its cutoff (None: all)."""

    name: str
    kind: str
    k: int | None

    def can_be_undefined(self) -> bool:
        return self.kind in _UNDEFINED_REASON


def parse_metric(name: str) -> MetricSpec:
    """Parse ``"ndcg@10"``, ``"recall@100"``, ``"mrr"``, ``"map@5"``, ``"P_5"``, ... .

    ragmeter's names (``precision@k``, ``recall@k``, ``hit_rate@k``, ``mrr``, ``mrr@k``,
    ``map``, ``map@k``, ``r_precision``, ``ndcg``, ``ndcg@k``) and trec_eval's
    (``P_5``, ``recall_100``, ``success_1``, ``recip_rank``, ``map_cut_10``, ``Rprec``,
    ``ndcg_cut_10``) are accepted, case-insensitively.
    """
    if not isinstance(name, str):
        raise TypeError(f"a metric name must be a str such as 'ndcg@10', got {name!r}")
    match = _NAME_PATTERN.match(name.lower())
    kind = _KIND_OF.get(match.group(1)) if match else None
    if match is None or kind is None:
        raise ValueError(
            f"unknown metric {name!r}; valid metrics: {', '.join(METRIC_NAMES)} "
            f"(k a positive integer, e.g. 'ndcg@10'); trec_eval names such as 'P_5', "
            f"'recall_100', 'ndcg_cut_10', 'recip_rank', 'success_1' and 'Rprec' work too"
        )
    k = int(match.group(2)) if match.group(2) is not None else None
    if k is not None and k < 1:
        raise ValueError(f"metric {name!r}: the cutoff k must be a positive integer, got {k}")
    if kind in _NEEDS_K and k is None:
        raise ValueError(f"metric {name!r} needs a cutoff, e.g. '{match.group(1)}@10'")
    if kind == "r_precision" and k is not None:
        raise ValueError(f"metric {name!r}: R-precision has no cutoff (it is precision at R)")
    return MetricSpec(name=name, kind=kind, k=k)


class MeanScore(float):
    """A mean over queries that remembers what it averaged.

    It is a ``float`` (prints, compares and computes like one) with three attributes:
    ``n_queries``, the number of queries (answers, for the answer metrics) in the mean;
    ``n_undefined``, the number of queries
    whose value was undefined (scored by ``zero_division``, or excluded when it is NaN); and
    ``metric``, the metric's name.
    """

    n_queries: int
    n_undefined: int
    metric: str

    def __new__(cls, value: float, *, n_queries: int, n_undefined: int, metric: str) -> MeanScore:
        self = super().__new__(cls, value)
        self.n_queries = n_queries
        self.n_undefined = n_undefined
        self.metric = metric
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_mean, (float(self), self.n_queries, self.n_undefined, self.metric))

    def describe(self) -> str:
        """``"ndcg@10 = 0.6956 over 2 queries (0 undefined)"``."""
        return (
            f"{self.metric} = {float(self):.4f} over {self.n_queries} queries "
            f"({self.n_undefined} undefined)"
        )


def _make_mean(value: float, n_queries: int, n_undefined: int, metric: str) -> MeanScore:
    return MeanScore(value, n_queries=n_queries, n_undefined=n_undefined, metric=metric)


class MetricResults(dict[str, Any]):
    """Metric name -> mean (:class:`MeanScore`) or per-query values, with the query set.

    A ``dict`` with three more attributes: ``query_ids`` (the evaluated queries, in order),
    ``missing_from_run`` (judged queries without a ranking: scored as empty rankings with
    ``missing="zero"``, left out with ``missing="skip"``) and ``unjudged`` (ranked queries
    without judgments, never evaluated).
    """

    query_ids: list[Any]
    missing_from_run: list[Any]
    unjudged: list[Any]


def _check_common(
    relevance_threshold: object,
    zero_division: object,
    duplicates: object,
    average: object,
    max_docs: object,
    n_threads: object,
) -> tuple[float, str | float]:
    check_n_threads(n_threads)
    check_choice("duplicates", duplicates, ("raise", "first"))
    check_choice("average", average, ("mean", None))
    if max_docs is not None and (
        isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < 1
    ):
        raise ValueError(f"max_docs must be a positive integer or None, got {max_docs!r}")
    return check_threshold(relevance_threshold), check_zero_division(zero_division)


def _specs(metrics: Iterable[str] | str) -> list[MetricSpec]:
    if isinstance(metrics, str):
        metrics = [metrics]
    specs = [parse_metric(m) for m in metrics]
    if not specs:
        raise ValueError("metrics is empty: name at least one metric, e.g. ['ndcg@10', 'mrr']")
    names = [s.name for s in specs]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"metrics names {duplicated} more than once")
    return specs


def summarize(
    values: np.ndarray,
    specs: Sequence[MetricSpec],
    queries: AlignedQueries,
    *,
    zero_division: str | float,
    average: Average,
    stacklevel: int = 3,
) -> MetricResults:
    """Apply ``zero_division`` to the kernel's per-query values and average them (or not)."""
    results = MetricResults()
    results.query_ids = queries.query_ids
    results.missing_from_run = queries.missing_from_run
    results.unjudged = queries.unjudged
    n = len(queries.query_ids)
    for column, spec in enumerate(specs):
        per_query = values[:, column].copy()
        undefined = np.isnan(per_query)
        n_undefined = int(undefined.sum())
        if n_undefined:
            if zero_division == "warn":
                warnings.warn(
                    f"{spec.name} is undefined for {n_undefined} of {n} queries "
                    f"({_UNDEFINED_REASON[spec.kind]}); they score 0.0. Pass zero_division=np.nan "
                    f"to exclude them from the mean, or 0.0 or 1.0 to choose their value "
                    f"silently.",
                    UndefinedMetricWarning,
                    stacklevel=stacklevel,
                )
                per_query[undefined] = 0.0
            elif not math.isnan(float(zero_division)):
                per_query[undefined] = float(zero_division)
        if average is None:
            if queries.keyed:
                results[spec.name] = dict(zip(queries.query_ids, per_query.tolist(), strict=True))
            else:
                results[spec.name] = per_query
            continue
        defined = per_query[~np.isnan(per_query)]
        mean = float(defined.mean()) if defined.size else math.nan
        results[spec.name] = MeanScore(
            mean, n_queries=int(defined.size), n_undefined=n_undefined, metric=spec.name
        )
    return results


def ranking_metrics(
    y_true: Any,
    y_pred: Any,
    *,
    metrics: Iterable[str] | str = ("ndcg@10", "map", "recall@100", "mrr", "precision@10"),
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    max_docs: int | None = None,
    n_threads: int | None = None,
) -> MetricResults:
    """Several ranking metrics in one validated pass.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``, or
        a sequence of those.
    metrics
        Names such as ``"ndcg@10"``, ``"recall@100"``, ``"precision@5"``, ``"hit_rate@1"``,
        ``"mrr"``, ``"mrr@10"``, ``"map"``, ``"map@100"``, ``"r_precision"``, ``"ndcg"``.
    relevance_threshold
        Grade from which a document counts as relevant (trec_eval ``-l``).
    zero_division
        Value of an undefined metric: ``"warn"`` (0.0 and a warning), ``0.0``, ``1.0`` or
        ``np.nan`` (left out of the mean).
    duplicates
        ``"raise"`` refuses a ranking that repeats a doc id; ``"first"`` keeps its best position.
    missing
        What to do when mappings do not hold the same queries: ``"raise"``, ``"zero"`` (judged
        queries without a ranking score as empty rankings; trec_eval ``-c``) or ``"skip"``.
    average
        ``"mean"``: a :class:`MeanScore` per metric; ``None``: per-query values, a dict keyed
        by query id for mappings, an array in input order for sequences.
    max_docs
        Keep only the first ``max_docs`` ranked documents (trec_eval ``-M``).
    n_threads
        Threads of the Rust core (default: ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    MetricResults
        ``{metric_name: value}``; its ``query_ids``, ``missing_from_run`` and ``unjudged``
        attributes say which queries were evaluated.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> ranking_metrics(qrels, runs, metrics=["mrr", "hit_rate@1"])
    {'mrr': 0.75, 'hit_rate@1': 0.5}
    """
    values, specs, queries, zero = _ranking_values(
        y_true,
        y_pred,
        metrics=metrics,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        max_docs=max_docs,
        n_threads=n_threads,
    )
    return summarize(values, specs, queries, zero_division=zero, average=average)


def _ranking_values(
    y_true: Any,
    y_pred: Any,
    *,
    metrics: Iterable[str] | str,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: str = "raise",
    missing: str = "raise",
    average: object = "mean",
    max_docs: int | None = None,
    n_threads: int | None = None,
) -> tuple[np.ndarray, list[MetricSpec], AlignedQueries, str | float]:
    """Per-query values (NaN where undefined) of the aligned queries, before ``zero_division``;
    ``average`` is only checked here."""
    specs = _specs(metrics)
    threshold, zero = _check_common(
        relevance_threshold, zero_division, duplicates, average, max_docs, n_threads
    )
    queries = align_queries(y_true, y_pred, missing=missing)
    prepared = _core.prepare_rankings(
        queries.query_ids,
        queries.judgments,
        queries.rankings,
        duplicates_first=duplicates == "first",
        max_docs=max_docs,
        n_threads=n_threads,
    )
    values = prepared.evaluate([(s.kind, s.k) for s in specs], threshold, n_threads)
    return values, specs, queries, zero


def _single(
    metric: str,
    y_true: Any,
    y_pred: Any,
    *,
    relevance_threshold: float,
    zero_division: ZeroDivision,
    duplicates: Literal["raise", "first"],
    missing: Literal["raise", "zero", "skip"],
    average: Average,
    n_threads: int | None,
) -> Any:
    results = ranking_metrics(
        y_true,
        y_pred,
        metrics=[metric],
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )
    return results[metric]


def _cutoff(k: object, *, allow_none: bool) -> str:
    if k is None and allow_none:
        return ""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        expected = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"k must be {expected}, got {k!r}")
    return f"@{int(k)}"


def precision_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Precision at k: ``|relevant ∩ top k| / k`` (trec_eval ``P.k``).

    Divides by k even when fewer than k documents were ranked. Always defined.
    """
    return _single(
        f"precision{_cutoff(k, allow_none=False)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def recall_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Recall at k: ``|relevant ∩ top k| / R`` (trec_eval ``recall.k``).

    Undefined when the query has no relevant judged document (R = 0).

    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> recall_at_k(qrels, runs, k=2)
    0.75
    """
    return _single(
        f"recall{_cutoff(k, allow_none=False)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def hit_rate_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Hit rate at k: 1 if a relevant document is in the top k, else 0 (trec_eval ``success.k``).

    Always defined.
    """
    return _single(
        f"hit_rate{_cutoff(k, allow_none=False)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def mean_reciprocal_rank(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Reciprocal rank: ``1 / rank`` of the first relevant document, 0 if none (trec_eval
    ``recip_rank``); with ``k``, only the top k count (trec_eval ``-M k`` then ``recip_rank``).

    Always defined.
    """
    return _single(
        f"mrr{_cutoff(k, allow_none=True)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def mean_average_precision(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Average precision: the sum of precision at the rank of each retrieved relevant document
    (within the top k if given) divided by R (trec_eval ``map``, ``map_cut.k``).

    Relevant documents never retrieved contribute 0. Undefined when R = 0.
    """
    return _single(
        f"map{_cutoff(k, allow_none=True)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def r_precision(
    y_true: Any,
    y_pred: Any,
    *,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """R-precision: precision at R, ``|relevant ∩ top R| / R`` (trec_eval ``Rprec``).

    Undefined when R = 0.
    """
    return _single(
        "r_precision",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def ndcg_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    missing: Literal["raise", "zero", "skip"] = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Normalised discounted cumulative gain at k (trec_eval ``ndcg_cut.k``; ``ndcg`` for
    ``k=None``).

    ``DCG@k = sum over ranks i <= k of grade_i / log2(i + 1)`` with the grade as a linear gain
    (grades <= 0 add nothing); ``IDCG@k`` is the DCG of all judged positive grades sorted in
    decreasing order, cut at k (for ``k=None``, not cut). The gains ignore
    ``relevance_threshold``. Undefined when IDCG = 0 (no positive grade).

    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> round(ndcg_at_k(qrels, runs, k=3), 4)
    0.6956
    """
    return _single(
        f"ndcg{_cutoff(k, allow_none=True)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )
