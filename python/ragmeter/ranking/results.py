"""What an evaluation returns: values that say what they summarise.

* :class:`MeanScore` and :class:`CountScore`: a value over queries that says how many queries
  it is over;
* (:class:`~ragmeter.MetricResults`, what :func:`~ragmeter.ranking_metrics` and
  :func:`~ragmeter.evaluate_trec` return, and its saved form are in
  :mod:`~ragmeter.ranking.metric_results`);
* :class:`PerQueryResults`: one system's per-query values, the type every comparison reads
  (:func:`ragmeter.per_query_results` builds one from any result), with its exports to pandas,
  polars and pyarrow (the ``pandas``, ``polars`` and ``arrow`` extras, imported on first use).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from .._optional import import_optional
from ..exceptions import InvalidInputError
from ..options import shorten

__all__ = ["CountScore", "MeanScore", "PerQueryResults"]

QueryId = str | int
Form = Literal["long", "wide"]


class MeanScore(float):
    """A mean over queries that remembers what it averaged.

    It is a ``float`` (prints, compares and computes like one): ``MeanScore(value,
    n_queries=..., n_undefined=..., metric=...)``, with three attributes.

    Attributes
    ----------
    n_queries
        The number of queries (answers, for the answer metrics) in the mean.
    n_undefined
        The number of queries whose value was undefined (scored by ``zero_division``, or
        excluded when it is NaN).
    metric
        The metric's name.

    Examples
    --------
    >>> m = MeanScore(0.5, n_queries=4, n_undefined=1, metric="map")
    >>> m.describe()
    'map = 0.5000 over 4 queries (1 undefined)'
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
        """The mean in words.

        Returns
        -------
        str
            ``"ndcg@10 = 0.6956 over 2 queries (0 undefined)"``.
        """
        return (
            f"{self.metric} = {float(self):.4f} over {self.n_queries} queries "
            f"({self.n_undefined} undefined)"
        )


def _make_mean(value: float, n_queries: int, n_undefined: int, metric: str) -> MeanScore:
    return MeanScore(value, n_queries=n_queries, n_undefined=n_undefined, metric=metric)


class CountScore(int):
    """A total over queries (``num_ret``, ``num_rel``, ...) or the number of queries
    (``num_q``): an ``int`` that says over how many queries it was counted:
    ``CountScore(value, n_queries=..., metric=...)``.

    Attributes
    ----------
    n_queries
        The number of queries it was counted over.
    metric
        The measure's name.

    Examples
    --------
    >>> CountScore(1500, n_queries=3, metric="num_ret").describe()
    'num_ret = 1500 over 3 queries'
    """

    n_queries: int
    metric: str

    def __new__(cls, value: int, *, n_queries: int, metric: str) -> CountScore:
        self = super().__new__(cls, value)
        self.n_queries = n_queries
        self.metric = metric
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_count, (int(self), self.n_queries, self.metric))

    def describe(self) -> str:
        """The total in words.

        Returns
        -------
        str
            ``"num_ret = 1500 over 3 queries"``.
        """
        return f"{self.metric} = {int(self)} over {self.n_queries} queries"


def _make_count(value: int, n_queries: int, metric: str) -> CountScore:
    return CountScore(value, n_queries=n_queries, metric=metric)


def _shown(values: Sequence[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"


class PerQueryResults:
    """Per-query values of one system: ``{metric: {query_id: value}}``.

    Parameters
    ----------
    values
        ``{metric: values}``, each aligned with ``query_ids`` (a sequence or array), or
        ``{metric: {query_id: value}}`` (then ``query_ids`` may be omitted: the ids of the
        first metric, in order). NaN (or None) marks an undefined value.
    query_ids
        The queries (str or int ids, distinct). ``"1"`` and ``1`` are different queries: they
        are never paired with each other.
    name
        The system's name, used by comparisons, tables and plots.
    parameters
        The settings the values were computed with (``relevance_threshold``,
        ``zero_division``...); comparisons refuse systems whose settings differ.
    failed
        ``{metric: query ids}`` whose value is NaN because the evaluation failed there (a
        judge's error), not because the metric is undefined.
    missing_from_run, unjudged
        Judged queries the run did not rank and ranked queries without judgments, as
        :class:`~ragmeter.MetricResults` lists them.

    Raises
    ------
    InvalidInputError
        No metric or no query, repeated query ids, values not aligned with the query ids, a
        value that is not a number, an infinite value.

    Examples
    --------
    >>> run = PerQueryResults({"map": [0.5, 0.25], "ndcg@10": [1.0, float("nan")]},
    ...                       query_ids=["q1", "q2"], name="bm25")
    >>> run["map"]
    {'q1': 0.5, 'q2': 0.25}
    >>> run.means()["ndcg@10"].describe()
    'ndcg@10 = 1.0000 over 1 queries (1 undefined)'
    """

    def __init__(
        self,
        values: Mapping[str, Any],
        query_ids: Sequence[QueryId] | None = None,
        *,
        name: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        failed: Mapping[str, Sequence[QueryId]] | None = None,
        missing_from_run: Sequence[QueryId] = (),
        unjudged: Sequence[QueryId] = (),
    ) -> None:
        """See the class documentation."""
        if not isinstance(values, Mapping) or not values:
            raise InvalidInputError(
                "values: expected {metric: per-query values} with at least one metric"
            )
        metrics = list(values)
        for metric in metrics:
            if not isinstance(metric, str) or not metric:
                raise InvalidInputError(f"values: metric names must be strings, got {metric!r}")
        first = values[metrics[0]]
        if query_ids is None:
            if not isinstance(first, Mapping):
                raise InvalidInputError(
                    "query_ids: give the query ids when the values are sequences"
                )
            query_ids = list(first)
        ids = list(query_ids)
        _check_ids(ids)
        rows = []
        for metric in metrics:
            column = values[metric]
            if isinstance(column, Mapping):
                if set(column) != set(ids) or len(column) != len(ids):
                    extra = [q for q in column if q not in set(ids)]
                    absent = [q for q in ids if q not in column]
                    raise InvalidInputError(
                        f"values: {metric!r} has values for other queries than "
                        f"{metrics[0]!r}: {len(absent)} missing (e.g. {_shown(absent)}), "
                        f"{len(extra)} extra (e.g. {_shown(extra)})"
                    )
                column = [column[q] for q in ids]
            rows.append(_numbers(metric, column, len(ids)))
        matrix = np.array(rows, dtype=np.float64).reshape(len(metrics), len(ids))
        matrix.setflags(write=False)
        self._matrix = matrix
        self._metrics = tuple(metrics)
        self._query_ids = tuple(ids)
        self.name = name
        self.parameters: dict[str, Any] = dict(parameters or {})
        self.failed: dict[str, tuple[QueryId, ...]] = {
            m: tuple(q) for m, q in (failed or {}).items() if len(q)
        }
        self.missing_from_run = tuple(missing_from_run)
        self.unjudged = tuple(unjudged)

    # -- views ---------------------------------------------------------------------------------

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics, in order."""
        return self._metrics

    @property
    def query_ids(self) -> tuple[QueryId, ...]:
        """The queries, in order."""
        return self._query_ids

    @property
    def n_queries(self) -> int:
        """How many queries there are."""
        return len(self._query_ids)

    def array(self, metric: str | None = None) -> np.ndarray:
        """The values of one metric, or of every metric.

        Parameters
        ----------
        metric
            The metric; None: every metric.

        Returns
        -------
        numpy.ndarray
            Read-only: 1-D aligned with :attr:`query_ids`, or metrics x queries.

        Raises
        ------
        KeyError
            An unknown metric (the message names the metrics there are).
        """
        if metric is None:
            return self._matrix
        result: np.ndarray = self._matrix[self._row(metric)]
        return result

    def _row(self, metric: str) -> int:
        try:
            return self._metrics.index(metric)
        except ValueError:
            raise KeyError(
                f"{metric!r} is not among the metrics of {self.name or 'these results'}: "
                f"{list(self._metrics)}"
            ) from None

    def __getitem__(self, metric: str) -> dict[QueryId, float]:
        """``{query_id: value}`` of one metric (NaN where undefined)."""
        return dict(zip(self._query_ids, self.array(metric).tolist(), strict=True))

    def __contains__(self, metric: object) -> bool:
        return metric in self._metrics

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def __eq__(self, other: object) -> bool:
        """Equal names, metrics, query ids, values (NaN equal to NaN) and failures."""
        if not isinstance(other, PerQueryResults):
            return NotImplemented
        return (
            self.name == other.name
            and self._metrics == other._metrics
            and self._query_ids == other._query_ids
            and np.array_equal(self._matrix, other._matrix, equal_nan=True)
            and self.failed == other.failed
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"PerQueryResults(name={self.name!r}, metrics={list(self._metrics)}, "
            f"n_queries={self.n_queries})"
        )

    def to_dict(self) -> dict[str, dict[QueryId, float]]:
        """All the values.

        Returns
        -------
        dict
            ``{metric: {query_id: value}}`` (NaN where undefined).
        """
        return {metric: self[metric] for metric in self._metrics}

    def means(self) -> dict[str, MeanScore]:
        """Every metric's mean over the queries where its value is defined.

        Returns
        -------
        dict
            ``{metric: MeanScore}``: each mean says over how many queries it is and how many were
            undefined (a failed value counts as undefined).
        """
        means = {}
        for row, metric in enumerate(self._metrics):
            values = self._matrix[row]
            defined = values[~np.isnan(values)]
            means[metric] = MeanScore(
                float(defined.mean()) if defined.size else math.nan,
                n_queries=int(defined.size),
                n_undefined=int(values.size - defined.size),
                metric=metric,
            )
        return means

    def select(
        self, query_ids: Sequence[QueryId] | None = None, metrics: Sequence[str] | None = None
    ) -> PerQueryResults:
        """The values of some queries (in the given order) and some metrics.

        Parameters
        ----------
        query_ids
            The queries (default: all, in order).
        metrics
            The metrics (default: all).

        Returns
        -------
        PerQueryResults
            The selection, with the same name and settings.

        Raises
        ------
        KeyError
            A query or metric that is not here.
        """
        ids = list(self._query_ids if query_ids is None else query_ids)
        names = list(self._metrics if metrics is None else metrics)
        position = {q: i for i, q in enumerate(self._query_ids)}
        missing = [q for q in ids if q not in position]
        if missing:
            raise KeyError(f"queries {_shown(missing)} are not in {self.name or 'these results'}")
        columns = [position[q] for q in ids]
        kept = set(ids)
        return PerQueryResults(
            {m: self._matrix[self._row(m)][columns] for m in names},
            ids,
            name=self.name,
            parameters=self.parameters,
            failed={m: [q for q in self.failed.get(m, ()) if q in kept] for m in names},
            missing_from_run=self.missing_from_run,
            unjudged=self.unjudged,
        )

    def renamed(self, name: str | None) -> PerQueryResults:
        """The same values under another system name.

        Parameters
        ----------
        name
            The new name.

        Returns
        -------
        PerQueryResults
            A copy sharing the (read-only) values.
        """
        copy = PerQueryResults.__new__(PerQueryResults)
        copy.__dict__.update(self.__dict__)
        copy.name = name
        return copy

    # -- exports -------------------------------------------------------------------------------

    def _records(self, form: Form) -> tuple[list[str], dict[str, list[Any]]]:
        if form not in ("long", "wide"):
            raise InvalidInputError(f"form: must be 'long' or 'wide', got {form!r}")
        ids = list(self._query_ids)
        system = [] if self.name is None else ["system"]
        if form == "wide":
            columns = [*system, "query_id", *self._metrics]
            data: dict[str, list[Any]] = {"query_id": ids}
            for row, metric in enumerate(self._metrics):
                data[metric] = self._matrix[row].tolist()
        else:
            columns = [*system, "query_id", "metric", "value", "status"]
            failed = {(m, q) for m, qs in self.failed.items() for q in qs}
            data = {"query_id": [], "metric": [], "value": [], "status": []}
            for row, metric in enumerate(self._metrics):
                for query_id, value in zip(ids, self._matrix[row].tolist(), strict=True):
                    data["query_id"].append(query_id)
                    data["metric"].append(metric)
                    data["value"].append(value)
                    data["status"].append(
                        "failed"
                        if (metric, query_id) in failed
                        else "undefined"
                        if math.isnan(value)
                        else "ok"
                    )
        if system:
            data["system"] = [self.name] * len(data["query_id"])
        return columns, {c: data[c] for c in columns}

    def to_pandas(self, form: Form = "wide") -> Any:
        """A pandas DataFrame of the values (the ``pandas`` extra).

        Parameters
        ----------
        form
            ``"wide"``: one row per query, a ``query_id`` column and one column per metric;
            ``"long"``: one row per (query, metric) with ``value`` and ``status`` (``ok``,
            ``undefined`` or ``failed``). A ``system`` column comes first when the results have a
            name. Undefined values are NaN.

        Returns
        -------
        pandas.DataFrame
            The table.

        Raises
        ------
        InvalidInputError
            An unknown ``form``.
        MissingDependencyError
            pandas is not installed.
        """
        pd = import_optional("pandas", extra="pandas", purpose="PerQueryResults.to_pandas()")
        columns, data = self._records(form)
        return pd.DataFrame(data, columns=columns)

    def to_polars(self, form: Form = "wide") -> Any:
        """A polars DataFrame of the values (the ``polars`` extra).

        Parameters
        ----------
        form
            ``"wide"``: one row per query, a ``query_id`` column and one column per metric;
            ``"long"``: one row per (query, metric) with ``value`` and ``status`` (``ok``,
            ``undefined`` or ``failed``). A ``system`` column comes first when the results have a
            name. Undefined values are NaN.

        Returns
        -------
        polars.DataFrame
            The table.

        Raises
        ------
        InvalidInputError
            An unknown ``form``.
        MissingDependencyError
            polars is not installed.
        """
        pl = import_optional("polars", extra="polars", purpose="PerQueryResults.to_polars()")
        columns, data = self._records(form)
        return pl.DataFrame(data, strict=False).select(columns)

    def to_arrow(self, form: Form = "wide") -> Any:
        """A ``pyarrow.Table`` of the values (the ``arrow`` extra).

        Parameters
        ----------
        form
            ``"wide"``: one row per query, a ``query_id`` column and one column per metric;
            ``"long"``: one row per (query, metric) with ``value`` and ``status`` (``ok``,
            ``undefined`` or ``failed``). A ``system`` column comes first when the results have a
            name. Undefined values are NaN.

        Returns
        -------
        pyarrow.Table
            The table.

        Raises
        ------
        InvalidInputError
            An unknown ``form``.
        MissingDependencyError
            pyarrow is not installed.
        """
        pa = import_optional("pyarrow", extra="arrow", purpose="PerQueryResults.to_arrow()")
        columns, data = self._records(form)
        return pa.table({c: data[c] for c in columns})


def _check_ids(ids: list[Any]) -> None:
    if not ids:
        raise InvalidInputError("query_ids: there is no query")
    for query_id in ids:
        if isinstance(query_id, bool) or not isinstance(query_id, str | int | np.integer):
            raise InvalidInputError(
                f"query_ids: query ids must be str or int, got {query_id!r} "
                f"({type(query_id).__name__})"
            )
    if len(set(ids)) != len(ids):
        seen: set[Any] = set()
        repeated = [q for q in ids if q in seen or seen.add(q)]  # type: ignore[func-returns-value]
        raise InvalidInputError(f"query_ids: {_shown(repeated)} appear more than once")


def _numbers(metric: str, column: Any, n: int) -> list[float]:
    if isinstance(column, str | bytes) or not hasattr(column, "__len__"):
        raise InvalidInputError(
            f"values: {metric!r} must be one value per query, got {type(column).__name__}"
        )
    if len(column) != n:
        raise InvalidInputError(
            f"values: {metric!r} has {len(column)} values for {n} queries; align them"
        )
    numbers = []
    for value in list(column):
        if value is None:
            numbers.append(math.nan)
            continue
        if isinstance(value, bool | np.bool_ | np.complexfloating) or not isinstance(
            value, int | float | np.number
        ):
            raise InvalidInputError(
                f"values: {metric!r} holds {shorten(value)} ({type(value).__name__}), not a "
                "number; per-query values are numbers (text measures such as runid cannot be "
                "compared)"
            )
        try:
            number = float(value)
        except OverflowError:
            raise InvalidInputError(
                f"values: {metric!r} holds {shorten(value)}, too large for a 64-bit float; "
                "per-query values are finite numbers"
            ) from None
        if math.isinf(number):
            raise InvalidInputError(f"values: {metric!r} holds an infinite value")
        numbers.append(number)
    return numbers
