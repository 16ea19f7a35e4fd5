"""Run a retriever over a query set, time every search, score the rankings, keep every status.

:func:`evaluate_retrieval` accepts anything with ``search(query)`` (a :class:`RetrievalIndex`,
a :class:`CustomRetrievalIndex`, your own class) or a plain callable, and returns a
:class:`~ragmeter.RetrievalEvaluation` (its own module, :mod:`ragmeter.retrieval_evaluation`,
re-exported here): the mean of every metric (with the number of queries it is over),
per-query values, the status of every search and latency statistics.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any, Literal

from ._inputs import interpret_search_result
from ._progress import Progress, progress_hook
from .exceptions import (
    InputTypeError,
    InvalidInputError,
    RetrievalError,
    RetrievalWarning,
    UndefinedMetricWarning,
)
from .options import EvaluationOptions, ZeroDivision, check_choice
from .ranking import parse_metric, ranking_metrics
from .retrieval_evaluation import (
    INCOMPLETE_STATUSES,
    STATUSES,
    QueryId,
    QueryRecord,
    RetrievalEvaluation,
)

__all__ = [
    "DEFAULT_METRICS",
    "STATUSES",
    "QueryRecord",
    "RetrievalEvaluation",
    "evaluate_retrieval",
]

# Mapping is invariant in its key type: a dict[str, str] is not a Mapping[str | int, str].
Queries = Mapping[str, str] | Mapping[int, str] | Sequence[str]
DEFAULT_METRICS: tuple[str, ...] = ("recall@10", "mrr", "ndcg@10")


# -- running a retriever -----------------------------------------------------------------------


@dataclass
class _Outcome:
    result: Any
    latency: float
    exception: BaseException | None


def _timed_search(search: Callable[..., Any], query: str, kwargs: Mapping[str, Any]) -> _Outcome:
    """Call the retriever once; module-level so that process pools can pickle it."""
    start = time.perf_counter()
    try:
        result = search(query, **kwargs)
    except Exception as exc:
        return _Outcome(None, time.perf_counter() - start, exc)
    return _Outcome(result, time.perf_counter() - start, None)


def _search_function(retriever: Any) -> Callable[..., Any]:
    search = getattr(retriever, "search", None)
    if callable(search):
        result: Callable[..., Any] = search
        return result
    if callable(retriever):
        function: Callable[..., Any] = retriever
        return function
    raise TypeError(
        f"retriever: expected an object with search(query) or a callable query -> hits, "
        f"got {type(retriever).__name__}"
    )


def _check_queries(
    queries: Queries,
) -> tuple[list[QueryId], list[str]]:
    ids: list[Any]
    texts: list[Any]
    if isinstance(queries, Mapping):
        ids = list(queries)
        texts = list(queries.values())
    elif isinstance(queries, Sequence) and not isinstance(queries, str | bytes):
        ids = list(range(len(queries)))
        texts = list(queries)
    else:
        raise InputTypeError(
            f"queries: expected {{query_id: text}} or a sequence of texts, "
            f"got {type(queries).__name__}"
        )
    if not ids:
        raise InvalidInputError("queries: there is no query to evaluate")
    for query_id, text in zip(ids, texts, strict=True):
        if isinstance(query_id, bool) or not isinstance(query_id, str | int):
            raise InvalidInputError(
                f"queries: query ids must be str or int, got {query_id!r} "
                f"({type(query_id).__name__})"
            )
        if not isinstance(text, str):
            raise InvalidInputError(
                f"queries: query {query_id!r} is a {type(text).__name__}, expected its text"
            )
    if len({type(q) for q in ids}) > 1:
        raise InvalidInputError(
            "queries: query ids mix str and int; use one type, because '1' and 1 would never "
            "match the same judgments"
        )
    return ids, texts


def _check_qrels(qrels: Any, query_ids: list[QueryId]) -> dict[QueryId, Any]:
    if isinstance(qrels, Mapping):
        judged = dict(qrels)
    elif isinstance(qrels, Sequence) and not isinstance(qrels, str | bytes):
        if len(qrels) != len(query_ids):
            raise InvalidInputError(
                f"qrels: a sequence of judgments must align with the queries, got "
                f"{len(qrels)} judgments for {len(query_ids)} queries"
            )
        judged = dict(zip(query_ids, qrels, strict=True))
    else:
        raise TypeError(
            f"qrels: expected {{query_id: judgments}} or a sequence aligned with the queries, "
            f"got {type(qrels).__name__}"
        )
    asked = set(query_ids)
    unjudged = [q for q in query_ids if q not in judged]
    unasked = [q for q in judged if q not in asked]
    if unjudged or unasked:
        parts = []
        if unjudged:
            parts.append(f"{len(unjudged)} queries have no judgments (e.g. {unjudged[:5]})")
        if unasked:
            parts.append(f"{len(unasked)} judged queries are not in queries (e.g. {unasked[:5]})")
        raise InvalidInputError(
            "qrels and queries must name the same queries: "
            + "; ".join(parts)
            + ". Evaluate on the judged queries only, e.g. {q: queries[q] for q in qrels}."
        )
    return {q: judged[q] for q in query_ids}


def _metric_names(metrics: Iterable[str] | str) -> tuple[str, ...]:
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not names:
        raise InvalidInputError("metrics: name at least one metric, e.g. ['ndcg@10', 'mrr']")
    for name in names:
        parse_metric(name)
    if len(set(names)) != len(names):
        raise InvalidInputError(f"metrics: {list(names)} names a metric more than once")
    return names


def evaluate_retrieval(
    retriever: Any,
    queries: Queries,
    qrels: Any,
    *,
    metrics: Iterable[str] | str = DEFAULT_METRICS,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    on_degraded: Literal["raise", "warn"] = "raise",
    query_embeddings: Mapping[QueryId, Any] | None = None,
    executor: Executor | None = None,
    progress: Progress = False,
    name: str | None = None,
    n_threads: int | None = None,
) -> RetrievalEvaluation:
    """Search every query with ``retriever``, time it and score the rankings.

    Parameters
    ----------
    retriever
        An object with ``search(query)`` (such as :class:`RetrievalIndex`), or a callable
        ``query -> result``. A result may be a :class:`RetrievalResponse` (its ``status`` is
        kept), a sequence of hits (``hit.doc.doc_id``), of doc ids or of ``(doc_id, score)``
        pairs, best first, or a ``{doc_id: score}`` mapping (sorted by score, ties by doc id
        descending).
    queries
        ``{query_id: text}``, or a sequence of texts (query ids are then their positions).
    qrels
        Judgments of the same queries: ``{query_id: {doc_id: grade}}`` or
        ``{query_id: [relevant ids]}``, or a sequence aligned with ``queries``. A query without
        judgments, or judgments of a query not asked, is refused.
    metrics, relevance_threshold, zero_division, duplicates
        As in :func:`ragmeter.ranking_metrics`.
    on_degraded
        ``"raise"`` (default): a search whose status is ``degraded``, ``failed`` or
        ``cancelled``, or that raises, stops the evaluation with :class:`RetrievalError`
        naming the query and status. ``"warn"``: such rankings are scored as returned (a
        failed search as an empty ranking, so it lowers the mean rather than leaving it), one
        :class:`RetrievalWarning` summarises them and the statuses stay in the report.
    query_embeddings
        ``{query_id: vector}`` passed to ``search`` as ``query_embedding`` (semantic and hybrid
        search).
    executor
        A :class:`concurrent.futures.Executor` to run searches concurrently (latency is still
        measured per search).
    progress
        ``True``: a tqdm progress bar (the ``ragmeter[progress]`` extra; without tqdm this
        raises :class:`MissingDependencyError` naming it); a callable: called as
        ``progress(done, total)`` after each query; ``False``/``None``: nothing.
    name
        Name of the system, used in comparisons, reports and plots.
    n_threads
        Threads of the Rust core that computes the metrics.

    Returns
    -------
    RetrievalEvaluation
        Means, per-query values, statuses and latency; see its attributes.
    """
    check_choice("on_degraded", on_degraded, ("raise", "warn"))
    options = EvaluationOptions(
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        n_threads=n_threads,
    )
    names = _metric_names(metrics)
    threshold = options.relevance_threshold
    zero = options.zero_division
    query_ids, texts = _check_queries(queries)
    judgments = _check_qrels(qrels, query_ids)
    search = _search_function(retriever)
    if query_embeddings is not None:
        missing = [q for q in query_ids if q not in query_embeddings]
        if missing:
            raise InvalidInputError(
                f"query_embeddings: no embedding for {len(missing)} queries (e.g. {missing[:5]})"
            )
        if not callable(getattr(retriever, "search", None)):
            raise InvalidInputError(
                "query_embeddings: only a retriever with search(query, query_embedding=...) "
                "can use query embeddings"
            )

    def kwargs_for(query_id: QueryId) -> dict[str, Any]:
        if query_embeddings is None:
            return {}
        return {"query_embedding": query_embeddings[query_id]}

    tick, close_progress = progress_hook(
        progress, len(query_ids), description=name or "evaluate", unit="query"
    )
    outcomes: list[tuple[list[Any], str, str | None, float]] = []
    futures: list[Future[_Outcome]] = []
    try:
        if executor is not None:
            futures = [
                executor.submit(_timed_search, search, text, kwargs_for(q))
                for q, text in zip(query_ids, texts, strict=True)
            ]
        for position, (query_id, text) in enumerate(zip(query_ids, texts, strict=True)):
            if executor is not None:
                outcome = futures[position].result()
            else:
                outcome = _timed_search(search, text, kwargs_for(query_id))
            ids: list[Any]
            status: str
            error: str | None
            if outcome.exception is not None:
                exc = outcome.exception
                ids, status, error = [], "failed", f"{type(exc).__name__}: {exc}"
            else:
                _refuse_nan_scores(outcome.result, query_id)
                try:
                    ids, status, error = interpret_search_result(outcome.result, query_id)
                except TypeError as type_error:
                    exc = type_error
                    ids, status, error = [], "failed", f"TypeError: {type_error}"
                else:
                    exc = None
            if status in INCOMPLETE_STATUSES and on_degraded == "raise":
                raise RetrievalError(
                    f"query {query_id!r} ({text[:60]!r}): the search {status}"
                    + (f" ({error})" if error else "")
                    + ". Pass on_degraded='warn' to score incomplete searches as returned; "
                    "the report keeps their statuses."
                ) from exc
            outcomes.append((ids, status, error, outcome.latency))
            tick()
    finally:
        for future in futures:
            future.cancel()
        close_progress()

    rankings = {q: outcome[0] for q, outcome in zip(query_ids, outcomes, strict=True)}
    values = _score(judgments, rankings, names, threshold, duplicates, n_threads)
    records = tuple(
        QueryRecord(
            query_id=query_id,
            query=text,
            status=status,
            latency=latency,
            retrieved=tuple(ids),
            values={m: values[m][query_id] for m in names},
            error=error,
        )
        for query_id, text, (ids, status, error, latency) in zip(
            query_ids, texts, outcomes, strict=True
        )
    )
    parameters = {
        "metrics": names,
        "relevance_threshold": relevance_threshold,
        "zero_division": zero,
        "duplicates": duplicates,
        "on_degraded": on_degraded,
        "retriever": _describe(retriever),
    }
    evaluation = RetrievalEvaluation(records=records, parameters=parameters, name=name)
    incomplete = [r for r in records if r.status in INCOMPLETE_STATUSES]
    if incomplete:
        shown = ", ".join(f"{r.query_id!r} {r.status}" for r in incomplete[:5])
        warnings.warn(
            f"{len(incomplete)} of {len(records)} searches did not run completely ({shown}"
            f"{', ...' if len(incomplete) > 5 else ''}); they are scored as returned and "
            "their statuses are in status_counts",
            RetrievalWarning,
            stacklevel=2,
        )
    if zero == "warn":
        for metric in names:
            undefined = sum(math.isnan(r.values[metric]) for r in records)
            if undefined:
                warnings.warn(
                    f"{metric} is undefined for {undefined} of {len(records)} queries (no "
                    "relevant judged document, or no positive grade for nDCG); they score "
                    "0.0. Pass zero_division=np.nan to exclude them from the mean, or 0.0 or "
                    "1.0 to choose their value silently.",
                    UndefinedMetricWarning,
                    stacklevel=2,
                )
    return evaluation


def _refuse_nan_scores(result: Any, query_id: QueryId) -> None:
    """A ``{doc_id: score}`` ranking is ordered by score: a NaN score has no place in that
    order (it would be ranked by its id), so it is refused as ``ranking_metrics`` refuses it."""
    if not isinstance(result, Mapping):
        return
    for doc, score in result.items():
        if isinstance(score, numbers.Real) and math.isnan(score):
            raise InvalidInputError(
                f"query {query_id!r}: the retriever's score of document {doc!r} is NaN; scores "
                "must be numbers (not NaN). Fix the retriever (a NaN often comes from an "
                "embedding of zero length) or drop the document."
            )


def _score(
    judgments: Mapping[QueryId, Any],
    rankings: Mapping[QueryId, list[Any]],
    names: Sequence[str],
    threshold: float,
    duplicates: str,
    n_threads: int | None,
) -> Mapping[str, Mapping[QueryId, float]]:
    """Per-query values with undefined values left as NaN (the evaluation applies
    ``zero_division`` when it summarises, so the records keep what was undefined)."""
    return ranking_metrics(
        judgments,
        rankings,
        metrics=list(names),
        relevance_threshold=threshold,
        zero_division=math.nan,
        duplicates=duplicates,  # type: ignore[arg-type]
        average=None,
        n_threads=n_threads,
    )


def _describe(retriever: Any) -> str:
    text = repr(retriever)
    return text if len(text) <= 200 else text[:197] + "..."
