"""Run a retriever over a query set, time every search, score the rankings, keep every status.

:func:`evaluate_retrieval` accepts anything with ``search(query)`` (a :class:`RetrievalIndex`,
a :class:`CustomRetrievalIndex`, your own class) or a plain callable, and returns a
:class:`RetrievalEvaluation`: the mean of every metric (with the number of queries it is over),
per-query values, the status of every search and latency statistics. It can be written to and
read back from JSON, JSONL, YAML and TOML, and compared with another evaluation of the same
queries by a paired randomisation test.
"""

from __future__ import annotations

import math
import numbers
import os
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ._inputs import interpret_search_result
from ._progress import Progress, progress_hook
from .exceptions import (
    InvalidInputError,
    RetrievalError,
    RetrievalWarning,
    UndefinedMetricWarning,
)
from .options import (
    EvaluationOptions,
    ZeroDivision,
    check_choice,
    check_threshold,
    check_zero_division,
)
from .ranking import MeanScore, parse_metric, ranking_metrics
from .reports import check_metric_names, load_report, metric_value, report_number, write_report

if TYPE_CHECKING:
    from .stats import Comparison

__all__ = [
    "DEFAULT_METRICS",
    "STATUSES",
    "QueryRecord",
    "RetrievalEvaluation",
    "evaluate_retrieval",
]

QueryId = str | int
# Mapping is invariant in its key type: a dict[str, str] is not a Mapping[str | int, str].
Queries = Mapping[str, str] | Mapping[int, str] | Sequence[str]
DEFAULT_METRICS: tuple[str, ...] = ("recall@10", "mrr", "ndcg@10")
#: Every status a search can have, in the order reports list them.
STATUSES: tuple[str, ...] = ("success", "empty", "degraded", "failed", "cancelled")
#: Statuses of a search that did not run completely (raise unless ``on_degraded="warn"``).
INCOMPLETE_STATUSES = frozenset({"degraded", "failed", "cancelled"})
REPORT_KIND = "ragmeter.retrieval_evaluation"
REPORT_VERSION = 1


def _canonical(value: Any) -> Any:
    """A form of ``value`` whose ``==`` treats NaN as equal to NaN (reports round-trip NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return ("<nan>",)
    if isinstance(value, Mapping):
        return {key: _canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return tuple(_canonical(item) for item in value)
    return value


@dataclass(frozen=True, eq=False)
class QueryRecord:
    """What happened to one query.

    ``values`` holds the metric values as computed, NaN where a metric is undefined for this
    query (no relevant document, or no positive grade for nDCG); the evaluation's
    ``zero_division`` decides what an undefined value counts as. ``latency`` is the wall-clock
    time of the search call in seconds. ``error`` says why a search failed or degraded.
    """

    query_id: QueryId
    query: str
    status: str
    latency: float
    retrieved: tuple[Any, ...]
    values: Mapping[str, float]
    error: str | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QueryRecord):
            return NotImplemented
        return _canonical(self.to_dict()) == _canonical(other.to_dict())

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query_id": self.query_id,
            "query": self.query,
            "status": self.status,
            "latency": self.latency,
            "retrieved": list(self.retrieved),
            "error": self.error,
            "values": dict(self.values),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], metrics: Sequence[str]) -> QueryRecord:
        """Rebuild a record of a report, checking every field (a report read from a file
        may have been edited)."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"a query record must be a mapping, got {type(data).__name__}")
        query_id = data["query_id"]
        where = f"query {query_id!r}"
        if isinstance(query_id, bool) or not isinstance(query_id, str | int):
            raise InvalidInputError(f"query_id: expected a str or an int, got {query_id!r}")
        query = data.get("query", "")
        status = data["status"]
        error = data.get("error")
        if not isinstance(query, str) or not (error is None or isinstance(error, str)):
            raise InvalidInputError(f"{where}: its query text and error must be strings")
        if status not in STATUSES:
            raise InvalidInputError(f"{where}: status {status!r} is not one of {STATUSES}")
        retrieved = data.get("retrieved") or []
        if not isinstance(retrieved, list | tuple) or any(
            isinstance(doc, bool) or not isinstance(doc, str | int) for doc in retrieved
        ):
            raise InvalidInputError(f"{where}: retrieved must be a list of str or int doc ids")
        values = data.get("values") or {}
        if not isinstance(values, Mapping):
            raise InvalidInputError(f"{where}: values must map metric names to numbers")
        unknown = sorted(set(values) - set(metrics), key=str)
        if unknown:
            raise InvalidInputError(
                f"{where}: values of {unknown[:5]}, which are not among the evaluated metrics "
                f"{list(metrics)}"
            )
        latency = report_number(data["latency"], f"{where}: latency", minimum=0.0)
        if not math.isfinite(latency):
            raise InvalidInputError(f"{where}: latency must be a number of seconds, got null")
        return cls(
            query_id=query_id,
            query=query,
            status=status,
            latency=latency,
            retrieved=tuple(retrieved),
            values={m: metric_value(values.get(m), f"{where}: {m}") for m in metrics},
            error=error,
        )


@dataclass(frozen=True, eq=False)
class RetrievalEvaluation:
    """The result of :func:`evaluate_retrieval`: one :class:`QueryRecord` per query plus the
    parameters the metrics were computed with.

    Every summary is derived from the records: :attr:`metrics` (means), :attr:`per_query`,
    :attr:`status_counts`, :attr:`latency`. Two evaluations are equal when their name,
    parameters and records are equal, NaN included.
    """

    records: tuple[QueryRecord, ...]
    parameters: Mapping[str, Any]
    name: str | None = None
    _metric_names: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "records", tuple(self.records))
        names = tuple(self.parameters.get("metrics", ()))
        if not names:
            raise InvalidInputError("parameters: 'metrics' must name the evaluated metrics")
        if not self.records:
            raise InvalidInputError("records: an evaluation needs at least one query")
        ids = [r.query_id for r in self.records]
        if len(set(ids)) != len(ids):
            repeated = sorted({str(q) for q, n in Counter(ids).items() if n > 1})
            raise InvalidInputError(f"records: query ids {repeated[:5]} appear more than once")
        object.__setattr__(self, "_metric_names", names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RetrievalEvaluation):
            return NotImplemented
        return (
            self.name == other.name
            and _canonical(dict(self.parameters)) == _canonical(dict(other.parameters))
            and self.records == other.records
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        metrics = ", ".join(f"{m!r}: {float(v):.4f}" for m, v in self.metrics.items())
        return (
            f"RetrievalEvaluation(name={self.name!r}, n_queries={self.n_queries}, "
            f"metrics={{{metrics}}}, status_counts={self.status_counts})"
        )

    # -- views ---------------------------------------------------------------------------------

    @property
    def metric_names(self) -> tuple[str, ...]:
        return self._metric_names

    @property
    def n_queries(self) -> int:
        return len(self.records)

    @property
    def query_ids(self) -> list[QueryId]:
        return [r.query_id for r in self.records]

    @property
    def zero_division(self) -> str | float:
        return _zero_division_value(self.parameters.get("zero_division", "warn"))

    def _scored(self, metric: str) -> np.ndarray:
        values = np.array([r.values[metric] for r in self.records], dtype=np.float64)
        zero = self.zero_division
        replacement = 0.0 if zero == "warn" else float(zero)
        return np.where(np.isnan(values), replacement, values)

    @property
    def per_query(self) -> dict[str, dict[QueryId, float]]:
        """``{metric: {query_id: value}}``; undefined values as ``zero_division`` says (NaN when
        it is ``np.nan``)."""
        ids = self.query_ids
        return {
            metric: dict(zip(ids, self._scored(metric).tolist(), strict=True))
            for metric in self._metric_names
        }

    @property
    def metrics(self) -> dict[str, MeanScore]:
        """``{metric: mean}`` over the queries whose value is defined (all of them unless
        ``zero_division=np.nan``). Each mean is a :class:`~ragmeter.MeanScore`: a float that
        also says how many queries it is over (``n_queries``) and how many were undefined."""
        means = {}
        for metric in self._metric_names:
            raw = np.array([r.values[metric] for r in self.records], dtype=np.float64)
            scored = self._scored(metric)
            defined = scored[~np.isnan(scored)]
            means[metric] = MeanScore(
                float(defined.mean()) if defined.size else math.nan,
                n_queries=int(defined.size),
                n_undefined=int(np.isnan(raw).sum()),
                metric=metric,
            )
        return means

    @property
    def status_counts(self) -> dict[str, int]:
        """How many searches ended with each status (statuses that occurred only)."""
        counts = Counter(r.status for r in self.records)
        ordered = [s for s in STATUSES if s in counts] + sorted(set(counts) - set(STATUSES))
        return {status: counts[status] for status in ordered}

    @property
    def latency(self) -> dict[str, float]:
        """Seconds per search: ``mean``, ``p50``, ``p95`` (linear interpolation between order
        statistics, numpy's default), ``max`` and ``total`` (the sum over searches)."""
        seconds = np.array([r.latency for r in self.records], dtype=np.float64)
        return {
            "mean": float(seconds.mean()),
            "p50": float(np.percentile(seconds, 50)),
            "p95": float(np.percentile(seconds, 95)),
            "max": float(seconds.max()),
            "total": float(seconds.sum()),
        }

    def __getitem__(self, query_id: QueryId) -> QueryRecord:
        for record in self.records:
            if record.query_id == query_id and type(record.query_id) is type(query_id):
                return record
        raise KeyError(query_id)

    # -- comparisons ---------------------------------------------------------------------------

    def compare(self, baseline: RetrievalEvaluation, **options: Any) -> Comparison:
        """Compare this evaluation (the candidate) with ``baseline`` on the same queries.

        See :func:`ragmeter.compare_evaluations` for the options (``n_resamples``,
        ``random_state``, ``method``, ``confidence_level``, ``n_bootstrap``, ``metrics``).
        """
        from .stats import compare_evaluations

        return compare_evaluations(self, baseline, **options)

    # -- serialisation -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The full report: parameters, summaries and one entry per query (NaN as NaN)."""
        from . import __version__

        return {
            "kind": REPORT_KIND,
            "format_version": REPORT_VERSION,
            "ragmeter_version": __version__,
            "name": self.name,
            "n_queries": self.n_queries,
            "parameters": _parameters_to_plain(self.parameters),
            "metrics": {m: float(v) for m, v in self.metrics.items()},
            "metric_query_counts": {m: v.n_queries for m, v in self.metrics.items()},
            "status_counts": self.status_counts,
            "latency": self.latency,
            "queries": [r.to_dict() for r in self.records],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalEvaluation:
        """Rebuild an evaluation from :meth:`to_dict` output (summaries are recomputed)."""
        _check_kind(data)
        parameters = _parameters_from_plain(data.get("parameters"))
        metrics = list(parameters["metrics"])
        queries = data.get("queries") or ()
        if not isinstance(queries, list | tuple):
            raise InvalidInputError("queries: expected a list of query records")
        records = tuple(QueryRecord.from_dict(q, metrics) for q in queries)
        return cls(records=records, parameters=parameters, name=_report_name(data.get("name")))

    def to_rows(self) -> list[dict[str, Any]]:
        """One flat row per query (for JSONL, dataframes and log pipelines): the record's
        fields, one column per metric (the raw value, NaN when undefined), the evaluation's
        name and its parameters."""
        parameters = _parameters_to_plain(self.parameters)
        rows = []
        for record in self.records:
            row: dict[str, Any] = {"kind": REPORT_KIND, "name": self.name}
            row.update(record.to_dict())
            row.update(row.pop("values"))
            row["parameters"] = parameters
            rows.append(row)
        return rows

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> RetrievalEvaluation:
        if not rows:
            raise InvalidInputError("rows: an evaluation report needs at least one query row")
        for row in rows:
            _check_kind(row)
        parameters = _parameters_from_plain(rows[0].get("parameters"))
        metrics = list(parameters["metrics"])
        records = tuple(
            QueryRecord.from_dict({**row, "values": {m: row.get(m) for m in metrics}}, metrics)
            for row in rows
        )
        return cls(records=records, parameters=parameters, name=_report_name(rows[0].get("name")))

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> os.PathLike[str]:
        """Write the report to ``path``, atomically; the format comes from the suffix
        (``.json``, ``.jsonl``, ``.yaml``/``.yml``, ``.toml``) unless ``format`` is given."""
        return write_report(self, path, format=format)

    @classmethod
    def read(
        cls, path: str | os.PathLike[str], *, format: str | None = None
    ) -> RetrievalEvaluation:
        """Read a report written by :meth:`write`; the result equals the written evaluation.
        A file that is not exactly such a report (edited by hand, damaged) is an
        :class:`InvalidInputError` naming the file and the field."""
        return load_report(cls, path, format=format)

    def plot(self, path: str | os.PathLike[str] | None = None, **options: Any) -> Any:
        """Bar chart of the metric means (matplotlib; see :func:`ragmeter.plots.plot_metrics`)."""
        from .plots import plot_metrics

        return plot_metrics(self, path=path, **options)


def _zero_division_value(value: Any) -> str | float:
    if value == "nan" or value is None:
        return math.nan
    return value if value == "warn" else float(value)


def _parameters_to_plain(parameters: Mapping[str, Any]) -> dict[str, Any]:
    plain = dict(parameters)
    plain["metrics"] = list(plain.get("metrics", ()))
    zero = plain.get("zero_division", "warn")
    if isinstance(zero, float) and math.isnan(zero):
        # "nan" rather than NaN: JSON has no NaN and TOML none of null.
        plain["zero_division"] = "nan"
    return plain


def _parameters_from_plain(parameters: Any) -> dict[str, Any]:
    """The parameters of a report being read, each checked as evaluate_retrieval checks it."""
    if not isinstance(parameters, Mapping):
        raise InvalidInputError("parameters: expected a mapping holding at least 'metrics'")
    known = ("metrics", "relevance_threshold", "zero_division", "duplicates", "on_degraded")
    unknown = [key for key in parameters if key not in (*known, "retriever")]
    if unknown:
        raise InvalidInputError(f"parameters: {unknown[:5]} are not parameters of an evaluation")
    restored = dict(parameters)
    restored["metrics"] = check_metric_names(restored.get("metrics"), "parameters: metrics")
    if "zero_division" in restored:
        zero = restored["zero_division"]
        restored["zero_division"] = check_zero_division(math.nan if zero == "nan" else zero)
    if "relevance_threshold" in restored:
        check_threshold(restored["relevance_threshold"])
    for key, choices in (("duplicates", ("raise", "first")), ("on_degraded", ("raise", "warn"))):
        if key in restored:
            check_choice(key, restored[key], choices)
    if not isinstance(restored.get("retriever", ""), str):
        raise InvalidInputError("parameters: retriever must be the retriever's description")
    return restored


def _report_name(name: Any) -> str | None:
    if name is not None and not isinstance(name, str):
        raise InvalidInputError(f"name: expected a string or null, got {name!r}")
    return name


def _check_kind(data: Mapping[str, Any]) -> None:
    kind = data.get("kind") if isinstance(data, Mapping) else None
    if kind != REPORT_KIND:
        raise InvalidInputError(
            f"not a ragmeter retrieval evaluation report (kind {kind!r}, expected {REPORT_KIND!r})"
        )


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
        return search
    if callable(retriever):
        return retriever
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
        raise TypeError(
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
