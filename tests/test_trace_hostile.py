"""Hostile trace exports: every reader of a trace format (OTLP/JSON, Phoenix's spans, Langfuse
observations) and the tracing integration on top of it either read a file or refuse it with a
RagmeterError that is a ValueError or TypeError naming the file; never another exception, never
a hang (the architecture's third step for a new format: its hostile cases).

Each case is a file a user could hand over by mistake or that a tool could write damaged:
truncated, binary, empty, of the wrong JSON shape at every level, with ids and typed values of
the wrong kind, with scores that are no numbers.
"""

from __future__ import annotations

import json

import pytest

import ragmeter
from ragmeter.integrations import tracing

T = "5b8efff798038103d269b633813fc60c"
S = "eee19b7ec3c1b174"


def _otlp(span=None, *, resource=None, scope=None):
    if span is None:
        span = {"traceId": T, "spanId": S, "name": "r"}
    resource_spans = {"scopeSpans": [{"spans": [span]}] if scope is None else [scope]}
    if resource is not None:
        resource_spans["resource"] = resource
    return json.dumps({"resourceSpans": [resource_spans]})


def _retrieval(documents):
    return _otlp(
        {
            "traceId": T,
            "spanId": S,
            "name": "retrieve",
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "retrieval"}},
                {"key": "gen_ai.retrieval.documents", "value": {"stringValue": documents}},
            ],
        }
    )


def _langfuse(observation):
    return json.dumps({"data": [observation]})


def _phoenix(row):
    return json.dumps(row) + "\n"


CASES = {
    # any format
    "empty file": ("otlp", ""),
    "binary": ("otlp", b"\x00\x01\xff\xfe" * 64),
    "invalid utf-8 in json": ("otlp", b'{"resourceSpans": "\xff"}'),
    "truncated": ("otlp", _otlp()[:-7]),
    "a bare number": ("otlp", "42"),
    # OTLP/JSON: wrong shapes at every level
    "resourceSpans a string": ("otlp", json.dumps({"resourceSpans": "abc"})),
    "resourceSpans of numbers": ("otlp", json.dumps({"resourceSpans": [1, 2]})),
    "scopeSpans an object": ("otlp", json.dumps({"resourceSpans": [{"scopeSpans": {"a": 1}}]})),
    "scope of a list": ("otlp", _otlp(scope=[1])),
    "spans of strings": ("otlp", _otlp(scope={"spans": ["x"]})),
    "resource a list": ("otlp", _otlp(resource=[1])),
    "trace id a number": ("otlp", _otlp({"traceId": 7, "spanId": S})),
    "trace id short": ("otlp", _otlp({"traceId": "abcd", "spanId": S})),
    "no span id": ("otlp", _otlp({"traceId": T})),
    "attributes an object": ("otlp", _otlp({"traceId": T, "spanId": S, "attributes": {"a": 1}})),
    "attribute value a string": (
        "otlp",
        _otlp({"traceId": T, "spanId": S, "attributes": [{"key": "a", "value": "x"}]}),
    ),
    "doubleValue text": (
        "otlp",
        _otlp(
            {
                "traceId": T,
                "spanId": S,
                "attributes": [{"key": "a", "value": {"doubleValue": "abc"}}],
            }
        ),
    ),
    "doubleValue an object": (
        "otlp",
        _otlp(
            {"traceId": T, "spanId": S, "attributes": [{"key": "a", "value": {"doubleValue": {}}}]}
        ),
    ),
    "unknown value type": (
        "otlp",
        _otlp({"traceId": T, "spanId": S, "attributes": [{"key": "a", "value": {"x": 1}}]}),
    ),
    "events an object": ("otlp", _otlp({"traceId": T, "spanId": S, "events": {"a": 1}})),
    "events of numbers": ("otlp", _otlp({"traceId": T, "spanId": S, "events": [3]})),
    "documents not json": ("otlp", _retrieval("[{not json")),
    "documents a list of numbers": ("otlp", _retrieval("[1, 2]")),
    "document without id": ("otlp", _retrieval('[{"score": 1}]')),
    "document score text": ("otlp", _retrieval('[{"id": "d", "score": "high"}]')),
    "document score an object": ("otlp", _retrieval('[{"id": "d", "score": {"v": 1}}]')),
    "document id an object": ("otlp", _retrieval('[{"id": {"a": 1}}]')),
    "document metadata a list": ("otlp", _retrieval('[{"metadata": [1]}]')),
    # Langfuse
    "langfuse a list of numbers": ("langfuse", "[1, 2]"),
    "langfuse data of strings": ("langfuse", json.dumps({"data": ["x"], "traceId": "t"})),
    "langfuse no trace id": ("langfuse", _langfuse({"id": "o", "type": "RETRIEVER"})),
    "langfuse output of numbers": (
        "langfuse",
        _langfuse({"id": "o", "traceId": "t", "type": "RETRIEVER", "output": [1, 2]}),
    ),
    "langfuse output a string": (
        "langfuse",
        _langfuse({"id": "o", "traceId": "t", "type": "RETRIEVER", "output": "[{"}),
    ),
    "langfuse ids of objects": (
        "langfuse",
        _langfuse(
            {
                "id": {"a": 1},
                "traceId": [1],
                "parentObservationId": {"b": 2},
                "type": "RETRIEVER",
                "output": [{"id": "d"}],
            }
        ),
    ),
    "langfuse json lines broken": ("langfuse", '{"traceId": "t", "id": "o"}\n{"traceId"\n'),
    # Phoenix spans dataframe as JSON lines
    "phoenix no span id": ("phoenix", _phoenix({"context.trace_id": "t", "name": "r"})),
    "phoenix documents not a list": (
        "phoenix",
        _phoenix(
            {
                "context.trace_id": "t",
                "context.span_id": "s",
                "span_kind": "RETRIEVER",
                "attributes.openinference.span.kind": "RETRIEVER",
                "attributes.retrieval.documents": 5,
            }
        ),
    ),
    "phoenix documents of strings": (
        "phoenix",
        _phoenix(
            {
                "context.trace_id": "t",
                "context.span_id": "s",
                "attributes.openinference.span.kind": "RETRIEVER",
                "attributes.retrieval.documents": ["a", "b"],
            }
        ),
    ),
    "phoenix a row of a list": ("phoenix", "[1, 2]\n"),
}


def _outcome(call):
    """None when ``call`` reads the file, else the RagmeterError it raised (any other
    exception fails the test)."""
    try:
        call()
    except ragmeter.RagmeterError as error:
        assert isinstance(error, ValueError | TypeError), repr(error)
        return error
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_export_is_refused_naming_the_file_or_the_span(name, tmp_path):
    fmt, content = CASES[name]
    path = tmp_path / "export.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    for call in (
        lambda: ragmeter.io.read_spans(path, format=fmt),
        lambda: ragmeter.io.read_spans(path),
        lambda: tracing.samples_from_traces(path),
    ):
        _outcome(call)
    # Every case holds a defect a run cannot be made of: the run is refused, naming where.
    error = _outcome(lambda: tracing.run_from_traces(path))
    assert error is not None
    assert "export.jsonl" in str(error) or str(error).startswith("trace "), str(error)
