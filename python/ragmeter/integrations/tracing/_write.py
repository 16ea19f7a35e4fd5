"""Writing results back: ``gen_ai.evaluation.result`` events (OTLP/JSON logs) and Phoenix's
evaluation frames (see :mod:`ragmeter.integrations.tracing`)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..._core import __version__
from ..._files import atomic_write_text
from ..._optional import import_optional
from ...exceptions import InvalidInputError
from ...io import read_qrels
from ...manifest import measure_definition
from ...per_query import PerQueryResults, per_query_results
from ._read import (
    EVALUATION_EVENT,
    QueryKey,
    Retrieval,
    keyed_retrievals,
    retrieval_of,
    retrievals,
    span_rows,
    text_of,
    trace_roots,
)

__all__ = [
    "evaluation_events",
    "phoenix_document_evaluations",
    "phoenix_span_evaluations",
    "write_evaluation_events",
]


def _items(results: Any) -> list[tuple[str, str, float, str | None, str | None]]:
    """``(item, metric, value, label, explanation)`` of per-item results; a judge's failure
    is a value of NaN and the label ``"error"``."""
    records = getattr(results, "to_records", None)
    if callable(records) and not isinstance(results, PerQueryResults):
        found = []
        for row in records():
            status = str(row.get("status", "ok"))
            value = row.get("value")
            found.append(
                (
                    str(row.get("sample_id", row.get("id"))),
                    str(row.get("metric")),
                    math.nan if value is None else float(value),
                    None if status == "ok" else status,
                    text_of(row.get("reason") or row.get("error")),
                )
            )
        return found
    values = per_query_results(results)
    found = []
    for metric in values.metric_names:
        failed = set(values.failed.get(metric, ()))
        for item, value in values[metric].items():
            label = "error" if item in failed else ("undefined" if math.isnan(value) else None)
            found.append((str(item), metric, value, label, None))
    return found


def _attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        typed: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        typed = {"intValue": str(value)}
    elif isinstance(value, float):
        typed = {"doubleValue": value}
    else:
        typed = {"stringValue": str(value)}
    return {"key": key, "value": typed}


def _evaluatedspan_rows(
    traces: Any, query_id: QueryKey, document_id: str | None
) -> tuple[dict[str, Retrieval], dict[str, dict[str, Any]]]:
    spans = span_rows(traces)
    found = [r for span in spans if (r := retrieval_of(span, document_id)) is not None]
    return keyed_retrievals(found, spans, query_id), trace_roots(spans)


def evaluation_events(
    results: Any,
    traces: Any,
    *,
    query_id: QueryKey = "trace",
    document_id: str | None = None,
    time_unix_nano: int = 0,
) -> dict[str, Any]:
    """Results as OpenTelemetry ``gen_ai.evaluation.result`` events: an OTLP/JSON logs export.

    Each value becomes one log record with ``eventName`` ``gen_ai.evaluation.result``, the
    trace and span ids of the evaluated span (a ranking measure's: the retrieval span; any
    other metric's, a judge's: the trace's root span, which holds the answer) and the
    attributes ``gen_ai.evaluation.name`` (the metric), ``gen_ai.evaluation.score.value``
    (absent when undefined or failed), ``gen_ai.evaluation.score.label`` (``"error"`` for a
    failed judgement, ``"undefined"`` for an undefined value, a judge's status otherwise
    absent), ``gen_ai.evaluation.explanation`` (a judge's reason) and ``error.type`` (for a
    failure). Ids are hex, 64-bit integers text, as OTLP/JSON writes them.

    Parameters
    ----------
    results
        Per-item results: :class:`~ragmeter.PerQueryResults` (e.g. :func:`evaluate_traces`),
        :class:`~ragmeter.judges.JudgeResults` of :func:`samples_from_traces`' samples, or
        anything :func:`~ragmeter.per_query_results` reads.
    traces
        The trace export the items came from (its path or span rows).
    query_id, document_id
        As the items were made (:func:`run_from_traces`).
    time_unix_nano
        The events' time (default 0: unknown, so that the same results give the same bytes).

    Returns
    -------
    dict
        ``{"resourceLogs": [...]}``, JSON-ready.

    Raises
    ------
    InvalidInputError
        An item of the results that is none of the traces' items.
    """
    keyed, roots = _evaluatedspan_rows(traces, query_id, document_id)
    records = []
    for item, metric, value, label, explanation in _items(results):
        if item not in keyed:
            raise InvalidInputError(
                f"results: item {item!r} is none of the traces' items (query_id={query_id!r}); "
                f"they are e.g. {list(keyed)[:3]}"
            )
        retrieval = keyed[item]
        base = metric.split(" (")[0]
        if measure_definition(base) is not None:
            span_id = retrieval.span_id
        else:
            span_id = str(roots.get(retrieval.trace_id, {}).get("span_id", retrieval.span_id))
        attributes = [_attribute("gen_ai.evaluation.name", metric)]
        if not math.isnan(value):
            attributes.append(_attribute("gen_ai.evaluation.score.value", float(value)))
        if label is not None:
            attributes.append(_attribute("gen_ai.evaluation.score.label", label))
        if explanation:
            attributes.append(_attribute("gen_ai.evaluation.explanation", explanation))
        if label == "error":
            attributes.append(_attribute("error.type", "ragmeter.judge_failed"))
        records.append(
            {
                "timeUnixNano": str(time_unix_nano),
                "observedTimeUnixNano": str(time_unix_nano),
                "severityNumber": 9,
                "severityText": "INFO",
                "eventName": EVALUATION_EVENT,
                "traceId": retrieval.trace_id,
                "spanId": span_id,
                "attributes": attributes,
            }
        )
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": [_attribute("service.name", "ragmeter")]},
                "scopeLogs": [
                    {"scope": {"name": "ragmeter", "version": __version__}, "logRecords": records}
                ],
            }
        ]
    }


def write_evaluation_events(
    path: str | os.PathLike[str], results: Any, traces: Any, **options: Any
) -> Path:
    """Write :func:`evaluation_events` as an OTLP/JSON file (one export on one line, as the
    OpenTelemetry Collector's file exporter writes; its ``otlpjsonfile`` receiver reads it).

    Parameters
    ----------
    path
        The file (written atomically).
    results, traces, options
        As in :func:`evaluation_events`.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    export = evaluation_events(results, traces, **options)
    atomic_write_text(path, json.dumps(export, ensure_ascii=False, allow_nan=False) + "\n")
    return Path(path)


def _frame(rows: list[dict[str, Any]], index: list[str], caller: str) -> Any:
    pandas = import_optional("pandas", extra="otel", purpose=caller)
    frame = pandas.DataFrame(rows, columns=[*index, "score", "label", "explanation"])
    frame = frame.dropna(axis=1, how="all").set_index(index)
    return frame


def phoenix_span_evaluations(
    results: Any,
    traces: Any,
    metric: str,
    *,
    query_id: QueryKey = "trace",
    document_id: str | None = None,
) -> Any:
    """One metric's values as the frame of Phoenix's ``SpanEvaluations(eval_name, frame)``:
    index ``context.span_id`` (the evaluated span, as :func:`evaluation_events` chooses it),
    columns ``score``, ``label`` (a failure's or an undefined value's status) and
    ``explanation`` (a judge's reason), the columns without any value left out.

    Parameters
    ----------
    results, traces, query_id, document_id
        As in :func:`evaluation_events`.
    metric
        The metric.

    Returns
    -------
    pandas.DataFrame
        The frame (pandas: the ``otel`` extra).
    """
    keyed, roots = _evaluatedspan_rows(traces, query_id, document_id)
    rows = []
    for item, name, value, label, explanation in _items(results):
        if name != metric or item not in keyed:
            continue
        retrieval = keyed[item]
        if measure_definition(metric.split(" (")[0]) is not None:
            span_id = retrieval.span_id
        else:
            span_id = str(roots.get(retrieval.trace_id, {}).get("span_id", retrieval.span_id))
        rows.append(
            {
                "context.span_id": span_id,
                "score": None if math.isnan(value) else value,
                "label": label,
                "explanation": explanation,
            }
        )
    if not rows:
        raise InvalidInputError(f"metric: {metric!r} has no value for the traces' items")
    return _frame(rows, ["context.span_id"], "phoenix_span_evaluations")


def phoenix_document_evaluations(
    qrels: Any,
    traces: Any,
    *,
    relevance_threshold: float = 1,
    document_id: str | None = None,
) -> Any:
    """Judgments of the retrieved documents as the frame of Phoenix's
    ``DocumentEvaluations(eval_name, frame)``: index (``context.span_id``,
    ``document_position``: 0 for the first document retrieved), columns ``score`` (the
    grade) and ``label`` (``"relevant"`` when the grade is at least ``relevance_threshold``,
    else ``"irrelevant"``); a document without a judgment has no row (Phoenix then leaves the
    span's retrieval metrics undefined, as :func:`retrieved_list_ndcg` does).

    Parameters
    ----------
    qrels
        Judgments in any form :func:`ragmeter.io.read_qrels` reads, keyed by the items of
        ``query_id="trace"`` or ``"span"`` (both are tried).
    traces
        The trace export.
    relevance_threshold
        The grade from which a document is labelled relevant.
    document_id
        The metadata key of a document's id.

    Returns
    -------
    pandas.DataFrame
        The frame (pandas: the ``otel`` extra).
    """
    judged = {str(q): {str(d): g for d, g in docs.items()} for q, docs in read_qrels(qrels).items()}
    rows = []
    for retrieval in retrievals(traces, document_id=document_id):
        grades = judged.get(retrieval.trace_id) or judged.get(retrieval.span_id) or {}
        for position, document in enumerate(retrieval.documents):
            if document.id in grades:
                grade = float(grades[document.id])
                rows.append(
                    {
                        "context.span_id": retrieval.span_id,
                        "document_position": position,
                        "score": grade,
                        "label": "relevant" if grade >= relevance_threshold else "irrelevant",
                        "explanation": None,
                    }
                )
    return _frame(rows, ["context.span_id", "document_position"], "phoenix_document_evaluations")
