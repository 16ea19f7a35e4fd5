"""What a gate reads: one system's per-item values, the repeats of judged items, and what the
values mean (metric definitions, settings, judge identity).

:func:`gate_values` turns anything ragmeter evaluates into :class:`GateValues`: the per-query
results :func:`~ragmeter.per_query.per_query_results` reads (``RetrievalEvaluation``,
``MetricResults`` of per-query values, ``PerQueryResults``, ``{metric: {query_id: value}}``),
the LLM judges' results (``JudgeResults`` or their report dict), a mapping whose values are
lists (``{metric: {item: [repeat, repeat, ...]}}``: the repeats of one item) and a stored
gate baseline. :func:`read_gate_file` reads the same from files: the JSON of ``ragmeter
evaluate --format json -q``, a ``RetrievalEvaluation`` or judges' report, the judges' JSONL
rows, a gate baseline, and tables (CSV, TSV, Parquet) in long (``query_id, metric, value``) or
wide (``query_id`` and one column per metric) form.

Repeats: when an item (a query, a judged sample) has several values for a metric (the judge
asked several times), the gate uses the item's mean and keeps the repeats, so the judge's
variance is counted in the spread of the item means and an item whose repeats disagree is
reported as flaky.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._core import __version__
from .._files import read_regular_text
from .._optional import import_optional
from ..exceptions import InputTypeError, InvalidInputError
from ..per_query import Manifest, PerQueryResults, measure_definition, per_query_results
from ..ranking import RunEvaluations
from ..reports import read_report

__all__ = [
    "BASELINE_KIND",
    "BASELINE_SCHEMA_VERSION",
    "GateValues",
    "gate_values",
    "metric_definition",
    "read_gate_file",
]

#: The ``kind`` of a stored gate baseline (a JSON file with its manifest).
BASELINE_KIND = "ragmeter.gate-baseline"
BASELINE_SCHEMA_VERSION = 1
_JUDGES_KIND = "ragmeter.judges"
_RETRIEVAL_KIND = "ragmeter.retrieval_evaluation"
# What identifies the judges of a judged evaluation (its run manifest's keys): who judged,
# with which prompts and metric definitions. Concurrency, cache and timing do not change a score.
_JUDGE_IDENTITY_KEYS = ("judge", "judges", "embedder", "metrics")


#: What a ranking metric's name means (see :func:`ragmeter.manifest.measure_definition`).
metric_definition = measure_definition


@dataclass(frozen=True)
class GateValues:
    """One system's per-item values as the gate reads them.

    Parameters
    ----------
    values
        The per-item values (for repeated items, the mean of their ``ok`` repeats; NaN where
        undefined or where every repeat failed).
    repeats
        ``{metric: {item: repeats}}`` for items with more than one value.
    failed
        ``{metric: items}`` with at least one failed judge call.
    settings
        The evaluation settings the values were computed with (relevance threshold...).
    judges
        The judges' identity (their run manifest's judge, judges, embedder and metrics), or
        None for values no judge produced.
    ragmeter_version
        The version that computed the values (None when unknown).
    definitions
        The metric definitions stored with a baseline (None: those of this version's names).
    """

    values: PerQueryResults
    repeats: Mapping[str, Mapping[Any, tuple[float, ...]]] = field(default_factory=dict)
    failed: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    judges: Mapping[str, Any] | None = None
    ragmeter_version: str | None = None
    definitions: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, values: PerQueryResults) -> GateValues:
        """The gate's view of per-item values: their repeats, failures and manifest.

        Parameters
        ----------
        values
            The values.

        Returns
        -------
        GateValues
            The view.
        """
        manifest = values.manifest
        return cls(
            values,
            repeats={m: dict(r) for m, r in values.repeats.items()},
            failed=dict(values.failed),
            settings=dict(manifest.settings),
            judges=None if manifest.judge is None else manifest.to_dict()["judge"],
            ragmeter_version=manifest.ragmeter_version,
            definitions=manifest.to_dict()["measures"] or None,
        )

    @property
    def name(self) -> str | None:
        """The system's name."""
        return self.values.name

    def definition(self, metric: str) -> Any:
        """What ``metric`` meant when the values were computed (see :func:`metric_definition`)."""
        if self.definitions is not None and metric in self.definitions:
            return self.definitions[metric]
        return metric_definition(metric)

    def manifest(self) -> dict[str, Any]:
        """What the values mean: the version, each metric's definition, the settings and the
        judges (stored with a baseline, checked when comparing with one)."""
        return {
            "ragmeter_version": self.ragmeter_version or __version__,
            "metrics": {m: self.definition(m) for m in self.values.metric_names},
            "settings": {k: _plain(v) for k, v in self.settings.items()},
            "judges": None if self.judges is None else _plain(self.judges),
        }

    def to_dict(self) -> dict[str, Any]:
        """The values and their manifest as a gate baseline (JSON-ready; NaN is None)."""
        values: dict[str, dict[str, Any]] = {}
        keys = {q: _id_key(q) for q in self.values.query_ids}
        for metric in self.values.metric_names:
            repeats = self.repeats.get(metric, {})
            column: dict[str, Any] = {}
            for item, value in self.values[metric].items():
                if item in repeats:
                    column[keys[item]] = [None if math.isnan(v) else v for v in repeats[item]]
                else:
                    column[keys[item]] = None if math.isnan(value) else value
            values[metric] = column
        return {
            "kind": BASELINE_KIND,
            "schema_version": BASELINE_SCHEMA_VERSION,
            "name": self.name,
            "manifest": self.manifest(),
            "id_types": {keys[q]: type(q).__name__ for q in self.values.query_ids},
            "values": values,
            "failed": {m: [keys[q] for q in items] for m, items in self.failed.items() if items},
        }


def _plain(value: Any) -> Any:
    """JSON-ready form of settings and identities (tuples as lists, other objects as text)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _id_key(item: Any) -> str:
    return item if isinstance(item, str) else str(item)


def _from_rows(
    rows: Sequence[Mapping[str, Any]],
    name: str | None,
    judges: Mapping[str, Any] | None,
    version: str | None,
    where: str,
) -> GateValues:
    """Values from judged rows (``sample_id``, ``metric``, ``value``, ``status``): several rows
    of one sample and metric are repeats."""
    order: list[Any] = []
    seen: set[Any] = set()
    by_metric: dict[str, dict[Any, list[float]]] = {}
    failed: dict[str, list[Any]] = {}
    for index, row in enumerate(rows):
        try:
            sample, metric, status = row["sample_id"], row["metric"], row.get("status", "ok")
        except KeyError as exc:
            raise InvalidInputError(f"{where}: row {index} has no {exc} field") from None
        value = row.get("value")
        if sample not in seen:
            seen.add(sample)
            order.append(sample)
        column = by_metric.setdefault(str(metric), {})
        column.setdefault(sample, [])
        repeated = row.get("repeats")
        if isinstance(repeated, list) and repeated:
            # A row of evaluate(repeats=N) holds each repeat's score: those are the repeats (the
            # row's own value is their mean).
            for repeat in repeated:
                number = repeat.get("value") if isinstance(repeat, Mapping) else None
                if repeat.get("status") == "ok" and isinstance(number, int | float):
                    column[sample].append(float(number))
            if not column[sample] and status == "error":
                failed.setdefault(str(metric), []).append(sample)
            continue
        if status == "ok" and value is not None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidInputError(
                    f"{where}: row {index} ({sample!r}, {metric!r}) has the value {value!r}, "
                    "not a number"
                )
            column[sample].append(float(value))
        elif status == "error":
            failed.setdefault(str(metric), []).append(sample)
    if not by_metric:
        raise InvalidInputError(f"{where}: holds no judged row")
    means: dict[str, dict[Any, float]] = {}
    repeats: dict[str, dict[Any, tuple[float, ...]]] = {}
    for metric, column in by_metric.items():
        absent = [s for s in order if s not in column]
        if absent:
            raise InvalidInputError(
                f"{where}: {metric!r} has no row for samples {absent[:5]}; every sample needs "
                "a row of every metric"
            )
        means[metric] = {s: (sum(v) / len(v) if v else math.nan) for s, v in column.items()}
        several = {s: tuple(v) for s, v in column.items() if len(v) > 1}
        if several:
            repeats[metric] = several
    values = PerQueryResults(
        {m: [means[m][s] for s in order] for m in means}, order, name=name, failed=failed
    )
    return GateValues(
        values,
        repeats=repeats,
        failed={m: tuple(dict.fromkeys(v)) for m, v in failed.items()},
        judges=judges,
        ragmeter_version=version,
    )


def _judge_identity(manifest: Any) -> dict[str, Any]:
    if not isinstance(manifest, Mapping):
        return {}
    return {k: _plain(manifest.get(k)) for k in _JUDGE_IDENTITY_KEYS if k in manifest}


def _from_mapping(data: Mapping[str, Any], name: str | None, where: str) -> GateValues:
    """``{metric: {item: value or [repeats]}}``."""
    order: list[Any] = []
    seen: set[Any] = set()
    means: dict[str, dict[Any, float]] = {}
    repeats: dict[str, dict[Any, tuple[float, ...]]] = {}
    for metric, column in data.items():
        if not isinstance(column, Mapping):
            raise InvalidInputError(
                f"{where}: {metric!r} holds a {type(column).__name__}, not {{item: value}}"
            )
        means[metric] = {}
        for item, value in column.items():
            if item not in seen:
                seen.add(item)
                order.append(item)
            if isinstance(value, list | tuple):
                numbers = [math.nan if v is None else v for v in value]
                if not numbers or any(
                    isinstance(v, bool) or not isinstance(v, int | float) for v in numbers
                ):
                    raise InvalidInputError(
                        f"{where}: {metric!r} of {item!r}: repeats must be a non-empty list of "
                        f"numbers (null: undefined), got {value!r}"
                    )
                defined = [float(v) for v in numbers if not math.isnan(v)]
                means[metric][item] = sum(defined) / len(defined) if defined else math.nan
                if len(numbers) > 1:
                    repeats.setdefault(metric, {})[item] = tuple(float(v) for v in numbers)
            else:
                means[metric][item] = math.nan if value is None else value
    values = PerQueryResults(means, order, name=name)
    return GateValues(values, repeats=repeats)


def _from_baseline(data: Mapping[str, Any], name: str | None, where: str) -> GateValues:
    version = data.get("schema_version")
    if version != BASELINE_SCHEMA_VERSION:
        raise InvalidInputError(
            f"{where}: a gate baseline of schema version {version!r}; this ragmeter reads "
            f"version {BASELINE_SCHEMA_VERSION}: store the baseline again"
        )
    manifest = data.get("manifest")
    values = data.get("values")
    id_types = data.get("id_types") or {}
    if not isinstance(manifest, Mapping) or not isinstance(values, Mapping):
        raise InvalidInputError(f"{where}: a gate baseline needs 'manifest' and 'values'")

    def item_id(key: str) -> Any:
        return int(key) if id_types.get(key) == "int" else key

    restored = {
        metric: {item_id(k): v for k, v in column.items()}
        if isinstance(column, Mapping)
        else column
        for metric, column in values.items()
    }
    result = _from_mapping(restored, name or data.get("name"), where)
    failed = data.get("failed") or {}
    return GateValues(
        result.values,
        repeats=result.repeats,
        failed={m: tuple(item_id(k) for k in items) for m, items in failed.items()},
        settings=dict(manifest.get("settings") or {}),
        judges=manifest.get("judges"),
        ragmeter_version=manifest.get("ragmeter_version"),
        definitions=Manifest(
            measures={m: d for m, d in (manifest.get("metrics") or {}).items() if d is not None}
        ).to_dict()["measures"],
    )


def gate_values(results: Any, name: str | None = None, *, where: str = "results") -> GateValues:
    """One system's values for the gate, from anything ragmeter evaluates (see the module
    documentation).

    Parameters
    ----------
    results
        ``GateValues``, ``JudgeResults`` (or their report dict), a gate baseline dict,
        ``{metric: {item: value or [repeats]}}``, or what
        :func:`~ragmeter.per_query.per_query_results` reads.
    name
        The system's name (default: the one the results carry).
    where
        What to call the results in error messages (an argument or a file name).

    Returns
    -------
    GateValues
        The per-item values, their repeats, failures, settings and judges.

    Raises
    ------
    InvalidInputError
        Results without per-item values, a row without its fields, a value that is not a
        number.
    InputTypeError
        Anything else.

    Examples
    --------
    >>> values = gate_values({"faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": 1.0}})
    >>> values.values["faithfulness"]["s1"], values.repeats["faithfulness"]
    (0.6666666666666666, {'s1': (1.0, 0.0, 1.0)})
    """
    if isinstance(results, GateValues):
        if name is None or name == results.name:
            return results
        return GateValues(
            results.values.renamed(name),
            results.repeats,
            results.failed,
            results.settings,
            results.judges,
            results.ragmeter_version,
            results.definitions,
        )
    if isinstance(results, Mapping):
        kind = results.get("kind")
        if kind == _JUDGES_KIND:
            rows = results.get("rows")
            if not isinstance(rows, list):
                raise InvalidInputError(f"{where}: a judges' report without its 'rows'")
            manifest = results.get("manifest") or {}
            return _from_rows(rows, name, _judge_identity(manifest), manifest.get("version"), where)
        if kind == BASELINE_KIND:
            return _from_baseline(results, name, where)
        if kind == _RETRIEVAL_KIND:
            from ..retrieval_evaluation import RetrievalEvaluation

            results = RetrievalEvaluation.from_dict(results)
        elif any(isinstance(v, Mapping) and _has_lists(v) for v in results.values()):
            return _from_mapping(results, name, where)
    try:
        converted = per_query_results(results, name)
    except InputTypeError as exc:
        raise InputTypeError(f"{where}: {exc}") from None
    return GateValues.of(converted)


def _has_lists(column: Mapping[Any, Any]) -> bool:
    return any(isinstance(v, list | tuple) for v in column.values())


# -- files ------------------------------------------------------------------------------------

_TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")


def read_gate_file(path: str | os.PathLike[str], name: str | None = None) -> GateValues:
    """One system's values from a file (see the module documentation for the forms read).

    Parameters
    ----------
    path
        The file.
    name
        The system's name (default: the file's stem).

    Returns
    -------
    GateValues
        The values.

    Raises
    ------
    InvalidInputError
        A file that cannot be read or parsed, an evaluation JSON of several runs, a table
        without ``query_id``, a form the gate does not read.
    """
    where = os.fspath(path)
    name = name or Path(path).stem
    suffix = Path(path).suffix.lower()
    if suffix in _TABLE_SUFFIXES:
        return _from_table(path, name, where)
    if suffix == ".jsonl":
        rows = read_report(path, format="jsonl")
        assert isinstance(rows, list)
        if rows and "sample_id" in rows[0] and "metric" in rows[0]:
            return _from_rows(rows, name, None, None, where)
        return _from_wide_rows(rows, name, where)
    if suffix != ".json":
        raise InvalidInputError(
            f"{where}: the gate reads saved results (.json, .jsonl, .csv, .tsv, .parquet); "
            "for a run file, give the judgments with --qrels so that both runs are evaluated"
        )
    data = read_report(path, format="json")
    if not isinstance(data, dict):
        raise InvalidInputError(f"{where}: does not hold saved results")
    legacy = (
        data.get("kind") is None
        and data
        and all(
            isinstance(v, Mapping) and ("per_query" in v or "means" in v) for v in data.values()
        )
    )
    if legacy or data.get("kind") == RunEvaluations.KIND:
        # `ragmeter evaluate --format json` (a legacy file without a kind: {run: {means, ...}}).
        runs = data if legacy else data.get("runs")
        if isinstance(runs, Mapping) and len(runs) != 1:
            raise InvalidInputError(
                f"{where}: the evaluation of {len(runs)} runs ({', '.join(map(repr, runs))}); "
                "the gate compares one run with one: evaluate each run into its own file"
            )
        evaluations = RunEvaluations.read(path, format="json")
        (run,) = evaluations.runs
        if run not in evaluations.per_query:
            raise InvalidInputError(
                f"{where}: an evaluation without per-query values; the gate pairs queries: "
                "evaluate with -q (`ragmeter evaluate -q --format json ...`)"
            )
        return gate_values(evaluations.per_query[run], name, where=where)
    return gate_values(data, name, where=where)


def _number_or_nan(text: str, where: str, line: int, column: str) -> float:
    if text.strip() in ("", "nan", "NaN", "null", "None"):
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise InvalidInputError(f"{where}:{line}: {column} holds {text!r}, not a number") from None


def _from_table(path: str | os.PathLike[str], name: str, where: str) -> GateValues:
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        parquet = import_optional("pyarrow.parquet", extra="arrow", purpose="reading Parquet")
        try:
            columns = parquet.read_table(os.fspath(path)).to_pydict()
        except Exception as exc:  # pyarrow raises its own errors for a damaged file
            raise InvalidInputError(f"{where}: not a readable Parquet file ({exc})") from None
        header = list(columns)
        n = len(next(iter(columns.values()))) if columns else 0
        rows = [{h: columns[h][i] for h in header} for i in range(n)]
        return _from_records(rows, header, name, where, lambda value, line, column: value)
    text = read_regular_text(path, "a table")
    reader = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
    header = list(reader.fieldnames or [])
    rows = list(reader)

    def parse(value: Any, line: int, column: str) -> Any:
        return _number_or_nan(value, where, line, column)

    return _from_records(rows, header, name, where, parse)


def _from_records(
    rows: list[dict[str, Any]], header: list[str], name: str, where: str, parse: Any
) -> GateValues:
    if "query_id" not in header:
        raise InvalidInputError(
            f"{where}: a table of per-query values needs a query_id column (and metric and "
            f"value columns, or one column per metric); it has {header}"
        )
    if "metric" in header and "value" in header:
        mapping: dict[str, dict[Any, list[float]]] = {}
        for line, row in enumerate(rows, start=2):
            value = parse(row["value"], line, "value")
            mapping.setdefault(str(row["metric"]), {}).setdefault(row["query_id"], []).append(
                math.nan if value is None else float(value)
            )
        plain = {
            m: {q: (v[0] if len(v) == 1 else v) for q, v in column.items()}
            for m, column in mapping.items()
        }
        return _from_mapping(plain, name, where)
    metrics = [h for h in header if h != "query_id"]
    if not metrics:
        raise InvalidInputError(f"{where}: no metric column besides query_id")
    wide: dict[str, dict[Any, Any]] = {m: {} for m in metrics}
    for line, row in enumerate(rows, start=2):
        for metric in metrics:
            wide[metric].setdefault(row["query_id"], []).append(parse(row[metric], line, metric))
    plain = {
        m: {q: (v[0] if len(v) == 1 else v) for q, v in column.items()}
        for m, column in wide.items()
    }
    return _from_mapping(plain, name, where)


def _from_wide_rows(rows: list[dict[str, Any]], name: str, where: str) -> GateValues:
    if not rows or "query_id" not in rows[0]:
        raise InvalidInputError(
            f"{where}: JSONL rows of per-query values need a query_id field (or the judges' "
            "sample_id and metric fields)"
        )
    header = list(dict.fromkeys(k for row in rows for k in row))
    numeric = [
        h
        for h in header
        if h != "query_id"
        and all(
            row.get(h) is None
            or (isinstance(row.get(h), int | float) and not isinstance(row.get(h), bool))
            for row in rows
        )
    ]
    return _from_records(
        [{"query_id": r["query_id"], **{h: r.get(h) for h in numeric}} for r in rows],
        ["query_id", *numeric],
        name,
        where,
        lambda value, line, column: math.nan if value is None else value,
    )
