"""The forms of per-item values besides the object: the checks of values being made, the
saved form (a file of kind ``"ragmeter.per_query"``) and the tables (pandas, polars, pyarrow).

:class:`~ragmeter.PerQueryResults` inherits :class:`PerQueryForms`; its saved result is
:class:`~ragmeter.per_query.SavedPerQueryResults`. The helpers check what a constructor or a
file gives: item ids, numbers, an item's repeats (its value is their mean).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np

from ._optional import import_optional
from .exceptions import InvalidInputError
from .manifest import Manifest
from .options import shorten
from .reports import check_saved_head, report_number, saved_head

__all__ = [
    "PER_QUERY_KIND",
    "PerQueryForms",
    "SavedHead",
    "as_list",
    "as_mapping",
    "cells",
    "check_ids",
    "id_list",
    "item_id",
    "mean_of_usable",
    "number_of",
    "repeat_numbers",
    "repeats_key",
    "same_value",
    "shown",
]

QueryId = str | int
Form = Literal["long", "wide"]
#: The ``kind`` of a saved :class:`~ragmeter.PerQueryResults`.
PER_QUERY_KIND = "ragmeter.per_query"
_SAVED_FIELDS = (
    "kind",
    "format_version",
    "ragmeter_version",
    "name",
    "manifest",
    "query_ids",
    "values",
    "repeats",
    "failed",
    "clusters",
    "missing_from_run",
    "unjudged",
)
_ROW_FIELDS = (
    "kind",
    "format_version",
    "ragmeter_version",
    "name",
    "manifest",
    "query_id",
    "values",
    "repeats",
    "failed",
    "cluster",
    "missing_from_run",
    "unjudged",
)


class SavedHead:
    """The head of a saved :class:`~ragmeter.PerQueryResults` (its kind and formats)."""

    KIND: ClassVar[str] = PER_QUERY_KIND
    FORMAT_VERSION: ClassVar[int] = 1
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = (1,)


#: The head as the saved-result helpers take it (they read its three class attributes).
_HEAD: Any = SavedHead


def shown(values: Sequence[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"


def mean_of_usable(values: Sequence[float]) -> float:
    """The mean of the usable (not NaN) values; NaN when there is none."""
    usable = [v for v in values if not math.isnan(v)]
    return math.fsum(usable) / len(usable) if usable else math.nan


def same_value(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def item_id(value: Any, where: str) -> QueryId:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(
            f"{where}: ids are str or int, got {value!r} ({type(value).__name__})"
        )
    return value


def repeats_key(repeats: Mapping[str, Mapping[Any, tuple[float, ...]]]) -> Any:
    return {
        m: {(type(q), q): tuple("nan" if math.isnan(v) else v for v in r) for q, r in by.items()}
        for m, by in repeats.items()
    }


def check_ids(ids: list[Any]) -> None:
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
        raise InvalidInputError(f"query_ids: {shown(repeated)} appear more than once")


def number_of(metric: str, value: Any) -> float:
    if value is None:
        return math.nan
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
    return number


def repeat_numbers(metric: str, item: Any, sequence: Any) -> tuple[float, ...]:
    if isinstance(sequence, str | bytes | Mapping) or not isinstance(
        sequence, Sequence | np.ndarray
    ):
        raise InvalidInputError(
            f"repeats: {metric!r} of {item!r} must be a list of numbers (NaN or None: a repeat "
            f"without a usable value), got {shorten(sequence)}"
        )
    numbers = tuple(number_of(metric, v) for v in list(sequence))
    if not numbers:
        raise InvalidInputError(f"repeats: {metric!r} of {item!r} has no repeat")
    return numbers


def cells(
    metric: str, column: Any, ids: Sequence[QueryId]
) -> tuple[list[float], dict[QueryId, tuple[float, ...]]]:
    """The values of one metric (a list cell is an item's repeats: its value is their mean)."""
    if isinstance(column, str | bytes) or not hasattr(column, "__len__"):
        raise InvalidInputError(
            f"values: {metric!r} must be one value per query, got {type(column).__name__}"
        )
    if len(column) != len(ids):
        raise InvalidInputError(
            f"values: {metric!r} has {len(column)} values for {len(ids)} queries; align them"
        )
    if isinstance(column, np.ndarray) and column.ndim == 1 and column.dtype.kind in "fiu":
        numbers = column.astype(np.float64).tolist()
        if any(math.isinf(v) for v in numbers):
            raise InvalidInputError(f"values: {metric!r} holds an infinite value")
        return numbers, {}
    numbers = []
    repeats: dict[QueryId, tuple[float, ...]] = {}
    for item, cell in zip(ids, list(column), strict=True):
        if isinstance(cell, list | tuple):
            given = repeat_numbers(metric, item, cell)
            repeats[item] = given
            numbers.append(mean_of_usable(given))
        else:
            numbers.append(number_of(metric, cell))
    return numbers, repeats


def as_list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise InvalidInputError(f"{field}: expected a list, got {shorten(value)}")
    return list(value)


def as_mapping(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{field}: expected a mapping, got {shorten(value)}")
    return value


def id_list(value: Any, field: str, distinct: bool = True) -> list[QueryId]:
    ids = [item_id(q, field) for q in as_list(value, field)]
    if distinct and len({(type(q), q) for q in ids}) != len(ids):
        raise InvalidInputError(f"{field}: an id appears more than once")
    return ids


class PerQueryForms:
    """The saved form and the tables of :class:`~ragmeter.PerQueryResults` (which defines the
    attributes these read)."""

    name: str | None
    manifest: Manifest
    failed: dict[str, tuple[QueryId, ...]]
    missing_from_run: tuple[QueryId, ...]
    unjudged: tuple[QueryId, ...]
    _metrics: tuple[str, ...]
    _query_ids: tuple[QueryId, ...]
    _position: dict[QueryId, int]
    _matrix: np.ndarray
    _repeats: Mapping[str, Mapping[QueryId, tuple[float, ...]]]
    _clusters: tuple[QueryId, ...] | None

    def saved_dict(self) -> dict[str, Any]:
        """The saved form (what ``write`` writes as JSON, YAML or TOML): the head
        (``kind``, ``format_version``, ``ragmeter_version``), ``name``, ``manifest``,
        ``query_ids``, ``values`` (``{metric: values aligned with query_ids}``, NaN where
        undefined), ``repeats`` (``{metric: {"items": positions, "values": repeats}}``),
        ``failed``, ``clusters`` (aligned with ``query_ids``, when there are clusters),
        ``missing_from_run`` and ``unjudged``.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN: the writers make it null in JSON).
        """
        data: dict[str, Any] = {
            **saved_head(_HEAD),
            "name": self.name,
            "manifest": self.manifest.to_dict(),
            "query_ids": list(self._query_ids),
            "values": {m: self._matrix[i].tolist() for i, m in enumerate(self._metrics)},
            "repeats": {
                m: {
                    "items": [self._position[q] for q in by_item],
                    "values": [list(r) for r in by_item.values()],
                }
                for m, by_item in self._repeats.items()
            },
            "failed": {m: list(q) for m, q in self.failed.items()},
        }
        if self._clusters is not None:
            data["clusters"] = list(self._clusters)
        data["missing_from_run"] = list(self.missing_from_run)
        data["unjudged"] = list(self.unjudged)
        return data

    @classmethod
    def from_saved_dict(cls, data: Mapping[str, Any]) -> Any:
        """Rebuild values from :meth:`saved_dict` output, checking every field.

        Parameters
        ----------
        data
            The saved form.

        Returns
        -------
        PerQueryResults
            The values.

        Raises
        ------
        InvalidInputError
            Another kind, a format this version does not read, a missing, unknown or wrongly
            typed field, values not aligned with their ids.
        """
        check_saved_head(data, _HEAD, "per-query values")
        for key in data:
            if key not in _SAVED_FIELDS:
                raise InvalidInputError(f"{key}: a field ragmeter does not write")
        ids = id_list(data.get("query_ids"), "query_ids")
        values = as_mapping(data.get("values"), "values")
        matrix = {
            m: [
                report_number(v, f"values.{m}[{i}]")
                for i, v in enumerate(as_list(c, f"values.{m}"))
            ]
            for m, c in values.items()
        }
        repeats: dict[str, dict[QueryId, list[float]]] = {}
        for metric, entry in as_mapping(data.get("repeats", {}), "repeats").items():
            where = f"repeats.{metric}"
            entry = as_mapping(entry, where)
            positions = as_list(entry.get("items"), f"{where}.items")
            lists = as_list(entry.get("values"), f"{where}.values")
            if set(entry) != {"items", "values"} or len(positions) != len(lists):
                raise InvalidInputError(f"{where}: expected items and values of one length")
            for position, numbers in zip(positions, lists, strict=True):
                if isinstance(position, bool) or not isinstance(position, int):
                    raise InvalidInputError(f"{where}.items: {position!r} is not a position")
                if not 0 <= position < len(ids):
                    raise InvalidInputError(f"{where}.items: {position} is not a position")
                repeats.setdefault(metric, {})[ids[position]] = [
                    report_number(v, f"{where}.values") for v in as_list(numbers, f"{where}.values")
                ]
        clusters = data.get("clusters")
        if clusters is not None:
            clusters = dict(zip(ids, id_list(clusters, "clusters", distinct=False), strict=False))
            if len(data["clusters"]) != len(ids):
                raise InvalidInputError("clusters: one cluster per query id")
        failed = {
            m: id_list(q, f"failed.{m}")
            for m, q in as_mapping(data.get("failed", {}), "failed").items()
        }
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise InvalidInputError(f"name: expected a string or null, got {shorten(name)}")
        build: Any = cls  # PerQueryResults, which inherits these methods
        return build(
            matrix,
            ids,
            name=name,
            manifest=Manifest.from_dict(data.get("manifest")),
            repeats=repeats,
            clusters=clusters,
            failed=failed,
            missing_from_run=id_list(data.get("missing_from_run"), "missing_from_run", False),
            unjudged=id_list(data.get("unjudged"), "unjudged", False),
        )

    def saved_rows(self) -> list[dict[str, Any]]:
        """One row per item (JSONL): the head, ``name``, ``manifest``, ``query_id``, ``values``
        (``{metric: value}``), ``repeats`` (``{metric: repeats}`` of this item), ``failed``
        (the metrics that failed here), ``cluster`` (with clusters), ``missing_from_run`` and
        ``unjudged``.

        Returns
        -------
        list of dict
            The rows.
        """
        head = {**saved_head(_HEAD), "name": self.name, "manifest": self.manifest.to_dict()}
        rows = []
        for i, item in enumerate(self._query_ids):
            row: dict[str, Any] = {
                **head,
                "query_id": item,
                "values": {m: float(self._matrix[r, i]) for r, m in enumerate(self._metrics)},
                "repeats": {
                    m: list(by_item[item])
                    for m, by_item in self._repeats.items()
                    if item in by_item
                },
                "failed": [m for m in self._metrics if item in self.failed.get(m, ())],
            }
            if self._clusters is not None:
                row["cluster"] = self._clusters[i]
            row["missing_from_run"] = list(self.missing_from_run)
            row["unjudged"] = list(self.unjudged)
            rows.append(row)
        return rows

    @classmethod
    def from_saved_rows(cls, rows: Sequence[Mapping[str, Any]]) -> Any:
        """Rebuild values from :meth:`saved_rows` output, checking every field.

        Parameters
        ----------
        rows
            One row per item.

        Returns
        -------
        PerQueryResults
            The values.

        Raises
        ------
        InvalidInputError
            No row, rows of different systems or manifests, a missing, unknown or wrongly typed
            field.
        """
        if not rows:
            raise InvalidInputError("rows: per-query values have one row per item, got none")
        first = rows[0]
        shared = ("kind", "format_version", "name", "manifest", "missing_from_run", "unjudged")
        metrics: list[str] = []
        ids: list[QueryId] = []
        values: dict[str, list[float]] = {}
        repeats: dict[str, dict[QueryId, list[float]]] = {}
        failed: dict[str, list[QueryId]] = {}
        clusters: dict[QueryId, Any] = {}
        for number, row in enumerate(rows, start=1):
            where = f"row {number}"
            check_saved_head(row, _HEAD, "per-query values")
            for key in row:
                if key not in _ROW_FIELDS:
                    raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
            for key in shared:
                if row.get(key) != first.get(key):
                    raise InvalidInputError(f"{where}.{key}: not the {key} of row 1")
            item = item_id(row.get("query_id"), f"{where}.query_id")
            ids.append(item)
            row_values = as_mapping(row.get("values"), f"{where}.values")
            if number == 1:
                metrics = list(row_values)
            elif list(row_values) != metrics:
                raise InvalidInputError(f"{where}.values: not the metrics of row 1 ({metrics})")
            for metric, value in row_values.items():
                values.setdefault(metric, []).append(
                    report_number(value, f"{where}.values.{metric}")
                )
            for metric, numbers in as_mapping(row.get("repeats", {}), f"{where}.repeats").items():
                repeats.setdefault(metric, {})[item] = [
                    report_number(v, f"{where}.repeats.{metric}")
                    for v in as_list(numbers, f"{where}.repeats.{metric}")
                ]
            for metric in as_list(row.get("failed", []), f"{where}.failed"):
                failed.setdefault(str(metric), []).append(item)
            if "cluster" in row:
                clusters[item] = row["cluster"]
        if clusters and len(clusters) != len(ids):
            raise InvalidInputError("rows: some rows have a cluster and others not")
        name = first.get("name")
        if name is not None and not isinstance(name, str):
            raise InvalidInputError(f"name: expected a string or null, got {shorten(name)}")
        build: Any = cls  # PerQueryResults, which inherits these methods
        return build(
            values,
            ids,
            name=name,
            manifest=Manifest.from_dict(first.get("manifest")),
            repeats=repeats,
            clusters=clusters or None,
            failed=failed,
            missing_from_run=id_list(first.get("missing_from_run"), "missing_from_run", False),
            unjudged=id_list(first.get("unjudged"), "unjudged", False),
        )

    def _records(self, form: Form) -> tuple[list[str], dict[str, list[Any]]]:
        if form not in ("long", "wide"):
            raise InvalidInputError(f"form: must be 'long' or 'wide', got {form!r}")
        ids = list(self._query_ids)
        system = [] if self.name is None else ["system"]
        cluster = [] if self._clusters is None else ["cluster"]
        if form == "wide":
            columns = [*system, "query_id", *cluster, *self._metrics]
            data: dict[str, list[Any]] = {"query_id": ids}
            if self._clusters is not None:
                data["cluster"] = list(self._clusters)
            for row, metric in enumerate(self._metrics):
                data[metric] = self._matrix[row].tolist()
        else:
            repeat = ["repeat"] if self._repeats else []
            columns = [*system, "query_id", *cluster, "metric", *repeat, "value", "status"]
            failed = {(m, q) for m, qs in self.failed.items() for q in qs}
            data = {c: [] for c in ("query_id", "cluster", "metric", "repeat", "value", "status")}
            for row, metric in enumerate(self._metrics):
                for i, (item, value) in enumerate(
                    zip(ids, self._matrix[row].tolist(), strict=True)
                ):
                    status = (
                        "failed"
                        if (metric, item) in failed
                        else "undefined"
                        if math.isnan(value)
                        else "ok"
                    )
                    given = self._repeats.get(metric, {}).get(item)
                    cells = [(None, value)] if given is None else list(enumerate(given))
                    for number, cell in cells:
                        data["query_id"].append(item)
                        data["cluster"].append(
                            None if self._clusters is None else self._clusters[i]
                        )
                        data["metric"].append(metric)
                        data["repeat"].append(number)
                        data["value"].append(cell)
                        data["status"].append(status)
        if system:
            data["system"] = [self.name] * len(data["query_id"])
        return columns, {c: data[c] for c in columns}

    def to_pandas(self, form: Form = "wide") -> Any:
        """A pandas DataFrame of the values (the ``pandas`` extra).

        Parameters
        ----------
        form
            ``"wide"``: one row per item, a ``query_id`` column and one column per metric
            (a repeated item's mean); ``"long"``: one row per (item, metric) with ``value`` and
            ``status`` (``ok``, ``undefined`` or ``failed``), and with repeats one row per
            repeat, numbered in a ``repeat`` column (empty for items without repeats). A
            ``system`` column comes first when the results have a name, a ``cluster`` column
            follows ``query_id`` when they have clusters. Undefined values are NaN.
            :func:`ragmeter.io.read_per_query` reads either form back from CSV, TSV, Parquet
            and JSON lines.

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
        """A polars DataFrame of the values (the ``polars`` extra; the columns of
        :meth:`to_pandas`).

        Parameters
        ----------
        form
            ``"wide"`` or ``"long"`` (see :meth:`to_pandas`).

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
        """A ``pyarrow.Table`` of the values (the ``arrow`` extra; the columns of
        :meth:`to_pandas`).

        Parameters
        ----------
        form
            ``"wide"`` or ``"long"`` (see :meth:`to_pandas`).

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
