"""The report of a retrieval evaluation: one record per query, summaries derived from them.

:class:`RetrievalEvaluation` is what :func:`~ragmeter.evaluate_retrieval` returns: a
:class:`QueryRecord` per query (its ranking, status, latency and metric values) and the
parameters the metrics were computed with. Every summary (means, per-query values, statuses,
latency) is derived from the records. It is written to and read from JSON, JSONL, YAML and
TOML (validated on reading), compared with other per-query results
(:meth:`RetrievalEvaluation.compare`, :func:`ragmeter.compare_many`) and plotted.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ._nan_equal import canonical
from ._notebook import NotebookDisplay
from .exceptions import InvalidInputError
from .manifest import RANKING_SETTINGS, Manifest
from .options import EvaluationOptions, check_choice, check_threshold, check_zero_division
from .per_query import PerQueryResults
from .plots import plot_metrics
from .ranking import MeanScore
from .ranking.names import check_metric_names
from .reports import (
    check_saved_head,
    load_report,
    metric_value,
    report_number,
    saved_head,
    write_report,
)
from .stats.comparison import compare
from .stats.results import Comparison

__all__ = [
    "INCOMPLETE_STATUSES",
    "REPORT_KIND",
    "STATUSES",
    "QueryId",
    "QueryRecord",
    "RetrievalEvaluation",
]

QueryId = str | int
#: Every status a search can have, in the order reports list them.
STATUSES: tuple[str, ...] = ("success", "empty", "degraded", "failed", "cancelled")
#: Statuses of a search that did not run completely (raise unless ``on_degraded="warn"``).
INCOMPLETE_STATUSES = frozenset({"degraded", "failed", "cancelled"})
REPORT_KIND = "ragmeter.retrieval_evaluation"
REPORT_VERSION = 1


@dataclass(frozen=True, eq=False)
class QueryRecord:
    """What happened to one query.

    Parameters
    ----------
    query_id
        The query's id (str or int).
    query
        Its text.
    status
        How the search ended: one of :data:`STATUSES`.
    latency
        The wall-clock time of the search call, in seconds.
    retrieved
        The ranked document ids.
    values
        The metric values as computed, NaN where a metric is undefined for this query (no
        relevant document, or no positive grade for nDCG); the evaluation's ``zero_division``
        decides what an undefined value counts as.
    error
        Why a search failed or degraded (None when it did not).
    """

    query_id: QueryId
    query: str
    status: str
    latency: float
    retrieved: tuple[Any, ...]
    values: Mapping[str, float]
    error: str | None = None

    def __eq__(self, other: object) -> bool:
        """Equal fields, NaN equal to NaN."""
        if not isinstance(other, QueryRecord):
            return NotImplemented
        result: bool = canonical(self.to_dict()) == canonical(other.to_dict())
        return result

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """The record as a dict.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN).
        """
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
        """Rebuild a record of a report, checking every field (a report read from a file may have
        been edited).

        Parameters
        ----------
        data
            What :meth:`to_dict` returned.
        metrics
            The evaluation's metrics (the values must be theirs).

        Returns
        -------
        QueryRecord
            The rebuilt record.

        Raises
        ------
        InvalidInputError
            A field of the wrong type or out of range, an unknown status or metric.
        """
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
class RetrievalEvaluation(NotebookDisplay):
    """The result of :func:`~ragmeter.evaluate_retrieval`: one :class:`QueryRecord` per query
    plus the parameters the metrics were computed with.

    Every summary is derived from the records: :attr:`metrics` (means), :attr:`per_query`,
    :attr:`status_counts`, :attr:`latency`. Two evaluations are equal when their name,
    parameters and records are equal, NaN included.

    Parameters
    ----------
    records
        One record per query (distinct query ids, at least one).
    parameters
        The settings of the evaluation: ``metrics`` (required), ``relevance_threshold``,
        ``zero_division``, ``duplicates``, ``on_degraded``, ``retriever``.
    name
        The system's name, used in comparisons, reports and plots.

    Raises
    ------
    InvalidInputError
        No record, no metric, a query id twice.
    """

    records: tuple[QueryRecord, ...]
    parameters: Mapping[str, Any]
    name: str | None = None

    #: What a saved evaluation's ``kind`` field says (its schema: ``ragmeter.schemas``).
    KIND: ClassVar[str] = REPORT_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = REPORT_VERSION
    #: The report formats :meth:`read` reads.
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = (REPORT_VERSION,)
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
        """Equal names, parameters and records, NaN equal to NaN."""
        if not isinstance(other, RetrievalEvaluation):
            return NotImplemented
        return (
            self.name == other.name
            and canonical(dict(self.parameters)) == canonical(dict(other.parameters))
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
        """The evaluated metrics, in order."""
        return self._metric_names

    @property
    def n_queries(self) -> int:
        """How many queries were searched."""
        return len(self.records)

    @property
    def query_ids(self) -> list[QueryId]:
        """The queries, in order."""
        return [r.query_id for r in self.records]

    @property
    def zero_division(self) -> str | float:
        """What an undefined value counts as (``"warn"``: 0 with a warning; NaN: left out)."""
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
        """The record of one query (``KeyError`` when there is none)."""
        for record in self.records:
            if record.query_id == query_id and type(record.query_id) is type(query_id):
                return record
        raise KeyError(query_id)

    # -- comparisons ---------------------------------------------------------------------------

    def per_query_results(self) -> PerQueryResults:
        """The per-query values as :class:`~ragmeter.PerQueryResults`: what
        :func:`ragmeter.compare` and the plots read.

        Returns
        -------
        PerQueryResults
            Undefined values as ``zero_division`` says (as in :attr:`per_query`), with the
            evaluation's name and the settings that decide what the values mean
            (``relevance_threshold``, ``zero_division``).
        """
        return PerQueryResults(
            {metric: self._scored(metric) for metric in self._metric_names},
            self.query_ids,
            name=self.name,
            manifest=self.manifest,
        )

    @property
    def manifest(self) -> Manifest:
        """What made the values: ``"ragmeter.retrieval"``, each metric's definition and the
        settings that change the numbers (``relevance_threshold`` and ``zero_division`` from
        the parameters; every judged query is searched and every retrieved document counts:
        ``missing="raise"``, ``max_docs`` none, ``judged_docs_only`` False); a report without
        ``relevance_threshold`` or ``zero_division`` in its parameters lists them as unknown."""
        known = {k: self.parameters[k] for k in RANKING_SETTINGS if k in self.parameters}
        options = EvaluationOptions(**known)
        made = Manifest.of_evaluation("ragmeter.retrieval", options, self._metric_names)
        unknown = tuple(k for k in ("relevance_threshold", "zero_division") if k not in known)
        settings = {k: v for k, v in made.settings.items() if k not in unknown}
        return made.replace(settings=settings, unknown=unknown)

    def compare(self, baseline: Any, **options: Any) -> Comparison:
        """Compare this evaluation (the candidate) with a baseline on the same queries.

        Parameters
        ----------
        baseline
            Any per-query results of the same queries (:func:`~ragmeter.per_query_results`).
        options
            The options of :func:`ragmeter.compare` (``test``, ``n_resamples``, ``random_state``,
            ``method``, ``confidence_level``, ``n_bootstrap``, ``metrics``, ``missing``...).

        Returns
        -------
        Comparison
            One :class:`~ragmeter.MetricComparison` per metric and the per-query differences.

        Raises
        ------
        InvalidInputError
            Different query sets, evaluations with different ``relevance_threshold`` or
            ``zero_division``, bad options.
        """
        return compare(self, baseline, **options)

    # -- serialisation -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The full report: parameters, summaries and one entry per query.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN; report writers turn it into null).
        """
        return {
            **saved_head(self),
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
        """Rebuild an evaluation from :meth:`to_dict` output (summaries are recomputed).

        Parameters
        ----------
        data
            What :meth:`to_dict` returned (or a report file held).

        Returns
        -------
        RetrievalEvaluation
            The rebuilt evaluation.

        Raises
        ------
        InvalidInputError
            Not such a report, a field of the wrong type or out of range.
        """
        _check_kind(data)
        parameters = _parameters_from_plain(data.get("parameters"))
        metrics = list(parameters["metrics"])
        queries = data.get("queries") or ()
        if not isinstance(queries, list | tuple):
            raise InvalidInputError("queries: expected a list of query records")
        records = tuple(QueryRecord.from_dict(q, metrics) for q in queries)
        return cls(records=records, parameters=parameters, name=_report_name(data.get("name")))

    def to_rows(self) -> list[dict[str, Any]]:
        """One flat row per query (for JSONL, dataframes and log pipelines).

        Returns
        -------
        list of dict
            The record's fields, one column per metric (the raw value, NaN when undefined), the
            evaluation's name and its parameters.
        """
        parameters = _parameters_to_plain(self.parameters)
        rows = []
        for record in self.records:
            row: dict[str, Any] = {"kind": self.KIND, "name": self.name}
            row.update(record.to_dict())
            row.update(row.pop("values"))
            row["parameters"] = parameters
            rows.append(row)
        return rows

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> RetrievalEvaluation:
        """Rebuild an evaluation from :meth:`to_rows` output.

        Parameters
        ----------
        rows
            One row per query.

        Returns
        -------
        RetrievalEvaluation
            The rebuilt evaluation.
        """
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
        """Write the report to a file, atomically.

        Parameters
        ----------
        path
            The file; its suffix gives the format (``.json``, ``.jsonl``, ``.yaml``/``.yml``,
            ``.toml``).
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return write_report(self, path, format=format)

    @classmethod
    def read(
        cls, path: str | os.PathLike[str], *, format: str | None = None
    ) -> RetrievalEvaluation:
        """Read a report written by :meth:`write`.

        Parameters
        ----------
        path
            The report file.
        format
            Its format, when the suffix does not say it.

        Returns
        -------
        RetrievalEvaluation
            The evaluation (equal to the one written).

        Raises
        ------
        InvalidInputError
            A file that is not exactly such a report (edited by hand, damaged), naming the file and
            the field.
        """
        return load_report(cls, path, format=format)

    def plot(self, path: str | os.PathLike[str] | None = None, **options: Any) -> Any:
        """Bar chart of the metric means (:func:`ragmeter.plots.plot_metrics`; the ``plot``
        extra).

        Parameters
        ----------
        path
            Where to save the figure.
        options
            Passed to :func:`~ragmeter.plots.plot_metrics` (``metrics``, ``ax``).

        Returns
        -------
        matplotlib.figure.Figure
            The figure.
        """
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
    if not isinstance(data, Mapping) or data.get("kind") != REPORT_KIND:
        kind = data.get("kind") if isinstance(data, Mapping) else None
        raise InvalidInputError(
            f"not a ragmeter retrieval evaluation report (kind {kind!r}, expected {REPORT_KIND!r})"
        )
    if "format_version" in data:  # a JSONL row has no head but its kind
        check_saved_head(data, RetrievalEvaluation, "a retrieval evaluation")
