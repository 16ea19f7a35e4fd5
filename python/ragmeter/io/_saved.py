"""Saved results read back: the one place that decides, from a file's ``kind``, which result
type reads it (:data:`SAVED_KINDS`), and :func:`read_saved`, which every reader of saved files
(the gate, the HTML report, :func:`ragmeter.io.read_per_query`) goes through.

Each result type declares its ``kind`` (its ``KIND``); the table names the type of each kind by
its module, imported when a file of that kind is read (``import ragmeter`` stays light), and a
test holds every entry to its class's ``KIND``. Files written before they had a ``kind`` are
recognised by their form: the evaluate command's JSON of format 1 (its keys were the runs), the
judges' JSON lines (rows with ``sample_id``, ``metric`` and ``status``), and the gate baselines
of ragmeter before per-query files (kind ``"ragmeter.gate-baseline"``, read as
:class:`~ragmeter.per_query.SavedPerQueryResults`, unverified).

A file is read as its type reads it (:func:`ragmeter.reports.load_report`): exactly what
ragmeter writes, with its count and checksum checked (``verified``; a file written before
saved results had them is read unverified).
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import path_argument, read_regular_text
from ..exceptions import InvalidInputError
from ..manifest import RANKING_SETTINGS, Manifest
from ..per_query import PerQueryResults, SavedPerQueryResults
from ..reports import load_report_data
from ._formats import SAVED_SUFFIXES, parse_saved_text

__all__ = [
    "LEGACY_BASELINE_KIND",
    "SAVED_KINDS",
    "SavedFile",
    "kind_of",
    "read_saved",
    "saved_class",
    "saved_format_of",
    "saved_result_of",
]

#: Every kind of saved result: ``kind -> (module, class)``, the class imported when a file of
#: that kind is read. The kinds are the classes' own ``KIND`` (a test holds them to it).
SAVED_KINDS: dict[str, tuple[str, str]] = {
    "ragmeter.evaluation": ("ragmeter.ranking.metric_results", "RunEvaluations"),
    "ragmeter.retrieval_evaluation": ("ragmeter.retrieval_evaluation", "RetrievalEvaluation"),
    "ragmeter.comparison": ("ragmeter.stats.results", "Comparison"),
    "ragmeter.multiple_comparison": ("ragmeter.stats.results", "MultipleComparison"),
    "ragmeter.judges": ("ragmeter.judges.results", "JudgeResults"),
    "ragmeter.per_query": ("ragmeter.per_query", "SavedPerQueryResults"),
    "ragmeter.nugget_bank": ("ragmeter.nuggets.bank", "NuggetBank"),
    "ragmeter.nugget_assignments": ("ragmeter.nuggets.assignments", "NuggetAssignments"),
}
#: The kind of the gate's baselines before they were per-query files (schema version 1).
LEGACY_BASELINE_KIND = "ragmeter.gate-baseline"
#: The fields of a judge result's row: the form of JSON lines without a kind (``to_jsonl``).
_JUDGE_ROW = {"sample_id", "metric", "status"}


@dataclass(frozen=True)
class SavedFile:
    """A saved result read back.

    Attributes
    ----------
    result
        The result, of the type its kind names.
    kind
        Its kind.
    format
        The file's format (``"json"``, ``"jsonl"``, ``"yaml"``, ``"toml"``).
    verified
        Whether the file's count and checksum were checked (False: written before saved
        results had them).
    """

    result: Any
    kind: str
    format: str
    verified: bool


def saved_class(kind: str) -> type[Any]:
    """The result type of ``kind`` (imported on first use).

    >>> saved_class("ragmeter.per_query").__name__
    'SavedPerQueryResults'
    """
    module, name = SAVED_KINDS[kind]
    cls: type[Any] = getattr(importlib.import_module(module), name)
    return cls


def kind_of(data: Any) -> str | None:
    """The kind of a saved result's data (of its first row, for JSON lines), else the kind of
    the forms written before files had one (the command's JSON of format 1, judge rows); None
    for data that is no saved result ragmeter writes."""
    first = data[0] if isinstance(data, list) and data else data
    if not isinstance(first, Mapping):
        return None
    kind = first.get("kind")
    if isinstance(kind, str) and (kind in SAVED_KINDS or kind == LEGACY_BASELINE_KIND):
        return kind
    if kind is None and isinstance(data, Mapping) and _is_format_1(data):
        return "ragmeter.evaluation"
    if kind is None and isinstance(data, list) and first.keys() >= _JUDGE_ROW:
        return "ragmeter.judges"
    return None


def _is_format_1(data: Mapping[str, Any]) -> bool:
    """The evaluate command's JSON before it had a kind: ``{run: {means, ...}}``."""
    return bool(data) and all(
        isinstance(v, Mapping) and ("per_query" in v or "means" in v) for v in data.values()
    )


def saved_format_of(path: str, text: str) -> str:
    """The format of a saved result: YAML, TOML and JSON lines by their suffix; else JSON or
    JSON lines by the text (the command's output redirected to any file name, rows written to
    a ``.json``)."""
    fmt = SAVED_SUFFIXES.get(Path(path).suffix.lower())
    if fmt in ("yaml", "toml", "jsonl"):
        return fmt
    stripped = text.strip()
    if stripped.startswith("["):
        return "json"  # a list of rows
    return "json" if stripped.startswith("{") and "\n{" not in stripped else "jsonl"


def saved_result_of(data: Any, name: str, fmt: str = "json") -> SavedFile:
    """The saved result in ``data`` (parsed from the file ``name`` in ``fmt``), read by the type
    of its kind.

    Raises
    ------
    InvalidInputError
        Data of no kind ragmeter writes (the message names the kinds read), or not exactly
        what its type writes.
    """
    kind = kind_of(data)
    if kind is None:
        raise InvalidInputError(
            f"{name}: not a result ragmeter writes (a saved result has a kind: "
            f"{', '.join(SAVED_KINDS)}; or is the JSON of `ragmeter evaluate --format json`, "
            "or judge results' JSON lines)"
        )
    if kind == LEGACY_BASELINE_KIND:
        return SavedFile(_legacy_baseline(data, name), kind, fmt, False)
    cls: Any = saved_class(kind)
    result, verified = load_report_data(cls, data, fmt, name)
    return SavedFile(result, kind, fmt, verified)


def read_saved(path: str | os.PathLike[str], *, format: str | None = None) -> SavedFile:
    """The saved result at ``path``, whatever its kind (see the module documentation).

    Parameters
    ----------
    path
        The file.
    format
        Its format (default: YAML and TOML by the suffix, JSON and JSON lines by the text).

    Returns
    -------
    SavedFile
        The result, its kind and format, and whether its checksum was checked.

    Raises
    ------
    InvalidInputError
        A file that cannot be parsed, of no kind ragmeter writes, or not exactly what its type
        writes (edited, truncated, damaged), naming the file.
    """
    name = path_argument(path, "path")
    text = read_regular_text(name, "a saved result", "path")
    fmt = format or saved_format_of(name, text)
    return saved_result_of(parse_saved_text(text, fmt, name), name, fmt)


# -- the gate's baselines of schema version 1 -------------------------------------------------


def _legacy_baseline(data: Any, name: str) -> SavedPerQueryResults:
    """A gate baseline of schema version 1 (``{name, manifest: {ragmeter_version, metrics,
    settings, judges}, id_types, values: {metric: {item: value or [repeats]}}, failed}``)."""
    if not isinstance(data, Mapping) or data.get("schema_version") != 1:
        version = data.get("schema_version") if isinstance(data, Mapping) else None
        raise InvalidInputError(
            f"{name}: a gate baseline of schema version {version!r}; this ragmeter reads "
            "version 1 and per-query files: store the baseline again"
        )
    manifest, values = data.get("manifest"), data.get("values")
    id_types = data.get("id_types") or {}
    if not isinstance(manifest, Mapping) or not isinstance(values, Mapping):
        raise InvalidInputError(f"{name}: a gate baseline needs 'manifest' and 'values'")
    if not isinstance(id_types, Mapping):
        raise InvalidInputError(f"{name}: id_types: expected {{item: 'str' or 'int'}}")

    def item_id(key: Any) -> Any:
        if id_types.get(key) == "int":
            try:
                return int(key)
            except (TypeError, ValueError):
                raise InvalidInputError(f"{name}: id_types: {key!r} is not an int") from None
        return key

    restored: dict[str, dict[Any, Any]] = {}
    for metric, column in values.items():
        if not isinstance(column, Mapping):
            raise InvalidInputError(f"{name}: values.{metric}: expected {{item: value}}")
        restored[str(metric)] = {
            item_id(k): ([math.nan if x is None else x for x in v] if isinstance(v, list) else v)
            for k, v in column.items()
        }
    failed = data.get("failed") or {}
    if not isinstance(failed, Mapping):
        raise InvalidInputError(f"{name}: failed: expected {{metric: items}}")
    measures = manifest.get("metrics") or {}
    settings = manifest.get("settings") or {}
    if not isinstance(measures, Mapping) or not isinstance(settings, Mapping):
        raise InvalidInputError(f"{name}: manifest: metrics and settings must be mappings")
    judges = manifest.get("judges")
    version = manifest.get("ragmeter_version")
    made = Manifest(
        "ragmeter.gate",
        version if isinstance(version, str) else None,
        {m: d for m, d in measures.items() if d is not None},
        settings,
        judges if isinstance(judges, Mapping) else None,
        tuple(k for k in RANKING_SETTINGS if k not in settings),
    )
    first = next(iter(restored.values()), {})
    try:
        values_read = PerQueryResults(
            restored,
            list(first),
            name=data.get("name") if isinstance(data.get("name"), str) else None,
            manifest=made.restricted(restored),
            failed={m: [item_id(k) for k in v] for m, v in failed.items()},
        )
    except (InvalidInputError, TypeError) as exc:
        raise InvalidInputError(f"{name}: {exc}") from None
    return SavedPerQueryResults(values_read)
