"""Saved results read for the report: what each input holds, in one form.

Every input becomes a :class:`Source`: per-system per-query values (``{system: {metric:
{query_id: value}}}``), the comparison it carries (a :class:`~ragmeter.stats.MultipleComparison`
or :class:`~ragmeter.stats.Comparison`), the judge rows it carries, and a manifest entry. Nothing
is evaluated again: a comparison's p-values, intervals and effects are the ones it saved.

Inputs: paths of files ragmeter wrote, each read back through the file door
(:func:`ragmeter.io.read_saved`: the saved result type of its ``kind``, which refuses a file
that is not exactly what ragmeter writes, with its count and checksum checked; a file written
before saved results had them says so in its manifest entry): comparisons (``ragmeter compare
--format json``, ``compare_many(...).write``), evaluations (``ragmeter evaluate -q --format
json``, ``MetricResults.write``, ``RetrievalEvaluation.write``) and judge results
(``JudgeResults.write``, ``to_jsonl``, a judges' report of an earlier format), nugget banks
and assignments (``NuggetBank.write``, ``NuggetAssignments.write``: their runs' scores as the
values, the section's data from :mod:`._nuggets`), per-query values
(``PerQueryResults.write``, the gate's baselines); or the result objects themselves
(``MultipleComparison``, ``Comparison``, ``JudgeResults``, ``RunEvaluations``,
``RetrievalEvaluation`` and anything :func:`~ragmeter.per_query_results` reads, named). Every
system's values are read as :class:`~ragmeter.PerQueryResults` (the judges' through
:meth:`JudgeResults.per_query_results <ragmeter.judges.JudgeResults.per_query_results>`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import read_regular_text
from ..exceptions import InputTypeError, InvalidInputError
from ..io import read_systems
from ..io._formats import SAVED_SUFFIXES, harness_format, parse_saved_text
from ..io._saved import SAVED_KINDS, kind_of, saved_class, saved_format_of, saved_result_of
from ..judges.integrity import judge_report
from ..judges.results import JudgeResults
from ..nuggets import NuggetAssignments, NuggetBank
from ..per_query import per_query_results
from ..ranking import RunEvaluations
from ..stats.results import Comparison, MultipleComparison
from ._nuggets import nugget_block, nugget_title

__all__ = ["SAVED_TYPES", "Source", "read_source"]

Values = dict[str, dict[str, dict[str, float]]]

#: The saved result types the report reads, by the ``kind`` of their files (the file door's
#: one table, :data:`ragmeter.io._saved.SAVED_KINDS`), so the report shows only what ragmeter
#: wrote.
SAVED_TYPES: dict[str, type[Any]] = {kind: saved_class(kind) for kind in SAVED_KINDS}


@dataclass
class Source:
    """One input of the report."""

    name: str
    kind: str  # "comparison", "evaluation" or "judge"
    values: Values = field(default_factory=dict)
    comparison: MultipleComparison | Comparison | None = None
    judge_rows: list[dict[str, Any]] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    #: A judge result's integrity report (:func:`ragmeter.judges.judge_report`), as a dict.
    integrity: dict[str, Any] | None = None
    #: A judge result's samples by id (question, answer, contexts, reference), shown beside
    #: each row; empty for rows read without their samples (a JSONL of rows).
    judge_samples: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Per metric, the repeats' summary (:meth:`JudgeResults.repeat_summary`, as a dict) of a
    #: result judged several times per sample.
    judge_repeats: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Per metric, the agreement of a panel's judges (:meth:`JudgeResults.agreement`).
    judge_agreement: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: A nugget bank's or assignments' section data (:func:`._nuggets.nugget_block`).
    nuggets: dict[str, Any] | None = None


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


def _source_of(result: Any, name: str, label: str, manifest: dict[str, Any]) -> Source:
    """The source of a saved result (read from a file or given): ``name`` heads its section,
    ``label`` names its system where the result names none."""
    if isinstance(result, MultipleComparison | Comparison):
        return Source(name, "comparison", _from_comparison(result), result, [], manifest)
    if isinstance(result, RunEvaluations):
        return Source(name, "evaluation", _from_evaluations(result, name), None, [], manifest)
    if isinstance(result, JudgeResults):
        rows = result.to_records()
        values = {label: _shown(result.per_query_results(label).to_dict())}
        integrity = judge_report(result).to_dict()
        samples = {str(sample.id): sample.to_dict() for sample in result.samples}
        return Source(
            name,
            "judge",
            values,
            None,
            rows,
            manifest,
            integrity,
            judge_samples=samples,
            judge_repeats=result.repeat_summaries(),
            judge_agreement=result.panel_agreements(),
        )
    if isinstance(result, NuggetAssignments | NuggetBank):
        scored = result.scores() if isinstance(result, NuggetAssignments) else None
        runs = scored.all_per_query_results() if scored is not None else {}
        values = {run: _shown(per.to_dict()) for run, per in runs.items()}
        return Source(name, "nuggets", values, None, [], manifest, nuggets=nugget_block(result))
    per = per_query_results(result)
    label = per.name or label
    return Source(name or label, "evaluation", {label: _shown(per.to_dict())}, None, [], manifest)


def _manifest(path: Path, data: bytes) -> dict[str, Any]:
    return {"input": path.name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _values_file(path: Path) -> Source:
    """A file of per-item values that is not a saved result (a table, another harness's
    result file), read through :func:`ragmeter.io.read_systems`: each of its systems."""
    systems = read_systems(path)
    with open(path, "rb") as handle:
        manifest = _manifest(path, handle.read())
    first = next(iter(systems.values()))
    manifest["kind"] = f"per-item values ({first.manifest.producer})"
    values = {name: _shown(per.to_dict()) for name, per in systems.items()}
    return Source(path.name, "evaluation", values, None, [], manifest)


def _read_path(path: Path) -> Source:
    if path.suffix.lower() not in SAVED_SUFFIXES:
        return _values_file(path)
    text = read_regular_text(path, "a saved result", "results")
    manifest = _manifest(path, text.encode("utf-8"))
    fmt = saved_format_of(str(path), text)
    data = parse_saved_text(text, fmt, str(path))
    if kind_of(data) is None and harness_format(data) is not None:
        # another harness's result file (a DeepEval run, promptfoo output, ...)
        return _values_file(path)
    saved = saved_result_of(data, str(path), fmt)
    # The manifest says when a file could not be verified (written before saved results had
    # a checksum): its values are shown as read.
    manifest["kind"] = saved.kind if saved.verified else f"{saved.kind} (unverified: no checksum)"
    return _source_of(saved.result, path.name, path.stem, manifest)


def read_source(item: Any, position: int) -> Source:
    """The :class:`Source` of one input: a path, a result object or ``(name, results)``."""
    if isinstance(item, str | os.PathLike):
        return _read_path(Path(item))
    name = None
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        name, item = item
    if isinstance(item, NuggetAssignments | NuggetBank):
        return _source_of(item, name or nugget_title(item), "", {"kind": item.KIND})
    if isinstance(item, MultipleComparison | Comparison | RunEvaluations):
        return _source_of(item, name or f"input {position + 1}", "", {"kind": item.KIND})
    if isinstance(item, JudgeResults):
        label = name or f"judges {position + 1}"
        return _source_of(item, label, label, {"kind": item.KIND})
    try:
        return _source_of(item, "", name or f"system {position + 1}", {"kind": "per_query"})
    except InputTypeError:
        raise InputTypeError(
            f"results: item {position} is a {type(item).__name__}; pass paths of saved results, "
            "MultipleComparison, Comparison, JudgeResults or per-query results"
        ) from None
