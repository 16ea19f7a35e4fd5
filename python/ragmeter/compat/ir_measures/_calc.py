"""The evaluation under ragmeter.compat.ir_measures: ir_measures' rows (``Qrel``,
``ScoredDoc``, ``Metric``), its TREC readers, and the per-query values of measures given by
their ir_measures names, computed by ragmeter's core with each family's ir_measures provider
semantics."""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, NamedTuple

from ..._inputs import is_table
from ...exceptions import InputTypeError, InvalidInputError
from ...io import read_qrels, read_run
from ...ranking.evaluation import summary_value
from ...ranking.functions import ranking_metrics
from ...ranking.names import parse_measures

__all__ = [
    "CalcResults",
    "Metric",
    "Qrel",
    "ScoredDoc",
    "aggregate",
    "calculate",
    "per_query",
    "read_trec_qrels",
    "read_trec_run",
]


class Qrel(NamedTuple):
    """ir_measures' judgment row (``iteration``: the subtopic of diversity judgments)."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    """ir_measures' run row."""

    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    """One value of ``iter_calc``, as ir_measures' ``Metric``."""

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """ir_measures' ``calc`` result: the values over queries and the per-query rows."""

    aggregated: Any
    per_query: list[Metric]


def calculate(wanted: list[Any], qrels: Any, run: Any) -> CalcResults:
    """ir_measures' ``calc``: ``CalcResults({measure: value}, [Metric, ...])``."""
    rows = list(per_query(wanted, qrels, run))
    totals: dict[Any, list[float]] = {m: [] for m in wanted}
    for metric in rows:
        totals[metric.measure].append(metric.value)
    aggregated = {
        measure: summary_value(parse_measures(str(measure))[0], values)
        for measure, values in totals.items()
    }
    return CalcResults(aggregated, rows)


def _lines(source: str | IO[str], what: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of a path, a text with a newline, or an open file (as ir_measures
    reads them)."""
    if hasattr(source, "read"):
        yield from enumerate(source, start=1)
    elif isinstance(source, str):
        if "\n" in source:
            yield from enumerate(io.StringIO(source), start=1)
        else:
            opener: Any = gzip.open if source.endswith(".gz") else open
            with opener(source, "rt") as file:
                yield from enumerate(file, start=1)
    else:
        raise InputTypeError(
            f"{what}: expected a path, a text or an open file, got {type(source).__name__}"
        )


def read_trec_qrels(source: str | IO[str]) -> Iterator[Qrel]:
    """ir_measures' ``read_trec_qrels``: ``Qrel`` rows from a path (``.gz`` too), a text
    holding a newline, or an open file; a line without four fields raises naming it."""
    for number, line in _lines(source, "qrels"):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise InvalidInputError(
                f"qrels: line {number}: expected 'query_id iteration doc_id relevance', got "
                f"{line.strip()[:80]!r}"
            )
        query_id, iteration, doc_id, relevance = fields
        try:
            grade = int(relevance)
        except ValueError:
            raise InvalidInputError(
                f"qrels: line {number}: the relevance must be an integer, got {relevance!r}"
            ) from None
        yield Qrel(query_id, doc_id, grade, iteration)


def read_trec_run(source: str | IO[str]) -> Iterator[ScoredDoc]:
    """ir_measures' ``read_trec_run``: ``ScoredDoc`` rows of a TREC run (path, text or open
    file); a line without six fields raises naming it."""
    for number, line in _lines(source, "run"):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise InvalidInputError(
                f"run: line {number}: expected 'query_id Q0 doc_id rank score tag', got "
                f"{line.strip()[:80]!r}"
            )
        try:
            score = float(fields[4])
        except ValueError:
            raise InvalidInputError(
                f"run: line {number}: the score must be a number, got {fields[4]!r}"
            ) from None
        yield ScoredDoc(fields[0], fields[2], score)


def _judgments(data: Any, subtopics: bool) -> Any:
    """Judgments as ragmeter reads them; with ``subtopics`` (diversity measures) ir_measures'
    rows or tables with an ``iteration`` column become ``{query: {doc: {subtopic: grade}}}``."""
    if isinstance(data, Mapping):
        return data
    if is_table(data) and not (subtopics and "iteration" in getattr(data, "columns", ())):
        return read_qrels(data)
    rows = data.itertuples(index=False) if is_table(data) else data
    if not isinstance(rows, Iterable) or isinstance(rows, str | bytes):
        raise InputTypeError(
            f"qrels: expected a dict {{query_id: {{doc_id: relevance}}}}, a DataFrame or Qrel "
            f"rows, got {type(data).__name__}"
        )
    judged: dict[Any, dict[Any, Any]] = {}
    for row in rows:
        try:
            if subtopics:
                judged.setdefault(row.query_id, {}).setdefault(row.doc_id, {})[
                    str(getattr(row, "iteration", "0"))
                ] = row.relevance
            else:
                judged.setdefault(row.query_id, {})[row.doc_id] = row.relevance
        except AttributeError:
            raise InputTypeError(
                f"qrels: expected rows with query_id, doc_id and relevance (ir_measures' Qrel), "
                f"got {type(row).__name__}"
            ) from None
    return judged


def _run(data: Any) -> Any:
    if isinstance(data, Mapping):
        return data
    if is_table(data):
        return read_run(data)
    if isinstance(data, Iterable) and not isinstance(data, str | bytes):
        ranked: dict[Any, dict[Any, Any]] = {}
        for row in data:
            try:
                ranked.setdefault(row.query_id, {})[row.doc_id] = row.score
            except AttributeError:
                raise InputTypeError(
                    f"run: expected rows with query_id, doc_id and score (ir_measures' "
                    f"ScoredDoc), got {type(row).__name__}"
                ) from None
        return ranked
    raise InputTypeError(
        f"run: expected a dict {{query_id: {{doc_id: score}}}}, a DataFrame or ScoredDoc rows, "
        f"got {type(data).__name__}"
    )


def per_query(wanted: list[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every judged query and measure of ``wanted``
    (measure objects, whose ``str`` is their ir_measures name). As ir_measures: a judged query
    the run lacks scores 0 (NumQ 1), except for Accuracy, which leaves out the queries the
    run lacks and those where it is undefined."""
    parsed = {str(m): parse_measures(str(m))[0] for m in wanted}
    subtopics = any(p.family.subtopic_judgments for p in parsed.values())
    judged = _judgments(qrels, subtopics)
    ranked = _run(run)
    common = {q: ranked[q] for q in judged if q in ranked}
    values = None
    if common and wanted:
        values = ranking_metrics(
            {q: judged[q] for q in common},
            common,
            metrics=list(parsed),
            average=None,
            zero_division=float("nan"),
        )
    for query_id in judged:
        for measure in wanted:
            leave_out = parsed[str(measure)].family.name == "accuracy"
            if values is not None and query_id in common:
                value = float(values[str(measure)][query_id])
                if value != value:  # NaN: undefined
                    if leave_out:
                        continue
                    value = 0.0
                yield Metric(query_id, measure, value)
            elif leave_out:
                continue
            elif str(measure) == "NumQ":
                yield Metric(query_id, measure, 1.0)
            else:
                yield Metric(query_id, measure, 0.0)


def aggregate(wanted: list[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """``{measure: value over the queries per_query gives}``, formed as each family forms it
    (means; sums for counts; geometric means for gm_map)."""
    totals: dict[Any, list[float]] = {m: [] for m in wanted}
    for metric in per_query(wanted, qrels, run):
        totals[metric.measure].append(metric.value)
    return {
        measure: summary_value(parse_measures(str(measure))[0], values)
        for measure, values in totals.items()
    }
