"""Files of one system's per-item values, read into :class:`~ragmeter.PerQueryResults`:
:func:`read_per_query` (what the gate and ``compare`` read from files).

A file is either a saved result (any kind :mod:`ragmeter.io._saved` reads that holds one
system's per-item values: ``ragmeter evaluate -q --format json`` of one run, a
``RetrievalEvaluation``, judge results and their JSON lines, per-query values, a gate
baseline), read with its manifest and checksum, or a table of records (CSV, TSV, Parquet, JSON
lines, a JSON list of objects; :func:`per_item_values`) in one of two forms:

* long: ``query_id``, ``metric``, ``value``, and optionally ``repeat`` (the repeat's number:
  rows of one item and metric are repeats only when this column numbers them), ``cluster``,
  ``system`` and ``status`` (``failed`` lists the item as failed), one row per value;
* wide: ``query_id`` and one column per metric (and optionally ``repeat``, ``cluster``,
  ``system``), one row per item (per repeat).

This is what :meth:`PerQueryResults.to_pandas <ragmeter.PerQueryResults.to_pandas>` writes,
either form. A cell of a text table (CSV, TSV) is a number, or empty, ``nan``, ``null`` or
``None`` for an undefined value. Refused, naming the file and line: a second row of one item
and metric (one item per row in the wide form) without a ``repeat`` column, a repeat numbered
twice, an item with two clusters, values of several systems (unless ``system=`` picks one), a
value that is not a number. Values read from a table record no settings: their manifest
(producer ``"table"``) says so, and a comparison notes it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._files import path_argument, read_regular_text
from ..exceptions import InvalidInputError
from ..manifest import Manifest
from ..per_query import PerQueryResults, per_query_results
from ._formats import (
    FORMATS,
    SAVED_SUFFIXES,
    Format,
    harness_format,
    harness_records,
    parse_saved_text,
    read_records,
)
from ._records import Records
from ._saved import SavedFile, kind_of, saved_format_of, saved_result_of

__all__ = ["per_item_values", "read_per_query", "read_systems"]

#: Columns that are not metrics.
_RESERVED = ("query_id", "system", "cluster", "repeat", "status")
_UNDEFINED_TEXT = ("", "nan", "NaN", "null", "None")


def _number(value: Any, where: str, column: str, text: bool) -> float:
    if text and isinstance(value, str):
        if value.strip() in _UNDEFINED_TEXT:
            return math.nan
        try:
            number = float(value)
        except ValueError:
            raise InvalidInputError(f"{where}: {column} holds {value!r}, not a number") from None
    elif value is None:
        return math.nan
    elif isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{where}: {column} holds {value!r}, not a number")
    else:
        number = float(value)
    if math.isinf(number):
        raise InvalidInputError(f"{where}: {column} holds an infinite value")
    return number


def _item(value: Any, where: str, column: str) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise InvalidInputError(f"{where}: {column} holds {value!r}, not an id (a str or an int)")
    return value


def _repeat(value: Any, where: str, text: bool) -> int | None:
    """A repeat's number: an int >= 0 (``"1"`` and ``"1.0"`` in a text table, as a writer of a
    column of ints with gaps writes them); None for an item's only value (an empty cell)."""
    if value is None or (text and isinstance(value, str) and value.strip() in _UNDEFINED_TEXT):
        return None
    number: float = -1.0
    if isinstance(value, str) and text:
        try:
            number = float(value)
        except ValueError:
            number = -1.0
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    if not math.isfinite(number) or number < 0 or not number.is_integer():
        raise InvalidInputError(
            f"{where}: repeat holds {value!r}; a repeat is numbered 0, 1, 2, ... (empty: the "
            "item's only value)"
        )
    return int(number)


class _Builder:
    """The values of a table's rows, checked as they come."""

    def __init__(self, where_file: str) -> None:
        self.file = where_file
        self.order: dict[Any, None] = {}
        self.plain: dict[str, dict[Any, tuple[float, str]]] = {}
        self.repeated: dict[str, dict[Any, dict[int, tuple[float, str]]]] = {}
        self.clusters: dict[Any, tuple[Any, str]] = {}
        self.failed: dict[str, dict[Any, None]] = {}

    def add(self, item: Any, metric: str, value: float, repeat: int | None, where: str) -> None:
        self.order.setdefault(item)
        if repeat is None:
            if item in self.repeated.get(metric, {}):
                raise self._mixed(item, metric, where)
            first = self.plain.setdefault(metric, {}).get(item)
            if first is not None:
                raise InvalidInputError(
                    f"{where}: a second value of {metric!r} for {item!r} (the first at "
                    f"{first[1]}); rows of one item are repeats only when a repeat column "
                    "numbers them: add a repeat column (0, 1, ...), or keep one row per item"
                )
            self.plain[metric][item] = (value, where)
            return
        if item in self.plain.get(metric, {}):
            raise self._mixed(item, metric, where)
        given = self.repeated.setdefault(metric, {}).setdefault(item, {})
        if repeat in given:
            raise InvalidInputError(
                f"{where}: repeat {repeat} of {metric!r} for {item!r} again (the first at "
                f"{given[repeat][1]})"
            )
        given[repeat] = (value, where)

    def _mixed(self, item: Any, metric: str, where: str) -> InvalidInputError:
        return InvalidInputError(
            f"{where}: {item!r} has rows of {metric!r} with and without a repeat number; "
            "number every repeat of an item"
        )

    def cluster(self, item: Any, cluster: Any, where: str) -> None:
        first = self.clusters.setdefault(item, (cluster, where))
        if first[0] != cluster:
            raise InvalidInputError(
                f"{where}: {item!r} is in cluster {cluster!r} here and {first[0]!r} at {first[1]}"
            )

    def values(self, name: str | None, manifest: Manifest | None = None) -> PerQueryResults:
        metrics = list(dict.fromkeys([*self.plain, *self.repeated]))
        if not metrics:
            raise InvalidInputError(f"{self.file}: holds no value")
        items = list(self.order)
        columns: dict[str, dict[Any, Any]] = {}
        for metric in metrics:
            column: dict[Any, Any] = {q: v for q, (v, _) in self.plain.get(metric, {}).items()}
            for item, given in self.repeated.get(metric, {}).items():
                column[item] = [given[k][0] for k in sorted(given)]
            absent = [q for q in items if q not in column]
            if absent:
                shown = ", ".join(map(repr, absent[:5])) + (", ..." if len(absent) > 5 else "")
                raise InvalidInputError(
                    f"{self.file}: {metric!r} has no value for {shown}; every item needs a "
                    "value of every metric (empty or nan for an undefined one)"
                )
            columns[metric] = column
        if self.clusters and len(self.clusters) != len(items):
            raise InvalidInputError(f"{self.file}: some rows have a cluster and others not")
        return PerQueryResults(
            columns,
            items,
            name=name,
            manifest=(
                Manifest.unrecorded("table", metrics)
                if manifest is None
                else manifest.restricted(metrics)
            ),
            clusters={q: c for q, (c, _) in self.clusters.items()} or None,
            failed={m: list(q) for m, q in self.failed.items()},
        )


def _system(records: Records, system: str | None, where_file: str) -> list[int]:
    """The rows of the chosen system (every row when there is no system column)."""
    names = [row.get("system") for row in records.rows]
    if not records.rows or "system" not in records.rows[0]:
        return list(range(len(records.rows)))
    present = list(dict.fromkeys(names))
    if system is None:
        if len(present) > 1:
            raise InvalidInputError(
                f"{where_file}: holds the values of {len(present)} systems "
                f"({', '.join(map(repr, present[:5]))}); name one (system=)"
            )
        return list(range(len(records.rows)))
    chosen = [i for i, s in enumerate(names) if s == system]
    if not chosen:
        raise InvalidInputError(
            f"{where_file}: no row of system {system!r}; its systems are "
            f"{', '.join(map(repr, present[:5]))}"
        )
    return chosen


def per_item_values(
    records: Records, where_file: str, *, name: str | None = None, system: str | None = None
) -> PerQueryResults:
    """The values of a table of records in the long or wide form (see the module
    documentation).

    Parameters
    ----------
    records
        The rows (:func:`ragmeter.io.read_records`).
    where_file
        The file, for messages.
    name
        The system's name (default: the ``system`` column's, when it has one value).
    system
        The system whose rows to read, when the table holds several.

    Returns
    -------
    PerQueryResults
        The values, their repeats, clusters and failures; a manifest of producer ``"table"``
        that records no setting.

    Raises
    ------
    InvalidInputError
        See the module documentation.
    """
    rows = [records.rows[i] for i in _system(records, system, where_file)]
    where = [records.where[i] for i in _system(records, system, where_file)]
    header = list(dict.fromkeys(k for row in rows for k in row))
    if "query_id" not in header:
        raise InvalidInputError(
            f"{where_file}: a table of per-item values needs a query_id column (and metric and "
            f"value columns, or one column per metric); it has {header}"
        )
    built = _Builder(where_file)
    long = "metric" in header and "value" in header
    metrics = [h for h in header if h not in _RESERVED]
    if not long and not records.text:
        # Typed rows (JSON lines, Parquet) may carry text fields beside the values.
        metrics = [
            h
            for h in metrics
            if all(
                row.get(h) is None
                or (
                    isinstance(row.get(h), int | float)
                    and row.get(h) is not True
                    and row.get(h) is not False
                )
                for row in rows
            )
        ]
    if not long and not metrics:
        raise InvalidInputError(f"{where_file}: no metric column besides query_id")
    for row, location in zip(rows, where, strict=True):
        item = _item(row.get("query_id"), location, "query_id")
        repeat = _repeat(row.get("repeat"), location, records.text) if "repeat" in row else None
        if "cluster" in header:
            cluster = row.get("cluster")
            if cluster not in (None, ""):
                built.cluster(item, _item(cluster, location, "cluster"), location)
        if long:
            metric = row.get("metric")
            if not isinstance(metric, str) or not metric:
                raise InvalidInputError(f"{location}: metric holds {metric!r}, not a name")
            built.add(
                item,
                metric,
                _number(row.get("value"), location, "value", records.text),
                repeat,
                location,
            )
            status = row.get("status")
            if status == "failed":
                built.failed.setdefault(metric, {})[item] = None
            elif status not in (None, "", "ok", "undefined"):
                raise InvalidInputError(
                    f"{location}: status holds {status!r}; it is ok, undefined or failed"
                )
        else:
            for metric in metrics:
                built.add(
                    item,
                    metric,
                    _number(row.get(metric), location, metric, records.text),
                    repeat,
                    location,
                )
    if name is None and system is None and rows and isinstance(rows[0].get("system"), str):
        name = rows[0]["system"]
    return built.values(name if name is not None else system, records.manifest)


def _from_saved(saved: SavedFile, name: str | None, where: str) -> PerQueryResults:
    try:
        values = per_query_results(saved.result)
    except (InvalidInputError, TypeError) as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    values = values.with_manifest(values.manifest.replace(verified=saved.verified))
    return values if name is None else values.renamed(name)


def read_per_query(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    system: str | None = None,
    format: str | None = None,
    cluster: str | None = None,
) -> PerQueryResults:
    """One system's per-item values from a file: a saved result or a table (see the module
    documentation).

    Parameters
    ----------
    path
        The file.
    name
        The system's name (default: the name the file gives, else none).
    system
        For a table of several systems (a ``system`` column), the one to read.
    format
        The file's format (default: from its suffix; JSON and JSON lines also by their text:
        a saved result by its ``kind``, another harness's result file by its fields).
    cluster
        For another harness's result file, the field of each item that names its cluster
        (Inspect: the sample's ``metadata``; DeepEval: the test case's ``metadata``; lm-eval:
        the ``doc``; promptfoo: the test's ``vars``; MLflow, TruLens: a column). A table
        gives its clusters in a ``cluster`` column.

    Returns
    -------
    PerQueryResults
        The values, their repeats, clusters and failures, and their manifest
        (``manifest.verified`` says whether a saved file's checksum was checked).

    Raises
    ------
    InvalidInputError
        A file that cannot be read, a saved result that holds no single system's per-item
        values (a comparison, an evaluation of several runs or without ``-q``), a table
        refused as the module documentation says.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "judged.csv"
    >>> _ = path.write_text("query_id,metric,repeat,value\\ns1,faith,0,1\\ns1,faith,1,0\\n"
    ...                     "s2,faith,0,1\\ns2,faith,1,1\\n")
    >>> values = read_per_query(path)
    >>> values["faith"], values.repeat_counts("faith")
    ({'s1': 0.5, 's2': 1.0}, {'s1': (2, 2), 's2': (2, 2)})
    """
    where, source = _source(path, format, cluster)
    if isinstance(source, PerQueryResults):
        return source if name is None else source.renamed(name)
    return per_item_values(source, where, name=name, system=system)


def _source(
    path: str | os.PathLike[str], format: str | None, cluster: str | None
) -> tuple[str, Records | PerQueryResults]:
    """The file's rows (a table, a harness's result file), or its values (a saved result, a
    mapping of values)."""
    where = path_argument(path, "path")
    suffix = Path(where).suffix.lower()
    harness = _harness_of(format, suffix)
    if harness is not None and harness.records is not None:
        # A harness's own container (an Inspect .eval zip): its module reads it.
        return where, harness_records(harness, where, cluster=cluster)
    saved_like = (
        harness is not None
        or format in ("json", "jsonl", "yaml", "toml")
        or (format is None and (suffix in SAVED_SUFFIXES or suffix not in _record_suffixes()))
    )
    if not saved_like:
        return where, read_records(where, format=format, what="a file of per-item values")
    text = read_regular_text(where, "a file of per-item values", "path")
    fmt = format if harness is None and format is not None else saved_format_of(where, text)
    data = parse_saved_text(text, fmt, where)
    if harness is None and kind_of(data) is None:
        harness = harness_format(data)
    if harness is not None:
        return where, harness_records(harness, where, data, cluster)
    if kind_of(data) is not None:
        return where, _from_saved(saved_result_of(data, where, fmt), None, where)
    if fmt in ("yaml", "toml") or (fmt == "json" and isinstance(data, Mapping)):
        # {metric: {item: value or [repeats]}}: values given as a mapping.
        try:
            return where, PerQueryResults(_ids_as_given(data, where))
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from None
    return where, read_records(where, format=fmt, what="a file of per-item values")


def _harness_of(format: str | None, suffix: str) -> Format | None:
    """The harness format ``format`` names, or whose own suffix the file has."""
    for fmt in FORMATS:
        if fmt.harness is not None and (
            fmt.name == format or (format is None and suffix in fmt.suffixes)
        ):
            return fmt
    return None


def read_systems(
    path: str | os.PathLike[str], *, format: str | None = None, cluster: str | None = None
) -> dict[str, PerQueryResults]:
    """Every system's per-item values in a file, by name: one for most files, one per
    ``system`` of a table or a harness file that holds several (promptfoo's providers, TruLens'
    apps), each named by it; a file of one unnamed system is named by its file name's stem.

    Parameters
    ----------
    path, format, cluster
        As for :func:`read_per_query`.

    Returns
    -------
    dict
        ``{name: PerQueryResults}``, in the file's order.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "two.csv"
    >>> _ = path.write_text("query_id,system,acc\\nq1,a,1\\nq1,b,0\\nq2,a,1\\nq2,b,1\\n")
    >>> {k: v["acc"] for k, v in read_systems(path).items()}
    {'a': {'q1': 1.0, 'q2': 1.0}, 'b': {'q1': 0.0, 'q2': 1.0}}
    """
    where, source = _source(path, format, cluster)
    stem = Path(where).stem
    if isinstance(source, PerQueryResults):
        return {source.name or stem: source}
    systems = list(dict.fromkeys(row.get("system") for row in source.rows))
    if len(systems) <= 1:
        values = per_item_values(source, where)
        return {values.name or stem: values}
    return {str(s): per_item_values(source, where, system=s, name=str(s)) for s in systems}


def _record_suffixes() -> set[str]:
    return {s for f in FORMATS if f.records for s in f.suffixes}


def _ids_as_given(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping) or not all(isinstance(v, Mapping) for v in data.values()):
        raise InvalidInputError(
            f"{where}: holds neither a saved result nor {{metric: {{item: value}}}} nor rows"
        )
    return {m: {k: _cell(v) for k, v in column.items()} for m, column in data.items()}


def _cell(value: Any) -> Any:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [math.nan if v is None else v for v in value]
    return value
