"""Saved results read for the report: what each input holds, in one form.

Every input becomes a :class:`Source`: per-system per-query values (``{system: {metric:
{query_id: value}}}``), the comparison it carries (a :class:`~ragmeter.stats.MultipleComparison`
or :class:`~ragmeter.stats.Comparison`), the judge rows it carries, and a manifest entry. Nothing
is evaluated again: a comparison's p-values, intervals and effects are the ones it saved.

Inputs: paths of files ragmeter wrote (``ragmeter compare --format json``, ``compare_many(...)
.write``, ``ragmeter evaluate --format json`` with ``-q``, ``RetrievalEvaluation.write`` as
JSON, a judges' report ``JudgeResults.to_report_dict()`` as JSON, ``JudgeResults.to_jsonl``), or the
result objects themselves (``MultipleComparison``, ``Comparison``, ``JudgeResults``,
``RetrievalEvaluation`` and anything :func:`~ragmeter.per_query_results` reads, named).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import read_regular_text
from ..exceptions import InputTypeError, InvalidInputError
from ..per_query import per_query_results
from ..ranking import RunEvaluations
from ..retrieval_evaluation import RetrievalEvaluation
from ..stats.results import Comparison, MultipleComparison

__all__ = ["Source", "read_source"]

Values = dict[str, dict[str, dict[str, float]]]


@dataclass
class Source:
    """One input of the report."""

    name: str
    kind: str  # "comparison", "evaluation" or "judge"
    values: Values = field(default_factory=dict)
    comparison: MultipleComparison | Comparison | None = None
    judge_rows: list[dict[str, Any]] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


def _shown(per_query: Mapping[str, Mapping[Any, float]]) -> dict[str, dict[str, float]]:
    """``{metric: {query_id: value}}`` with the query ids as the text the report shows."""
    return {m: {str(q): float(v) for q, v in by.items()} for m, by in per_query.items()}


def _from_comparison(result: MultipleComparison | Comparison) -> Values:
    if isinstance(result, MultipleComparison):
        return {name: _shown(per.to_dict()) for name, per in result.per_system().items()}
    # A two-system comparison keeps the differences per query, not each system's values.
    return {}


def _from_evaluations(evaluations: RunEvaluations, where: str) -> Values:
    values: Values = {}
    for run in evaluations.runs:
        if run not in evaluations.per_query:
            raise InvalidInputError(
                f"{where}: {run!r} holds no per-query values; write the evaluation with "
                "`ragmeter evaluate -q --format json` so that the report can show queries"
            )
        per = evaluations.per_query[run].per_query_results(run)
        values[run] = _shown(per.to_dict())
    return values


def _judge_values(rows: list[dict[str, Any]], name: str) -> Values:
    by_metric: dict[str, dict[str, float]] = {}
    for row in rows:
        value = row.get("value")
        number = _number(value) if row.get("status") == "ok" else math.nan
        by_metric.setdefault(str(row.get("metric")), {})[str(row.get("sample_id"))] = number
    return {name: by_metric}


def _manifest(path: Path, data: bytes) -> dict[str, Any]:
    return {"input": path.name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _comparison_file(path: Path, data: Any, manifest: dict[str, Any]) -> Source:
    kind = data["kind"]
    result: MultipleComparison | Comparison
    if kind == MultipleComparison.KIND:
        result = MultipleComparison.read(path)
    else:
        result = Comparison.read(path)
    manifest["kind"] = kind
    return Source(path.name, "comparison", _from_comparison(result), result, [], manifest)


def _retrieval_evaluation_file(path: Path, data: Any, manifest: dict[str, Any]) -> Source:
    evaluation = RetrievalEvaluation.read(path)  # checked as every saved result is read back
    per = per_query_results(evaluation)
    label = per.name or path.stem
    manifest["kind"] = RetrievalEvaluation.KIND
    return Source(path.name, "evaluation", {label: _shown(per.to_dict())}, None, [], manifest)


def _evaluations_file(path: Path, data: Any, manifest: dict[str, Any]) -> Source:
    evaluations = RunEvaluations.read(path, format="json")
    manifest["kind"] = RunEvaluations.KIND
    values = _from_evaluations(evaluations, str(path))
    return Source(path.name, "evaluation", values, None, [], manifest)


def _judges_report_file(path: Path, data: Any, manifest: dict[str, Any]) -> Source:
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise InvalidInputError(f"{path}: a judges' report without its rows (a list)")
    source = _judge_source(path, rows, manifest)
    source.manifest["kind"] = JUDGES_REPORT_KIND
    return source


# The judges' package is not imported for its kind: importing it costs a second; a test checks
# that this is what JudgeResults.to_report_dict() writes.
JUDGES_REPORT_KIND = "ragmeter.judges"

#: How the report reads each kind of saved JSON file (what its ``kind`` field says). The other
#: inputs are the evaluate command's JSON (no kind: one object per run) and judge results as
#: JSON lines.
FILE_READERS: dict[str, Callable[[Path, Any, dict[str, Any]], Source]] = {
    Comparison.KIND: _comparison_file,
    MultipleComparison.KIND: _comparison_file,
    RetrievalEvaluation.KIND: _retrieval_evaluation_file,
    RunEvaluations.KIND: _evaluations_file,
    JUDGES_REPORT_KIND: _judges_report_file,
}


def _read_path(path: Path) -> Source:
    text = read_regular_text(path, "a saved result", "results")
    raw = text.encode("utf-8")
    manifest = _manifest(path, raw)
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
        kind = data.get("kind") if isinstance(data, dict) else None
        if isinstance(kind, str) and kind in FILE_READERS:
            return FILE_READERS[kind](path, data, manifest)
        if RunEvaluations.format_version_of(data) == 1:  # the command's JSON before its kind
            return _evaluations_file(path, data, manifest)
        return _judge_source(path, [data], manifest)
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
    return _judge_source(path, rows, manifest)


def _judge_source(path: Path, rows: list[Any], manifest: dict[str, Any]) -> Source:
    needed = {"sample_id", "metric", "status"}
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not needed <= row.keys():
            raise InvalidInputError(
                f"{path}:{number}: not a result ragmeter writes (a comparison, an evaluation "
                "from `ragmeter evaluate -q --format json` or RetrievalEvaluation.write, a "
                "judges' report, or judge results from JudgeResults.to_jsonl, whose rows have "
                f"{sorted(needed)})"
            )
    manifest["kind"] = "ragmeter.judge_results"
    name = path.stem
    return Source(path.name, "judge", _judge_values(rows, name), None, rows, manifest)


def read_source(item: Any, position: int) -> Source:
    """The :class:`Source` of one input: a path, a result object or ``(name, results)``."""
    if isinstance(item, str | os.PathLike):
        return _read_path(Path(item))
    if isinstance(item, MultipleComparison | Comparison):
        kind = "ragmeter.multiple_comparison"
        if isinstance(item, Comparison):
            kind = "ragmeter.comparison"
        return Source(
            f"input {position + 1}", "comparison", _from_comparison(item), item, [], {"kind": kind}
        )
    name = None
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        name, item = item
    if type(item).__name__ == "JudgeResults" and hasattr(item, "to_records"):
        rows = item.to_records()
        label = name or f"judges {position + 1}"
        manifest = {"kind": "ragmeter.judge_results"}
        return Source(label, "judge", _judge_values(rows, label), None, rows, manifest)
    try:
        per = per_query_results(item, name)
    except InputTypeError:
        raise InputTypeError(
            f"results: item {position} is a {type(item).__name__}; pass paths of saved results, "
            "MultipleComparison, Comparison, JudgeResults or per-query results"
        ) from None
    label = per.name or name or f"system {position + 1}"
    return Source(
        label, "evaluation", {label: _shown(per.to_dict())}, None, [], {"kind": "per_query"}
    )
