"""Reading trace exports: retrieval spans of the three conventions, as runs and samples
(see :mod:`ragmeter.integrations.tracing`)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ...exceptions import InputTypeError, InvalidInputError
from ...io import loads_json, read_spans
from ...judges.sample import Sample

__all__ = [
    "EVALUATION_EVENT",
    "PRODUCER",
    "Document",
    "Order",
    "QueryKey",
    "Retrieval",
    "json_value",
    "keyed_retrievals",
    "retrieval_of",
    "retrievals",
    "run_from_traces",
    "samples_from_traces",
    "span_rows",
    "text_of",
    "trace_roots",
]

#: The OpenTelemetry GenAI event of an evaluation result.
EVALUATION_EVENT = "gen_ai.evaluation.result"
#: What a manifest of values computed from traces calls its producer.
PRODUCER = "ragmeter.integrations.tracing"
_ID_KEYS = ("id", "doc_id", "document_id")
_CONTENT_KEYS = ("content", "page_content", "text")
QueryKey = str
Order = Literal["rank", "score"]


@dataclass(frozen=True)
class Document:
    """One retrieved document: its id, the score recorded (None when none was), its text."""

    id: str
    score: float | None = None
    content: str | None = None


@dataclass(frozen=True)
class Retrieval:
    """One retrieval span: where it is, its convention, its query and its documents in the
    order retrieved."""

    trace_id: str
    span_id: str
    convention: str
    query: str | None
    documents: tuple[Document, ...]
    attributes: Mapping[str, Any] = field(repr=False, default_factory=dict)


def span_rows(source: Any) -> list[dict[str, Any]]:
    """Span rows from a path (any trace export) or rows already read."""
    if isinstance(source, str | os.PathLike):
        return list(read_spans(source).rows)
    rows = getattr(source, "rows", source)
    if isinstance(rows, Sequence) and all(isinstance(r, Mapping) for r in rows):
        return [dict(r) for r in rows]
    raise InputTypeError(
        f"traces: expected the path of a trace export or its span rows "
        f"(ragmeter.io.read_spans), got {type(source).__name__}"
    )


def json_value(value: Any) -> Any:
    """An attribute that holds JSON text (OpenInference's metadata, GenAI's documents on a
    span) as its value; other values as they are."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return loads_json(value)
        except ValueError:
            return value
    return value


def text_of(value: Any) -> str | None:
    """A value as text (JSON for structures), None for None."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _number(value: Any, where: str) -> float | None:
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{where}: a document's score is {value!r}, not a number") from None
    if not math.isfinite(number):
        raise InvalidInputError(f"{where}: a document's score is {value!r}")
    return number


def _document(item: Mapping[str, Any], where: str, id_key: str | None) -> Document:
    """A document from ``{id, score, content, metadata}`` (any convention's keys)."""
    metadata = json_value(item.get("metadata"))
    metadata = metadata if isinstance(metadata, Mapping) else {}
    keys = (id_key,) if id_key else _ID_KEYS
    found = None if id_key else item.get("id")
    for key in keys:
        if found in (None, ""):
            found = metadata.get(key)
    if not isinstance(found, str | int | type(None)) or isinstance(found, bool):
        raise InvalidInputError(
            f"{where}: a retrieved document's id is {found!r:.80}, not text or an integer"
        )
    if found in (None, ""):
        raise InvalidInputError(
            f"{where}: a retrieved document has no id (nor {' or '.join(keys)} in its metadata); "
            "record the document's id, or name the metadata key that holds it (document_id=)"
        )
    score = item.get("score", metadata.get("score"))
    content = next((item[k] for k in _CONTENT_KEYS if item.get(k) is not None), None)
    return Document(str(found), _number(score, where), text_of(content))


def _openinference_documents(attributes: Mapping[str, Any]) -> Any:
    listed = json_value(attributes.get("retrieval.documents"))
    if listed is not None:
        if not isinstance(listed, list) or not all(isinstance(d, Mapping) for d in listed):
            return listed  # refused by retrieval_of, naming the span
        return [{k.removeprefix("document."): v for k, v in d.items()} for d in listed]
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if key.startswith("retrieval.documents."):
            index, _, rest = key[len("retrieval.documents.") :].partition(".")
            if index.isdigit() and rest.startswith("document."):
                found.setdefault(int(index), {})[rest[len("document.") :]] = value
    return [found[i] for i in sorted(found)] if found else None


def retrieval_of(span: Mapping[str, Any], id_key: str | None) -> Retrieval | None:
    attributes = span["attributes"]
    where = f"trace {span['trace_id']}, span {span['span_id']} ({span['name']!r})"
    items: Any = None
    if attributes.get("gen_ai.operation.name") == "retrieval" or (
        "gen_ai.retrieval.documents" in attributes
    ):
        convention, query = "gen_ai", attributes.get("gen_ai.retrieval.query.text")
        items = json_value(attributes.get("gen_ai.retrieval.documents")) or []
    elif str(attributes.get("openinference.span.kind", "")).upper() == "RETRIEVER" or (
        str(span.get("kind", "")).upper() == "RETRIEVER" and "langfuse.type" not in attributes
    ):
        convention, query = "openinference", attributes.get("input.value")
        items = _openinference_documents(attributes) or []
    elif "langfuse.type" in attributes:
        kind = str(attributes["langfuse.type"]).upper()
        output = json_value(attributes.get("output"))
        if isinstance(output, Mapping):
            output = output.get("documents", output.get("output"))
        named = "retriev" in str(span.get("name", "")).lower()
        if not (kind == "RETRIEVER" or (named and isinstance(output, list))):
            return None
        convention, query = "langfuse", attributes.get("input")
        items = [] if output is None else output
        if isinstance(query, Mapping):
            query = next((query[k] for k in ("query", "question", "input") if k in query), query)
    else:
        return None
    if not isinstance(items, list) or not all(isinstance(d, Mapping) for d in items):
        raise InvalidInputError(f"{where}: its retrieved documents are not a list of objects")
    documents = tuple(_document(d, where, id_key) for d in items)
    return Retrieval(
        str(span["trace_id"]),
        str(span["span_id"]),
        convention,
        text_of(query),
        documents,
        attributes,
    )


def retrievals(traces: Any, *, document_id: str | None = None) -> list[Retrieval]:
    """Every retrieval span of a trace export, in file order (see the module documentation).

    Parameters
    ----------
    traces
        The path of a trace export (OTLP/JSON, Phoenix's spans, Langfuse observations) or its
        span rows (:func:`ragmeter.io.read_spans`).
    document_id
        The metadata key that holds a document's id (default: the document's ``id``, else
        ``id``, ``doc_id`` or ``document_id`` of its metadata).

    Returns
    -------
    list of Retrieval
        The retrievals with their documents in the order retrieved.
    """
    spans = span_rows(traces)
    found = [r for span in spans if (r := retrieval_of(span, document_id)) is not None]
    return found


def trace_roots(spans: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The root span of each trace (the first without a parent)."""
    roots: dict[str, dict[str, Any]] = {}
    for span in spans:
        if not span.get("parent_id"):
            roots.setdefault(str(span["trace_id"]), span)
    return roots


def keyed_retrievals(
    found: list[Retrieval], spans: list[dict[str, Any]], query_id: QueryKey
) -> dict[str, Retrieval]:
    """The retrievals by item id (see the module documentation)."""
    roots = trace_roots(spans)
    keyed: dict[str, Retrieval] = {}
    for retrieval in found:
        if query_id == "trace":
            key: Any = retrieval.trace_id
        elif query_id == "span":
            key = retrieval.span_id
        else:
            key = retrieval.attributes.get(query_id)
            if key is None:
                key = roots.get(retrieval.trace_id, {}).get("attributes", {}).get(query_id)
            if key is None:
                raise InvalidInputError(
                    f"query_id: the retrieval span {retrieval.span_id} of trace "
                    f"{retrieval.trace_id} has no attribute {query_id!r} (nor has its root)"
                )
        key = str(key)
        if key in keyed:
            first = keyed[key]
            raise InvalidInputError(
                f"query_id={query_id!r}: {key!r} holds two retrievals (spans {first.span_id} "
                f"and {retrieval.span_id}); use query_id='span', or an attribute that tells "
                "them apart"
            )
        keyed[key] = retrieval
    return keyed


def run_from_traces(
    traces: Any,
    *,
    query_id: QueryKey = "trace",
    order: Order = "rank",
    document_id: str | None = None,
) -> dict[str, dict[str, float]]:
    """The run the traces record: ``{query_id: {doc_id: score}}``.

    Parameters
    ----------
    traces
        A trace export's path or its span rows.
    query_id
        ``"trace"`` (default), ``"span"`` or an attribute's name (module documentation).
    order
        ``"rank"`` (default: as retrieved, each document scored ``-position``) or
        ``"score"`` (the scores recorded; every document must have one).
    document_id
        The metadata key of a document's id (module documentation).

    Returns
    -------
    dict
        The run, which :func:`ragmeter.ranking_metrics`, :func:`ragmeter.io.evaluate` and the
        command read.

    Raises
    ------
    InvalidInputError
        No retrieval span, a document without an id, two retrievals for one query id, a
        missing score with ``order="score"``.
    """
    if order not in ("rank", "score"):
        raise InvalidInputError(f"order: 'rank' or 'score', got {order!r}")
    spans = span_rows(traces)
    found = [r for span in spans if (r := retrieval_of(span, document_id)) is not None]
    if not found:
        raise InvalidInputError(
            "traces: hold no retrieval span (OpenTelemetry GenAI retrieval, OpenInference "
            "RETRIEVER or a Langfuse retriever observation)"
        )
    run: dict[str, dict[str, float]] = {}
    for key, retrieval in keyed_retrievals(found, spans, query_id).items():
        ranked: dict[str, float] = {}
        for position, document in enumerate(retrieval.documents, 1):
            if document.id in ranked:
                continue  # retrieved twice: its first position
            if order == "score":
                if document.score is None:
                    raise InvalidInputError(
                        f"order='score': document {document.id!r} of span {retrieval.span_id} "
                        "has no score; use order='rank'"
                    )
                ranked[document.id] = document.score
            else:
                ranked[document.id] = float(-position)
        run[key] = ranked
    return run


def _root_value(root: Mapping[str, Any], *keys: str) -> str | None:
    attributes = root.get("attributes", {})
    for key in keys:
        value = json_value(attributes.get(key))
        if isinstance(value, Mapping):
            value = next(
                (
                    value[k]
                    for k in ("answer", "output", "question", "query", "input")
                    if k in value
                ),
                None,
            )
        if value is not None:
            return text_of(value)
    return None


def samples_from_traces(
    traces: Any, *, query_id: QueryKey = "trace", document_id: str | None = None
) -> list[Sample]:
    """The judges' samples the traces record: one per retrieval (module documentation).

    Parameters
    ----------
    traces
        A trace export's path or its span rows.
    query_id
        What a sample's id is (as in :func:`run_from_traces`).
    document_id
        The metadata key of a document's id.

    Returns
    -------
    list of Sample
        ``Sample(question, answer, contexts, id=...)``; the metadata holds the trace and span
        ids and the retrieved document ids.
    """
    spans = span_rows(traces)
    found = [r for span in spans if (r := retrieval_of(span, document_id)) is not None]
    roots = trace_roots(spans)
    samples = []
    for key, retrieval in keyed_retrievals(found, spans, query_id).items():
        root = roots.get(retrieval.trace_id, {})
        question = retrieval.query or _root_value(root, "input.value", "input")
        if question is None:
            raise InvalidInputError(
                f"trace {retrieval.trace_id}: no question (neither the retrieval's query nor "
                "the root span's input)"
            )
        answer = _root_value(root, "output.value", "output")
        samples.append(
            Sample(
                question,
                answer,
                tuple(d.content or "" for d in retrieval.documents),
                id=key,
                metadata={
                    "trace_id": retrieval.trace_id,
                    "span_id": retrieval.span_id,
                    "retrieved_ids": [d.id for d in retrieval.documents],
                },
            )
        )
    return samples
