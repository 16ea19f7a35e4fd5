"""The public functions: :func:`ranking_metrics` and one function per common measure.

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
  ranking of all judged positive grades cut at k; its gains ignore ``relevance_threshold``;
* a mean over queries adds the per-query values one by one in trec_eval's order (query ids
  sorted byte-wise as text) in double precision, so it prints exactly as trec_eval's.

Undefined values (division by ``R = 0``, or an ideal DCG of 0 for nDCG) follow
``zero_division`` as in scikit-learn: ``"warn"`` scores 0.0 with an
:class:`~ragmeter.UndefinedMetricWarning`, ``0.0``/``1.0`` score that value, ``np.nan`` leaves
the value undefined and excludes it from the mean. Precision, hit rate and MRR are always
defined. Every measure family, its formula, citation and undefined rule is declared in
:data:`ragmeter.ranking.FAMILIES`.

References: trec_eval 10.0 (NIST, https://github.com/usnistgov/trec_eval); K. Järvelin and
J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _core
from .._inputs import align_queries
from ..exceptions import InvalidInputError
from ..options import (
    Duplicates,
    EvaluationOptions,
    Missing,
    ZeroDivision,
    check_choice,
    check_positive_int,
)
from .evaluation import Average, QueryValues, compute_values, needs_all_judged, summarize
from .names import measures_of
from .results import MetricResults

__all__ = [
    "hit_rate_at_k",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "ranking_metrics",
    "ranking_values",
    "recall_at_k",
]

#: The measures :func:`ranking_metrics` computes when none are named.
DEFAULT_METRICS = ("ndcg@10", "map", "recall@100", "mrr", "precision@10")


def ranking_metrics(
    y_true: Any,
    y_pred: Any,
    *,
    metrics: Iterable[str] | str = DEFAULT_METRICS,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    max_docs: int | None = None,
    judged_only: bool = False,
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
        Measure names in ragmeter's, trec_eval's, ir_measures' or ranx's syntax:
        ``"ndcg@10"``, ``"recall@100"``, ``"precision@5"``, ``"hit_rate@1"``, ``"mrr"``,
        ``"map"``, ``"bpref"``, ``"P.5,10"``, ``"all_trec"``, ``"P(rel=2)@5"``,
        ``"map@100-l2"``... (see :func:`ragmeter.parse_metric`).
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
        ``"mean"``: a :class:`MeanScore` per metric (a :class:`CountScore` for counts);
        ``None``: per-query values, a dict keyed by query id for mappings, an array in input
        order for sequences.
    max_docs
        Keep only the first ``max_docs`` ranked documents (trec_eval ``-M``).
    judged_only
        Remove documents without a judgment from the rankings first (trec_eval ``-J``).
    n_threads
        Threads of the Rust core (default: ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    MetricResults
        ``{metric_name: value}``; its ``query_ids``, ``missing_from_run`` and ``unjudged``
        attributes say which queries were evaluated.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown measure, a bad option, mappings with different queries
        (``missing="raise"``), nothing to evaluate.
    InputTypeError
        A ``TypeError``: judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> ranking_metrics(qrels, runs, metrics=["mrr", "hit_rate@1"])
    {'mrr': 0.75, 'hit_rate@1': 0.5}
    """
    check_choice("average", average, ("mean", None))
    options = EvaluationOptions(
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        max_docs=max_docs,
        judged_only=judged_only,
        n_threads=n_threads,
    )
    values = ranking_values(y_true, y_pred, metrics, options)
    return summarize(values, average=average)


def ranking_values(
    y_true: Any,
    y_pred: Any,
    metrics: Iterable[str] | str,
    options: EvaluationOptions,
    *,
    run_tag: str | None = None,
) -> QueryValues:
    """Per-query values (NaN where undefined) of the aligned queries, before
    ``zero_division``; ``run_tag`` is the value of ``runid``, if any.

    The first half of :func:`ranking_metrics` (the second is
    :func:`~ragmeter.ranking.evaluation.summarize`), for the callers that need the values of
    each query: comparisons, significance tests, the ``ragmeter`` command.

    Parameters
    ----------
    y_true, y_pred
        Judgments and rankings, as for :func:`ranking_metrics`.
    metrics
        Measure names (or one name) in any syntax :func:`~ragmeter.parse_measures` reads.
    options
        The evaluation's options.
    run_tag
        The run's tag (the 6th column of a TREC run), the value of ``runid``.

    Returns
    -------
    QueryValues
        One row per aligned query, one column per measure.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown measure, a measure named twice, no query to evaluate,
        judgments and rankings of different queries (``missing="raise"``), a ranking that
        repeats a document (``duplicates="raise"``).
    InputTypeError
        A ``TypeError``: judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> from ragmeter.options import EvaluationOptions
    >>> values = ranking_values(
    ...     {"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "mrr", EvaluationOptions()
    ... )
    >>> values.queries.query_ids, values.numbers.tolist()  # d1 second: 1/2
    (['q1'], [[0.5]])
    """
    measures = measures_of(metrics)
    queries = align_queries(y_true, y_pred, missing=options.missing)
    if not queries.query_ids:
        raise InvalidInputError(
            "y_true: there is no query to evaluate (no judged query"
            + (" with a ranking" if queries.missing_from_run else "")
            + "); pass at least one query's judgments and ranking"
        )
    prepared = _core.prepare_rankings(
        queries.query_ids,
        queries.judgments,
        queries.rankings,
        duplicates_first=options.duplicates == "first",
        max_docs=options.max_docs,
        all_judged=needs_all_judged(measures, options),
        n_threads=options.n_threads,
    )
    in_run = None
    if queries.missing_from_run and options.missing == "zero":
        absent = set(queries.missing_from_run)
        in_run = np.array([q not in absent for q in queries.query_ids], dtype=bool)
    return compute_values(prepared, measures, queries, options, in_run=in_run, run_tag=run_tag)


def _single(
    metric: str,
    y_true: Any,
    y_pred: Any,
    *,
    relevance_threshold: float,
    zero_division: ZeroDivision,
    duplicates: Duplicates,
    missing: Missing,
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
    checked = check_positive_int("k", k, allow_none=allow_none)
    return "" if checked is None else f"@{checked}"


def precision_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Precision at k: ``|relevant ∩ top k| / k`` (trec_eval ``P.k``).

    Divides by k even when fewer than k documents were ranked. Always defined.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: the top ``k`` documents of each ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> precision_at_k(qrels, runs, k=2)  # one relevant document in each top 2
    0.5
    >>> precision_at_k(qrels, runs, k=2, average=None)
    {'q1': 0.5, 'q2': 0.5}
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
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Recall at k: ``|relevant ∩ top k| / R`` (trec_eval ``recall.k``).

    Undefined when the query has no relevant judged document (R = 0).

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: the top ``k`` documents of each ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> recall_at_k(qrels, runs, k=2)  # (1/2 + 1/1) / 2
    0.75
    >>> recall_at_k(qrels, runs, k=2).n_queries
    2
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
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Hit rate at k: 1 if a relevant document is in the top k, else 0 (trec_eval ``success.k``).

    Always defined.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: the top ``k`` documents of each ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> hit_rate_at_k(qrels, runs, k=1)  # q1's first document is relevant, q2's is not
    0.5
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
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Reciprocal rank: ``1 / rank`` of the first relevant document, 0 if none (trec_eval
    ``recip_rank``); with ``k``, only the top k count (trec_eval ``-M k`` then ``recip_rank``).

    Always defined.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: only the top ``k`` documents count; ``None``, the whole ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> mean_reciprocal_rank(qrels, runs)  # (1/1 + 1/2) / 2
    0.75
    >>> mean_reciprocal_rank(qrels, runs, k=1)  # q2's relevant document is below rank 1
    0.5
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
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Average precision: the sum of precision at the rank of each retrieved relevant document
    (within the top k if given) divided by R (trec_eval ``map``, ``map_cut.k``).

    Relevant documents never retrieved contribute 0. Undefined when R = 0.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: only the top ``k`` documents count; ``None``, the whole ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> mean_average_precision(qrels, runs, average=None)  # q1: (1/1 + 2/3) / 2; q2: (1/2) / 1
    {'q1': 0.8333333333333333, 'q2': 0.5}
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
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """R-precision: precision at R, ``|relevant ∩ top R| / R`` (trec_eval ``Rprec``).

    Undefined when R = 0.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> r_precision(qrels, runs)  # q1: 1 of its top 2; q2: 0 of its top 1
    0.25
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
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Normalised discounted cumulative gain at k (trec_eval ``ndcg_cut.k``; ``ndcg`` for
    ``k=None``).

    ``DCG@k = sum over ranks i <= k of grade_i / log2(i + 1)`` with the grade as a linear gain
    (grades <= 0 add nothing); ``IDCG@k`` is the DCG of all judged positive grades sorted in
    decreasing order, cut at k (for ``k=None``, not cut). The gains ignore
    ``relevance_threshold``. Undefined when IDCG = 0 (no positive grade).

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: only the top ``k`` documents count; ``None``, the whole ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> round(ndcg_at_k(qrels, runs, k=3), 4)  # q1: 2 / (2 + 1/log2(3)); q2: 1/log2(3)
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
